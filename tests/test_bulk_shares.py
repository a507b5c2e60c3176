"""A bulk index write whose worker processes read their shares of the papers from the store
themselves (StoredPapers): the same index, searches and lexicon as the one-process path.

Real parts throughout: a generated corpus (bench/corpus.py), SQLite, Whoosh, forked workers.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
from bench_modules import bench_module

import bot.search.writers as writers_module
from bot.config import Settings
from bot.corpus import Corpus
from bot.errors import WorkerFailed
from bot.models import Listing
from bot.search.index import LEXICON_FILE, PaperIndex
from bot.search.writers import StoredPapers
from bot.store.database import Store, read_papers

PAPERS = 300
QUERIES = ["language models", "大语言模型", "reinforcement learning", "Harvard", "author:Mohri", "diffusion OR 扩散"]


def open_corpus(data: Path, procs: int, per_commit: int = 100) -> Corpus:
    """A corpus writing `per_commit` papers a commit: in shares of per_commit / procs."""
    settings = Settings(data_dir=data)
    index = PaperIndex(settings.index_dir, procs=procs, batch_size=100, segment_docs=per_commit // procs)
    corpus = Corpus(settings, Store(settings.db_path), index)
    corpus.ensure_index()
    return corpus


def relisted(path: Path, out: Path) -> Path:
    """The same listing under another feed: every paper in it changes (a feed is added)."""
    _, rest = path.read_text(encoding="utf-8").split("\n", 1)
    out.write_text("Relisted Feed\n" + rest, encoding="utf-8")
    return out


def outcome(corpus: Corpus) -> dict:
    index = corpus.index
    return {
        "state": index.state(),
        "searches": {q: [(h.id, round(h.score, 6)) for h in index.search(q, per_page=20).hits] for q in QUERIES},
        "lexicon": json.loads((index.path / LEXICON_FILE).read_text(encoding="utf-8")),
    }


def live_children() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid() and fields[0] != "Z":
                found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def listings(tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("listings")
    bench_module("corpus").generate(PAPERS, folder)
    return sorted(folder.glob("*.txt"))


@pytest.fixture(scope="module")
def written_in_turn(listings, tmp_path_factory) -> tuple[Path, dict, dict, int]:
    """A data folder ingested by one process (commits of 100 papers, no segment folded):
    the outcome after the listings, and after every paper was listed again."""
    data = tmp_path_factory.mktemp("in-turn") / "data"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(writers_module, "TINY_SEGMENT_DOCS", 0)
        corpus = open_corpus(data, 1)
        try:
            corpus.ingest_paths(listings)
            first = outcome(corpus)
            snapshot = data.parent / "after-listings"
            shutil.copytree(data, snapshot)
            corpus.ingest_paths([relisted(listings[0], data.parent / "relisted.txt")])
            return snapshot, first, outcome(corpus), corpus.index.search("feed:Relisted").total
        finally:
            corpus.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_workers_reading_their_shares_build_what_one_process_builds(listings, written_in_turn, tmp_path, monkeypatch):
    # Segments this small would be folded together at each commit, which sums their field
    # lengths from Whoosh's one-byte approximations: scores would then depend on the layout.
    monkeypatch.setattr(writers_module, "TINY_SEGMENT_DOCS", 0)
    _, one_first, one_after, one_relisted = written_in_turn
    corpus = open_corpus(tmp_path / "data", 2)
    try:
        corpus.ingest_paths(listings)
        two_first = outcome(corpus)
        # Every paper listed again: the write replaces what the first one indexed.
        corpus.ingest_paths([relisted(listings[0], tmp_path / "relisted.txt")])
        two_after, two_relisted = outcome(corpus), corpus.index.search("feed:Relisted").total
        with corpus.index._searcher() as searcher:
            sizes = [leaf.reader().doc_count_all() for leaf, _ in searcher.leaf_searchers()]
    finally:
        corpus.close()
    papers = one_first["state"][0]
    assert papers > PAPERS * 0.8 and one_first["searches"]["language models"], "the corpus has something to find"
    assert one_first["lexicon"]["co"] and one_first["lexicon"]["institutions"], "learned something to compare"
    assert two_first == one_first
    assert two_after == one_after and two_relisted == one_relisted > 0
    # Written in shares: equal segments of 50 papers (the learned counts are pruned once a
    # commit, so the lexicon is the same only for the same commits: 100 papers each).
    assert sizes == [50] * (len(sizes) - 1) + sizes[-1:] and sum(sizes) >= 2 * papers
    assert live_children() == []
    assert not [p.name for p in tmp_path.iterdir() if ".learn-" in p.name]


def _late_but_the_first(started: Path, die_with_parent):
    """A worker's start (writers.die_with_parent, its first step) that is late for every
    worker but the first, as on a machine busy with other work."""

    def starting() -> None:
        try:
            os.close(os.open(started, os.O_CREAT | os.O_EXCL))  # the first worker to start
        except FileExistsError:
            time.sleep(3)
        die_with_parent()

    return starting


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_each_worker_indexes_its_own_share_however_late_it_starts(written_in_turn, tmp_path, monkeypatch):
    """Taken from one queue, both shares of a commit went to the worker that started first
    when the other started after it had finished its own: one segment of both, written by
    one process while the other waited (and more postings than its memory budget)."""
    data = tmp_path / "data"
    shutil.copytree(written_in_turn[0], data)
    monkeypatch.setattr(writers_module, "TINY_SEGMENT_DOCS", 0)
    monkeypatch.setattr(
        writers_module, "die_with_parent", _late_but_the_first(tmp_path / "started", writers_module.die_with_parent)
    )
    store = Store(data / "paperbot.sqlite3", readonly=True)
    index = PaperIndex(data / "index", procs=2, segment_docs=50)
    try:
        index.open()
        before = index.state()
        with index._searcher() as searcher:
            kept = len(searcher.leaf_searchers())
        papers = StoredPapers(store.rev_ranges(since_rev=0, size=50)[:2], partial(read_papers, store.path))
        assert index.upsert_stored(papers) == 100
        with index._searcher() as searcher:
            sizes = [leaf.reader().doc_count_all() for leaf, _ in searcher.leaf_searchers()]
        assert sizes[kept:] == [50, 50]  # a segment a worker, in the shares' order
        assert index.state() == before and live_children() == []
    finally:
        index.close()
        store.close()


def _dies_midway(path: Path, after_rev: int, upto_rev: int):
    for n, paper in enumerate(read_papers(path, after_rev, upto_rev)):
        if n == 10 and after_rev > 0:  # the second share's worker dies; the first finishes
            os._exit(3)
        yield paper


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_a_worker_that_dies_fails_the_write_and_leaves_the_index_as_it_was(written_in_turn, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(written_in_turn[0], data)
    store = Store(data / "paperbot.sqlite3")
    index = PaperIndex(data / "index", procs=2, segment_docs=100)
    try:
        index.open()
        before = index.state(), index.search("language models").total
        papers = StoredPapers(
            ranges=store.rev_ranges(since_rev=0, size=100)[:2],
            read=partial(_dies_midway, store.path),
        )
        with pytest.raises(WorkerFailed, match="1 of 2 index workers died"):
            index.upsert_stored(papers)
        index.open()
        assert (index.state(), index.search("language models").total) == before
        assert live_children() == []
        papers = StoredPapers(papers.ranges, partial(read_papers, store.path))
        assert index.upsert_stored(papers) == 200  # the lock was let go: the next write goes through
        assert index.state()[0] == before[0][0]
    finally:
        index.close()
        store.close()


def test_shares_are_equal_and_cover_the_backlog(written_in_turn, tmp_path):
    index = PaperIndex(tmp_path / "index", procs=2, segment_docs=50_000)
    assert [index.share_size(n) for n in (1, 99_999, 100_000, 100_001, 1_000_000)] == [1, 50_000, 50_000, 25_001, 50_000]
    assert Store(tmp_path / "empty.sqlite3").rev_ranges(since_rev=0, size=10) == []
    store = Store(written_in_turn[0] / "paperbot.sqlite3", readonly=True)
    try:
        _, rev = store.state()
        since = rev // 3
        ranges = store.rev_ranges(since_rev=since, size=40)
        assert ranges[0][0] == since and ranges[-1][1] == rev
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))  # contiguous, no gap or overlap
        shares = [[p.id for p in store.iter_papers(since_rev=a, upto_rev=b)] for a, b in ranges]
        assert [len(s) for s in shares[:-1]] == [40] * (len(shares) - 1) and 0 < len(shares[-1]) <= 40
        assert sorted(i for s in shares for i in s) == sorted(p.id for p in store.iter_papers(since_rev=since))
    finally:
        store.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_the_cli_says_what_to_do_when_a_worker_dies(listings, tmp_path, monkeypatch, capsys):
    """`python -m bot ingest`'s own code path (bot.cli.main), with a worker that dies mid-share."""
    import bot.cli
    import bot.corpus

    monkeypatch.setenv("PAPERBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PAPERBOT_SEEDS_DIR", str(tmp_path / "no-seeds"))
    monkeypatch.setattr(bot.cli.os, "cpu_count", lambda: 2)  # the CLI forks a worker per core
    monkeypatch.setattr(bot.corpus, "PaperIndex", partial(PaperIndex, batch_size=100, segment_docs=100))
    monkeypatch.setattr(bot.corpus, "read_papers", _dies_midway)
    assert bot.cli.main(["ingest", str(listings[0])]) == bot.cli.EXIT_FAILED
    err = capsys.readouterr().err
    assert "index workers died (exit code 3)" in err and "the store has every paper" in err and "reindex" in err
    assert "Traceback" not in err
    store = Store(tmp_path / "data" / "paperbot.sqlite3", readonly=True)
    try:
        assert store.state()[0] > PAPERS * 0.8  # every paper stored
    finally:
        store.close()
    assert live_children() == []


