"""Feeds: listing URLs and arXiv queries against a fake server on 127.0.0.1, every bad input."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime

import pytest
from digest_support import FakeClock, ingest, listing_text, open_corpus
from fake_arxiv import Entry, FakeArxiv, atom_feed

from bot.config import ALL_NETWORKS, Settings
from bot.errors import SourceError
from bot.feeds.arxiv import ArxivClient
from bot.feeds.sources import SourceService, format_source_line, parse_target

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def server():
    fake = FakeArxiv()
    yield fake
    fake.stop()


@pytest.fixture
def fake(server):
    return server.reset()


@pytest.fixture
def corpus(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    yield corpus
    corpus.close()


@pytest.fixture
def clock():
    return FakeClock(START)


def service(corpus, fake, clock, **kwargs) -> SourceService:
    settings = Settings(
        data_dir=corpus.settings.data_dir, arxiv_api_url=fake.api_url, sources_interval_minutes=60,
        feeds_allow_private=kwargs.pop("allow_private", ALL_NETWORKS), feeds_max_new_per_poll=kwargs.pop("cap", 2000),
    )  # fmt: skip
    client = ArxivClient(fake.api_url, interval=0.0, retries=0, timeout=2)
    return SourceService(settings, corpus, clock=clock, arxiv_client=client, timeout=kwargs.pop("timeout", 2), **kwargs)


def snapshot(corpus) -> list[dict]:
    return [p.to_dict() for p in corpus.store.iter_papers()]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("https://example.org/icml.txt", ("listing", "https://example.org/icml.txt")),
        ("<https://example.org/a.txt>", ("listing", "https://example.org/a.txt")),
        ("arxiv:cs.CL", ("arxiv", "arxiv:cs.CL")),
        ('arxiv:"speculative decoding"', ("arxiv", 'arxiv:"speculative decoding"')),
        ("arxiv:“speculative decoding”", ("arxiv", 'arxiv:"speculative decoding"')),
        ("arxiv:speculative decoding", ("arxiv", 'arxiv:"speculative decoding"')),
    ],
)
def test_targets_are_read(text, expected):
    assert parse_target(text) == expected


@pytest.mark.parametrize("text", ["ftp://example.org/x", "arxiv:", "icml.txt", 'arxiv:"a"b"', ""])
def test_bad_targets_say_what_to_give(text):
    with pytest.raises(SourceError) as error:
        parse_target(text)
    assert "arxiv:cs.CL" in error.value.text("en") and "arxiv:cs.CL" in error.value.text("zh")


def test_a_listing_url_is_ingested_then_asked_conditionally(corpus, fake, clock):
    fake.pages["/icml.txt"] = (listing_text("ICML Feed（ICML订阅）", 1, 3), '"v1"')
    feeds = service(corpus, fake, clock)
    feeds.add(fake.url + "/icml.txt", added_by="U1")
    with pytest.raises(SourceError, match="already a source"):
        feeds.add(fake.url + "/icml.txt", added_by="U2")
    (first,) = feeds.poll_all()
    assert (first.added, first.error) == (3, "")
    assert corpus.store.state()[0] == 3 and corpus.search("Sparse Attention Study Number 2").total >= 1
    clock.advance(hours=1)
    (second,) = feeds.poll_all()
    assert second.unchanged and second.added == 0
    assert fake.requests[-1].headers.get("If-None-Match") == '"v1"'
    (source,) = feeds.list_sources()
    assert source.papers_added == 3 and source.last_success == "2026-12-01T09:00:00+00:00" and source.last_error == ""


def test_an_arxiv_feed_merges_with_listing_papers_into_one_paper(corpus, fake, clock, tmp_path):
    ingest(corpus, tmp_path, "listing.txt", "Listing Feed\n\nSpeculative Decoding with Draft Trees\n基于草稿树的推测解码\n"
           "Ann Lee, Bo Wu\nAI总结 提出草稿树推测解码。\n")  # fmt: skip
    fake.add(
        Entry("2611.00001", "Speculative Decoding with Draft Trees", ["Ann Lee", "Bo Wu"], categories=["cs.CL"],
              abstract="We grow draft trees."),
        Entry("2611.00042", "Tree Attention for $\\beta$-Models", ["Cy Dee"], categories=["cs.CL"],
              comment="Code: https://github.com/cy/tree"),
    )  # fmt: skip
    feeds = service(corpus, fake, clock)
    feeds.add("arxiv:cs.CL", added_by="U1")
    (result,) = feeds.poll_all()
    assert result.added == 1  # the listing's paper is not new: it gains the feed and its record
    assert fake.api_requests()[0].query["search_query"] == ["cat:cs.CL"]
    papers = {p.title_en: p for p in corpus.store.iter_papers()}
    assert len(papers) == 2
    merged = papers["Speculative Decoding with Draft Trees"]
    assert merged.title_zh == "基于草稿树的推测解码" and merged.summary_zh  # everything from the listing
    assert merged.arxiv.arxiv_id == "2611.00001" and merged.feeds == ["Listing Feed", "arXiv cs.CL"]
    new = papers["Tree Attention for beta-Models"]
    assert new.title_zh == "" and new.arxiv.arxiv_id == "2611.00042" and new.urls == ["https://github.com/cy/tree"]
    # Polled again: nothing new, still one paper per arXiv id.
    assert feeds.poll_all(force=True)[0].added == 0 and corpus.store.state()[0] == 2
    # A listing that names the arXiv-only paper later merges into it too.
    ingest(corpus, tmp_path, "later.txt", "Later Feed\n\nTree Attention for beta-Models\n树注意力\nCy Dee\nAI总结 树注意力。\n")
    assert corpus.store.state()[0] == 2 and corpus.store.get(new.id).title_zh == "树注意力"


BAD = [
    (
        "/bad.xml",
        "arxiv",
        (200, {"Content-Type": "application/atom+xml"}, atom_feed([])[:120]),
        "format",
        "not a valid Atom feed",
    ),
    (
        "/page.txt",
        "listing",
        (200, {"Content-Type": "text/html"}, "<!DOCTYPE html><html><body>Oops</body></html>"),
        "html",
        "web page",
    ),
    ("/loop", "listing", None, "redirects", "redirects in a loop"),
    ("/huge", "listing", None, "too_large", "too large"),
    ("/huge-unsized", "listing", None, "too_large", "too large"),
    ("/busy.txt", "listing", (429, {"Retry-After": "7200"}, "slow down"), "rate_limited", "slow down"),
    ("/down.txt", "listing", (503, {"Retry-After": "90"}, "maintenance"), "unavailable", "unavailable"),
    ("/slow.txt", "listing", None, "timeout", "did not answer in time"),
    ("/gone.txt", "listing", (404, {}, "<html>gone</html>"), "http", "HTTP 404"),
    (
        "/garbage.txt",
        "listing",
        (200, {"Content-Type": "text/plain"}, "AI总结 only a summary\n"),
        "listing",
        "first line must name the feed",
    ),
]


@pytest.mark.parametrize("path, kind, answer, error, words", BAD, ids=[b[0].strip("/") for b in BAD])
def test_bad_input_is_a_clear_status_line_and_changes_nothing(
    corpus, fake, clock, tmp_path, caplog, path, kind, answer, error, words
):
    ingest(corpus, tmp_path, "seed.txt", listing_text("Seed（种子）", 1, 2))
    before = snapshot(corpus)
    if kind == "arxiv":
        fake.script("/api/query", answer)
        target = "arxiv:cs.LG"
    else:
        if answer:
            fake.script(path, answer)
        target = fake.url + path
    if error == "timeout":
        fake.delay[path] = 1.0
    feeds = service(corpus, fake, clock, timeout=0.3)
    feeds.add(target, added_by="U1")
    with caplog.at_level(logging.WARNING, logger="bot.feeds.sources"):
        (result,) = feeds.poll_all()
    assert result.error == error
    (source,) = feeds.list_sources()
    assert words in source.error_text("en") and source.error_text("zh") and source.failures == 1
    assert words in result.line("en") and target in caplog.text
    assert snapshot(corpus) == before
    if error == "rate_limited":
        assert source.retry_at == "2026-12-01T10:00:00+00:00"  # Retry-After: 2 h outlasts the 1 h backoff


@pytest.mark.parametrize(
    "kind",
    ["network", "timeout", "too_large", "redirects", "rate_limited", "unavailable", "http", "html", "listing",
     "format", "api", "arxiv_off", "stopped", "internal"],
)  # fmt: skip
def test_every_failure_has_words_in_both_languages(kind):
    from bot.feeds.sources import Source

    source = Source(1, "listing", "https://x.org/a.txt", "", "", last_error=kind, last_error_detail="d")
    assert source.error_text("en") and source.error_text("zh") != source.error_text("en")


def test_a_failing_source_backs_off_and_tells_admins_once(corpus, fake, clock):
    told = []
    feeds = service(corpus, fake, clock, on_failing=told.append)
    feeds.add(fake.url + "/missing.txt", added_by="U1")
    waits = []
    for _ in range(3):
        (result,) = feeds.poll_all()
        assert result.error == "http"
        (source,) = feeds.list_sources()
        waits.append(source.retry_at)
        assert feeds.poll_all() == [] or feeds.poll_all()[0].skipped == "waiting"  # not before retry_at
        clock.set(datetime.fromisoformat(source.retry_at))
    assert waits == ["2026-12-01T09:00:00+00:00", "2026-12-01T11:00:00+00:00", "2026-12-01T15:00:00+00:00"]
    assert len(told) == 1 and told[0].target.endswith("/missing.txt")
    fake.pages["/missing.txt"] = (listing_text("Back（恢复）", 1, 1), "")
    assert feeds.poll_all()[0].added == 1
    (source,) = feeds.list_sources()
    assert (source.failures, source.retry_at, source.notified) == (0, "", False)


def test_never_two_polls_of_one_source_at_once(corpus, fake, clock):
    fake.pages["/slow.txt"] = (listing_text("Slow（慢）", 1, 1), "")
    fake.delay["/slow.txt"] = 0.5
    feeds = service(corpus, fake, clock)
    feeds.add(fake.url + "/slow.txt", added_by="U1")
    results = []
    threads = [threading.Thread(target=lambda: results.extend(feeds.poll_all(force=True))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.skipped for r in results) == ["", "busy"]
    assert len([r for r in fake.requests if r.path == "/slow.txt"]) == 1


def test_cli_sources_add_list_poll_remove(tmp_path, fake):
    fake.pages["/feed.txt"] = (listing_text("CLI Feed（命令行）", 1, 2), '"e1"')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(PAPERBOT_DATA_DIR=str(tmp_path / "data"), PAPERBOT_SEEDS_DIR=str(tmp_path / "none"), PAPERBOT_ARXIV="off",
               PAPERBOT_FEEDS_ALLOW_PRIVATE="on")  # fmt: skip

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "bot", "sources", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )

    url = fake.url + "/feed.txt"
    assert run("add", url).returncode == 0
    assert "arXiv is turned off" in run("add", "arxiv:cs.CL").stderr
    polled = run("poll", "--json")
    assert polled.returncode == 0 and json.loads(polled.stdout)[0]["added"] == 2
    listed = json.loads(run("list", "--json").stdout)
    assert listed[0]["target"] == url and listed[0]["papers_added"] == 2 and listed[0]["last_success"]
    removed = run("remove", url)
    assert removed.returncode == 0 and "its papers stay" in removed.stdout
    bad = run("add", "icml.txt")
    assert bad.returncode == 1 and "not a feed I can read" in bad.stderr and "Traceback" not in bad.stderr


def test_an_arxiv_entry_with_a_stored_title_but_other_authors_is_another_paper(corpus, fake, clock, tmp_path):
    ingest(corpus, tmp_path, "listing.txt", "Listing Feed\n\nScaling Laws Revisited\n缩放定律再探\n"
           "Ann Lee, Bo Wu\nAI总结 重新审视缩放定律。\n")  # fmt: skip
    fake.add(Entry("2611.00077", "Scaling Laws Revisited", ["Zed Qi", "Xu Yan"], categories=["cs.LG"], abstract="Another one."))
    feeds = service(corpus, fake, clock)
    feeds.add("arxiv:cs.LG", added_by="U1")
    (result,) = feeds.poll_all()
    assert result.added == 1
    papers = list(corpus.store.iter_papers())
    assert len(papers) == 2
    (listed,) = [p for p in papers if p.title_zh]
    assert listed.authors == ["Ann Lee", "Bo Wu"] and listed.arxiv is None  # untouched
    (other,) = [p for p in papers if not p.title_zh]
    assert other.authors == ["Zed Qi", "Xu Yan"] and other.arxiv.arxiv_id == "2611.00077"


def test_one_poll_adds_at_most_the_cap_and_the_rest_wait_for_the_next(corpus, fake, clock):
    """A flooding feed: 12 new papers, 5 a poll; a paper already stored is updated within the cap's room."""
    fake.pages["/flood.txt"] = (listing_text("Flood（洪水）", 1, 12), '"f1"')
    feeds = service(corpus, fake, clock, cap=5)
    feeds.add(fake.url + "/flood.txt", added_by="U1")
    first = feeds.poll_all()[0]
    assert (first.added, first.held_back, corpus.store.state()[0]) == (5, 7, 5)
    assert "7 more new papers wait for the next poll (at most 5 per poll" in first.line("en")
    assert "另有 7 篇新论文留待下次抓取" in first.line("zh")
    (source,) = feeds.list_sources()
    assert source.held_back == 7 and source.etag == ""  # no ETag kept: the next poll gets it all again
    assert "7 more new papers waiting for the next poll" in format_source_line(source, "en")
    assert [(r.added, r.held_back) for r in (feeds.poll_all(force=True)[0], feeds.poll_all(force=True)[0])] == [(5, 2), (2, 0)]
    assert not any(r.headers.get("If-None-Match") for r in fake.requests)
    (source,) = feeds.list_sources()
    assert (source.papers_added, source.held_back, source.etag) == (12, 0, '"f1"')
    assert feeds.poll_all(force=True)[0].unchanged  # now the ETag is kept
    titles = sorted(int(p.title_en.split()[4].rstrip(":")) for p in corpus.store.iter_papers())
    assert titles == list(range(1, 13))  # in the listing's order, none lost


