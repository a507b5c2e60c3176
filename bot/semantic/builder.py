"""Computes the papers' missing vectors in the background, newest first.

Never in the ingest path or a request: the scheduler runs `run_background` every minute
(bot/services.py, like the arXiv enricher) and `python -m bot vectors` runs `run` to the
end. Each batch is written as one chunk file (bot/semantic/vectors.py), so a restart, even
after kill -9, resumes with the papers that have no vector yet; until a paper has one it
is searched lexically, as every paper was before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.semantic.dupes import Duplicates
from bot.semantic.model import Encoder
from bot.semantic.text import paper_text, text_key
from bot.semantic.vectors import VectorStore
from bot.store.database import Store

logger = logging.getLogger(__name__)

BATCH = 64  # one chunk per batch: ~0.7 s of the encoder, lost at most by a kill
RUN_SECONDS = 50.0  # a background run yields the scheduler's thread before the next one is due


@dataclass
class BuildProgress:
    """How far the vectors are: shown by `python -m bot stats` and to admins."""

    papers: int  # in the store
    with_vectors: int  # with an up-to-date vector
    papers_per_second: float | None  # of the last run, when it embedded something

    @property
    def missing(self) -> int:
        return max(0, self.papers - self.with_vectors)

    def seconds_left(self) -> float | None:
        if not self.missing:
            return 0.0
        return self.missing / self.papers_per_second if self.papers_per_second else None


class VectorBuilder:
    """Finds papers without an up-to-date vector and computes theirs, newest first."""

    def __init__(
        self,
        store: Store,
        vectors: VectorStore,
        encoder: Encoder,
        *,
        duplicates: Duplicates | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.store = store
        self.duplicates = duplicates
        self.vectors = vectors
        self.encoder = encoder
        self._clock = clock
        self._lock = threading.Lock()  # one run at a time (the scheduler's job and the CLI's)
        self._rate: float | None = None
        self._stop = threading.Event()
        self._pending: list[str] | None = None
        self._pending_rev = -1

    def pending(self) -> list[str]:
        """Ids of papers whose vector is missing or stale, newest first.

        Read from the whole store once (a restart's resume), then only from the papers
        changed since (the store's revs), the newest going first.
        """
        _, rev = self.store.state()
        if self._pending is not None and rev == self._pending_rev:
            return self._pending
        have = self.vectors.keys()
        since = self._pending_rev if self._pending is not None else 0
        found: list[tuple[int, str]] = []
        for paper in self.store.iter_papers(since_rev=since) if since else self.store.iter_papers():
            if have.get(paper.id) != text_key(paper_text(paper)):
                found.append((paper.seq, paper.id))
        found.sort(reverse=True)
        fresh = [pid for _, pid in found]
        if self._pending is not None:
            known = set(fresh)
            fresh += [pid for pid in self._pending if pid not in known]
        self._pending, self._pending_rev = fresh, rev
        return self._pending

    def progress(self, *, count: bool = False) -> BuildProgress:
        """How far the vectors are. Cheap unless `count`: before the first run has listed the
        pending papers (a read of the whole store), the vectors on disk stand for the papers done."""
        papers, rev = self.store.state()
        if count or (self._pending is not None and self._pending_rev == rev):
            done = papers - len(self.pending())
        else:
            done = min(papers, len(self.vectors))
        return BuildProgress(papers=papers, with_vectors=done, papers_per_second=self._rate)

    def run(self, *, seconds: float | None = None, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed pending papers until none are left (or `seconds` pass); return how many."""
        if not self._lock.acquire(blocking=False):
            return 0
        try:
            return self._run(seconds, progress)
        finally:
            self._lock.release()

    def run_background(self) -> None:
        """The scheduler's job: a bounded run, then fold the chunks together when they are many."""
        try:
            done = self.run(seconds=RUN_SECONDS)
            if done:
                logger.info("vectors: embedded %d papers (%s left)", done, len(self._pending or []))
            if self.vectors.needs_compacting():
                self.vectors.compact()
        except Exception:  # a background job must never take the scheduler down
            logger.exception("computing vectors failed; the next run tries again")

    def stop(self) -> None:
        self._stop.set()

    def _run(self, seconds: float | None, progress: Callable[[int, int], None] | None) -> int:
        todo = list(self.pending())
        total, done = len(todo), 0
        started = self._clock()
        while todo and not self._stop.is_set():
            batch_ids, todo = todo[:BATCH], todo[BATCH:]
            papers = [p for p in self.store.get_many(batch_ids) if p is not None]
            texts = [paper_text(p) for p in papers]
            t0 = self._clock()
            vecs = self.encoder.encode(texts)
            self.vectors.add([p.id for p in papers], [text_key(t) for t in texts], vecs)
            elapsed = self._clock() - t0
            if self.duplicates is not None:
                self.duplicates.find(papers, self.vectors, self.store.now())
            if elapsed > 0 and papers:
                self._rate = len(papers) / elapsed
            done += len(batch_ids)
            self._pending = list(todo)
            if progress:
                progress(done, total)
            if seconds is not None and self._clock() - started >= seconds:
                break
        return done
