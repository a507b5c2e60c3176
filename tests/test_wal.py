"""The store's WAL is checkpointed beside the writer (bot/store/wal.py), never lost, never unbounded."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from bot.store import wal
from bot.store.database import Store

ROW = 4000  # bytes a row: about a page


def write_rows(store: Store, rows: int, start: int = 0) -> None:
    with store.transaction() as db:
        db.execute("CREATE TABLE IF NOT EXISTS scratch (n INTEGER PRIMARY KEY, x BLOB)")
        db.executemany("INSERT INTO scratch VALUES (?, ?)", ((start + i, os.urandom(ROW)) for i in range(rows)))


def rows_in_file_alone(path: Path, tmp: Path) -> int:
    """Rows of `scratch` in the database file itself, without its WAL: what checkpoints copied.
    Copied while no checkpoint is writing it (the caller holds wal._CHECKPOINTING)."""
    copy = tmp / "alone.sqlite3"
    shutil.copyfile(path, copy)
    db = sqlite3.connect(copy)
    try:
        return db.execute("SELECT count(*) FROM scratch").fetchone()[0]
    except sqlite3.OperationalError:  # the table itself is not in the file yet
        return 0
    finally:
        db.close()


def wait_for(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def finishes(work, seconds: float = 30.0) -> bool:
    """Run `work` on a daemon thread: True if it returned within `seconds` (a hang fails
    the test instead of hanging the worker)."""
    done = threading.Event()
    threading.Thread(target=lambda: (work(), done.set()), daemon=True).start()
    return done.wait(seconds)


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "paperbot.sqlite3")
    yield store
    store.close()


def test_a_commit_past_the_threshold_returns_and_the_checkpoint_follows_beside_it(store, tmp_path):
    rows = 2 * wal.CHECKPOINT_BYTES // ROW
    with wal._CHECKPOINTING:  # the checkpointing thread cannot begin
        write_rows(store, rows)  # returns: the commit does not wait for a checkpoint
        assert rows_in_file_alone(store.path, tmp_path) == 0  # nor does one itself

    assert wait_for(lambda: store._checkpointer.checkpoints >= 1, seconds=30)
    with wal._CHECKPOINTING:
        assert rows_in_file_alone(store.path, tmp_path) == rows
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0


@pytest.mark.parametrize("thread", ["working", "stalled"])
def test_a_writer_that_never_stops_still_gets_its_log_restarted(tmp_path, monkeypatch, thread):
    monkeypatch.setattr(wal, "CHECKPOINT_BYTES", 256 * 1024)
    monkeypatch.setattr(wal, "WAL_LIMIT_BYTES", 2 << 20)
    if thread == "stalled":  # the writer alone keeps the log to its limit
        monkeypatch.setattr(wal.Checkpointer, "committed", lambda self: None)
    store = Store(tmp_path / "paperbot.sqlite3")
    largest = 0
    try:
        for n in range(40):  # ~10 MB in all, one transaction after another
            write_rows(store, 64, start=n * 64)
            largest = max(largest, os.stat(f"{store.path}-wal").st_size)
        worked = store._checkpointer.checkpoints
    finally:
        store.close()
    assert largest < (2 << 20) + 64 * 2 * ROW  # the limit and one transaction, not all of them
    assert (worked > 0) == (thread == "working")
    db = sqlite3.connect(tmp_path / "paperbot.sqlite3")
    assert db.execute("SELECT count(*) FROM scratch").fetchone()[0] == 40 * 64  # nothing lost
    db.close()


def test_a_reader_on_an_old_snapshot_holds_the_log_back_but_never_the_writer(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(wal, "CHECKPOINT_BYTES", 256 * 1024)
    monkeypatch.setattr(wal, "WAL_LIMIT_BYTES", 1 << 20)
    store = Store(tmp_path / "paperbot.sqlite3")
    write_rows(store, 8)
    reader = sqlite3.connect(store.path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM scratch").fetchone()[0] == 8  # holds this snapshot
        # ~3 MB past the snapshot: the log cannot restart, and the writes still go through
        assert finishes(lambda: [write_rows(store, 64, start=n * 64) for n in range(1, 13)])
        assert os.stat(f"{store.path}-wal").st_size > 2 << 20
        assert "a reader on an older snapshot" in caplog.text
        reader.execute("COMMIT")
        write_rows(store, 1, start=10_000)  # copies the rest; the next write restarts the log
        write_rows(store, 1, start=10_001)
        assert os.stat(f"{store.path}-wal").st_size < 1 << 20
    finally:
        reader.close()
        store.close()


@pytest.mark.parametrize("gone", ["closed", "died"])
def test_a_write_past_the_limit_never_waits_on_a_thread_that_is_gone(tmp_path, monkeypatch, gone):
    monkeypatch.setattr(wal, "CHECKPOINT_BYTES", 256 * 1024)
    monkeypatch.setattr(wal, "WAL_LIMIT_BYTES", 1 << 20)
    store = Store(tmp_path / "paperbot.sqlite3")
    checkpointer = store._checkpointer
    with wal._CHECKPOINTING:  # no checkpoint yet: the log is past its limit
        write_rows(store, 320)
        assert os.stat(f"{store.path}-wal").st_size >= wal.WAL_LIMIT_BYTES
        if gone == "closed":  # as at shutdown, with writes still coming
            threading.Thread(target=checkpointer.close, daemon=True).start()
        else:  # a thread that died: not closed, not alive
            checkpointer.close = lambda: None
            checkpointer._closed = True
    if gone == "died":
        checkpointer._thread.join(10)
        checkpointer._closed = False
    else:
        assert wait_for(lambda: not checkpointer._thread.is_alive())
    checkpointer._pending = True  # a request no thread will take
    assert finishes(lambda: [write_rows(store, 64, start=1000 + n * 64) for n in range(8)])
    store.close()


def test_a_fork_waits_for_the_checkpoint_under_way():
    wal._CHECKPOINTING.acquire()  # as the checkpointing thread holds it
    released = []

    def finish_checkpoint() -> None:
        time.sleep(0.3)
        released.append(time.monotonic())
        wal._CHECKPOINTING.release()

    finisher = threading.Thread(target=finish_checkpoint)
    finisher.start()
    try:
        pid = os.fork()
        if pid == 0:  # the child: SQLite's locks are free here
            code = 1
            try:
                code = 0 if wal._CHECKPOINTING.acquire(timeout=1) else 1
            finally:
                os._exit(code)
        forked = time.monotonic()
        _, status = os.waitpid(pid, 0)
    finally:
        finisher.join()
    assert released and forked >= released[0]
    assert os.waitstatus_to_exitcode(status) == 0
    assert wal._CHECKPOINTING.acquire(timeout=1)  # and the parent's is free again
    wal._CHECKPOINTING.release()


def test_closing_the_store_stops_its_checkpointing_thread(tmp_path):
    store = Store(tmp_path / "paperbot.sqlite3")
    write_rows(store, 2 * wal.CHECKPOINT_BYTES // ROW)
    thread = store._checkpointer._thread
    assert thread is not None and thread.is_alive()
    assert finishes(store.close)
    assert not thread.is_alive()


def test_a_store_dropped_unclosed_stops_its_thread(tmp_path):
    store = Store(tmp_path / "paperbot.sqlite3")
    write_rows(store, 2 * wal.CHECKPOINT_BYTES // ROW)
    thread = store._checkpointer._thread
    store._db.close()  # its connections, not its checkpointer
    store._reader.close()
    del store
    import gc

    gc.collect()
    thread.join(10)
    assert not thread.is_alive()
