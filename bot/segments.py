"""Writing index segments: Whoosh's segment writer with a posting pool built for bulk loads.

Profiled on a 20k-paper ingest, Whoosh's writer spent a fifth of its time on two things
that do not depend on the codec: sorting every posting (one 5-tuple each, ~156 a paper)
at commit, and looking up each posting's document length in the length column it had
just written (a seek and a read per posting). `PaperWriter` keeps the postings grouped
by term as they arrive (documents come in docnum order, so each term's list is already
sorted and only the distinct terms are sorted at commit) and reads each field's lengths
once. The segment it writes is the one Whoosh's writer writes, byte for byte: the same
postings reach the same codec in the same order.
"""

from __future__ import annotations

from heapq import merge

from whoosh.writing import PostingPool, SegmentWriter


class TermPool(PostingPool):
    """Whoosh's posting pool, holding postings grouped by (field, term) instead of in one list.

    Over its memory budget (`limitmb`, Whoosh's estimate of a posting's size) it spills a
    sorted run to disk as Whoosh's pool does, and merges the runs at commit.
    """

    def __init__(self, tempstore, segment, limitmb=128, **kwargs):
        super().__init__(tempstore, segment, limitmb=limitmb, **kwargs)
        self.terms: dict[tuple[str, bytes], tuple[list, list, list]] = {}
        self.unsorted: set[tuple[str, bytes]] = set()  # terms whose docnums came out of order

    def add(self, item):
        fieldname, tbytes, docnum, weight, vbytes = item
        key = (fieldname, tbytes)
        lists = self.terms.get(key)
        if lists is None:
            self.fieldnames.add(fieldname)
            lists = self.terms[key] = ([], [], [])
            self.currentsize += 120 + len(fieldname) + 2 * len(tbytes)
        elif docnum < lists[0][-1]:  # a merged segment's postings may come after newer ones
            self.unsorted.add(key)
        lists[0].append(docnum)
        lists[1].append(weight)
        lists[2].append(vbytes)
        self.currentsize += 70 + len(vbytes or b"")
        if self.currentsize > self.limit:
            self.save()

    def add_field(self, fieldname: str, docnum: int, items, fieldboost: float, scorable: bool) -> int:
        """Add one document's postings of one field (`field.index()` items); return its length.

        What SegmentWriter.add_document does with each posting, without a call and a
        tuple per posting.
        """
        terms, unsorted = self.terms, self.unsorted
        length = size = 0
        for tbytes, freq, weight, vbytes in items:
            if scorable:
                length += freq
            key = (fieldname, tbytes)
            lists = terms.get(key)
            if lists is None:
                lists = terms[key] = ([], [], [])
                size += 120 + len(fieldname) + 2 * len(tbytes)
            elif docnum < lists[0][-1]:
                unsorted.add(key)
            lists[0].append(docnum)
            lists[1].append(weight * fieldboost)
            lists[2].append(vbytes)
            size += 70 + len(vbytes or b"")
        if size:
            self.fieldnames.add(fieldname)
        self.currentsize += size
        if self.currentsize > self.limit:
            self.save()
        return length

    def _sorted(self):
        for key in sorted(self.terms):
            fieldname, tbytes = key
            docnums, weights, values = self.terms[key]
            rows = zip(docnums, weights, values, strict=True)
            if key in self.unsorted:
                rows = iter(sorted(rows))
            for docnum, weight, vbytes in rows:
                yield (fieldname, tbytes, docnum, weight, vbytes)

    def save(self):
        if self.terms:
            path, f = self._new_run()
            self._write_run(f, self._sorted())
            self._add_run(path)
            self.terms, self.unsorted = {}, set()
        self.currentsize = 0

    def items(self):
        if not self.runs:
            return self._sorted()
        return merge(self._sorted(), *(self._read_run(path) for path in self.runs))


class _Lengths:
    """A per-document reader's field lengths, each field read once into a list."""

    def __init__(self, reader, doc_count: int):
        self.reader = reader
        self.doc_count = doc_count
        self.fields: dict[str, list] = {}

    def doc_field_length(self, docnum, fieldname, default=0):
        lengths = self.fields.get(fieldname)
        if lengths is None:
            read = self.reader.doc_field_length
            lengths = self.fields[fieldname] = [read(d, fieldname, default) for d in range(self.doc_count)]
        return lengths[docnum]


class PaperWriter(SegmentWriter):
    """Whoosh's SegmentWriter with a TermPool and lengths read once per field (see module doc)."""

    def __init__(self, ix, **kwargs):
        super().__init__(ix, **kwargs)
        self.pool = TermPool(self._tempstorage, self.newsegment, limitmb=kwargs.get("limitmb", 128))

    def add_document(self, **fields):
        # Whoosh's SegmentWriter.add_document, with the postings handed to the pool per field.
        self._check_state()
        perdocwriter, schema, docnum, pool = self.perdocwriter, self.schema, self.docnum, self.pool
        docboost = self._doc_boost(fields)
        fieldnames = sorted(name for name in fields if not name.startswith("_"))
        self._check_fields(schema, fieldnames)
        perdocwriter.start_doc(docnum)
        for fieldname in fieldnames:
            value = fields.get(fieldname)
            if value is None:
                continue
            field = schema[fieldname]
            length = 0
            if field.indexed:
                boost = self._field_boost(fields, fieldname, docboost)
                length = pool.add_field(fieldname, docnum, field.index(value), boost, field.scorable)
            if field.separate_spelling() or field.vector:
                raise NotImplementedError("PaperWriter writes no separate spelling field or term vectors")
            stored = fields.get(f"_stored_{fieldname}", value)
            perdocwriter.add_field(fieldname, field, stored if field.stored else None, length)
            column = field.column_type
            if column and stored is not None:
                perdocwriter.add_column_value(fieldname, column, field.to_column_value(stored))
        perdocwriter.finish_doc()
        self._added = True
        self.docnum += 1

    def _flush_segment(self):
        self.perdocwriter.close()
        pdr = self.per_document_reader() if self.codec.length_stats else None
        lengths = _Lengths(pdr, self.docnum) if pdr is not None else None
        self.fieldwriter.add_postings(self.schema, lengths, self.pool.iter_postings())
        self.fieldwriter.close()
        if pdr is not None:
            pdr.close()
