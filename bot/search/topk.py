"""Top-k search with numpy over the index's raw-array postings (bot/search/codec.py).

Whoosh walks every match one Python call at a time (10–45 µs a match: `推理` is in 28%
of the benchmark's papers, so a million papers meant seconds). Here a query's posting
lists are read as arrays, BM25F is computed for all matches at once with Whoosh's own
formula and statistics (idf, average field length, each document's stored length), and
only the best `limit` are sorted (scores equal to 9 decimals tie, broken by document
number), so a word in 300,000 papers costs milliseconds and
the count of matches is exact.

Phrases are the exception: their candidates (documents with every word) are ranked by
score, which for a phrase equals its words' summed score, and checked against the words'
positions in that order until `limit` pass; the top results are then exactly the
exhaustive ranking's, and the count is an estimate from a sample of the rest unless
they were few enough to check (`TopK.estimated`).

`search()` returns None for anything it does not evaluate the way Whoosh would (a
segment in Whoosh's own posting format, a phrase that is optional or excluded, an
unknown query type): the caller then runs Whoosh's searcher, which gives the same
ranking slower. Ties rank by document number, as in Whoosh.
"""

from __future__ import annotations

import random
import struct
import threading
from dataclasses import dataclass
from pickle import load
from typing import Any

import numpy as np
from whoosh import query as wq
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3TermsReader
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25F
from whoosh.util.numeric import byte_to_length

from bot.errors import PaperbotError
from bot.search.codec import ARRAY_HEADER_MAGIC, numeric_column_bytes

_BYTE_TO_LENGTH = np.array([byte_to_length(i) for i in range(256)], dtype=np.float64)
_INT = struct.Struct("!i")
_EMPTY_IDS = np.zeros(0, dtype=np.int64)
_EMPTY_SCORES = np.zeros(0, dtype=np.float64)
EXACT_CHECKS = 400  # phrase candidates beyond the top this many are counted from a sample
SAMPLE_CHECKS = 200


class Unsupported(PaperbotError):
    """This query or segment is not evaluated here: use Whoosh's searcher."""


@dataclass
class TopK:
    """The best `limit` matches (global document numbers, best first) and how many matched."""

    docnums: list[int]
    scores: list[float]
    total: int
    estimated: bool = False


class SegmentCache:
    """Per-segment arrays that never change once a segment is written (lengths, columns).

    Keyed by segment id, so a refreshed searcher reuses what older ones read; entries for
    segments merged away are dropped when `retain()` is given the live ones.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._data: dict[tuple, np.ndarray] = {}
        self._live: set = set()

    def get(self, key: tuple, build) -> np.ndarray:
        with self._lock:
            found = self._data.get(key)
        if found is None:
            found = build()
            with self._lock:
                self._data[key] = found
        return found

    def retain(self, segment_ids: set) -> None:
        """Forget segments not in `segment_ids` (merged away, or from before a swap)."""
        with self._lock:
            if segment_ids == self._live:
                return
            self._live = set(segment_ids)
            for key in [k for k in self._data if k[0] not in segment_ids]:
                del self._data[key]


class _Match:
    """Matching documents of one segment: sorted local ids, their scores, and the matched terms' count."""

    __slots__ = ("ids", "scores", "nterms", "present")

    def __init__(
        self,
        ids: np.ndarray,
        scores: np.ndarray,
        nterms: np.ndarray | None = None,
        present: int = 0,
    ):
        self.ids = ids
        self.scores = scores
        # How many of the query's words match each document, and how many of its words this
        # segment has at all: what Whoosh's coordination bonus (Or with `scale`) is made of.
        self.nterms = nterms if nterms is not None else np.ones(len(ids), dtype=np.int32)
        self.present = present

    def take(self, keep) -> _Match:
        return _Match(self.ids[keep], self.scores[keep], self.nterms[keep], self.present)


_NONE = _Match(_EMPTY_IDS, _EMPTY_SCORES, np.zeros(0, dtype=np.int32))


