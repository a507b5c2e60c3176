"""Index lifecycle: build, upsert, state, corruption, concurrency, paging, snippets."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import whoosh.index
import whoosh.query

import bot.search.segments
from bot.errors import IndexUnusable
from bot.models import Affiliation, Fragment, Paper
from bot.search.codec import ArrayCodec
from bot.search.index import IndexHit, IndexPage, PaperIndex
from bot.search.readers import MAX_IDLE_SEARCHERS, PaperSearcher
from bot.search.schema import INDEX_NAME, build_schema, paper_document
from bot.search.segments import PaperWriter
from bot.search.snippets import build_snippet
from bot.search.spelling import edit_distance


def make_paper(n: int, **changes) -> Paper:
    fields = dict(
        id=f"p{n}",
        title_en=f"Speculative decoding study number {n}",
        title_zh=f"推测解码研究 {n}",
        authors=["Chelsea Finn", f"Author {n}"],
        affiliations=[Affiliation("Harvard University", "哈佛大学")],
        summary_zh="提出一种上下文学习方法，显著降低KV缓存开销。",
        comments="Accepted at ICML 2026",
        venue="ICML 2026",
        venue_name="ICML",
        year=2026,
        track="main",
        feeds=["ICML"],
        seq=n,
        rev=n,
    )
    fields.update(changes)
    return Paper(**fields)


@pytest.fixture
def index(tmp_path: Path):
    ix = PaperIndex(tmp_path / "index")
    ix.rebuild(make_paper(n) for n in range(1, 21))
    yield ix
    ix.close()


def test_rebuild_returns_count_and_state_reports_docs_and_max_rev(index: PaperIndex) -> None:
    assert index.state() == (20, 20)


def test_open_missing_index_raises_unusable(tmp_path: Path) -> None:
    with pytest.raises(IndexUnusable):
        PaperIndex(tmp_path / "nope").open()


def test_open_empty_directory_raises_unusable(tmp_path: Path) -> None:
    (tmp_path / "index").mkdir()
    with pytest.raises(IndexUnusable):
        PaperIndex(tmp_path / "index").open()


def test_reopen_in_a_new_object_sees_the_same_state(index: PaperIndex) -> None:
    other = PaperIndex(index.path)
    other.open()
    assert other.state() == (20, 20)
    other.close()


def test_upsert_replaces_by_id_instead_of_duplicating(index: PaperIndex) -> None:
    changed = make_paper(3, title_en="Grokking in ridge regression", rev=99)
    assert index.upsert([changed, make_paper(21)]) == 2
    assert index.state() == (21, 99)
    assert [h.id for h in index.search("grokking").hits] == ["p3"]
    assert "p3" not in [h.id for h in index.search('"study number 3"').hits]


def test_upsert_same_id_twice_in_one_call_keeps_the_last(index: PaperIndex) -> None:
    index.upsert([make_paper(30, title_en="first draft"), make_paper(30, title_en="final draft", rev=31)])
    assert index.state()[0] == 21
    assert [h.id for h in index.search("final").hits] == ["p30"]
    assert index.search("first").hits == []


def test_upsert_nothing_is_a_no_op(index: PaperIndex) -> None:
    assert index.upsert([]) == 0
    assert index.state() == (20, 20)


def test_rebuild_replaces_everything(index: PaperIndex) -> None:
    assert index.rebuild([make_paper(7, title_en="Only one left")]) == 1
    assert index.state() == (1, 7)
    assert [h.id for h in index.search("only").hits] == ["p7"]
    leftovers = [p.name for p in index.path.parent.iterdir() if p.name != index.path.name]
    assert leftovers == []


def test_rebuild_keeps_the_later_version_of_a_paper_given_twice(index: PaperIndex) -> None:
    # The store is read page by page; a paper changed meanwhile comes again, newer.
    assert index.rebuild([make_paper(1), make_paper(2), make_paper(1, rev=3, title_en="Grokking revisited")]) == 2
    assert index.state() == (2, 3)
    assert [h.id for h in index.search("grokking").hits] == ["p1"]


def test_rebuild_waits_for_another_writer_and_gives_up_cleanly(index: PaperIndex, tmp_path: Path) -> None:
    from bot.errors import IndexBusy

    other = PaperIndex(index.path)._index().writer()  # another process, mid-write
    index.writer_timeout = 0.2
    try:
        with pytest.raises(IndexBusy):
            index.rebuild([make_paper(1)])
    finally:
        other.cancel()
    assert index.state() == (20, 20)  # the live index is untouched
    assert not [p for p in index.path.parent.iterdir() if p.name.startswith(".")]  # no leftovers
    assert index.rebuild([make_paper(1)]) == 1  # and once the lock is free, it goes through


def test_rebuild_over_a_corrupt_index_recovers(index: PaperIndex) -> None:
    for segment in index.path.iterdir():
        if segment.suffix != ".toc":
            segment.write_bytes(b"garbage")
    assert index.rebuild([make_paper(1)]) == 1
    assert index.state() == (1, 1)


def _damage(path: Path, how: str) -> None:
    segments = sorted(p for p in path.iterdir() if p.suffix not in (".toc", ".lock"))
    assert segments, list(path.iterdir())
    for segment in segments:
        data = segment.read_bytes()
        if how == "truncate":
            segment.write_bytes(data[: len(data) // 2])
        elif how == "garble_tail":
            segment.write_bytes(data[:-64] + bytes(64))
        elif how == "empty":
            segment.write_bytes(b"")
    if how == "toc":
        for toc in path.glob("*.toc"):
            toc.write_bytes(toc.read_bytes()[:20])


@pytest.mark.parametrize("how", ["truncate", "garble_tail", "empty", "toc"])
def test_corrupt_index_raises_unusable_on_open_or_state(tmp_path: Path, how: str) -> None:
    path = tmp_path / "index"
    builder = PaperIndex(path)
    builder.rebuild(make_paper(n) for n in range(1, 50))
    builder.close()
    _damage(path, how)
    fresh = PaperIndex(path)
    with pytest.raises(IndexUnusable):
        fresh.open()
        fresh.state()


def test_index_of_another_schema_is_unusable(tmp_path: Path) -> None:
    from whoosh.fields import ID, Schema
    from whoosh.index import create_in

    from bot.search.schema import INDEX_NAME

    path = tmp_path / "index"
    path.mkdir()
    create_in(str(path), Schema(id=ID(stored=True)), indexname=INDEX_NAME).writer().commit()
    with pytest.raises(IndexUnusable, match="schema"):
        PaperIndex(path).open()


def test_search_without_open_opens_lazily(index: PaperIndex) -> None:
    other = PaperIndex(index.path)
    assert other.search("speculative").total == 20


def test_concurrent_readers_while_writing_see_no_errors(index: PaperIndex) -> None:
    errors: list[BaseException] = []
    totals: list[int] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                page = index.search("speculative decoding")
                totals.append(page.total)
                index.state()
            except BaseException as exc:  # noqa: BLE001 - the test is that nothing escapes
                errors.append(exc)
                return

    readers = [threading.Thread(target=read) for _ in range(4)]
    for t in readers:
        t.start()
    try:
        for batch in range(6):
            index.upsert(make_paper(100 + batch * 3 + k) for k in range(3))
        index.rebuild(make_paper(n) for n in range(1, 11))
        index.upsert([make_paper(500)])
    finally:
        stop.set()
        for t in readers:
            t.join()
    assert errors == []
    assert totals and all(t >= 10 for t in totals)
    assert index.state() == (11, 500)


def test_a_second_process_style_index_object_sees_upserts(index: PaperIndex) -> None:
    reader = PaperIndex(index.path)
    reader.open()
    assert reader.search("grokking").total == 0
    index.upsert([make_paper(60, title_en="Grokking revisited")])
    assert reader.search("grokking").total == 1  # refreshed, not reopened per query


def _settle(folder: Path, seconds_ago: float = 10.0) -> None:
    """Make the index folder look last modified `seconds_ago` (a quiet index)."""
    import os
    import time

    then = time.time_ns() - int(seconds_ago * 1e9)
    os.utime(folder, ns=(then, then))


def test_a_settled_index_lends_its_searcher_without_asking_whoosh_and_still_sees_commits(index: PaperIndex) -> None:
    reader = PaperIndex(index.path)
    _settle(index.path)
    assert reader.search("grokking").total == 0  # a full check: the version is recorded
    with reader._searcher() as first:
        pass
    with reader._searcher() as second:
        assert second is first  # the same version, not asked again
    index.upsert([make_paper(60, title_en="Grokking revisited")])  # a new file: the folder's time moves
    assert reader.search("grokking").total == 1
    _settle(index.path)
    index.upsert([make_paper(61, title_en="Grokking again")])
    _settle(index.path, seconds_ago=5.0)  # settled, at another time than the one recorded
    assert reader.search("grokking").total == 2


def test_a_commit_in_the_same_clock_tick_as_a_check_is_seen_once_the_folder_looks_settled(index: PaperIndex, monkeypatch) -> None:
    import os

    import bot.search.readers

    frozen = bot.search.readers._monotonic()
    monkeypatch.setattr(bot.search.readers, "_monotonic", lambda: frozen)  # never RECHECK_S after a check
    reader = PaperIndex(index.path)
    assert reader.search("grokking").total == 0  # checked while the folder's time was recent
    stamp = index.path.stat().st_mtime_ns
    index.upsert([make_paper(60, title_en="Grokking revisited")])
    os.utime(index.path, ns=(stamp, stamp))  # as if the commit had landed in the same clock tick
    real = bot.search.readers._wall_ns
    monkeypatch.setattr(bot.search.readers, "_wall_ns", lambda: real() + 3_000_000_000)  # ... and the time now looks settled
    assert reader.search("grokking").total == 1  # a recent stamp was never recorded as the version


def test_a_folder_whose_time_lags_is_still_listed_every_second(index: PaperIndex, monkeypatch) -> None:
    import os

    import bot.search.readers

    reader = PaperIndex(index.path)
    _settle(index.path)
    stamp = index.path.stat().st_mtime_ns
    assert reader.search("grokking").total == 0
    index.upsert([make_paper(60, title_en="Grokking revisited")])
    os.utime(index.path, ns=(stamp, stamp))  # a mount that keeps the folder's old time (NFS, FUSE)
    real = bot.search.readers._monotonic
    monkeypatch.setattr(bot.search.readers, "_monotonic", lambda: real() + bot.search.readers.RECHECK_S)
    assert reader.search("grokking").total == 1


def test_a_rebuild_by_another_object_is_noticed(index: PaperIndex) -> None:
    reader = PaperIndex(index.path)
    assert reader.search("speculative").total == 20
    index.rebuild([make_paper(1, title_en="Entirely new")])
    assert reader.search("speculative").total == 0
    assert reader.search("entirely").total == 1


@pytest.mark.parametrize(("page", "per_page", "ids"), [(1, 5, 5), (2, 5, 5), (4, 5, 5), (5, 5, 0), (1, 100, 20)])
def test_paging(index: PaperIndex, page: int, per_page: int, ids: int) -> None:
    result = index.search("speculative", page=page, per_page=per_page)
    assert result.total == 20
    assert len(result.hits) == ids


def test_pages_do_not_overlap(index: PaperIndex) -> None:
    seen = [h.id for p in range(1, 5) for h in index.search("speculative", page=p, per_page=5).hits]
    assert sorted(seen) == sorted(f"p{n}" for n in range(1, 21))


@pytest.mark.parametrize(("min_seq", "expected"), [(0, 20), (15, 5), (20, 0)])
def test_min_seq_filters_new_papers(index: PaperIndex, min_seq: int, expected: int) -> None:
    result = index.search("Finn", min_seq=min_seq, limit=100)
    assert result.total == expected
    assert all(int(h.id[1:]) > min_seq for h in result.hits)


def test_limit_returns_up_to_n_hits_on_one_page(index: PaperIndex) -> None:
    assert len(index.search("speculative", limit=12).hits) == 12
    assert len(index.search("speculative", limit=0).hits) == 0


def test_search_result_shape(index: PaperIndex) -> None:
    page = index.search("KV缓存")
    assert isinstance(page, IndexPage) and page.mode == "all" and page.problem is None
    hit = page.hits[0]
    assert isinstance(hit, IndexHit) and hit.score > 0
    assert hit.snippet_field == "summary"
    assert [f.text for f in hit.snippet if f.hit] == ["KV缓存"]


def test_more_like_excludes_the_paper_itself(index: PaperIndex) -> None:
    page = index.more_like("p1", per_page=50)
    assert page.total > 0
    assert "p1" not in [h.id for h in page.hits]


def test_more_like_unknown_paper(index: PaperIndex) -> None:
    page = index.more_like("nope")
    assert page.hits == [] and page.problem == "paper_not_found"


def test_snippet_marks_chinese_subword_hits_and_is_short() -> None:
    stored = {"summary": "甲" * 300 + "上下文学习" + "乙" * 300, "title_en": "x"}
    fragments, field = build_snippet(stored, frozenset({("summary", "上下")}))
    assert field == "summary"
    assert [f.text for f in fragments if f.hit] == ["上下"]
    assert fragments[0] == Fragment("…") and fragments[-1] == Fragment("…")
    assert sum(len(f.text) for f in fragments) <= 200 + 2


def test_snippet_prefers_the_field_with_more_distinct_matches() -> None:
    stored = {"title_en": "Speculative sampling", "summary": "speculative decoding 推测解码"}
    terms = frozenset((f, t) for f in ("title_en", "summary") for t in ("specul", "decod"))
    fragments, field = build_snippet(stored, terms)
    assert field == "summary"
    assert [f.text for f in fragments if f.hit] == ["speculative", "decoding"]


def test_snippet_without_matches_falls_back_to_summary_text() -> None:
    fragments, field = build_snippet({"summary": "摘要", "title_en": "T"}, frozenset())
    assert (fragments, field) == ([Fragment("摘要")], "summary")


def test_rebuild_in_batches_makes_segments_that_search_as_one(tmp_path: Path) -> None:
    index = PaperIndex(tmp_path / "index", batch_size=7, segment_docs=7)
    assert index.rebuild(make_paper(n) for n in range(1, 21)) == 20
    assert len(list((tmp_path / "index").glob("*.pst"))) == 3
    assert index.state() == (20, 20)
    assert index.search("speculative", limit=50).total == 20
    index.upsert([make_paper(5, title_en="Grokking")])
    assert index.state() == (20, 20)
    assert [h.id for h in index.search("grokking").hits] == ["p5"]


@pytest.mark.parametrize(
    "a, b, limit, expected",
    [
        ("decodng", "decoding", 3, 1),
        ("speculativ", "speculative", 3, 1),
        ("teh", "the", 3, 1),  # a transposition is one edit
        ("steganografy", "steganography", 3, 2),
        ("grokking", "grokking", 3, 0),
        ("cat", "dog", 2, 2),  # capped at the limit
        ("a", "abcdef", 3, 3),  # lengths alone rule it out
    ],
)
def test_edit_distance(a: str, b: str, limit: int, expected: int) -> None:
    assert edit_distance(a, b, limit) == expected


def test_suggestions_learn_words_added_after_the_vocabulary_was_read(tmp_path: Path) -> None:
    index = PaperIndex(tmp_path / "index")
    index.rebuild(make_paper(n) for n in range(1, 4))
    assert index.search("grokkin").suggestion is None  # nothing close yet
    index.upsert([make_paper(9, seq=9, rev=9, title_en="Provable grokking in ridge regression")])
    page = index.search("grokkin")
    assert page.suggestion == "grokking"
    assert [h.id for h in page.hits] == ["p9"]


def test_searchers_are_pooled_not_kept_per_thread(index: PaperIndex) -> None:
    def search() -> None:
        assert index.search("speculative").total == 20

    for _ in range(3):  # many short-lived threads, as the HTTP server makes
        threads = [threading.Thread(target=search) for _ in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert 1 <= len(index._pool.idle) <= MAX_IDLE_SEARCHERS


def test_small_upserts_fold_tiny_segments_but_leave_bulk_segments_alone(tmp_path: Path) -> None:
    index = PaperIndex(tmp_path / "index", batch_size=1000, segment_docs=1000)
    index.rebuild([])
    index.upsert(make_paper(n, seq=n, rev=n) for n in range(1, 2201))  # a bulk load: 1000 + 1000 + 200
    bulk = _segment_ids(tmp_path / "index")
    for n in range(2201, 2221):  # twenty inbox files of one paper each
        index.upsert([make_paper(n, seq=n, rev=n)])
    segments = _segment_ids(tmp_path / "index")
    assert len(bulk) == 3
    assert len(segments) == 3  # two bulk segments kept as written, one holding every small write
    assert len(set(bulk) & set(segments)) == 2
    assert index.state() == (2220, 2220)


def _segment_ids(folder: Path) -> list[str]:
    """The segments the index's latest table of contents lists."""
    ix = whoosh.index.open_dir(str(folder), indexname=INDEX_NAME)
    try:
        return sorted(segment.segment_id() for segment in ix._segments())
    finally:
        ix.close()


