"""Writing index segments: Whoosh's segment writer with a posting pool built for bulk loads.

Profiled on a 20k-paper ingest, Whoosh's writer spent a fifth of its time on two things
that do not depend on the codec: sorting every posting (one 5-tuple each, ~156 a paper)
at commit, and looking up each posting's document length in the length column it had
just written (a seek and a read per posting). `PaperWriter` keeps the postings grouped
by term as they arrive (documents come in docnum order, so each term's list is already
sorted and only the distinct terms are sorted at commit) and reads each field's lengths
once. The segment it writes is the one Whoosh's writer writes, byte for byte: the same
postings reach the same codec in the same order.

Most of what was left was per token and per posting: a Token object and a generator
stage per word, Whoosh's format encoding each posting's positions, and at commit five
calls per posting through the codec's field writer. So the text fields (our analyzer,
Positions or Frequency format) take each document's terms straight from
`BilingualAnalyzer.index_terms`, encoded as the formats encode them, and at commit each
term's postings go to `ArrayPostingsWriter.add_postings` a block at a time. Anything
else (another analyzer or format, a pool that spilled to disk, Whoosh's codec) takes
Whoosh's own path. tests/test_segments.py compares the files with Whoosh's writer's.
"""

from __future__ import annotations

import json
import logging
import os
import time
from array import array
from collections.abc import Iterator
from contextlib import suppress
from heapq import merge
from pickle import dumps
from typing import Any

from whoosh.codec.whoosh3 import LENGTHS_COLUMN
from whoosh.formats import Frequency, Positions
from whoosh.index import TOC
from whoosh.system import pack_uint
from whoosh.util.numeric import byte_to_length
from whoosh.writing import PostingPool, SegmentWriter

from bot.child import run_in_child
from bot.search.analysis import BilingualAnalyzer
from bot.search.codec import ArrayCodec

logger = logging.getLogger(__name__)

_ONE_POSITION: dict[int, bytes] = {}  # Positions.encode([p]) by p: most postings have one
_PACKED = [pack_uint(n) for n in range(256)]  # Frequency.encode(n): a word's count in a document


def encode_positions(positions: list[int]) -> bytes:
    """Whoosh's Positions.encode: the count, then the pickled deltas."""
    if len(positions) == 1:
        found = _ONE_POSITION.get(positions[0])
        if found is None:
            found = _ONE_POSITION[positions[0]] = pack_uint(1) + dumps(positions, 2)
        return found
    deltas = [positions[0]]
    deltas.extend(b - a for a, b in zip(positions, positions[1:], strict=False))
    return pack_uint(len(deltas)) + dumps(deltas, 2)


class TermPool(PostingPool):
    """Whoosh's posting pool, holding postings grouped by (field, term) instead of in one list.

    Over its memory budget (`limitmb`, Whoosh's estimate of a posting's size) it spills a
    sorted run to disk as Whoosh's pool does, and merges the runs at commit.
    """

    def __init__(self, tempstore, segment, limitmb=128, **kwargs):
        super().__init__(tempstore, segment, limitmb=limitmb, **kwargs)
        self.terms: dict[tuple[str, bytes], tuple[array, array, list]] = {}
        self.unsorted: set[tuple[str, bytes]] = set()  # terms whose docnums came out of order
        self.texts: dict[str, dict[str, tuple[array, array, list]]] = {}  # add_terms': field -> text -> postings

    def add(self, item):
        fieldname, tbytes, docnum, weight, vbytes = item
        key = (fieldname, tbytes)
        lists = self.terms.get(key)
        if lists is None:
            self.fieldnames.add(fieldname)
            lists = self.terms[key] = (array("I"), array("d"), [])
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
                lists = terms[key] = (array("I"), array("d"), [])
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

    def add_terms(self, fieldname: str, docnum: int, terms: dict[str, list], positions: bool, boost: float) -> None:
        """Add one document's `BilingualAnalyzer.index_terms` of one field, encoded as
        Whoosh's Positions (positions=True) or Frequency format encodes them.

        Kept by term text, per field (one lookup a term); `_all_terms` gives them their
        (field, bytes) keys. UTF-8 keeps code point order, so the order is the same.
        Documents arrive in docnum order, so each term's list stays sorted. The memory
        estimate is per term (Whoosh's is per posting; it only decides when to spill).
        """
        table = self.texts.get(fieldname)
        if table is None:
            table = self.texts[fieldname] = {}
            self.fieldnames.add(fieldname)
        one = _ONE_POSITION
        new = 0
        for text, entry in terms.items():
            lists = table.get(text)
            if lists is None:
                lists = table[text] = (array("I"), array("d"), [])
                new += 1
            if positions:
                vbytes = one.get(entry[1]) if len(entry) == 2 else None
                if vbytes is None:
                    vbytes = encode_positions(entry[1:])
            else:
                vbytes = _PACKED[entry[1]] if entry[1] < 256 else pack_uint(entry[1])
            lists[0].append(docnum)
            lists[1].append(entry[0] * boost)
            lists[2].append(vbytes)
        self.currentsize += 80 * len(terms) + 140 * new
        if self.currentsize > self.limit:
            self.save()

    def _all_terms(self) -> dict[tuple[str, bytes], tuple]:
        """Every term's postings by (field, term bytes), `texts` folded into `terms`."""
        terms = self.terms
        for fieldname, table in self.texts.items():
            for text, lists in table.items():
                key = (fieldname, text.encode("utf-8"))
                have = terms.get(key)
                if have is None:
                    terms[key] = lists
                else:  # the same term reached both ways (a field given a token list once)
                    for column, more in zip(have, lists, strict=True):
                        column.extend(more)
                    self.unsorted.add(key)
        self.texts = {}
        return terms

    def _sorted(self):
        terms = self._all_terms()
        for key in sorted(terms):
            fieldname, tbytes = key
            docnums, weights, values = terms[key]
            rows: Iterator[tuple[Any, Any, Any]] = zip(docnums, weights, values, strict=True)
            if key in self.unsorted:
                rows = iter(sorted(rows))
            for docnum, weight, vbytes in rows:
                yield (fieldname, tbytes, docnum, weight, vbytes)

    def save(self):
        if self.terms or self.texts:
            path, f = self._new_run()
            self._write_run(f, self._sorted())
            self._add_run(path)
            self.terms, self.unsorted, self.texts = {}, set(), {}
        self.currentsize = 0

    def items(self):
        if not self.runs:
            return self._sorted()
        return merge(self._sorted(), *(self._read_run(path) for path in self.runs))