class _Postings:
    """One word's posting list in one segment, read as arrays; positions read on demand."""

    __slots__ = (
        "ids",
        "weights",
        "_blocks",
        "_starts",
        "_postfile",
        "_format",
        "_offsets",
        "_inline_values",
    )

    def __init__(self, ids, weights, blocks, postfile, format_, inline_values=None):
        self.ids = ids
        self.weights = weights
        self._blocks = blocks  # (first index, data offset, count) of each block
        self._starts: Any = np.array([b[0] for b in blocks], dtype=np.int64) if blocks else None  # None: values inline
        self._postfile = postfile
        self._format = format_
        self._offsets: dict[int, np.ndarray] = {}
        self._inline_values = inline_values

    def positions(self, index: int) -> list[int]:
        if self._inline_values is not None:
            return self._format.decode_positions(self._inline_values[index])
        b = int(np.searchsorted(self._starts, index, side="right")) - 1
        first, dataoffset, n = self._blocks[b]
        offsets = self._offsets.get(b)
        if offsets is None:
            raw = self._postfile.get(dataoffset + 8 * n, 4 * (n + 1))
            offsets = self._offsets[b] = np.frombuffer(raw, dtype="<u4")
        i = index - first
        start = dataoffset + 8 * n + 4 * (n + 1)
        value = self._postfile.get(start + int(offsets[i]), int(offsets[i + 1] - offsets[i]))
        return self._format.decode_positions(value)


def _read_postings(leaf, fieldname: str, btext: bytes, format_) -> _Postings | None:
    terms = getattr(leaf, "_terms", None)
    if not isinstance(terms, W3TermsReader):
        raise Unsupported("not a Whoosh 3 segment")
    try:
        info = terms.term_info(fieldname, btext)
    except TermNotFound:
        return None
    if info.is_inlined():
        ids, weights, values = info.inlined_postings()
        return _Postings(
            np.asarray(ids, dtype=np.int64),
            np.asarray(weights, dtype=np.float32),
            [],
            None,
            format_,
            values,
        )
    offset, _ = info.extent()
    postfile = terms._postfile
    if postfile.get(offset, 4) != ARRAY_HEADER_MAGIC:
        raise Unsupported("a segment in Whoosh's own postings format")
    id_parts, weight_parts, blocks = [], [], []
    pos, first = offset + 4, 0
    while True:
        length = _INT.unpack(postfile.get(pos, 4))[0]
        postfile.seek(pos + 4)
        n = load(postfile.file)[0]
        dataoffset = postfile.tell()
        raw = postfile.get(dataoffset, 8 * n)
        id_parts.append(np.frombuffer(raw, dtype="<u4", count=n))
        weight_parts.append(np.frombuffer(raw, dtype="<f4", count=n, offset=4 * n))
        blocks.append((first, dataoffset, n))
        first += n
        if length < 0:
            break
        pos += 4 + length
    ids = id_parts[0] if len(id_parts) == 1 else np.concatenate(id_parts)
    weights = weight_parts[0] if len(weight_parts) == 1 else np.concatenate(weight_parts)
    return _Postings(ids.astype(np.int64), weights, blocks, postfile, format_)


class _Segment:
    """What evaluating a query over one segment needs."""

    def __init__(self, engine: _Engine, leaf, offset: int):
        self.engine = engine
        self.leaf = leaf
        self.offset = offset
        self.key = engine.segment_key(leaf)
        self.doccount = leaf.doc_count_all()
        # phrases to verify: (each word's postings, where each candidate is in them, the candidates)
        self.checks: list[tuple[list[_Postings], list[np.ndarray], np.ndarray]] = []

    def lengths(self, fieldname: str) -> np.ndarray:
        def build() -> np.ndarray:
            perdoc = self.leaf._perdoc
            reader = perdoc._cached_reader(f"_{fieldname}_len", LENGTHS_COLUMN)
            raw = np.zeros(self.doccount, dtype=np.uint8)
            if reader is not None and reader._count:
                data = reader._dbfile.get(reader._basepos, reader._count)
                raw[: reader._count] = np.frombuffer(data, dtype=np.uint8)
            return raw  # one byte a document, as Whoosh stores it; decoded for the matches only

        return self.engine.cache.get((self.key, "len", fieldname), build)

    def column(self, fieldname: str) -> np.ndarray:
        """The sortable numeric column of `fieldname` (Whoosh's encoding), default where absent."""
        return self.engine.cache.get((self.key, "col", fieldname), lambda: read_column(self.leaf, fieldname))

    def live(self) -> np.ndarray | None:
        """Sorted local ids of deleted documents, or None."""
        if not self.leaf.has_deletions():
            return None
        return np.fromiter(sorted(self.leaf._perdoc.deleted_docs()), dtype=np.int64)