@pytest.mark.parametrize("revs", [[5], [1, 2, 3], [7, 300, 65_537, 2**40 + 3, 12], [2**62 + 1, 9]])
def test_state_finds_the_highest_rev_in_every_segment_without_walking_terms(tmp_path: Path, revs) -> None:
    ix = PaperIndex(tmp_path / "index", batch_size=2, segment_docs=2)  # two papers a segment
    ix.rebuild(make_paper(n, rev=rev) for n, rev in enumerate(revs, start=1))
    assert ix.state() == (len(revs), max(revs))
    ix.upsert([make_paper(1, rev=max(revs) + 10)])  # a new segment; the cached ones stay valid
    assert ix.state() == (len(revs), max(revs) + 10)
    ix.close()
    assert PaperIndex(tmp_path / "index").state() == (len(revs), max(revs) + 10)


def test_suggestions_forget_words_whose_papers_changed(tmp_path: Path) -> None:
    index = PaperIndex(tmp_path / "index")
    index.rebuild(make_paper(n) for n in range(1, 4))
    index.upsert([make_paper(9, seq=9, rev=9, title_en="Provable grokking in ridge regression")])
    assert index.search("grokkin").suggestion == "grokking"  # the vocabulary now holds it
    index.upsert([make_paper(9, seq=9, rev=10, title_en="Ridge regression revisited")])
    page = index.search("grokkin")
    assert page.suggestion is None and page.total == 0


