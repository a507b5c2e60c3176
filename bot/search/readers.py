"""Reading the index: searchers of its latest version, lent from a pool, kept fresh cheaply.

A search borrows a searcher (`SearcherPool.lend`) and gives it back. Whoosh's searchers
are not safe to share between threads and each holds open files, so the pool keeps as many
as there are concurrent searches (up to MAX_IDLE_SEARCHERS), never one per thread the HTTP
server ever started; opening one per query would cost more than the query.

A lent searcher must see the latest commit. Whoosh's own ways of making sure are what
this module works around:

- Asking Whoosh whether a searcher is current lists the index folder and matches every
  file name (1.3 ms a search at 1M papers). A folder whose modification time has settled
  (SETTLED_NS) and has not moved since a check is taken at its word instead, and listed
  at least every RECHECK_S anyway.
- Whoosh's Searcher.refresh() means to keep the readers of segments that did not change,
  but never finds them, so every commit reopened every segment in every searcher.
  PaperSearcher.refresh() keeps them, giving each the segment's new entry (its deletions).
- BM25F asks for a field's total length once per term and segment, and Whoosh sums it
  over every segment each time: PaperSearcher sums it once.

A rebuild swaps another directory in (bot/search/index.py): a new `epoch`, under which the
old directory's searchers are closed, not refreshed.
"""

from __future__ import annotations

import copy
import logging
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import whoosh.index
from whoosh.reading import EmptyReader, MultiReader, SegmentReader
from whoosh.searching import Searcher

from bot.errors import IndexUnusable
from bot.search.codec import numeric_column_bytes

logger = logging.getLogger(__name__)

MAX_IDLE_SEARCHERS = 8  # more concurrent searches than this open and close their own
# A folder last modified longer ago than this when it was checked is taken at its word: a
# commit adds a file to it, so the same modification time means the same version, and a
# search is spared Whoosh's check (listing the folder and matching every name: 1.3 ms a
# search at 1M papers, 256 files). A stamp newer than that is never recorded: a second
# change in the same clock tick (1 s on some file systems) would leave the time as it was.
SETTLED_NS = 2_000_000_000
# And the folder is listed at least this often anyway: a file system whose folder times
# lag (NFS's attribute cache, some FUSE mounts) costs at most this much staleness.
RECHECK_S = 1.0
_wall_ns, _monotonic = time.time_ns, time.monotonic  # the clocks SearcherPool.lend() reads (tests move them)


class PaperSearcher(Searcher):
    """A Whoosh searcher that sums each field's total length once, not once per term.

    BM25F asks the top-level searcher for a field's average length for every query term
    in every segment, and Whoosh answers by summing that field over all segments each
    time: with hundreds of segments that sum dominated author queries. A searcher sees
    one fixed index version, so the sum cannot change while it lives; `refresh()`
    returns a new searcher (of this class) when the index does.
    """

    def field_length(self, fieldname):
        if self.has_parent():
            return self.get_parent().field_length(fieldname)
        cache = self.__dict__.setdefault("_field_lengths", {})
        if fieldname not in cache:
            cache[fieldname] = self.reader().field_length(fieldname)
        return cache[fieldname]

    def refresh(self) -> PaperSearcher:
        """Return a searcher of the index's latest version (this one if it is the latest),
        keeping the readers of the segments it still has; this searcher is then done with.

        Whoosh's refresh() means to keep them, but files the old readers by the index's
        generation and looks them up by segment id, so it never finds one: after every
        commit each searcher opened every segment again (~4 ms at 1M papers), and its
        first searches paid again for what the readers had opened and cached since (their
        columns, stored fields, each field's lengths). A segment never changes once
        written, except for the documents deleted from it, which live in its entry in the
        index's table of contents: a kept reader is given the new entry. The new
        searcher shares the kept readers' open files with this one: close only the new
        one (as with Whoosh's refresh, this one must not be used again).
        """
        ix = self._ix
        if ix is None:
            raise ValueError("this searcher has no index to refresh from")
        old = self.reader()
        if ix.latest_generation() == old.generation():
            return self
        leaves = [old] if old.is_atomic() else [leaf for leaf, _ in old.leaf_readers()]
        kept = {leaf.segment().segment_id(): leaf for leaf in leaves if isinstance(leaf, SegmentReader)}
        for attempt in range(10):
            try:
                toc, readers = _readers_of_latest(ix, kept)
                break
            except OSError:
                # A commit removed the version just read (its table of contents, or a
                # segment it merged away): read the next one, as Whoosh's reader() does.
                if attempt == 9:
                    raise  # the caller keeps this version
                time.sleep(0.05)
        for segment in toc.segments:
            kept.pop(segment.segment_id(), None)
        for leaf in kept.values():  # merged away: nothing reads them any more
            leaf.close()
        if not readers:
            reader = EmptyReader(toc.schema)
        elif len(readers) == 1:
            reader = readers[0]
        else:
            reader = MultiReader(readers, generation=toc.generation)
        self.is_closed = True
        return PaperSearcher(reader, fromindex=ix, weighting=self.weighting)