def read_column(leaf, fieldname: str) -> np.ndarray:
    """One segment's sortable numeric column of `fieldname` (Whoosh's encoding), default where absent."""
    found = numeric_column_bytes(leaf, fieldname)
    if found is None:
        raise Unsupported(f"no column for {fieldname}")
    column, data = found
    dtype = np.dtype(">" + column._typecode)
    values = np.full(leaf.doc_count_all(), column._default, dtype=dtype)
    values[: len(data) // dtype.itemsize] = np.frombuffer(data, dtype=dtype)
    return values


def range_docnums(searcher, q: wq.NumericRange, *, cache: SegmentCache, segment_key) -> set[int]:
    """The documents (the searcher's docnums) in a numeric range, read from its column: the
    filter Whoosh's own search is given, since the range's field has no terms to look up."""
    engine = _Engine(searcher, cache, segment_key)
    if searcher.is_atomic():
        leaves = [(searcher.reader(), 0)]
    else:  # the searcher's own leaves: it may be a view of some segments (PaperIndex._newer_than)
        leaves = [(leaf.reader(), offset) for leaf, offset in searcher.leaf_searchers()]
    found: set[int] = set()
    for leaf, offset in leaves:
        if leaf.doc_count_all():  # an empty segment has no column
            found.update((engine._range(q, _Segment(engine, leaf, offset)).ids + offset).tolist())
    return found


class _Engine:
    def __init__(self, searcher, cache: SegmentCache, segment_key):
        self.searcher = searcher
        self.cache = cache
        self.segment_key = segment_key
        self.schema = searcher.schema
        weighting = searcher.weighting
        if type(weighting) is not BM25F:
            raise Unsupported("a weighting other than BM25F")
        self.weighting = weighting
        self._stats: dict[tuple[str, bytes], float] = {}

    def term_bytes(self, fieldname: str, text) -> bytes | None:
        if fieldname not in self.schema:
            return None
        try:
            return self.schema[fieldname].to_bytes(text)
        except ValueError:
            return None

    # -- evaluation, one segment at a time ----------------------------------------------

    def evaluate(self, q, seg: _Segment, required: bool, coordinated: bool = False) -> _Match:
        """Match `q` in `seg`. `required`: every result must match it (a phrase there is
        checked lazily, down the final ranking); `coordinated`: under an Or with `scale`."""
        kind = type(q)
        if kind is wq.Term:
            m = self._term(q.fieldname, q.text, seg)
        elif kind is wq.And:
            m = self._and([self.evaluate(s, seg, required, coordinated) for s in q.subqueries], seg.doccount)
        elif kind is wq.Or:
            m = self._or(
                [self.evaluate(s, seg, False, coordinated or bool(q.scale)) for s in q.subqueries],
                seg.doccount,
            )
            if q.scale and m.present:
                m = _coordinate(m, q.scale)
        elif kind is wq.AndNot:
            m = self._and_not(
                self.evaluate(q.a, seg, required, coordinated),
                self.evaluate(q.b, seg, False),
                seg.doccount,
            )
        elif kind is wq.Phrase:
            if q.slop != 1:
                raise Unsupported("a sloppy phrase")
            m = self._phrase(q, seg, lazy=required)
        elif kind is wq.NumericRange:
            if coordinated:
                raise Unsupported("a range under a coordinated Or")
            m = self._range(q, seg)
        else:
            raise Unsupported(kind.__name__)
        if q.boost != 1.0 and len(m.ids):
            m = _Match(m.ids, m.scores * q.boost, m.nterms, m.present)
        return m

    def _term(self, fieldname: str, text, seg: _Segment) -> _Match:
        btext = self.term_bytes(fieldname, text)
        if btext is None:
            return _NONE
        field = self.schema[fieldname]
        postings = _read_postings(seg.leaf, fieldname, btext, field.format)
        if postings is None or not len(postings.ids):
            return _NONE
        return _Match(postings.ids, self._score(fieldname, btext, field, postings, seg), present=1)

    def _score(self, fieldname: str, btext: bytes, field, postings: _Postings, seg: _Segment) -> np.ndarray:
        tf = postings.weights.astype(np.float64)
        if not field.scorable:
            return tf
        searcher = self.searcher
        key = (fieldname, btext)
        idf = self._stats.get(key)
        if idf is None:
            idf = self._stats[key] = searcher.idf(fieldname, btext)
        avgfl = searcher.avg_field_length(fieldname) or 1
        B = self.weighting._field_B.get(fieldname, self.weighting.B)
        K1 = self.weighting.K1
        fl = _BYTE_TO_LENGTH[seg.lengths(fieldname)[postings.ids]]
        # Whoosh's bm25(), operation for operation, so scores (and ties) match its own.
        return idf * ((tf * (K1 + 1)) / (tf + K1 * ((1 - B) + B * fl / avgfl)))

    @staticmethod
    def _and(parts: list[_Match], n: int) -> _Match:
        """Documents in every part, scores summed. Smallest part first: each further part
        only marks its documents in a bitmap of the segment's `n` (no sorting)."""
        present = sum(p.present for p in parts)
        parts = sorted(parts, key=lambda p: len(p.ids))
        ids, scores, nterms = parts[0].ids, parts[0].scores, parts[0].nterms
        for part in parts[1:]:
            if not len(ids):
                break
            keep = _marks(part.ids, n)[ids]
            ids, scores, nterms = ids[keep], scores[keep], nterms[keep]
            where = np.searchsorted(part.ids, ids)
            scores = scores + part.scores[where]
            nterms = nterms + part.nterms[where]
        if not len(ids):
            return _Match(_EMPTY_IDS, _EMPTY_SCORES, np.zeros(0, dtype=np.int32), present)
        return _Match(ids, scores, nterms, present)

    @staticmethod
    def _or(parts: list[_Match], n: int) -> _Match:
        """Documents in any part, scores summed: counted in arrays of the segment's `n`."""
        present = sum(p.present for p in parts)
        parts = [p for p in parts if len(p.ids)]
        if not parts:
            return _Match(_EMPTY_IDS, _EMPTY_SCORES, np.zeros(0, dtype=np.int32), present)
        if len(parts) == 1:
            return _Match(parts[0].ids, parts[0].scores, parts[0].nterms, present)
        all_ids = np.concatenate([p.ids for p in parts])
        all_scores = np.concatenate([p.scores for p in parts])
        all_terms = np.concatenate([p.nterms for p in parts])
        if len(all_ids) * 16 < n:  # few matches in a big segment: sorting them is cheaper
            ids, inverse = np.unique(all_ids, return_inverse=True)
            scores = np.bincount(inverse, weights=all_scores, minlength=len(ids))
            nterms = np.bincount(inverse, weights=all_terms, minlength=len(ids))
        else:
            counts = np.bincount(all_ids, minlength=n)
            ids = np.flatnonzero(counts)
            scores = np.bincount(all_ids, weights=all_scores, minlength=n)[ids]
            nterms = np.bincount(all_ids, weights=all_terms, minlength=n)[ids]
        return _Match(ids, scores, nterms.astype(np.int32), present)

    @staticmethod
    def _and_not(positive: _Match, negative: _Match, n: int) -> _Match:
        # Whoosh's coordination counts the excluded side's words among the query's words.
        present = positive.present + negative.present
        if not len(positive.ids) or not len(negative.ids):
            return _Match(positive.ids, positive.scores, positive.nterms, present)
        m = positive.take(~_marks(negative.ids, n)[positive.ids])
        return _Match(m.ids, m.scores, m.nterms, present)

    def _phrase(self, q: wq.Phrase, seg: _Segment, lazy: bool) -> _Match:
        fieldname = q.fieldname
        if fieldname not in self.schema or not self.schema[fieldname].format.supports("positions"):
            raise Unsupported("a phrase on a field without positions")
        field = self.schema[fieldname]
        words: list[_Postings] = []
        parts: list[_Match] = []
        for word in q.words:
            btext = self.term_bytes(fieldname, word)
            if btext is None:
                return _NONE
            postings = _read_postings(seg.leaf, fieldname, btext, field.format)
            if postings is None:
                return _NONE
            words.append(postings)
            parts.append(_Match(postings.ids, self._score(fieldname, btext, field, postings, seg), present=1))
        m = self._and(parts, seg.doccount)
        if len(m.ids) and len(words) > 1:
            check = (words, [np.searchsorted(w.ids, m.ids) for w in words], m.ids)
            if lazy:
                seg.checks.append(check)
            else:  # optional or excluded: whether it matches changes scores, so check every candidate now
                m = m.take(np.array([_in_sequence(check, i) for i in range(len(m.ids))], dtype=bool))
        return m

    def _range(self, q: wq.NumericRange, seg: _Segment) -> _Match:
        field = self.schema[q.fieldname] if q.fieldname in self.schema.names() else None
        if field is None or not hasattr(field, "to_column_value"):
            raise Unsupported("a range on a non-numeric field")
        values = seg.column(q.fieldname)
        keep = np.ones(len(values), dtype=bool)
        default = field.column_type._default
        keep &= values != default
        if q.start is not None:
            lo = field.to_column_value(q.start)
            keep &= (values > lo) if q.startexcl else (values >= lo)
        if q.end is not None:
            hi = field.to_column_value(q.end)
            keep &= (values < hi) if q.endexcl else (values <= hi)
        ids = np.flatnonzero(keep).astype(np.int64)
        # Whoosh scores a range as a constant (ConstantScoreQuery): its boost, applied by evaluate().
        return _Match(ids, np.ones(len(ids), dtype=np.float64)) if len(ids) else _NONE

    # -- verification ---------------------------------------------------------------------

    @staticmethod
    def passes(seg: _Segment, local: int) -> bool:
        """True if document `local` of `seg` has every pending phrase's words in sequence."""
        for check in seg.checks:
            cand = check[2]
            i = int(np.searchsorted(cand, local))
            if i >= len(cand) or cand[i] != local or not _in_sequence(check, i):
                return False
        return True


def _marks(ids: np.ndarray, n: int) -> np.ndarray:
    """A bitmap of a segment's `n` documents, set at `ids`."""
    marks = np.zeros(n, dtype=bool)
    marks[ids] = True
    return marks


def _in_sequence(check, i: int) -> bool:
    """True if candidate `i` of a phrase check has the phrase's words at consecutive positions."""
    words, where, _ = check
    starts = set(words[0].positions(int(where[0][i])))
    for k in range(1, len(words)):
        if not starts:
            return False
        following = set(words[k].positions(int(where[k][i])))
        starts = {p for p in starts if p + k in following}
    return bool(starts)


def _coordinate(m: _Match, scale: float) -> _Match:
    """Whoosh's CoordMatcher: favour documents matching more of an Or's words (its "SQR")."""
    termcount = m.present
    scores = (m.scores + ((m.nterms - 1) / (termcount - scale) ** 2)) * ((termcount - 1) / termcount)
    return _Match(m.ids, scores, m.nterms, m.present)


def search(searcher, q, *, limit: int, cache: SegmentCache, segment_key, filter=None, mask=None, exclude=None) -> TopK | None:
    """Return the top `limit` matches of `q`, or None if Whoosh's searcher must answer instead.

    `exclude`: sorted global document numbers left out (papers the asker may not see),
    dropped per segment as deletions are, before anything is counted.
    """
    try:
        return _search(
            searcher,
            q,
            limit=max(1, limit),
            cache=cache,
            segment_key=segment_key,
            filter=filter,
            mask=mask,
            exclude=exclude,
        )
    except Unsupported:
        return None


def _search(searcher, q, *, limit, cache, segment_key, filter, mask, exclude=None) -> TopK:
    engine = _Engine(searcher, cache, segment_key)
    reader = searcher.reader()
    leaves = list(reader.leaf_readers()) if not reader.is_atomic() else [(reader, 0)]
    cache.retain({segment_key(leaf) for leaf, _ in leaves})
    ids_parts, score_parts, pending = [], [], []
    for leaf, offset in leaves:
        if not leaf.doc_count_all():
            continue  # an empty index's reader has no segment at all
        seg = _Segment(engine, leaf, offset)
        m = engine.evaluate(q, seg, True)
        if not len(m.ids):
            continue
        if filter is not None:
            allowed = _plain(engine, filter, seg)
            m = m.take(_marks(allowed.ids, seg.doccount)[m.ids])
        if mask is not None and len(m.ids):
            m = engine._and_not(m, _plain(engine, mask, seg), seg.doccount)
        deleted = seg.live()
        if deleted is not None and len(m.ids):
            m = m.take(~_marks(deleted, seg.doccount)[m.ids])
        if exclude is not None and len(exclude) and len(m.ids):
            lo, hi = np.searchsorted(exclude, (offset, offset + seg.doccount))
            if hi > lo:
                m = m.take(~_marks(exclude[lo:hi] - offset, seg.doccount)[m.ids])
        if not len(m.ids):
            continue
        ids_parts.append(m.ids + offset)
        score_parts.append(m.scores)
        if seg.checks:
            pending.append((offset, offset + seg.doccount, seg))
    if not ids_parts:
        return TopK([], [], 0)
    docnums = np.concatenate(ids_parts)
    scores = np.concatenate(score_parts)
    if not pending:
        order = _best(docnums, scores, limit)
        return TopK(docnums[order].tolist(), scores[order].tolist(), len(docnums))
    return _verified(engine, docnums, scores, pending, limit)


def _plain(engine: _Engine, q, seg: _Segment) -> _Match:
    """Evaluate a filter or mask (a phrase there is checked for every candidate)."""
    return engine.evaluate(q, seg, False)


def _rank_key(scores: np.ndarray) -> np.ndarray:
    """Scores as ranked: equal up to rounding (sums taken in another order) is a tie,
    and ties go to the lower document number."""
    return np.round(scores, 9)


def _best(docnums: np.ndarray, scores: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the best `limit` (highest score, then lowest document number), in order."""
    scores = _rank_key(scores)
    if len(scores) > limit:
        threshold = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        chosen = np.flatnonzero(scores >= threshold)
    else:
        chosen = np.arange(len(scores))
    order = np.lexsort((docnums[chosen], -scores[chosen]))
    return chosen[order][:limit]


def _verified(engine: _Engine, docnums, scores, pending, limit: int) -> TopK:
    order = np.lexsort((docnums, -_rank_key(scores)))

    def check(docnum: int) -> bool:
        for start, end, seg in pending:
            if start <= docnum < end:
                return engine.passes(seg, docnum - start)
        return True  # a segment without phrase candidates has no candidates at all

    found: list[int] = []
    checked = 0
    for index in order:
        checked += 1
        if check(int(docnums[index])):
            found.append(int(index))
            if len(found) == limit:
                break
    rest = order[checked:]
    total, estimated = len(found), False
    if len(rest) and len(rest) <= EXACT_CHECKS:
        total += sum(1 for index in rest if check(int(docnums[index])))
    elif len(rest):
        # A sample of all the candidates, the same for every page of the query, so the
        # estimate does not change as the reader pages; never below what was found.
        sample = random.Random(len(order)).sample(range(len(order)), min(SAMPLE_CHECKS, len(order)))
        hits = sum(1 for i in sample if check(int(docnums[order[i]])))
        total = max(total + 1, round(len(order) * hits / len(sample)))
        estimated = True
    return TopK([int(docnums[i]) for i in found], [float(scores[i]) for i in found], total, estimated)
