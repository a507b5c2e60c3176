"""Writing the index: worker processes, segments written aside, the merge policy, scratch.

PaperIndex (bot/search/index.py) decides what a write is (a rebuild, a day's file, a bulk
catch-up) and holds the locks; what does the writing is here:

- `open_writer`: a writer of plain (non-compound) segments in our postings format, in
  this process (PaperWriter, bot/search/segments.py) or in forked worker processes
  (_Workers) for a large write. Whoosh's MpWriter, which _Workers extends, left its
  workers alive, holding the write lock, after its parent was killed, and committed
  without the papers of a worker that died; its workers are fed pickled documents, where
  ours read their shares of the papers from the store themselves (`StoredPapers`) and
  count what the lexicon learns from them.
- `write_aside`: a day's file written as a segment of its own beside the index, with no
  lock held (in a child process in the server), then moved in (`move_segment`).
- `merge_tiny_segments`: the merge policy. Whoosh's own rewrote the whole index on a
  commit after a bulk load; this folds only small segments together.
- `learn`: what the lexicon learns from new papers, in a child process in the server.
- `sweep_scratch`: the scratch folders a killed process left beside the index.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing.connection
import os
import pickle
import queue
import shutil
import time
import uuid
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import whoosh.index
from whoosh.filedb.filestore import FileStorage
from whoosh.multiproc import MpWriter, SubWriterTask
from whoosh.reading import SegmentReader
from whoosh.searching import Searcher

from bot.child import die_with_parent, run_in_child
from bot.errors import ChildFailed, WorkerFailed
from bot.models import Paper
from bot.search.analysis import load_chinese
from bot.search.codec import ArrayCodec
from bot.search.lexicon import TermLearner, absorb_shares, affiliation_keys, learn_more
from bot.search.locks import HolderRecord
from bot.search.schema import INDEX_NAME, paper_document
from bot.search.segments import PaperWriter, commit_toc, write_segment, write_segment_in_child

logger = logging.getLogger(__name__)

_PROCESS_STARTED = time.time()  # (about) when this process started: see sweep_scratch
TINY_SEGMENT_DOCS = 1000  # segments smaller than this are merged on the next upsert
ASIDE_CHILD_DOCS = 500  # the server writes, and learns from, this many papers in a child process (write_aside, learn)
SEGMENT_DOCS = 50_000  # papers a worker puts in one segment during a bulk write
LIMIT_MB = 4096  # the writers' posting pool: a bulk segment's postings fit in it (see bench/RESULTS.md)
SERVER_SEGMENT_DOCS = 10_000  # in the serving process: ~120 MB of postings before a commit
SERVER_LIMIT_MB = 512


@dataclass(frozen=True)
class StoredPapers:
    """A bulk write's papers, read where they are stored by each worker process itself.

    `ranges` cut them into (after_rev, upto_rev] shares in rev order; `read(after, upto)`
    yields one share's papers in a forked worker (it must open its own connection, and
    be picklable: a module function or a partial of one). Feeding the workers
    documents from this process instead (Whoosh's MpWriter pickles each one) kept this
    process reading, building and pickling while the workers waited.
    """

    ranges: list[tuple[int, int]]
    read: Callable[[int, int], Iterable[Paper]]


def open_writer(
    ix: whoosh.index.Index, *, procs: int, limitmb: int, timeout: float = 0.0, record: HolderRecord | None = None, reader=None
):
    """Open a writer of `procs` processes sharing `limitmb`, writing plain (non-compound) segments.

    Compound segments are copied whole into RAM by every searcher that opens them
    (212 MB for 100k papers, per searcher); plain ones are memory-mapped. `procs`
    above 1 forks worker processes: only for large batches, and only where the
    caller said forking is safe (the CLI, not the threaded server). The workers die
    with this process (see _Workers). `record`, for the live index, notes who holds
    its lock (bot/search/locks.py); `reader`, a StoredPapers' `read`, is what the workers
    read their shares with (`add_share`).
    """
    kwargs = dict(
        timeout=timeout,
        limitmb=max(32, limitmb // procs),
        compound=False,
        codec=ArrayCodec(),
    )
    if procs > 1:
        load_chinese()  # before the workers fork: they share jieba's dictionary instead of each loading it
        writer = _Workers(
            ix, procs=procs, multisegment=True, on_worker=record.add_worker if record else None, reader=reader, **kwargs
        )
    else:
        writer = PaperWriter(ix, **kwargs)
    if record is not None:
        record.take()
    return writer


class _Worker(SubWriterTask):
    """A forked Whoosh indexing worker that dies with its parent and never holds the lock.

    Whoosh's workers wait on a queue forever and inherit the parent's open lock file:
    after a `kill -9` of the parent they lived on (parent pid 1, ~100 MB each) holding
    the index's write lock for good. Closing the inherited descriptor does not release
    the parent's flock (it is released when the last descriptor goes), but it means
    only the parent holds it.
    """

    def __init__(self, *args, lock_fd: int | None = None, reader=None, share: _ShareJob | None = None):
        super().__init__(*args)
        self.lock_fd = lock_fd
        self.reader = reader  # StoredPapers.read, for "share" jobs
        self.share = share  # its own share, handed to it as it starts (_Workers.add_share)
        self.shares: list[_Share] = []  # what _learn_share counts once the segment is written
        self.first_rev: int | None = None  # where its first share starts

    def run(self):
        die_with_parent()
        # The pool holds millions of postings until the commit, and each of the cyclic
        # collector's full passes walks them all: 13% of a 20k-paper segment's time.
        # Nothing this short-lived process builds needs it (reference counting frees
        # what it drops), and the process ends after its commit.
        gc.disable()
        if self.lock_fd is not None:
            with suppress(OSError):
                os.close(self.lock_fd)
        # Whoosh's SubWriterTask.run with our PaperWriter (bot/search/segments.py) for its SegmentWriter.
        ix = self.storage.open_index(self.indexname)
        writer = self.writer = PaperWriter(ix, _lk=False, **self.kwargs)
        if self.share is not None:
            self._index_share(*self.share)
        while self.running:
            job = self.jobqueue.get()
            if job is None:
                break
            if isinstance(job, _ShareJob):
                self._index_share(*job)
            else:
                self._process_file(*job)  # Whoosh's: a file of documents the parent added
        if not self.running:
            writer.cancel()
            return
        assert self.multisegment, "our workers always write their own segment"
        fieldnames = writer.pool.fieldnames
        segment = writer._finalize_segment()
        for share in self.shares:
            self._learn_share(share)
        # Whoosh's run name, unused with multisegment, says where the segment goes: its
        # first share's place (the parent orders segments as the papers are ordered).
        self.resultqueue.put(_Finished(self.first_rev, fieldnames, segment), timeout=5)

    def _index_share(self, after_rev: int, upto_rev: int, out: str) -> None:
        """Read a share of the papers from the store and index them; keep what the lexicon
        will learn from them (their titles and comments, their affiliations) and which
        papers were written, for `_learn_share` once the segment is written."""
        own: list[_Own] = []
        affiliations: dict[str, None] = {}
        written = []
        self.first_rev = after_rev if self.first_rev is None else min(self.first_rev, after_rev)
        for paper in self.reader(after_rev, upto_rev):
            self.writer.add_document(**paper_document(paper))
            if not paper.teams:  # only shared papers teach the lexicon (bot/store/visibility.py)
                own.append(_Own(paper.title_en, paper.title_zh, paper.comments))
                affiliations.update(dict.fromkeys(affiliation_keys(paper)))
            written.append((paper.id, paper.seq))
        self.shares.append(_Share(out, own, list(affiliations), written))

    @staticmethod
    def _learn_share(share: _Share) -> None:
        """Count what is the share's papers' own (TermLearner.observe_own) and save it in
        its `out` file with the rest, for the parent (TermLearner.absorb, delete_replaced). Learning
        as each paper was indexed made the indexing itself 20-30% slower (the two halves
        evicted each other's cached segmentations and memory)."""
        learner = TermLearner()
        for paper in share.own:
            learner.observe_own(paper)
        with open(share.out, "wb") as file:
            pickle.dump(ShareCounts(learner, share.affiliations, share.written), file, protocol=pickle.HIGHEST_PROTOCOL)


class _Own(NamedTuple):
    """What TermLearner.observe_own reads of a paper."""

    title_en: str
    title_zh: str
    comments: str


class _ShareJob(NamedTuple):
    """A share for a _Worker, handed to it as it starts or put on the workers' queue (where
    Whoosh's own jobs are (file, documents) tuples): index the papers in (after_rev,
    upto_rev] and count what the lexicon learns from them into `out`."""

    after_rev: int
    upto_rev: int
    out: str


class _Share(NamedTuple):
    """A share a _Worker indexed, and what it keeps of it until its segment is written."""

    out: str  # where its ShareCounts go
    own: list[_Own]
    affiliations: list[str]  # affiliation_keys, each once
    written: list[tuple[str, int]]  # (id, seq) of each paper written


class ShareCounts(NamedTuple):
    """What a worker saved of its share, for the parent: the lexicon's counts and what it wrote."""

    learner: TermLearner
    affiliations: list[str]
    written: list[tuple[str, int]]  # (id, seq): the versions this commit replaces (delete_replaced)


class _Finished(NamedTuple):
    """What a _Worker hands back: its segment, with Whoosh's run name, unused with
    multisegment, as its first share's `after_rev` (the segments are ordered by it)."""

    first_rev: int | None
    fieldnames: set
    segment: Any  # Whoosh's segment


def _load_share(path: Path) -> ShareCounts:
    """What a worker saved of its share (_Worker._learn_share)."""
    with path.open("rb") as file:
        return pickle.load(file)


def absorb_counts(lexicon: Path, counts: list[Path]) -> None:
    """Add what the workers counted into `counts` (their ShareCounts) to the lexicon at `lexicon`."""
    shares = (_load_share(path) for path in counts)
    absorb_shares(lexicon, ((share.learner, share.affiliations) for share in shares))


def written_by(counts: list[Path]) -> list[tuple[str, int]]:
    """The (id, seq) of the papers the workers that counted into `counts` wrote."""
    written: list[tuple[str, int]] = []
    for path in counts:
        written.extend(_load_share(path).written)
    return written


class _Workers(MpWriter):
    """Whoosh's multi-process writer, with _Worker processes that die with this one."""

    _commit_toc = commit_toc  # (bot/search/segments.py) a merged-away segment's files outlive the searches still reading it

    def __init__(self, ix, *, on_worker=None, reader=None, **kwargs):
        super().__init__(ix, **kwargs)
        self.on_worker = on_worker
        self.reader = reader
        self.before_merge: Callable | None = None  # called once the workers are done, before merging

    def _new_task(self, share: _ShareJob | None = None):
        lock_fd = getattr(self.writelock, "fd", None)
        task = _Worker(
            self.storage, self.indexname, self.jobqueue, self.resultqueue, self.subargs, self.multisegment,
            lock_fd=lock_fd, reader=self.reader, share=share,
        )  # fmt: skip
        self.tasks.append(task)
        task.start()
        if self.on_worker:
            self.on_worker(task.pid)
        return task

    def add_share(self, after_rev: int, upto_rev: int, out: Path) -> None:
        """Have a worker read, index and learn from the papers in (after_rev, upto_rev].

        Each of the first `procs` shares starts a worker of its own and is handed to it as
        it starts (a commit of upsert_stored has at most `procs`); any later one goes on
        the queue, to whichever worker asks first. Put on that queue, a share went to the
        worker that had started first and finished its own, when another worker had not
        started yet (forking is slower on a busy machine): one segment of both, twice
        `segment_docs` in one worker's memory budget, written while the other waited.
        """
        share = _ShareJob(after_rev, upto_rev, str(out))
        if len(self.tasks) < self.procs:
            self._new_task(share)
        else:
            self.jobqueue.put(share)
        self._added_sub = True

    def _commit(self, mergetype, optimize, merge):
        # Whoosh's MpWriter._commit (multisegment), except that: a worker that died without
        # its segment fails the commit (Whoosh's commits without its papers), at once (the
        # others are stopped); and `before_merge` (deleting what the workers' papers
        # replace) runs once they are done, before tiny segments are folded in.
        if self.docbuffer:
            self._enqueue()
        for _ in self.tasks:
            self.jobqueue.put(None)
        running = {task.sentinel: task for task in self.tasks}
        while running:
            for sentinel in multiprocessing.connection.wait(list(running)):
                task = running.pop(sentinel)
                task.join()
                if task.exitcode:
                    running.clear()  # the rest are stopped by cancel() below
                    break
        results: list[_Finished] = []
        with suppress(queue.Empty):
            for _ in self.tasks:
                results.append(self.resultqueue.get(timeout=1))
        # The workers that died, not those still at work when one did (cancel() stops them).
        died = [task.exitcode for task in self.tasks if task.exitcode]
        if died or len(results) != len(self.tasks):
            how = ", ".join(f"killed by signal {-code}" if code < 0 else f"exit code {code}" for code in died)
            self.cancel()
            count = len(died) or len(self.tasks) - len(results)  # (or exited without handing back a segment)
            raise WorkerFailed(f"{count} of {len(self.tasks)} index workers died ({how or 'no exit code'})")
        # In the papers' order (workers finish in any order): docnums, and so the order of
        # equal scores, are then what one process writing them in turn would give.
        results.sort(key=lambda result: -1 if result.first_rev is None else result.first_rev)
        try:
            if self.before_merge is not None:
                self.before_merge(self)
            finalsegments = self._merge_segments(mergetype, optimize, merge)
            finalsegments += [result.segment for result in results if result.segment.doc_count_all()]  # (a share left empty)
            if self._added:
                finalsegments.append(self._finalize_segment())
            else:
                self._close_segment()
            self._commit_toc(finalsegments)
        except BaseException:
            self.cancel()  # nothing committed: the lock goes, and the index is as it was
            raise
        self._finish()

    def cancel(self):
        # Whoosh's cancel sets a flag in the parent's copy of each task, which the workers
        # never see: they would wait on their queue, and this process would hang at exit.
        try:
            super().cancel()
        finally:
            for task in self.tasks:
                if task.is_alive():
                    task.terminate()
                task.join(timeout=5)


def delete_replaced(
    writer, searcher: Searcher, papers: Iterable[tuple[str, int]], segment_rev: Callable[[SegmentReader], int]
) -> None:
    """Delete the indexed versions of `papers` (id, seq), which this commit writes again;
    `segment_rev(reader)` is a segment's highest rev (PaperIndex remembers them).

    A paper can only be in a segment holding a rev at or above its seq (its first
    rev), so it is looked up only in the segments written since it first arrived:
    none for a paper new to the index, the newest few for one listed again days
    later; and a term lookup says whether to read its postings at all. Looking every
    id up in every segment twice (to find it, then to delete it, through Whoosh's
    query layer) cost ~50 µs a segment: seconds per daily file at 1M (400 segments).
    """
    leaves = [(segment_rev(leaf.reader()), leaf.reader(), offset) for leaf, offset in searcher.leaf_searchers()]
    newest = max((rev for rev, _, _ in leaves), default=0)
    for paper_id, seq in papers:
        if seq > newest:
            continue  # first stored after everything indexed (a bulk load's papers): in no segment
        for rev, reader, offset in leaves:
            if (seq and rev < seq) or ("id", paper_id) not in reader:
                continue
            for docnum in reader.postings("id", paper_id).all_ids():  # deleted ones are left out
                writer.delete_document(offset + docnum)


def merge_tiny_segments(writer, segments):
    """A Whoosh merge policy: fold segments under TINY_SEGMENT_DOCS into the new one.

    Keeps the segment count from growing with every small ingest over the years,
    without ever rewriting the large segments a bulk load leaves.
    """
    keep = []
    for segment in segments:
        if segment.doc_count_all() < TINY_SEGMENT_DOCS:
            reader = SegmentReader(writer.storage, writer.schema, segment)
            writer.add_reader(reader)
            reader.close()
        else:
            keep.append(segment)
    return keep


def move_segment(folder: Path, segment, path: Path):
    """Move one segment's files from `folder` into the index at `path`; return the segment."""
    for name in segment.list_files(FileStorage(str(folder))):
        os.replace(folder / name, path / name)
    return segment


class Aside(NamedTuple):
    """A segment written beside the index (`write_aside`), to be moved into it."""

    folder: Path  # the scratch index it was written in: removed once the commit is done
    segment: object  # Whoosh's segment


def write_aside(path: Path, ix: whoosh.index.Index, documents: list[dict], *, limitmb: int, serving: bool) -> Aside:
    """Write `documents` as the one segment of a scratch index beside the index at `path`.

    Analysing and writing the postings is nearly all of an upsert's time (~3 s for a
    daily file of 1,000 papers), and needs no lock: the segment's files are moved into
    the index under the lock, by name (a segment's files are named after it, not after
    their folder). `serving` (procs == 1): the server, which writes a day's file in a
    child process.
    """
    folder = path.parent / f".{path.name}.aside-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    args = (str(folder), ix.schema, INDEX_NAME, documents, max(32, limitmb))
    try:
        # The serving process (procs == 1: threads answering searches) writes a day's
        # file in a child process; a CLI has no searches to keep waiting.
        if serving and len(documents) >= ASIDE_CHILD_DOCS:
            try:
                return Aside(folder, write_segment_in_child(*args))
            except TimeoutError:  # (an OSError) doing it again here would only double the wait
                raise
            except (OSError, ChildFailed) as exc:  # no child to be had, or it failed: do it here
                logger.warning("could not write the new papers' segment in a child process (%s); writing it here", exc)
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
        return Aside(folder, write_segment(*args))
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, mtime) of a file, None if it is missing: whether it was written since."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def learn(lexicon: Path, papers: list[Paper], *, serving: bool) -> None:
    """learn_more; the serving process (`serving`: procs == 1) learns from a day's file in a child process.

    Loading and saving what the lexicon learned (~3 s at 1M papers, 1.2 s + 1.7 s)
    held the interpreter from the searches running meanwhile.
    """
    if serving and len(papers) >= ASIDE_CHILD_DOCS:
        before = _stamp(lexicon)
        try:
            run_in_child("bot.search.lexicon:learn_more", (lexicon, papers), what="the lexicon's counts for the new papers")
            return
        except TimeoutError as exc:  # (an OSError) the papers are indexed; the lexicon only misses them
            logger.warning("%s; the lexicon misses these papers until the next `python -m bot reindex`", exc)
            return
        except (OSError, ChildFailed) as exc:  # no child to be had, or it failed: do it here
            if _stamp(lexicon) != before:  # it failed after saving them (at its exit): counted once is enough
                logger.warning("the child process learning from the new papers failed after saving (%s)", exc)
                return
            logger.warning("could not learn from the new papers in a child process (%s); learning here", exc)
    learn_more(lexicon, papers)


def sweep_scratch(path: Path) -> None:
    """Remove scratch folders (`.index.new-*` from rebuild, `.index.aside-*` from upsert,
    `.index.learn-*` from upsert_stored) that a killed process left beside the index:
    named by the pid that made them."""
    for folder in [found for kind in ("new", "aside", "learn") for found in path.parent.glob(f".{path.name}.{kind}-*")]:
        try:
            pid = int(folder.name.rsplit("-", 2)[-2])
        except (IndexError, ValueError):
            continue
        if pid == os.getpid():
            # Ours, unless it is older than this process: the same pid in an earlier life
            # (in a container the server is pid 1 on every start).
            try:
                if folder.stat().st_mtime >= _PROCESS_STARTED - 1:
                    continue
            except OSError:
                continue
            logger.info("removing %s, left by an earlier process with this pid", folder)
            shutil.rmtree(folder, ignore_errors=True)
            continue
        try:
            os.kill(pid, 0)
            continue  # still running: its folder is in use
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        logger.info("removing %s, left by process %d", folder, pid)
        shutil.rmtree(folder, ignore_errors=True)