class _Latest(NamedTuple):
    """One version of the index: its table of contents and a reader for each of its segments."""

    toc: whoosh.index.TOC
    readers: list[SegmentReader]


def _readers_of_latest(ix, kept: dict[str, SegmentReader]) -> _Latest:
    """The index's latest table of contents and a reader for each of its segments: one of
    `kept` where its segment is there (left in `kept`), else one opened now."""
    toc = ix._read_toc()
    readers, opened = [], []
    try:
        for segment in toc.segments:
            leaf = kept.get(segment.segment_id())
            if leaf is None:
                leaf = SegmentReader(ix.storage, toc.schema, segment, generation=toc.generation)
                opened.append(leaf)
            else:
                leaf = _with_segment(leaf, segment, toc.generation)
            readers.append(leaf)
    except BaseException:
        for leaf in opened:
            leaf.close()
        raise
    return _Latest(toc, readers)


def _with_segment(leaf: SegmentReader, segment, generation: int) -> SegmentReader:
    """`leaf` (its open files and caches) reading the index entry `segment` of its segment,
    which says which of its documents are deleted now. `leaf` itself is left as it was."""
    fresh = copy.copy(leaf)
    fresh._segment, fresh._gen = segment, generation
    fresh._perdoc = copy.copy(leaf._perdoc)
    fresh._perdoc._segment = segment
    return fresh


class FolderStamp(NamedTuple):
    """What the index folder looked like when it was checked."""

    inode: int  # another inode: another directory (a rebuild swapped it in)
    mtime_ns: int  # another time: a file came or went (a commit)


def folder_stamp(path: Path) -> FolderStamp | None:
    """The index folder's stamp, or None if it cannot be read."""
    try:
        st = path.stat()
    except OSError:
        return None
    return FolderStamp(st.st_ino, st.st_mtime_ns)


class IdleSearcher(NamedTuple):
    """A searcher in the pool, ready to lend, and the epoch (directory) it reads."""

    epoch: int
    searcher: PaperSearcher


class LatestSeen(NamedTuple):
    """The version last seen to be the latest, and the folder's stamp when it was."""

    folder: FolderStamp
    generation: int
    when: float  # _monotonic() then: after RECHECK_S the folder is listed again anyway