def _built(path: Path, papers: list[Paper], *, indexed_numbers: bool) -> PaperIndex:
    """An index of `papers` in the schema of today or (indexed_numbers) of before 2026-12."""
    import whoosh.index

    from bot.search.schema import INDEX_NAME, build_schema

    path.mkdir(parents=True)
    whoosh.index.create_in(str(path), build_schema(indexed_numbers=indexed_numbers), indexname=INDEX_NAME).close()
    index = PaperIndex(path)
    index.open()
    index.upsert(papers[:12])
    index.upsert(papers[12:])  # two segments (TINY_SEGMENT_DOCS = 0: none folded into the next)
    return index


def test_seq_and_rev_are_columns_not_terms_and_older_indexes_open_as_they_are(tmp_path: Path, monkeypatch) -> None:
    """Two of every three terms of a bulk segment were its papers' seq and rev. Indexes built
    with them as terms still open (no rebuild), and every range reads the columns."""
    import whoosh.query as wq

    import bot.search.topk
    import bot.search.writers

    monkeypatch.setattr(bot.search.writers, "TINY_SEGMENT_DOCS", 0)
    papers = [make_paper(n, rev=rev) for n, rev in enumerate([3, 7, 5, *range(8, 30)], start=1)]  # revs out of order
    new = _built(tmp_path / "new", papers, indexed_numbers=False)
    old = _built(tmp_path / "old", papers, indexed_numbers=True)
    try:
        with new._searcher() as s_new, old._searcher() as s_old:
            assert [len(list(s.reader().leaf_readers())) for s in (s_new, s_old)] == [2, 2]
            assert [list(s.reader().lexicon(name)) for s in (s_new, s_old) for name in ("seq", "rev")][:2] == [[], []]
            assert all(list(s_old.reader().lexicon(name)) for name in ("seq", "rev"))
            # The column filter is the documents Whoosh's range over the old index's terms finds.
            for start, end in [(1, 5), (10, None), (None, 3), (26, 40)]:
                q = wq.NumericRange("seq", start, end)
                by_terms = {hit.docnum for hit in s_old.search(q, limit=None)}
                assert new._range_filter(s_new, q) == old._range_filter(s_old, q) == by_terms
        assert new.state() == old.state() == (25, 29)
        assert new.state()[1] == max(p.rev for p in papers)
        searches = [("decoding", 0, None), ("decoding", 10, 20), ("哈佛", 25, None)]
        for text, after, upto in searches:
            hits = [(h.id, h.score) for h in new.search(text, min_seq=after, max_seq=upto, per_page=50).hits]
            assert hits == [(h.id, h.score) for h in old.search(text, min_seq=after, max_seq=upto, per_page=50).hits]
            assert {h[0] for h in hits} == {p.id for p in papers if p.seq > after and (upto is None or p.seq <= upto)}
            assert new.score_new(text, after_seq=after, upto_seq=upto) == old.score_new(text, after_seq=after, upto_seq=upto)
            # Whoosh's own search (what bot/search/topk.py does not evaluate) gets the range as the column's documents.
            monkeypatch.setattr(bot.search.topk, "search", lambda *args, **kwargs: None)
            assert [(h.id, h.score) for h in new.search(text, min_seq=after, max_seq=upto, per_page=50).hits] == hits
            monkeypatch.undo()
    finally:
        new.close()
        old.close()