def test_a_large_feed_listing_is_parsed_by_a_child_process(corpus, fake, clock, monkeypatch):
    """Point 2 of issue 29: parsing a large listing holds the interpreter; the server's must stay free."""
    import bot.feeds.listings
    from bot.ingest.intake import CHILD_BYTES

    text = listing_text("Big（大）", 1, 600)
    assert len(text.encode()) >= CHILD_BYTES
    fake.pages["/big.txt"] = (text, "")
    parsed_here, children = [], []
    real_parse, real_child = bot.feeds.listings.parse_text, bot.feeds.listings.run_in_child
    monkeypatch.setattr(bot.feeds.listings, "parse_text", lambda *a: parsed_here.append(a[1]) or real_parse(*a))
    monkeypatch.setattr(
        bot.feeds.listings, "run_in_child", lambda target, *a, **k: children.append(target) or real_child(target, *a, **k)
    )
    feeds = service(corpus, fake, clock)
    feeds.add(fake.url + "/big.txt", added_by="U1")
    (result,) = feeds.poll_all()
    assert (result.added, result.error) == (600, "") and parsed_here == []
    assert children == ["bot.feeds.listings:store_in_child"]
    assert corpus.search('"Sparse Attention Study Number 577"').total >= 1  # indexed once the poll returns
    rows = corpus.store.read("SELECT COUNT(*), SUM(brought) FROM source_papers WHERE source = ?", (fake.url + "/big.txt",))
    assert tuple(rows[0]) == (600, 600)


