"""The store, on SQLite and on PostgreSQL: merging re-ingested papers, one transaction per file, reader settings."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import psycopg
import pytest

from bot.ingest.listing import parse_path, parse_text
from bot.store.database import Store, open_store

SEEDS = Path(__file__).resolve().parent.parent / "seeds"

RECORD = """{title}
{title_zh}
Ada Lovelace, Alan Turing
AI总结 {summary}
{comments}
"""


def listing(feed: str, *records: dict, path: str = "x.txt"):
    body = "\n".join(RECORD.format(**{"title_zh": "部件", "summary": "摘要", "comments": "", **record}) for record in records)
    return parse_text(f"{feed}\n\n{body}", path)


@pytest.fixture
def store(database_location):
    store = open_store(database_location)
    yield store
    store.close()


def test_seeds_twice_give_97_papers_and_no_duplicates(store):
    for _ in range(2):
        for path in sorted(SEEDS.glob("*.txt")):
            store.ingest_listing(parse_path(path))
    count, _ = store.state()
    assert count == 97
    assert store.stats()["feeds"] == {"ICML": 90, "Harvard University（哈佛大学）": 7}


def test_reingest_reports_unchanged_and_keeps_sequence(store):
    first = store.ingest_listing(listing("ICML", {"title": "Widgets"}))
    again = store.ingest_listing(listing("ICML", {"title": "Widgets"}))
    assert (first.new, again.new, again.updated, again.unchanged) == (1, 0, 0, 1)
    assert store.state() == (1, 1)


def test_same_paper_in_another_feed_adds_the_feed_and_keeps_seq(store):
    store.ingest_listing(listing("ICML", {"title": "Widgets"}, {"title": "Gadgets"}))
    report = store.ingest_listing(
        listing("MIT（麻省理工学院）", {"title": "WIDGETS", "comments": "Comments Code: https://x.org/w"})
    )
    assert (report.new, report.updated) == (0, 1)
    [paper] = [p for p in store.iter_papers() if p.seq == 1]
    assert paper.title_en == "WIDGETS"  # the latest listing wins
    assert paper.feeds == ["ICML", "MIT（麻省理工学院）"]
    assert paper.seq == 1 and paper.rev == 3
    assert paper.urls == ["https://x.org/w"]
    assert store.state() == (2, 3)


def test_update_keeps_stored_values_the_new_record_lacks(store):
    store.ingest_listing(listing("ICML", {"title": "Widgets", "comments": "Comments Accepted at ICML 2026"}))
    store.ingest_listing(listing("Harvard University（哈佛大学）", {"title": "Widgets", "summary": "新摘要"}))
    [paper] = store.iter_papers()
    assert paper.summary_zh == "新摘要"
    assert paper.venue == "ICML 2026"


def test_a_failing_file_leaves_the_store_as_it_was(store, monkeypatch):
    store.ingest_listing(listing("ICML", {"title": "Widgets"}))
    before = store.state()
    bad = listing("ICML", {"title": "Gadgets"}, {"title": "Sprockets"})
    bad.records[1][1].authors = object()  # not JSON-serialisable: fails on the second record
    with pytest.raises(TypeError):
        store.ingest_listing(bad)
    assert store.state() == before
    assert [p.title_en for p in store.iter_papers()] == ["Widgets"]


def test_iter_papers_since_rev_and_newest(store):
    store.ingest_listing(listing("ICML", *({"title": f"Paper {n}"} for n in range(5))))
    assert [p.title_en for p in store.iter_papers(since_rev=3, batch=1)] == ["Paper 3", "Paper 4"]
    assert [p.title_en for p in store.newest(2)] == ["Paper 4", "Paper 3"]
    assert [p.title_en for p in store.papers_between(1, 4)] == ["Paper 1", "Paper 2", "Paper 3"]
    assert [p.title_en for p in store.papers_between(0, 5, limit=2)] == ["Paper 0", "Paper 1"]
    assert store.papers_between(5, 5) == []


def test_get_many_beyond_the_bound_variable_limit(store):
    store.ingest_listing(listing("ICML", *({"title": f"Paper {n}"} for n in range(1200))))
    ids = [p.id for p in store.iter_papers()]
    assert [p.id for p in store.get_many(ids)] == ids


def test_find_ids_by_prefix(store):
    store.ingest_listing(listing("ICML", {"title": "Widgets"}))
    [paper] = store.iter_papers()
    assert store.find_ids(paper.id[:5]) == [paper.id]
    assert store.find_ids("zz") == []
    assert store.find_ids("") == []


def test_user_language_is_remembered_across_connections(database_location):
    store = open_store(database_location)
    assert store.get_user_lang("U1") is None
    store.set_user_lang("U1", "zh")
    store.close()
    again = open_store(database_location)
    assert again.get_user_lang("U1") == "zh"
    again.close()


def test_store_is_in_wal_mode_for_concurrent_readers(tmp_path):
    store = Store(tmp_path / "paperbot.sqlite3")
    store.close()
    db = sqlite3.connect(store.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_reads_from_other_threads_never_wait_for_a_transaction(store):
    """A search reading papers while a day's file is being stored gets what was last
    committed at once, instead of waiting for the file's whole transaction; the thread
    writing reads what it has written so far."""
    store.ingest_listing(listing("cs.AI", {"title": "Stored Before"}))
    inside, finish = threading.Event(), threading.Event()
    seen_by_writer = []

    def write() -> None:
        with store.transaction() as db:
            db.execute("INSERT INTO user_prefs (user_id, lang) VALUES ('U1', 'zh')")
            seen_by_writer.append(store.get_user_lang("U1"))
            inside.set()
            finish.wait(10)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert inside.wait(5)
        started = time.monotonic()
        assert store.get_user_lang("U1") is None  # not committed yet
        assert store.state()[0] == 1 and [p.title_en for p in store.newest()] == ["Stored Before"]
        assert time.monotonic() - started < 2  # the writer holds its transaction for 10 s
    finally:
        finish.set()
        writer.join()
    assert seen_by_writer == ["zh"] and store.get_user_lang("U1") == "zh"


def test_a_corrected_file_from_the_same_feed_replaces_the_record_whole(store):
    store.ingest_listing(listing("ICML", {"title": "Widgets", "comments": "Comments on ICML 2024 Reviews"}))
    report = store.ingest_listing(listing("ICML", {"title": "Widgets"}))
    assert report.updated == 1
    [paper] = store.iter_papers()
    assert (paper.comments, paper.venue, paper.year) == ("", "", None)


def test_another_feed_keeps_fields_it_lacks_and_moves_venue_fields_together(store):
    store.ingest_listing(listing("ICML", {"title": "Widgets", "comments": "Comments Accepted at ICML 2026"}))
    store.ingest_listing(listing("MIT", {"title": "Widgets", "comments": "Journal ref TMLR"}))
    [paper] = store.iter_papers()
    assert paper.comments == "Accepted at ICML 2026"  # the MIT record had none
    assert (paper.venue, paper.venue_name, paper.year) == ("TMLR", "TMLR", None)
    assert paper.feeds == ["ICML", "MIT"]


def test_ensure_columns_upgrades_an_older_table_once(database_location, monkeypatch):
    from bot.store import database as store_module

    if database_location.startswith("postgresql://"):
        db = psycopg.connect(database_location, autocommit=True)
    else:
        db = sqlite3.connect(database_location, isolation_level=None)
    db.execute("CREATE TABLE user_prefs (user_id TEXT PRIMARY KEY, lang TEXT NOT NULL)")
    db.execute("INSERT INTO user_prefs VALUES ('U1', 'zh')")
    db.close()
    monkeypatch.setitem(store_module.COLUMNS, "user_prefs", {"theme": "TEXT NOT NULL DEFAULT 'plain'"})
    for _ in range(2):  # the second open finds the column present and adds nothing
        store = open_store(database_location)
        rows = store.read("SELECT user_id, lang, theme FROM user_prefs")
        store.close()
        assert [tuple(r) for r in rows] == [("U1", "zh", "plain")]