def test_reopening_the_same_index_keeps_its_caches_and_a_rebuild_does_not(index: PaperIndex) -> None:
    index.search("speculativ")  # fills the pooled searcher and the spelling vocabulary
    epoch = index._pool.epoch
    index.open()  # what every inbox scan's check does
    assert index._pool.epoch == epoch and index._spelling.english
    index.rebuild(make_paper(n) for n in range(1, 5))  # another directory swapped in
    assert index._pool.epoch > epoch
    assert index.state() == (4, 4)


def test_a_seq_range_keeps_papers_stored_later_out_of_a_digests_slots(index: PaperIndex) -> None:
    # A digest covers seq 6..10; papers 11..20 were stored while it was being composed.
    result = index.search("Finn", min_seq=5, max_seq=10, limit=5)
    assert sorted(int(h.id[1:]) for h in result.hits) == [6, 7, 8, 9, 10] and result.total == 5


def _commit_papers(ix, papers: list[Paper], *, delete: tuple[str, ...] = (), **commit) -> None:
    """Write `papers` as the index does (bot/search/segments.py's writer, the array codec), delete ids, commit."""
    writer = PaperWriter(ix, codec=ArrayCodec(), compound=False)
    for paper in papers:
        writer.add_document(**paper_document(paper))
    for paper_id in delete:
        writer.delete_by_term("id", paper_id)
    writer.commit(**commit)