class _Lengths:
    """A per-document reader's field lengths, each field's column read once into a list.

    What Whoosh's `doc_field_length` reports: the byte-quantized length, None for zero,
    `default` for a field without a length column (asking it per posting cost a seek
    and a read, and a file-exists check for fields without one).
    """

    def __init__(self, reader, doc_count: int):
        self.reader = reader
        self.doc_count = doc_count
        self.fields: dict[str, list] = {}

    def doc_field_length(self, docnum, fieldname, default=0):
        return self.field(fieldname, default)[docnum]

    def field(self, fieldname, default=0) -> list:
        """Every document's length of `fieldname`."""
        lengths = self.fields.get(fieldname)
        if lengths is None:
            column = self.reader._cached_reader(f"_{fieldname}_len", LENGTHS_COLUMN)
            if column is None:
                lengths = [default] * self.doc_count
            else:
                lengths = [_BYTE_TO_LENGTH[b] if b else None for b in (column[d] for d in range(self.doc_count))]
            self.fields[fieldname] = lengths
        return lengths


_BYTE_TO_LENGTH = [byte_to_length(b) for b in range(256)]


RETIRED_FILE = ".retired.json"  # hidden: Whoosh's own clean-up passes over names starting with "."
RETIRED_GRACE_S = 60.0  # a segment's files outlive its leaving the index by this long
_wall = time.time  # (tests move it)


def commit_toc(writer, segments) -> None:
    """A writer's `_commit_toc`: write the index's new table of contents, then delete the
    files nothing will read any more.

    Whoosh deletes a segment's files as soon as a commit leaves it out (small segments
    are merged on every small upsert), but a search still on the version before opens
    some of them only when it first needs them: a search in flight beside an inbox file
    found no stored fields and failed. So a segment's files go only once it has been out
    of the index for RETIRED_GRACE_S (far longer than a search, and a lent searcher moves
    to the latest version first). Old tables of contents go at once, as in Whoosh: a
    reader that finds its own gone reads the next (see PaperSearcher.refresh).
    """
    TOC(writer.schema, segments, writer.generation).write(writer.storage, writer.indexname)
    try:
        clean_files_later(writer.storage, writer.indexname, writer.generation, segments)
    except Exception:  # the commit is done (its table of contents written): never report it failed
        logger.warning("could not delete the files the index no longer uses; the next commit tries again", exc_info=True)


