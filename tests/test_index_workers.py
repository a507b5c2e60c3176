"""A `kill -9` of `python -m bot ingest` mid-index leaves no worker behind, and the next start
catches up; a lock still held by a dead writer's workers is recognised and cleared.

Real processes throughout: the CLI, its forked Whoosh workers, the process table (/proc).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.config import Settings
from bot.corpus import Corpus
from bot.ingest.listing import parse_text
from bot.search.index import LOCK_FILE
from bot.search.locks import HolderRecord

ROOT = Path(__file__).resolve().parent.parent
PAPERS = 5200  # above PaperIndex.batch_size (5000): the CLI forks a worker per core for it

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")


def listing(feed: str, start: int, count: int) -> str:
    records = [f"Worker Paper {n}\n工作进程论文 {n}\nAuthor {n % 97}\nAI总结 第 {n} 篇。\n" for n in range(start, start + count)]
    return f"{feed}\n\n" + "\n".join(records)


def env_for(data: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(PAPERBOT_DATA_DIR=str(data), PAPERBOT_SEEDS_DIR=str(ROOT / "seeds"))
    return env


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def is_live(pid: int) -> bool:
    """Running and not a zombie (a zombie holds no memory, files or locks)."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def run_cli(data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot", *args], env=env_for(data), capture_output=True, text=True, timeout=120)


def test_kill_9_of_ingest_mid_index_leaves_no_workers_and_the_next_start_catches_up(tmp_path):
    folder = tmp_path / "listings"
    folder.mkdir()
    for f in range(4):
        (folder / f"feed_{f}.txt").write_text(listing(f"Workers {f}", f * 1300, 1300), encoding="utf-8")
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "ingest", str(folder)], env=env_for(data),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        workers: list[int] = []

        def forked() -> bool:
            assert proc.poll() is None, "ingest finished before its workers were seen"
            workers[:] = children_of(proc.pid)
            # The index's workers, not the ones that parse the files before it: it lists them.
            holder = HolderRecord(data / "index", data / "index" / LOCK_FILE).read()
            return bool(workers) and bool(holder and holder["pid"] == proc.pid and holder["workers"])

        wait_until(forked, 90, "the ingest to fork its index workers")
        os.kill(proc.pid, signal.SIGKILL)  # the parent only, as `kill -9 PID` does
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    wait_until(lambda: not any(is_live(w) for w in workers), 5, f"workers {workers} to die with their parent")

    started = time.monotonic()
    stats = run_cli(data, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    assert "Traceback" not in stats.stderr
    assert "stopped without releasing it" in stats.stderr  # the killed writer's lock, recognised
    numbers = json.loads(stats.stdout)
    assert numbers["papers"] == PAPERS
    assert numbers["index"]["documents"] == PAPERS  # caught up from the store
    assert time.monotonic() - started < 60

    search = run_cli(data, "search", "Worker", "Paper", "5199", "--json")
    assert search.returncode == 0 and json.loads(search.stdout)["hits"][0]["title_en"] == "Worker Paper 5199"


@pytest.fixture
def behind(tmp_path) -> Settings:
    """A data folder whose index lags its store, so the next open must take the write lock."""
    settings = Settings(data_dir=tmp_path / "data", seeds_dir=tmp_path / "no-seeds")
    corpus = Corpus.open(settings)
    corpus.ingest_listing(parse_text(listing("Indexed", 0, 5), "indexed.txt"))
    corpus.store.ingest_listing(parse_text(listing("Behind", 5, 5), "behind.txt"))
    corpus.close()
    return settings


def hold_lock(lock_file: Path) -> subprocess.Popen:
    """A process holding the index's flock, as a worker left by an older paperbot did."""
    code = (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(lock_file)!r}, os.O_CREAT | os.O_WRONLY)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('locked', flush=True)\n"
        "time.sleep(120)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    return holder


def dead_pid() -> int:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


def test_a_lock_held_by_a_dead_writers_workers_is_cleared_with_a_log_line(behind):
    lock_file = behind.index_dir / LOCK_FILE
    holder = hold_lock(lock_file)
    try:
        (behind.index_dir / HolderRecord.NAME).write_text(json.dumps({"pid": dead_pid(), "workers": [holder.pid]}))
        stats = run_cli(behind.data_dir, "stats", "--json")
        assert stats.returncode == 0, stats.stderr
        assert f"held by worker processes {holder.pid} of writer" in stats.stderr and "stopping them" in stats.stderr
        assert holder.wait(timeout=5) == -signal.SIGKILL
        numbers = json.loads(stats.stdout)
        assert numbers["index"]["documents"] == numbers["papers"] == 10
        assert not (behind.index_dir / HolderRecord.NAME).exists()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


@pytest.mark.parametrize("case", ["writer alive", "no record", "pid not holding the lock"])
def test_a_lock_whose_holder_may_be_alive_is_never_taken(behind, case):
    lock_file = behind.index_dir / LOCK_FILE
    holder = hold_lock(lock_file)
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        record = HolderRecord(behind.index_dir, lock_file)
        if case == "writer alive":
            record.path.write_text(json.dumps({"pid": holder.pid, "workers": [holder.pid]}))
        elif case == "pid not holding the lock":  # a recycled pid: running, but not ours
            record.path.write_text(json.dumps({"pid": dead_pid(), "workers": [bystander.pid]}))
        assert record.reclaim() is False
        assert holder.poll() is None and bystander.poll() is None
    finally:
        for proc in (holder, bystander):
            proc.kill()
            proc.wait()


def test_a_forked_upsert_completes_and_leaves_no_process_behind(tmp_path):
    from bot.search.index import PaperIndex

    papers = [p for _, p in parse_text(listing("Forked", 0, 120), "forked.txt").records]
    index = PaperIndex(tmp_path / "index", procs=2, batch_size=50, segment_docs=25)
    index.rebuild([])
    try:
        assert index.upsert(p for p in papers) == 120  # batches of 50, 50 (forked) and 20
        assert index.state()[0] == 120
        assert index.search("Worker Paper 119").hits[0].id == papers[119].id
        assert [c for c in children_of(os.getpid()) if is_live(c)] == []
        assert not (tmp_path / "index" / HolderRecord.NAME).exists()
    finally:
        index.close()


def test_releasing_leaves_another_writers_record_alone(tmp_path):
    from bot.search.locks import HolderRecord

    record = HolderRecord(tmp_path, tmp_path / "LOCK")
    record.take()
    record.path.write_text('{"pid": 1, "workers": []}', encoding="utf-8")  # the next writer's, written meanwhile
    record.release()
    assert record.read() == {"pid": 1, "workers": []}
    record.take()
    record.release()  # our own goes
    assert record.read() is None
