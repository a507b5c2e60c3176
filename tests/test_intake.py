"""In the server, a large listing is parsed and stored by a child process (bot/ingest/intake.py)."""

from __future__ import annotations

import logging
import pickle
import types

import pytest
from digest_support import listing_text

import bot.child
import bot.corpus
import bot.ingest.intake
from bot.config import Settings
from bot.corpus import Corpus
from bot.ingest.intake import CHILD_BYTES
from bot.search.index import PaperIndex
from bot.store.database import Store

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
def children(monkeypatch) -> list[str]:
    """What was asked of a child process (bot/child.py run_in_child's targets)."""
    targets: list[str] = []
    real = bot.ingest.intake.run_in_child

    def run_in_child(target, args, **kwargs):
        targets.append(target)
        return real(target, args, **kwargs)

    monkeypatch.setattr(bot.ingest.intake, "run_in_child", run_in_child)
    return targets


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


def test_a_large_file_is_parsed_and_stored_by_a_child_and_reported_as_if_here(corpus, tmp_path, parsed_here, children) -> None:
    path = tmp_path / "icml.txt"
    path.write_text(large_listing(), encoding="utf-8")
    small = tmp_path / "small.txt"
    small.write_text(listing_text("NeurIPS", COUNT + 1, 3), encoding="utf-8")

    reports = corpus.ingest_paths([path, small])

    assert parsed_here == [str(small)]  # the large file never parsed in this process...
    assert children == ["bot.ingest.intake:store_file"]  # ...but in a child
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


def test_a_large_upload_is_stored_by_a_child_too(corpus, parsed_here, children) -> None:
    data = large_listing("ICLR").encode()
    report = corpus.ingest_bytes("iclr.txt", data)
    assert parsed_here == [] and children == ["bot.ingest.intake:store_bytes"]
    assert (report.path, report.feed, report.new, report.rejected) == ("iclr.txt", "ICLR", COUNT, 1)
    assert _found(corpus, 12)
    # Bytes that are not a listing are refused with the reason, as in this process.
    refused = corpus.ingest_bytes("binary.txt", b"\x00" * CHILD_BYTES)
    assert (refused.new, refused.feed, refused.rejected) == (0, "", 1) and "binary" in refused.errors[0].reason


@pytest.mark.parametrize("how", ["no child starts", "the child takes too long"])
def test_without_a_child_the_server_stores_the_file_itself(corpus, tmp_path, monkeypatch, caplog, parsed_here, how) -> None:
    if how == "no child starts":
        monkeypatch.setattr(bot.child.sys, "executable", str(tmp_path / "no-such-python"))
    else:
        monkeypatch.setattr(bot.ingest.intake, "CHILD_TIMEOUT_S", 0.001)  # killed before Python has started
    path = tmp_path / "icml.txt"
    path.write_text(large_listing(), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="bot.corpus"):
        report = corpus.ingest_paths([path])[0]
    assert "could not store" in caplog.text and "storing it here" in caplog.text
    assert parsed_here == [str(path)]
    assert (report.new, report.rejected) == (COUNT, 1)
    assert corpus.store.stats()["ingests"] == 1
    assert _found(corpus, 300)


@pytest.mark.parametrize("kind", ["file", "upload"])
def test_a_child_that_stored_the_listing_but_whose_answer_was_lost_is_not_stored_twice(
    corpus, tmp_path, monkeypatch, caplog, kind
) -> None:
    # The child commits, then its answer cannot be read. Storing the listing again would
    # turn papers another feed listed first into this feed's (their records replaced
    # whole): the ingest's record says what the child did, and the papers get indexed.
    first = corpus.ingest_paths([_write(tmp_path / "seen.txt", listing_text("NeurIPS", 1, 2))])[0]
    assert first.new == 2
    unreadable = types.SimpleNamespace(dumps=pickle.dumps, HIGHEST_PROTOCOL=pickle.HIGHEST_PROTOCOL, loads=lambda data: 1 / 0)
    monkeypatch.setattr(bot.child, "pickle", unreadable)
    text = large_listing()
    with caplog.at_level(logging.WARNING, logger="bot.corpus"):
        if kind == "file":
            report = corpus.ingest_paths([_write(tmp_path / "icml.txt", text)])[0]
        else:
            report = corpus.ingest_bytes("icml.txt", text.encode())
    assert "answer was lost" in caplog.text and "storing it here" not in caplog.text
    assert (report.feed, report.new, report.updated, report.unchanged, report.rejected) == ("ICML", COUNT - 2, 2, 0, 1)
    assert corpus.store.stats()["ingests"] == 2  # the first file's and the child's: not a third
    assert corpus.store.state()[0] == COUNT
    assert _found(corpus, 451)


def _write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


def test_the_store_tells_whether_an_ingest_under_a_token_committed(tmp_path) -> None:
    from bot.ingest.listing import parse_text

    store = Store(tmp_path / "db.sqlite3")
    report = store.ingest_listing(parse_text(listing_text("ICML", 1, 3), "icml.txt"), token="t-1")
    assert store.ingested("t-1") == (report.new, report.updated, report.unchanged) == (3, 0, 0)
    assert store.ingested("t-2") is None
    store.close()
