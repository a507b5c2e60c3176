"""Checkpointing the store's write-ahead log on a thread of its own, not inside a commit.

SQLite checkpoints the WAL inside the commit that takes it past 1,000 pages: it copies
the pages into the database file and syncs both, and the writer waits. Storing a bulk
ingest's files into a 1M-paper store, that was half the writer's wall time (0.135 ms a
paper, 0.073 ms with the checkpoint done beside it: bench/RESULTS.md). A `Checkpointer`
does the same checkpoint (PASSIVE: it never waits for, nor blocks, a reader or the
writer) on its own connection once a commit leaves the WAL past that size, while the
writer goes on. With `synchronous=NORMAL` a commit is on disk once a checkpoint has
synced the WAL, and a power loss can undo the commits since. Those syncs come once per
checkpoint: as often as before while writes are light, but under a bulk load requests
made during a checkpoint fold into the next one, so the window can be a few files longer.

A checkpoint never catches up with a writer that keeps writing, and the WAL restarts
from its beginning only once every frame is copied. So past `WAL_LIMIT_BYTES` the
writer waits for the checkpoint under way and finishes the copy itself, and its next
transaction restarts the log (`journal_size_limit` then truncates the file, so its size
says how much of it is still to copy). A reader still on an older snapshot can keep the
log from restarting, as it can with SQLite's own checkpoints; that is logged, not waited
for (the writer holds the store's lock meanwhile).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import weakref
from pathlib import Path

logger = logging.getLogger(__name__)

CHECKPOINT_BYTES = 1000 * 4096  # SQLite's own threshold: 1,000 pages of 4 KB
WAL_LIMIT_BYTES = 128 << 20  # past this the writer finishes the checkpoint itself

# Held through every checkpoint in this process; a fork waits for it. A child forked while
# another thread is inside SQLite (bot/search/writers.py's workers, bot/ingest/listing.py's parsers) could
# inherit one of SQLite's mutexes locked, and its own first query would hang on it.
_CHECKPOINTING = threading.Lock()
os.register_at_fork(before=_CHECKPOINTING.acquire, after_in_parent=_CHECKPOINTING.release, after_in_child=_CHECKPOINTING.release)


class Checkpointer:
    """Checkpoints one database's WAL on a thread of its own (started at the first need).

    Neither of its calls raises: a checkpoint that fails is logged and asked for again at
    the next commit, and SQLite's data is as safe as before it began.
    """

    def __init__(self, path: Path, writer: sqlite3.Connection, owner: object | None = None):
        """Take over the checkpoints of `writer` (the store's writing connection on `path`).
        `owner` (the Store): if it is dropped unclosed, the thread stops with it."""
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("PRAGMA journal_size_limit=0")
        self.path = path
        self.wal = Path(f"{path}-wal")
        self._cond = threading.Condition()
        self._pending = False  # a commit asked for a checkpoint the thread has not begun
        self._busy = False  # the thread is checkpointing
        self._closed = False
        self._thread: threading.Thread | None = None
        self.checkpoints = 0  # done by the thread (for tests and benchmarks)
        if owner is not None:
            weakref.finalize(owner, self.close)

    def _wal_size(self) -> int:
        try:
            return os.stat(self.wal).st_size
        except OSError:
            return 0

    def committed(self) -> None:
        """After a commit: have the thread checkpoint if the WAL has grown past CHECKPOINT_BYTES."""
        if self._wal_size() < CHECKPOINT_BYTES:
            return
        with self._cond:
            if self._closed:
                return
            if self._thread is None:
                thread = threading.Thread(target=self._run, name=f"checkpoint {self.path.name}", daemon=True)
                try:
                    thread.start()
                except RuntimeError as exc:  # no thread to be had: the next commit tries again
                    logger.warning("could not start checkpointing %s: %s", self.path.name, exc)
                    return
                self._thread = thread
            self._pending = True
            self._cond.notify_all()

    def before_write(self, db: sqlite3.Connection) -> None:
        """Before a write transaction on `db`: past WAL_LIMIT_BYTES, wait for the thread and
        copy the rest here, so this transaction starts the log again."""
        if self._wal_size() < WAL_LIMIT_BYTES:
            return
        with self._cond:
            while self._busy or (self._pending and self._running()):
                self._cond.wait(1.0)
        try:
            with _CHECKPOINTING:
                busy, log, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as exc:  # the write goes on; the next one tries again
            logger.warning("could not checkpoint %s: %s", self.path.name, exc)
            return
        if busy or log != copied:
            logger.warning(
                "%s: %d of %d WAL pages copied (a reader on an older snapshot?); the log grows until it can restart",
                self.path.name,
                copied,
                log,
            )

    def _running(self) -> bool:
        return not self._closed and self._thread is not None and self._thread.is_alive()

    def close(self) -> None:
        """Stop the thread once its checkpoint (if any) is done."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            while True:
                with self._cond:
                    while not self._pending and not self._closed:
                        self._cond.wait()
                    if self._closed:
                        self._pending = False
                        self._cond.notify_all()
                        return
                    self._pending = False
                    self._busy = True
                try:
                    with _CHECKPOINTING:
                        if db is None:  # mode=rw: a store deleted meanwhile is not made again, empty
                            db = sqlite3.connect(
                                f"{self.path.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None, timeout=30
                            )
                        db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.checkpoints += 1
                except sqlite3.Error as exc:  # the next commit asks again; SQLite's own data is safe
                    logger.warning("could not checkpoint %s: %s", self.path.name, exc)
                finally:
                    with self._cond:
                        self._busy = False
                        self._cond.notify_all()
        finally:
            if db is not None:
                with _CHECKPOINTING:
                    db.close()