class SearcherPool:
    """The searchers of one index folder: lent to one search at a time, then kept for the next.

    `epoch` numbers the directories the pool has lent searchers of (`opened`); bot/search/
    index.py keys its other caches by it too. `lock` is the index's open lock: the pool's
    state changes under it along with the index it reads.
    """

    def __init__(self, path: Path, lock: threading.RLock):
        self.path = path
        self.lock = lock
        self.epoch = 0  # bumped whenever a different directory is swapped in
        self.inode: int | None = None  # of the directory last opened
        self.idle: list[IdleSearcher] = []
        self.latest: LatestSeen | None = None  # see lend()
        self.closed = True  # no index open: a searcher given back is closed, not kept

    def opened(self, inode: int | None) -> None:
        """(Under `lock`) the index was opened and its directory is `inode`."""
        if inode is None or inode != self.inode:
            # Another directory (a rebuild swapped in): pooled searchers and every
            # cache keyed by epoch start over. The same directory opened again (each
            # inbox scan's check) keeps them: its segments are the ones they describe.
            self.epoch += 1
            self.latest = None
        self.inode = inode
        self.closed = False

    def close(self) -> None:
        """(Under `lock`) close every idle searcher; those lent out are closed when given back."""
        for idle in self.idle:
            idle.searcher.close()
        self.idle.clear()
        self.closed = True

    @contextmanager
    def lend(self, index: Callable[[], whoosh.index.Index], reopen: Callable[[], None]) -> Iterator[PaperSearcher]:
        """Lend a searcher of the latest version, refreshed if the index changed; take it back afterwards.

        `index()` returns the open index (opening it if need be); `reopen()` opens it again
        when the folder is another directory than the one opened (another process rebuilt
        the index and swapped it in), which calls `opened`.
        """
        with self.lock:
            ix = index()
            now = _wall_ns()
            folder = folder_stamp(self.path)
            if folder is not None and folder.inode != self.inode:
                # Another process rebuilt the index and swapped the directory.
                reopen()
                ix = index()
            epoch = self.epoch
            idle = self.idle.pop() if self.idle else None
            latest = self.latest
            if folder is not None and now - folder.mtime_ns <= SETTLED_NS:
                folder = None  # too recent to vouch for the version seen now: check, record nothing
        searcher = None
        if idle is not None and idle.epoch == epoch:
            generation = idle.searcher.reader().generation()
            if (
                folder is not None and latest is not None and (latest.folder, latest.generation) == (folder, generation)
                and _monotonic() - latest.when < RECHECK_S
            ):  # fmt: skip
                searcher = idle.searcher  # no file came or went since: no commit either
            else:
                try:
                    searcher = idle.searcher.refresh()
                except OSError:
                    logger.warning("index %s changed under us; using the previous version", self.path)
                    searcher = idle.searcher
                else:
                    self._seen_latest(epoch, folder, searcher)
        elif idle is not None:
            idle.searcher.close()
        if searcher is None:
            try:
                searcher = PaperSearcher(ix.reader(), fromindex=ix)
            except Exception as exc:
                raise IndexUnusable(f"cannot read the index at {self.path}: {exc!r}") from exc
            self._seen_latest(epoch, folder, searcher)
        try:
            yield searcher
        finally:
            with self.lock:
                if epoch == self.epoch and not self.closed and len(self.idle) < MAX_IDLE_SEARCHERS:
                    self.idle.append(IdleSearcher(epoch, searcher))
                    searcher = None
            if searcher is not None:
                searcher.close()

    def _seen_latest(self, epoch: int, folder: FolderStamp | None, searcher: PaperSearcher) -> None:
        """Record that `searcher` was the latest version when the folder was stamped `folder`
        (stamped before Whoosh looked, so a commit in between shows as another stamp; None:
        too recent a stamp, nothing recorded)."""
        with self.lock:
            if epoch == self.epoch:
                self.latest = None if folder is None else LatestSeen(folder, searcher.reader().generation(), _monotonic())


def segment_id(reader) -> str | None:
    segment = reader.segment()
    return segment.segment_id() if segment is not None else None


def column_max(leaf, fieldname: str) -> int:
    """The highest value of a sortable NUMERIC field in one segment (0 if it holds none),
    from its column: one read, and a max in C (without numpy, which a CLI need not load)."""
    found = numeric_column_bytes(leaf, fieldname)
    if found is None:
        return 0  # an empty index's reader, or a segment without the column
    column, data = found
    values = array(column._typecode, data)
    if sys.byteorder == "little":
        values.byteswap()  # Whoosh writes the column big-endian
    default = column._default  # what a document without the field holds
    top = max(values, default=None)
    if top == default:
        top = max((v for v in values if v != default), default=None)
    return int(leaf.schema[fieldname].from_column_value(top)) if top is not None else 0
