"""A killed ingest leaves whole files or none; a broken index is rebuilt from the store."""

from __future__ import annotations

import logging
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.config import Settings
from bot.corpus import Corpus
from bot.ingest.listing import parse_path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
PER_FILE = 300


def write_listings(folder: Path, files: int) -> None:
    folder.mkdir()
    for f in range(files):
        records = [
            f"Synthetic Paper {f} {n} on Speculative Decoding\n合成论文 {f} {n}：推测解码\nAuthor {n}, Writer {f}\n"
            f"机构 * Lab {f}（实验室{f}）\nAI总结 第 {n} 篇合成论文的摘要。\nComments ICML 2026\n"
            for n in range(PER_FILE)
        ]
        (folder / f"feed_{f:03d}.txt").write_text(f"Feed {f}\n\n" + "\n".join(records), encoding="utf-8")


def count_papers(db: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def start_ingest(data: Path, folder: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env["PAPERBOT_DATA_DIR"] = str(data)
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "ingest", str(folder)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def kill_when(proc: subprocess.Popen, ready) -> None:
    deadline = time.monotonic() + 60
    while not ready():
        assert proc.poll() is None, "ingest finished before it could be killed; make the input larger"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


@pytest.mark.parametrize("moment", ["while storing", "while indexing"])
def test_killed_ingest_keeps_whole_files_and_the_index_recovers(tmp_path, moment, caplog):
    files = 12
    folder = tmp_path / "listings"
    write_listings(folder, files)
    data = tmp_path / "data"
    db = data / "paperbot.sqlite3"
    proc = start_ingest(data, folder)
    if moment == "while storing":
        kill_when(proc, lambda: count_papers(db) > 0)
    else:
        kill_when(proc, lambda: count_papers(db) == files * PER_FILE)
    stored = count_papers(db)
    assert stored % PER_FILE == 0, f"a file was half stored: {stored} papers"
    assert 0 < stored <= files * PER_FILE

    with caplog.at_level(logging.INFO, logger="bot.corpus"):
        corpus = Corpus.open(Settings(data_dir=data, seeds_dir=SEEDS))
    try:
        assert corpus.index.state() == corpus.store.state()
        assert corpus.search("Synthetic Paper 0 7", per_page=1).hits[0].paper.title_en.startswith("Synthetic Paper 0 7 ")
        if stored < files * PER_FILE or moment == "while indexing":
            assert any("index" in r.getMessage() for r in caplog.records)
        # Ingesting the folder again completes the job without duplicates.
        corpus.ingest_paths([folder])
        assert corpus.store.state()[0] == files * PER_FILE
        assert corpus.index.state()[0] == files * PER_FILE
    finally:
        corpus.close()


@pytest.fixture
def seeded_settings(tmp_path) -> Settings:
    settings = Settings(data_dir=tmp_path / "data", seeds_dir=SEEDS)
    corpus = Corpus.open(settings)
    corpus.ingest_seeds_if_empty()
    corpus.close()
    return settings


def assert_healthy(settings: Settings) -> None:
    corpus = Corpus.open(settings)
    try:
        assert corpus.index.state()[0] == 97
        assert corpus.search("MineDraft").hits[0].paper.title_en.startswith("MineDraft")
    finally:
        corpus.close()


def test_corrupt_index_is_rebuilt_with_a_log_line(seeded_settings, caplog):
    for path in seeded_settings.index_dir.iterdir():
        if path.is_file():
            path.write_bytes(b"garbage" * 10)
    with caplog.at_level(logging.INFO, logger="bot.corpus"):
        assert_healthy(seeded_settings)
    assert any("rebuilding" in r.getMessage() for r in caplog.records)


def test_missing_index_is_rebuilt(seeded_settings, caplog):
    import shutil

    shutil.rmtree(seeded_settings.index_dir)
    with caplog.at_level(logging.INFO, logger="bot.corpus"):
        assert_healthy(seeded_settings)
    assert any("no index yet; building it" in r.getMessage() for r in caplog.records)


def test_index_of_another_store_is_rebuilt(seeded_settings):
    os.remove(seeded_settings.db_path)
    for suffix in ("-wal", "-shm"):
        Path(str(seeded_settings.db_path) + suffix).unlink(missing_ok=True)
    corpus = Corpus.open(seeded_settings)  # empty store, index with 97 documents
    try:
        assert corpus.index.state() == (0, 0)
        assert corpus.search("MineDraft").hits == []
    finally:
        corpus.close()


def test_ingest_while_another_process_holds_the_index_lock(seeded_settings, tmp_path, caplog):
    """The store keeps the papers; the index catches up once the lock is free."""
    from bot.feeds.inbox import scan_inbox_and_check_index
    from bot.search.index import PaperIndex

    corpus = Corpus.open(seeded_settings)
    corpus.index.writer_timeout = 0.2
    other = PaperIndex(seeded_settings.index_dir)._index().writer()  # the "other process"
    try:
        write_listings(tmp_path / "more", 1)
        listing = next((tmp_path / "more").iterdir())
        with caplog.at_level(logging.WARNING, logger="bot.corpus"):
            [report] = corpus.ingest_paths([listing])
        assert report.new == PER_FILE
        assert corpus.store.state()[0] == 97 + PER_FILE
        assert corpus.index.state()[0] == 97  # behind, not failed
        assert any("catch up" in r.getMessage() for r in caplog.records)
    finally:
        other.cancel()
    scan_inbox_and_check_index(corpus, tmp_path / "empty-inbox")
    assert corpus.index.state() == corpus.store.state()
    assert corpus.search("Synthetic Paper 0 5").total > 0
    corpus.close()


def test_server_start_up_survives_an_index_locked_by_another_process(seeded_settings, tmp_path, caplog):
    from bot.search.index import PaperIndex

    write_listings(tmp_path / "more", 1)
    cli = Corpus.open(seeded_settings)
    cli.store.ingest_listing(parse_path(next((tmp_path / "more").iterdir())))
    cli.close()  # the store is ahead of the index now
    other = PaperIndex(seeded_settings.index_dir)._index().writer()
    try:
        corpus = Corpus.load(seeded_settings)
        corpus.index.writer_timeout = 0.2
        with caplog.at_level(logging.WARNING, logger="bot.corpus"):
            corpus.prepare()
        assert corpus.is_ready()
        assert corpus.search("MineDraft").hits  # serves the index as it is
        assert any("catches it up" in r.getMessage() for r in caplog.records)
    finally:
        other.cancel()
    corpus.ensure_index()
    assert corpus.index.state() == corpus.store.state()
    corpus.close()