def _changes_one_first(path: Path, paper_id: str, after_rev: int, upto_rev: int):
    """A share's read with one of its papers changed in the store just before (the server, an
    upload): the change moves it above every share, so this worker never sees it."""
    store = Store(path)
    try:
        (paper,) = store.get_many([paper_id])
        if after_rev < paper.rev <= upto_rev:
            changed = replace(paper, comments="Changed while the index was written")
            store.ingest_listing(Listing(path="change.txt", feed=paper.feeds[0], records=[(1, changed)]))
    finally:
        store.close()
    yield from read_papers(path, after_rev, upto_rev)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_a_paper_changed_while_the_workers_read_is_neither_lost_nor_doubled(written_in_turn, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(written_in_turn[0], data)
    store = Store(data / "paperbot.sqlite3")
    ranges = store.rev_ranges(since_rev=0, size=100)[:2]  # indexed already: the write replaces them
    (changing,) = [p for p in store.iter_papers(since_rev=ranges[1][0], upto_rev=ranges[1][1])][-1:]
    index = PaperIndex(data / "index", procs=2, segment_docs=100)
    try:
        index.open()
        count = index.state()[0]
        written = index.upsert_stored(StoredPapers(ranges, partial(_changes_one_first, store.path, changing.id)))
        assert written == 199  # the changed paper was not in its share when it was read
        with index._searcher() as searcher:
            assert len(list(searcher.documents(id=changing.id))) == 1  # its indexed version stayed
        assert index.state()[0] == count
    finally:
        index.close()
        store.close()
    corpus = open_corpus(data, 2)  # the next catch-up indexes the change
    try:
        assert corpus.index.state() == corpus.store.state()
        hits = corpus.index.search('"Changed while the index was written"').hits
        assert [h.id for h in hits] == [changing.id]
    finally:
        corpus.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_a_commit_that_fails_after_the_workers_lets_the_lock_go(written_in_turn, tmp_path, monkeypatch):
    """The workers finished, then the commit failed (here: their counts could not be read):
    nothing is committed, and the next write gets the index's lock."""
    data = tmp_path / "data"
    shutil.copytree(written_in_turn[0], data)
    store = Store(data / "paperbot.sqlite3", readonly=True)
    index = PaperIndex(data / "index", procs=2, segment_docs=100)
    try:
        index.open()
        before = index.state()
        papers = StoredPapers(store.rev_ranges(since_rev=0, size=100)[:2], partial(read_papers, store.path))

        def unreadable(path):
            raise OSError(f"cannot read {path.name}")

        with monkeypatch.context() as patch:
            patch.setattr(writers_module, "_load_share", unreadable)
            with pytest.raises(OSError, match="cannot read"):
                index.upsert_stored(papers)
        index.open()
        assert index.state() == before and live_children() == []
        assert index.upsert_stored(papers) == 200
    finally:
        index.close()
        store.close()