def clean_files_later(storage, indexname: str, generation: int, segments) -> None:
    """Whoosh's clean_files, with a segment's files kept RETIRED_GRACE_S after it left."""
    now = _wall()
    live = {segment.segment_id() for segment in segments}
    tocs, names = TOC._pattern(indexname), TOC._segment_pattern(indexname)
    record = os.path.join(storage.folder, RETIRED_FILE)
    try:
        with open(record, encoding="utf-8") as f:
            retired = {str(k): float(v) for k, v in json.load(f).items()}
    except (OSError, ValueError, TypeError, AttributeError):  # none yet, or damaged: the grace starts again
        retired = {}
    doomed: list[str] = []
    files_of: dict[str, list[str]] = {}
    for filename in storage:
        if filename.startswith("."):
            continue
        if (toc := tocs.match(filename)) is not None:
            if int(toc.group(1)) != generation:
                doomed.append(filename)
        elif (seg := names.match(filename)) is not None and seg.group(1) not in live:
            files_of.setdefault(seg.group(1), []).append(filename)
    still = {}
    for name, files in files_of.items():
        since = retired.get(name, now)
        if now - since >= RETIRED_GRACE_S:
            doomed.extend(files)
        else:
            still[name] = since
    for filename in doomed:
        with suppress(OSError):  # gone already, or held open (on Windows): the next commit tries again
            storage.delete_file(filename)
    if still != retired:
        temporary = f"{record}.tmp"  # one writer at a time (the index's write lock): one name
        with open(temporary, "w", encoding="utf-8") as f:
            json.dump(still, f)
        os.replace(temporary, record)


class PaperWriter(SegmentWriter):
    """Whoosh's SegmentWriter with a TermPool and lengths read once per field (see module doc)."""

    _commit_toc = commit_toc

    def __init__(self, ix, **kwargs):
        super().__init__(ix, **kwargs)
        self.pool = TermPool(self._tempstorage, self.newsegment, limitmb=kwargs.get("limitmb", 128))
        self._direct: dict[str, tuple | None] = {}  # field -> (analyzer, positions?, field boost) or None

    def _direct_path(self, fieldname: str, field) -> tuple | None:
        """(analyzer, positions?, format boost) if the field's terms can come from index_terms."""
        if fieldname not in self._direct:
            analyzer, kind = getattr(field, "analyzer", None), type(field.format)
            positions = kind is Positions
            direct = None
            if (
                isinstance(analyzer, BilingualAnalyzer) and kind in (Positions, Frequency) and field.scorable
                and analyzer.indexes_directly(positions)
            ):  # fmt: skip
                direct = (analyzer, positions, field.format.field_boost)
            self._direct[fieldname] = direct
        return self._direct[fieldname]

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
                direct = self._direct_path(fieldname, field) if isinstance(value, str) else None
                if direct is not None:
                    analyzer, positions, format_boost = direct
                    length, terms = analyzer.index_terms(value, positions)
                    if format_boost != 1.0:
                        for entry in terms.values():
                            entry[0] *= format_boost
                    pool.add_terms(fieldname, docnum, terms, positions, boost)
                else:
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
        if isinstance(self.codec, ArrayCodec) and not self.pool.runs:
            _write_terms(self.fieldwriter, self.schema, lengths, self.pool)
        else:
            self.fieldwriter.add_postings(self.schema, lengths, self.pool.iter_postings())
        self.fieldwriter.close()
        if pdr is not None:
            pdr.close()


def _write_terms(fieldwriter, schema, lengths: _Lengths | None, pool: TermPool) -> None:
    """Whoosh's FieldWriter.add_postings over the pool, a term at a time instead of a posting at a time."""
    field = None
    terms = pool._all_terms()
    for key in sorted(terms):
        fieldname, tbytes = key
        if fieldname != field:
            if field is not None:
                fieldwriter.finish_field()
            field = fieldname
            fieldwriter.start_field(fieldname, schema[fieldname])
            field_lengths = lengths.field(fieldname) if lengths is not None else None
        docnums, weights, values = terms[key]
        if key in pool.unsorted:
            docnums, weights, values = (
                list(column) for column in zip(*sorted(zip(docnums, weights, values, strict=True)), strict=True)
            )
        fieldwriter.start_term(tbytes)
        fieldwriter._postwriter.add_postings(docnums, weights, values, field_lengths)
        fieldwriter.finish_term()
    if field is not None:
        fieldwriter.finish_field()


def write_segment(folder: str, schema, indexname: str, documents: list[dict], limitmb: int):
    """Write `documents` as the one segment of a new index in `folder`; return the segment."""
    import whoosh.index

    scratch = whoosh.index.create_in(folder, schema, indexname=indexname)
    writer = PaperWriter(scratch, limitmb=limitmb, compound=False, codec=ArrayCodec())
    try:
        for document in documents:
            writer.add_document(**document)
    except BaseException:
        writer.cancel()
        raise
    writer.commit(merge=False)
    (segment,) = scratch._segments()
    scratch.close()
    return segment


def write_segment_in_child(folder: str, schema, indexname: str, documents: list[dict], limitmb: int):
    """`write_segment` in a child process (bot/child.py): analysing a day's papers held the
    interpreter for seconds, and the searches running meanwhile waited on it (their p95
    doubled). Raises ChildFailed (or OSError if none can be started), or TimeoutError."""
    return run_in_child(
        f"{__name__}:write_segment", (folder, schema, indexname, documents, limitmb), what="the new papers' segment"
    )
