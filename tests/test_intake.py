"""In the server, a large listing is parsed and stored by a child process (bot/intake.py)."""

from __future__ import annotations

import logging
import pickle
import types

import pytest
from digest_support import listing_text

import bot.child
import bot.corpus
import bot.intake
from bot.config import Settings
from bot.corpus import Corpus
from bot.index import PaperIndex
from bot.intake import CHILD_BYTES
from bot.store import Store

THEN = "2026-11-30T07:00:00+00:00"  # the store's clock, which the child must use too
BAD_RECORD = "A Title Without Summary\n\n中文标题\n\nSomeone\n"
COUNT = 600  # records: ~300 KB


def large_listing(feed: str = "ICML") -> str:
    text = listing_text(feed, 1, COUNT) + "\n" + BAD_RECORD
    assert len(text.encode()) >= CHILD_BYTES
    return text


@pytest.fixture
def corpus(tmp_path):
    """A corpus as the server opens it (one writer process) with a store whose clock stands still."""
    settings = Settings(data_dir=tmp_path / "data", seeds_dir=tmp_path / "no-seeds")
    corpus = Corpus.load(settings)
    corpus.store.close()
    corpus = Corpus(settings, Store(settings.db_path, clock=lambda: THEN), PaperIndex(settings.index_dir))
    corpus.ensure_index()
    yield corpus
    corpus.close()
    corpus.store.close()


@pytest.fixture
def parsed_here(monkeypatch) -> list[str]:
    """What the server's own process parsed (the child, a process of its own, is not watched)."""
    names: list[str] = []
    real_path, real_bytes = bot.corpus.parse_path, bot.corpus.parse_bytes

    def parse_path(path):
        names.append(str(path))
        return real_path(path)

    def parse_bytes(name, data):
        names.append(name)
        return real_bytes(name, data)

    monkeypatch.setattr(bot.corpus, "parse_path", parse_path)
    monkeypatch.setattr(bot.corpus, "parse_bytes", parse_bytes)
    return names


def _found(corpus: Corpus, n: int) -> list[str]:
    return [hit.paper.title_en for hit in corpus.search(f'"Sparse Attention Study Number {n}"').hits]


def test_a_large_file_is_parsed_and_stored_by_a_child_and_reported_as_if_here(corpus, tmp_path, parsed_here) -> None:
    path = tmp_path / "icml.txt"
    path.write_text(large_listing(), encoding="utf-8")
    small = tmp_path / "small.txt"
    small.write_text(listing_text("NeurIPS", COUNT + 1, 3), encoding="utf-8")

    reports = corpus.ingest_paths([path, small])

    assert parsed_here == [str(small)]  # the large file never parsed in this process
    large, little = reports
    assert (large.path, large.feed, large.new, large.updated, large.rejected) == (str(path), "ICML", COUNT, 0, 1)
    assert large.errors[0].path == str(path) and large.errors[0].line > 0
    assert (little.feed, little.new) == ("NeurIPS", 3)
    assert corpus.store.state()[0] == COUNT + 3
    # Stored at the time of the server's clock, and indexed once the call returns.
    assert {row[0] for row in corpus.store.read("SELECT first_seen FROM papers")} == {THEN}
    assert _found(corpus, 577) == ["Sparse Attention Study Number 577: Scaling Laws for Model 577"]


def test_the_same_file_again_changes_nothing(corpus, tmp_path, parsed_here) -> None:
    path = tmp_path / "icml.txt"
    path.write_text(large_listing(), encoding="utf-8")
    corpus.ingest_paths([path])
    again = corpus.ingest_paths([path])[0]
    assert (again.new, again.updated, again.unchanged) == (0, 0, COUNT)
    assert parsed_here == []


def test_a_large_upload_is_stored_by_a_child_too(corpus, parsed_here) -> None:
    data = large_listing("ICLR").encode()
    report = corpus.ingest_bytes("iclr.txt", data)
    assert parsed_here == []
    assert (report.path, report.feed, report.new, report.rejected) == ("iclr.txt", "ICLR", COUNT, 1)
    assert _found(corpus, 12)
    # Bytes that are not a listing are refused with the reason, as in this process.
    refused = corpus.ingest_bytes("binary.txt", b"\x00" * CHILD_BYTES)
    assert (refused.new, refused.feed, refused.rejected) == (0, "", 1) and "binary" in refused.errors[0].reason


def test_without_a_child_the_server_stores_the_file_itself(corpus, tmp_path, monkeypatch, caplog, parsed_here) -> None:
    monkeypatch.setattr(bot.intake, "CHILD_TIMEOUT_S", 0.001)  # no child can start in time
    path = tmp_path / "icml.txt"
    path.write_text(large_listing(), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="bot.corpus"):
        report = corpus.ingest_paths([path])[0]
    assert "could not store" in caplog.text and "storing it here" in caplog.text
    assert parsed_here == [str(path)]
    assert (report.new, report.rejected) == (COUNT, 1)
    assert _found(corpus, 300)


def test_a_child_that_stored_the_file_but_whose_answer_was_lost_still_gets_it_indexed(corpus, tmp_path, monkeypatch, caplog) -> None:
    # The child commits, then its answer cannot be read: the file is stored again here (every
    # paper unchanged), and the papers the child stored are indexed all the same.
    unreadable = types.SimpleNamespace(dumps=pickle.dumps, HIGHEST_PROTOCOL=pickle.HIGHEST_PROTOCOL, loads=lambda data: 1 / 0)
    monkeypatch.setattr(bot.child, "pickle", unreadable)
    path = tmp_path / "icml.txt"
    path.write_text(large_listing(), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="bot.corpus"):
        report = corpus.ingest_paths([path])[0]
    assert "answer could not be read" in caplog.text
    assert (report.new, report.unchanged) == (0, COUNT)
    assert corpus.store.state()[0] == COUNT
    assert _found(corpus, 451)
