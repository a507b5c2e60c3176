"""The daily ingest and the digest on a store that grows (issue 12).

Searches keep running while a day's file is stored and committed, and digests read only
the new papers' segments with the scores a search would give them.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest
from digest_support import ingest, listing_text, open_corpus

import bot.child
import bot.search.index
import bot.search.writers
from bot.digests.compose import relevance_scores
from bot.search.lexicon import TermLearner

QUERIES = ["Sparse Attention", "清华大学", "Alice Zhang3", "缩放定律", '"scaling laws"', "Bob Li"]


def test_searches_during_an_ingest_never_fail_repeat_a_paper_or_cut_a_page(tmp_path: Path, monkeypatch) -> None:
    # Every file is over the tiny size: each is written aside and moved in under the lock.
    monkeypatch.setattr(bot.search.writers, "TINY_SEGMENT_DOCS", 30)
    corpus = open_corpus(tmp_path / "data")
    for day in range(3):
        ingest(corpus, tmp_path, f"day{day}.txt", listing_text("ICML", 1 + day * 40, 40))
    # The day's file: 60 papers on a new topic, and 20 stored papers listed again under
    # another feed (each is deleted and written again in the same commit).
    day = listing_text("NeurIPS", 1000, 60, topic="Quantum Annealing") + listing_text("NeurIPS", 1, 20).split("\n", 1)[1]
    problems: list[str] = []
    ingested = threading.Event()
    stop = threading.Event()
    seen_after: list[int] = []
    searched: list[str] = []

    def search_in_a_loop(offset: int) -> None:
        n = offset
        while not stop.is_set():
            text, page = QUERIES[n % len(QUERIES)], 1 + n % 2
            n += 1
            try:
                result = corpus.search(text, page=page, per_page=5)
            except Exception as exc:
                problems.append(f"{text!r} failed: {exc!r}")
                continue
            ids = [h.paper.id for h in result.hits]
            if len(ids) != len(set(ids)):
                problems.append(f"{text!r} page {page} listed a paper twice: {ids}")
            if len(ids) != max(0, min(5, result.total - (page - 1) * 5)):
                problems.append(f"{text!r} page {page}: {len(ids)} hits of {result.total}")
            searched.append(text)
            if ingested.is_set():
                seen_after.append(corpus.search("Quantum Annealing", per_page=5).total)
                return

    threads = [threading.Thread(target=search_in_a_loop, args=(k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    while len(searched) < 3:  # searches are under way when the file arrives
        threading.Event().wait(0.01)
    (report,) = corpus.ingest_paths([_write(tmp_path / "listings" / "today.txt", day)])
    ingested.set()
    for thread in threads:
        thread.join(timeout=60)
    stop.set()
    assert (report.new, report.updated) == (60, 20)
    assert problems == []
    assert seen_after == [60, 60, 60]  # every thread's pooled searcher sees the day's papers
    assert corpus.index.state() == corpus.store.state()
    corpus.close()


@pytest.mark.parametrize(
    ("tiny", "days", "new", "again", "child"),
    [
        (30, 40, 30, 10, False),  # no tiny segment: the day's segment is moved in as written
        (30, 35, 30, 10, True),  # the same, its segment written by a child process (as the server does)
        (50, 40, 60, 20, False),  # a tiny one (the third day) to fold in: written under the lock
    ],
)
def test_a_day_written_aside_searches_exactly_as_one_written_under_the_lock(
    tmp_path: Path, monkeypatch, tiny, days, new, again, child
) -> None:
    monkeypatch.setattr(bot.search.writers, "TINY_SEGMENT_DOCS", tiny)
    # The serving process writes a day's segment in a child: only today's file is that big here.
    monkeypatch.setattr(bot.search.writers, "ASIDE_CHILD_DOCS", new + again if child else 10**9)
    children = []
    in_child = bot.search.writers.write_segment_in_child
    monkeypatch.setattr(
        bot.search.writers, "write_segment_in_child", lambda *args: children.append(len(args[3])) or in_child(*args)
    )
    corpora = []
    for name, batch_size in (("aside", 10**6), ("locked", new + again)):  # a full batch is written under the lock
        corpus = open_corpus(tmp_path / name)
        corpus.index.batch_size = batch_size
        for day in range(3):
            ingest(corpus, tmp_path / name, f"day{day}.txt", listing_text("ICML", 1 + day * days, days))
        day = listing_text("NeurIPS", 1000, new, topic="Quantum Annealing") + listing_text("NeurIPS", 1, again).split("\n", 1)[1]
        ingest(corpus, tmp_path / name, "today.txt", day)
        corpora.append(corpus)
    aside, locked = corpora
    assert children == ([new + again] if child else [])
    assert not list(tmp_path.rglob("*.aside-*"))  # the scratch folders are gone
    for text in [*QUERIES, "Quantum Annealing", "NeurIPS", "Study Number 7"]:
        for page in (1, 2):
            a, b = aside.search(text, page=page), locked.search(text, page=page)
            assert [(h.paper.id, h.score) for h in a.hits] == [(h.paper.id, h.score) for h in b.hits]
            assert a.total == b.total
    assert aside.index.state() == locked.index.state() == aside.store.state()
    for corpus in corpora:
        corpus.close()


@pytest.mark.parametrize("child_fails", [False, True])
def test_the_server_learns_from_a_days_file_in_a_child_process(tmp_path: Path, monkeypatch, caplog, child_fails) -> None:
    """The lexicon's counts are loaded, extended and saved in a child (they held the
    interpreter from the searches for ~3 s at 1M papers); a child that fails is stood in for here."""
    monkeypatch.setattr(bot.search.writers, "ASIDE_CHILD_DOCS", 40)
    if child_fails:
        monkeypatch.setattr(bot.child, "_CHILD", "import sys; sys.exit('no child today')")
    targets = []
    in_child = bot.search.writers.run_in_child
    monkeypatch.setattr(
        bot.search.writers, "run_in_child", lambda target, args, **kw: targets.append(target) or in_child(target, args, **kw)
    )
    corpus = open_corpus(tmp_path / "data")
    try:
        ingest(corpus, tmp_path, "day0.txt", listing_text("ICML", 1, 30))  # too small for a child
        assert targets == []
        day = listing_text("NeurIPS", 100, 45, topic="Quantum Annealing") + listing_text("NeurIPS", 1, 5).split("\n", 1)[1]
        ingest(corpus, tmp_path, "day1.txt", day)
        assert targets == ["bot.search.lexicon:learn_more"]
        fell_back = [
            r.getMessage() for r in caplog.records if "could not learn from the new papers in a child process" in r.getMessage()
        ]
        assert len(fell_back) == (1 if child_fails else 0) and (not child_fails or "no child today" in fell_back[0])
        learned = json.loads((corpus.index.path / bot.search.index.LEXICON_FILE).read_text(encoding="utf-8"))
        papers = list(corpus.store.iter_papers())
    finally:
        corpus.close()
    # What one process learning from the same files, the same way, would have saved.
    reference = TermLearner()
    for paper in [p for p in papers if p.seq <= 30]:
        reference.observe(paper)
    reference = TermLearner.from_json(reference.to_json())  # saved, then loaded back by the next ingest
    for paper in sorted((p for p in papers if p.rev > 30), key=lambda p: p.rev):
        reference.observe(paper)
    assert learned == reference.to_json()
    assert learned["df_en"]["studi"] == 80  # 30 + 45 + the relisted five, counted again


def test_a_child_that_hangs_is_given_up_not_done_again(tmp_path: Path, monkeypatch, caplog) -> None:
    """After CHILD_TIMEOUT_S the child is killed; its work is not done again in the server
    (that would only double the wait): the papers stay stored and indexed, the lexicon skips them."""
    monkeypatch.setattr(bot.search.writers, "ASIDE_CHILD_DOCS", 40)
    corpus = open_corpus(tmp_path / "data")
    try:
        ingest(corpus, tmp_path, "day0.txt", listing_text("ICML", 1, 30))
        lexicon = corpus.index.path / bot.search.index.LEXICON_FILE
        before = lexicon.read_bytes()
        monkeypatch.setattr(bot.child, "CHILD_TIMEOUT_S", 1.0)
        monkeypatch.setattr(bot.child, "_CHILD", "import time; time.sleep(60)")
        ingest(corpus, tmp_path, "day1.txt", listing_text("NeurIPS", 100, 45, topic="Quantum Annealing"))
        assert corpus.index.state() == corpus.store.state()  # indexed
        assert corpus.search("Quantum Annealing").total == 45
        assert lexicon.read_bytes() == before  # not learned here after the child timed out
        assert any("had not finished after 1 s" in r.getMessage() and "reindex" in r.getMessage() for r in caplog.records)
    finally:
        corpus.close()


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def segmented(tmp_path_factory):
    """A corpus whose index keeps one segment per ingest (no merging): five days of 30 papers,
    then 10 that write Peking University only as 北大 (a short name the lexicon resolves)."""
    tmp = tmp_path_factory.mktemp("segmented")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bot.search.writers, "TINY_SEGMENT_DOCS", 0)
        corpus = open_corpus(tmp / "data")
        for day in range(5):
            topic = ("Sparse Attention", "Quantum Annealing")[day % 2]
            ingest(corpus, tmp, f"day{day}.txt", listing_text(("ICML", "NeurIPS")[day % 2], 1 + day * 30, 30, topic=topic))
        short = re.sub(
            r" ； Lab \d+ of Peking University（北京大学第\d+实验室）", "", listing_text("ICLR", 151, 10, topic="北大")
        )
        ingest(corpus, tmp, "day5.txt", short)
    yield corpus
    corpus.close()


FILTERS = [
    "北大",
    "Sparse Attention",
    "annealing",
    "author:Zhang",
    "清华大学",
    '"scaling laws"',
    "attention OR annealing",
    "nothing-like-this",
]


@pytest.mark.parametrize("text", FILTERS)
@pytest.mark.parametrize(("after", "upto"), [(0, None), (0, 5), (60, None), (60, 120), (100, 101), (119, 150), (150, None)])
def test_score_new_is_a_seq_range_search_over_the_new_segments(segmented, text: str, after: int, upto: int | None) -> None:
    index = segmented.index
    page = index.search(text, min_seq=after, max_seq=upto, limit=1000, expand=False, correct=False)
    expected = [(h.id, h.score) for h in page.hits] if page.mode == "all" else []
    assert index.score_new(text, after_seq=after, upto_seq=upto) == expected
    seqs = {p.id: p.seq for p in segmented.store.get_many([i for i, _ in expected])}
    assert all(after < seqs[i] <= (upto or 10**9) for i, _ in expected)


def test_only_the_segments_written_after_the_cursor_are_searched(segmented) -> None:
    with segmented.index._searcher() as searcher:
        assert len(searcher.leaf_searchers()) == 6
        assert len(segmented.index._newer_than(searcher, 90).leaf_searchers()) == 3
        assert len(segmented.index._newer_than(searcher, 160).leaf_searchers()) == 0


@pytest.mark.parametrize("text", FILTERS)
@pytest.mark.parametrize("after", [0, 60, 119, 150])
def test_relevance_scores_are_the_filter_searchs_scores(segmented, text: str, after: int) -> None:
    papers = segmented.new_papers(after_seq=after, filter_text=text)
    ids = {p.id for p in papers}
    page = segmented.index.search(text, min_seq=after, limit=len(ids) + 51)
    assert relevance_scores(segmented, text, after, ids) == {h.id: h.score for h in page.hits if h.id in ids}


@pytest.mark.parametrize("text", ["", "   ", "((", '"unclosed', "-only -negations", "word " * 200, "year:2026 attention"])
def test_query_problem_is_what_a_literal_search_reports(segmented, text: str) -> None:
    assert segmented.query_problem(text) == segmented.search(text, expand=False).problem