def flood_listing(numbers, feed="Flood（洪水）") -> str:
    """A listing of the given study numbers (listing_text's records), under `feed`."""
    parts = [listing_text(feed, n, 1).split("\n", 2)[2] for n in numbers]
    return feed + "\n\n" + "".join(parts)


@pytest.fixture
def timed(tmp_path, clock):
    """A corpus whose store keeps the test's clock: what was stored before what is decided by it."""
    from bot.clock import to_iso
    from bot.corpus import Corpus
    from bot.search.index import PaperIndex
    from bot.store.database import Store

    settings = Settings(data_dir=tmp_path / "timed", seeds_dir=tmp_path / "no-seeds")
    corpus = Corpus(settings, Store(settings.db_path, clock=lambda: to_iso(clock())), PaperIndex(settings.index_dir))
    corpus.ensure_index()
    yield corpus
    corpus.close()


def test_remove_papers_takes_only_what_the_source_alone_brought(timed, fake, clock, tmp_path):
    from bot.library.readinglist import Library

    corpus = timed
    ingest(corpus, tmp_path, "icml.txt", listing_text("ICML", 1, 2))  # 1 and 2: a listing had them first
    ingest(corpus, tmp_path, "early.txt", flood_listing([10]))  # a listing file with the flood's feed name, before it
    clock.advance(minutes=5)
    fake.pages["/flood.txt"] = (flood_listing(range(1, 13)), "")
    fake.pages["/other.txt"] = (flood_listing([9], feed="Other（其他）"), "")
    library = Library(corpus.store)
    feeds = service(corpus, fake, clock, kept_by_people=library.kept_by_people)
    flood, other = fake.url + "/flood.txt", fake.url + "/other.txt"
    feeds.add(flood, added_by="U1")
    feeds.add(other, added_by="U1")
    assert [r.added for r in feeds.poll_all()] == [9, 0]  # 9 is the flood's first, the other source lists it too
    clock.advance(minutes=5)
    ingest(corpus, tmp_path, "workshop.txt", flood_listing([11], feed="Workshop"))  # another feed lists 11
    paper = {int(p.title_en.split()[4].rstrip(":")): p for p in corpus.store.iter_papers()}
    library.save("U_READER", paper[12].id)
    before = corpus.store.state()[0]

    plan = feeds.plan_removal(flood)
    assert (plan.count, plan.kept_listed, plan.kept_people) == (6, 2, 1)  # 3-8 go; 9 and 11 listed elsewhere; 12 saved
    assert corpus.store.state()[0] == before and feeds.sources.get(flood) is not None  # a plan removes nothing
    assert plan.line("en", done=False).startswith(f"Removing the papers of `{flood}` takes away 6 papers")
    assert "Kept: 2 that another feed or a listing file also brought; 1 that someone saved or shared." in plan.line(
        "en", done=False
    )
    assert "保留：2 篇其他订阅源或列表文件也收录的论文；1 篇有人收藏或分享过的论文。" in plan.line("zh", done=False)

    done = feeds.remove_papers(flood)
    assert done.removed == 6 and corpus.store.state()[0] == before - 6
    assert sorted(int(p.title_en.split()[4].rstrip(":")) for p in corpus.store.iter_papers()) == [1, 2, 9, 10, 11, 12]
    assert corpus.index.state()[0] == corpus.store.state()[0]  # gone from the index too
    assert corpus.search('"Sparse Attention Study Number 5"').total == 0
    assert corpus.search('"Sparse Attention Study Number 12"').total == 1
    assert [s.target for s in feeds.list_sources()] == [other]  # its next poll can't bring them back
    assert f"`{flood}` is no longer a source." in done.line("en", done=True)
    assert corpus.ensure_index() is None  # in step: no rebuild for the revs that went
    assert feeds.plan_removal(flood).count == 0  # nothing left of it; its name is still known