def test_a_refreshed_searcher_keeps_the_readers_of_segments_that_did_not_change(tmp_path: Path) -> None:
    ix = whoosh.index.create_in(str(tmp_path), build_schema(), indexname=INDEX_NAME)
    _commit_papers(ix, [make_paper(n) for n in range(1, 6)], merge=False)
    _commit_papers(ix, [make_paper(n) for n in range(6, 11)], merge=False)
    searcher = PaperSearcher(ix.reader(), fromindex=ix)
    first, second = (leaf for leaf, _ in searcher.reader().leaf_readers())
    assert searcher.refresh() is searcher  # nothing committed since

    # A day's file: a new segment, and a paper it lists again deleted from the first one.
    _commit_papers(ix, [make_paper(11), make_paper(2, title_en="Grokking again")], delete=("p2",), merge=False)
    fresh = searcher.refresh()
    leaves = [leaf for leaf, _ in fresh.reader().leaf_readers()]
    assert len(leaves) == 3
    # The two older segments' readers are kept (their open files too), not opened again...
    assert leaves[0]._terms is first._terms and leaves[1]._terms is second._terms
    assert not first.is_closed and not second.is_closed
    # ...and the first one knows what was deleted from it since, as a reader opened anew does.
    assert (leaves[0].doc_count(), leaves[1].doc_count(), leaves[2].doc_count()) == (4, 5, 2)
    assert first.doc_count() == 5  # the reader the old searcher had is as it was
    with ix.searcher() as anew:

        def listed(s) -> list[tuple[str, str]]:
            return sorted((hit["id"], hit["title_en"]) for hit in s.search(whoosh.query.Every(), limit=None))

        assert listed(fresh) == listed(anew)
        assert [title for paper_id, title in listed(fresh) if paper_id == "p2"] == ["Grokking again"]
        assert len(listed(fresh)) == 11

    # A commit that merges every segment into one: the old readers are closed, the new one is Whoosh's.
    _commit_papers(ix, [], optimize=True)
    merged = fresh.refresh()
    assert merged.reader().is_atomic() and merged.doc_count() == 11
    assert leaves[0].is_closed and leaves[1].is_closed
    merged.close()
    ix.close()