def test_a_listing_file_under_the_same_feed_name_later_keeps_the_papers(timed, fake, clock, tmp_path):
    """It may have listed them too, and which it listed is not recorded: kept, and counted as such."""
    fake.pages["/flood.txt"] = (flood_listing(range(1, 4)), "")
    feeds = service(timed, fake, clock)
    feeds.add(fake.url + "/flood.txt", added_by="U1")
    feeds.poll_all()
    clock.advance(minutes=5)
    ingest(timed, tmp_path, "later.txt", flood_listing([2]))
    plan = feeds.plan_removal(fake.url + "/flood.txt")
    assert (plan.count, plan.kept_listed) == (0, 3)
    assert "brought no papers that only it has" in plan.line("en", done=False)


def test_removing_the_newest_papers_does_not_make_the_index_look_newer_than_the_store(corpus, fake, clock, tmp_path):
    ingest(corpus, tmp_path, "icml.txt", listing_text("ICML", 1, 3))
    fake.pages["/flood.txt"] = (flood_listing(range(50, 60)), "")
    feeds = service(corpus, fake, clock)
    feeds.add(fake.url + "/flood.txt", added_by="U1")
    feeds.poll_all()
    inode = corpus.index.path.stat().st_ino
    assert feeds.remove_papers(fake.url + "/flood.txt").removed == 10
    assert corpus.ensure_index() is None and corpus.index.path.stat().st_ino == inode  # not rebuilt
    corpus.reindex()
    assert corpus.ensure_index() is None and corpus.index.state()[0] == 3
    ingest(corpus, tmp_path, "more.txt", listing_text("NeurIPS", 100, 2))  # new papers still new
    assert corpus.store.state()[0] == 5 and corpus.index.state()[0] == 5


def test_cli_remove_papers_asks_for_yes_first(tmp_path, fake):
    fake.pages["/feed.txt"] = (listing_text("CLI Feed（命令行）", 1, 2), "")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(PAPERBOT_DATA_DIR=str(tmp_path / "data"), PAPERBOT_SEEDS_DIR=str(tmp_path / "none"), PAPERBOT_ARXIV="off",
               PAPERBOT_FEEDS_ALLOW_PRIVATE="on")  # fmt: skip

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "bot", "sources", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )

    url = fake.url + "/feed.txt"
    assert run("add", url).returncode == 0 and run("poll").returncode == 0
    asked = run("remove-papers", url)
    assert asked.returncode == 0 and "takes away 2 papers" in asked.stdout and "--yes" in asked.stdout
    assert json.loads(run("list", "--json").stdout)[0]["target"] == url  # nothing happened yet
    done = run("remove-papers", url, "--yes", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["removed"] == 2
    assert json.loads(run("list", "--json").stdout) == []
    unknown = run("remove-papers", "https://nowhere.example/x.txt")
    assert unknown.returncode == 1 and "There is no source" in unknown.stderr