def test_a_search_on_the_version_before_a_merge_still_reads_the_segments_merged_away(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "index"
    index = PaperIndex(folder)
    index.rebuild([])
    for n in range(1, 4):
        index.upsert([make_paper(n)])  # small segments, folded together by each upsert
    ix = whoosh.index.open_dir(str(folder), indexname=INDEX_NAME)
    before = ix.searcher()  # a search in flight on this version: nothing read from its segments yet
    old = {segment.segment_id() for segment in ix._segments()}
    index.upsert([make_paper(4)])  # folds them into a new segment: theirs leave the index
    assert old.isdisjoint(_segment_ids(folder))
    # Whoosh opens a segment's stored fields at their first use: the files must still be there.
    assert sorted(before.stored_fields(d)["id"] for d in before.document_numbers()) == ["p1", "p2", "p3"]
    before.close()
    ix.close()

    # Once they have been out of the index for the grace period, the next commit deletes them.
    later = time.time() + bot.search.segments.RETIRED_GRACE_S + 1
    monkeypatch.setattr(bot.search.segments, "_wall", lambda: later)
    just_before = set(_segment_ids(folder))
    index.upsert([make_paper(5)])  # (folds the last one in too: it leaves now, and stays for now)
    live = set(_segment_ids(folder))
    named = {
        path.name.split(".", 1)[0] for path in folder.iterdir() if path.name.startswith(f"{INDEX_NAME}_") and "." in path.name
    }
    assert old.isdisjoint(named)
    assert live <= named <= live | just_before
    assert [hit.id for hit in index.search("speculative", limit=10).hits] and index.state() == (5, 5)
    index.close()
