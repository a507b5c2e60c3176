"""arXiv enrichment against a fake Atom API on 127.0.0.1: matching, batching, spacing, failures."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest
from digest_support import FakeClock, ingest, open_corpus
from fake_arxiv import Entry, FakeArxiv

from bot.errors import ArxivError
from bot.feeds.arxiv import ArxivClient, Enricher, authors_overlap, normalize_title
from bot.ingest.listing import paper_id

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LISTING = """arXiv test feed

Speculative Decoding with Draft Trees
基于草稿树的推测解码
Ann Lee, Bo Wu, Chen Jie
AI总结 提出草稿树推测解码。

α-Divergence Policy Optimization
α散度策略优化
Dana Kim, Eli Stone
AI总结 提出α散度策略优化方法。

Cost-Aware Learning
成本感知学习
Clara Mohri, Amir Globerson
AI总结 成本感知的学习算法。

Sparse Attention for Long Context
长上下文稀疏注意力
Fay Roe, Gus Hill
AI总结 稀疏注意力。
"""


@pytest.fixture(scope="module")
def fake():
    server = FakeArxiv()
    yield server
    server.stop()


@pytest.fixture
def arxiv(fake):
    return fake.reset()


@pytest.fixture
def corpus(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "feed.txt", LISTING)
    yield corpus
    corpus.close()


def entries() -> list[Entry]:
    return [
        Entry("2611.00001", "Speculative Decoding with\n  Draft Trees", ["Ann Lee", "Bo Wu", "Jie Chen"],
              abstract="Speculative decoding speeds up inference. We grow draft trees.", categories=["cs.CL", "cs.LG"],
              doi="10.1000/xyz", comment="Code: https://github.com/ann/trees"),
        Entry("2611.00002", "$\\alpha$-Divergence Policy Optimization", ["Dana Kim", "Eli Stone"], categories=["cs.LG"]),
        # A near miss: one word more, other people. Must not become "Cost-Aware Learning".
        Entry("2611.00003", "Cost-Aware Learning Rates", ["Zed Quinn"]),
        # Same title, other people: not the listing's paper either.
        Entry("2611.00004", "Sparse Attention for Long Context", ["Hal Ng", "Ivy Po"]),
    ]  # fmt: skip


def enricher(corpus, arxiv, clock=None, **kwargs) -> Enricher:
    client = ArxivClient(arxiv.api_url, interval=kwargs.pop("interval", 0.0), backoff=0.01, timeout=kwargs.pop("timeout", 5))
    return Enricher(corpus, client, clock=clock or FakeClock(datetime(2026, 12, 1, tzinfo=UTC)), **kwargs)


def by_title(corpus, title: str):
    return next(p for p in corpus.store.iter_papers() if p.title_en == title)


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("$\\alpha$-Divergence Policy Optimization", "α-Divergence Policy Optimization", True),
        ("Speculative Decoding with\n  Draft Trees", "speculative decoding: with draft trees!", True),
        ("\\emph{Text} Models for {G}raphs", "Text models for graphs", True),
        ("Théorie des Graphes", "Theorie des graphes", True),
        ("Cost-Aware Learning Rates", "Cost-Aware Learning", False),
    ],
)
def test_titles_normalise_latex_accents_punctuation_case_and_breaks(a, b, same):
    assert (normalize_title(a) == normalize_title(b)) is same


def test_authors_must_overlap():
    assert authors_overlap(["Ann Lee", "Bo Wu", "Chen Jie"], ["Ann Lee", "Bo Wu", "Jie Chen"])
    assert not authors_overlap(["Fay Roe", "Gus Hill"], ["Hal Ng", "Ivy Po"])
    assert not authors_overlap([], ["Hal Ng"])


def test_enrich_matches_exact_and_latex_titles_and_rejects_near_misses(corpus, arxiv):
    arxiv.add(*entries())
    rev_before = corpus.store.state()[1]
    report = enricher(corpus, arxiv, batch=10).enrich()
    assert (report.checked, report.found, report.missing, report.updated) == (4, 2, 2, 2)
    assert len(arxiv.api_requests()) == 1  # four titles, one batched request
    assert arxiv.api_requests()[0].query["search_query"][0].count("ti:") == 4

    trees = by_title(corpus, "Speculative Decoding with Draft Trees")
    assert trees.arxiv.arxiv_id == "2611.00001" and trees.arxiv.version == 1
    assert trees.arxiv.categories == ["cs.CL", "cs.LG"] and trees.arxiv.doi == "10.1000/xyz"
    assert trees.to_dict()["pdf_url"] == "https://arxiv.org/pdf/2611.00001"
    assert by_title(corpus, "α-Divergence Policy Optimization").arxiv.arxiv_id == "2611.00002"
    assert by_title(corpus, "Cost-Aware Learning").arxiv is None
    assert by_title(corpus, "Sparse Attention for Long Context").arxiv is None
    assert corpus.stats()["arxiv"] == {"found": 2, "missing": 2}
    assert trees.rev > rev_before  # the change reaches the index
    # The English abstract is indexed: an English query finds the paper through it alone.
    assert [h.paper.id for h in corpus.search("inference grow").hits] == [trees.id]


def test_not_on_arxiv_is_remembered_and_checked_again_later(corpus, arxiv):
    clock = FakeClock(datetime(2026, 12, 1, tzinfo=UTC))
    arxiv.add(*entries())
    job = enricher(corpus, arxiv, clock=clock, recheck_days=7)
    job.enrich()
    requests = len(arxiv.api_requests())
    assert job.enrich().checked == 0 and len(arxiv.api_requests()) == requests  # nothing due

    # A week later the missing ones are asked again, and the found ones re-read by id.
    arxiv.add(Entry("2612.00009", "Cost-Aware Learning", ["Clara Mohri", "Amir Globerson"]))
    arxiv.entries[0].version = 3  # a new version of a found paper
    arxiv.entries[0].abstract = "Revised: draft trees with verification."
    clock.advance(days=8)
    report = job.enrich()
    assert report.checked == 4 and report.found == 3
    assert by_title(corpus, "Cost-Aware Learning").arxiv.arxiv_id == "2612.00009"
    trees = by_title(corpus, "Speculative Decoding with Draft Trees")
    assert trees.arxiv.version == 3 and trees.abstract_en.startswith("Revised")
    assert any("id_list" in r.query for r in arxiv.api_requests()[requests:])


def test_requests_are_spaced_by_the_interval(corpus, arxiv):
    arxiv.add(*entries())
    start = time.monotonic()
    report = enricher(corpus, arxiv, batch=1, interval=0.4).enrich()
    elapsed = time.monotonic() - start
    times = [r.at for r in arxiv.api_requests()]
    assert report.requests == len(times) == 4
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    # Measured where the requests arrive, so allow the loaded machine's jitter; unspaced
    # requests to a local server arrive a few milliseconds apart.
    assert min(gaps) >= 0.2 and elapsed >= 3 * 0.4, (gaps, elapsed)


def test_retries_back_off_and_honour_retry_after(arxiv):
    waits: list[float] = []
    arxiv.add(*entries())
    arxiv.script("/api/query", (503, {"Retry-After": "2"}, "busy"), (500, {}, "oops"))
    client = ArxivClient(arxiv.api_url, interval=0.0, backoff=0.5, sleep=waits.append)
    page = client.search_titles(["Speculative Decoding with Draft Trees"])
    assert page.entries[0].arxiv_id == "2611.00001"
    assert [w for w in waits if w > 0] == [2.0, 1.0]  # Retry-After, then the doubled backoff
    arxiv.script("/api/query", *[(429, {"Retry-After": "1"}, "slow down")] * 4)
    with pytest.raises(ArxivError) as error:
        client.search_titles(["x"])
    assert error.value.kind == "rate_limited"


@pytest.mark.parametrize(
    "status, body, kind",
    [
        (200, '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/1', "format"),
        (200, "<html><body><h1>Service temporarily down</h1></body></html>", "format"),
        (400, "bad request", "http"),
    ],
)
def test_bad_answers_change_nothing(corpus, arxiv, status, body, kind):
    arxiv.script("/api/query", (status, {"Content-Type": "text/html"}, body))
    before = [p.to_dict() for p in corpus.store.iter_papers()]
    with pytest.raises(ArxivError) as error:
        enricher(corpus, arxiv).enrich()
    assert error.value.kind == kind
    assert [p.to_dict() for p in corpus.store.iter_papers()] == before
    assert corpus.store.arxiv_stats() == {"found": 0, "missing": 0}


def test_network_down_logs_once_backs_off_and_changes_nothing(corpus, caplog):
    clock = FakeClock(datetime(2026, 12, 1, tzinfo=UTC))
    client = ArxivClient("http://127.0.0.1:9/api/query", interval=0.0, retries=1, backoff=0.0, timeout=1)
    job = Enricher(corpus, client, clock=clock)
    with caplog.at_level(logging.DEBUG, logger="bot.feeds.arxiv"):
        assert job.run_background() is None
        assert job.run_background() is None  # paused: not even a request
        assert client.requests == 2  # one try and one retry, the first time only
        clock.advance(minutes=6)
        job.run_background()
        clock.advance(minutes=11)
        job.run_background()
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "unreachable" in warnings[0].getMessage()
    assert job.pause.total_seconds() == 20 * 60  # 5, 10, 20 minutes
    assert corpus.store.arxiv_stats() == {"found": 0, "missing": 0}


def test_cli_enrich_and_show_json(tmp_path, arxiv):
    arxiv.add(*entries())
    listing = tmp_path / "feed.txt"
    listing.write_text(LISTING, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(PAPERBOT_DATA_DIR=str(tmp_path / "data"), PAPERBOT_SEEDS_DIR=str(tmp_path / "none"),
               PAPERBOT_ARXIV_API_URL=arxiv.api_url, PAPERBOT_ARXIV_INTERVAL_SECONDS="0")  # fmt: skip

    def run(*args):
        return subprocess.run([sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)

    assert run("ingest", str(listing)).returncode == 0
    env.update(PAPERBOT_ARXIV_API_URL="http://127.0.0.1:9/api/query", PAPERBOT_ARXIV_BACKOFF_SECONDS="0")
    down = run("enrich")  # no network: a clear line, and nothing stored changes
    assert down.returncode == 1 and "arXiv could not be asked" in down.stderr and "Traceback" not in down.stderr
    env["PAPERBOT_ARXIV_API_URL"] = arxiv.api_url
    done = run("enrich", "--limit", "2", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["checked"] == 2  # the newest two
    assert "2 checked, 2 found on arXiv, 0 not on arXiv" in run("enrich").stdout  # then the older two
    shown = json.loads(run("show", paper_id("Speculative Decoding with Draft Trees"), "--json").stdout)
    assert shown["arxiv_id"] == "2611.00001" and shown["abs_url"] == "https://arxiv.org/abs/2611.00001"
    assert shown["pdf_url"] == "https://arxiv.org/pdf/2611.00001" and shown["categories"] == ["cs.CL", "cs.LG"]
    assert shown["abstract_en"].startswith("Speculative decoding speeds") and shown["published"].startswith("2026-11-01")


@pytest.mark.parametrize(
    "env, enabled, url",
    [
        ({}, True, "https://export.arxiv.org/api/query"),
        ({"PAPERBOT_ARXIV": "off"}, False, "https://export.arxiv.org/api/query"),
        ({"PAPERBOT_ARXIV_API_URL": "http://mirror.example/api/query"}, True, "http://mirror.example/api/query"),
    ],
)
def test_settings(env, enabled, url):
    from bot.config import Settings

    settings = Settings.from_env(env)
    assert (settings.arxiv_enabled, settings.arxiv_api_url, settings.arxiv_interval_seconds) == (enabled, url, 3.0)
    assert (
        Settings.from_env({**env, "PAPERBOT_ARXIV_INTERVAL_SECONDS": "0"}).arxiv_interval_seconds == 0.0
    )  # (a mirror, or tests)


def test_a_bad_switch_names_the_variable():
    from bot.config import Settings
    from bot.errors import ConfigError

    with pytest.raises(ConfigError, match="PAPERBOT_ARXIV='maybe' must be on or off"):
        Settings.from_env({"PAPERBOT_ARXIV": "maybe"})


def test_a_mirrors_oversized_fields_are_clipped_to_the_listing_limits(arxiv):
    from bot.ingest.listing import FIELD_LIMITS

    arxiv.add(Entry("2612.00111", "Huge " * 500, ["Ann Lee"], abstract="word " * 50_000, comment="c " * 10_000))
    client = ArxivClient(arxiv.api_url, interval=0.0, backoff=0.01, timeout=5)
    (record,) = client.by_ids(["2612.00111"]).entries
    assert len(record.abstract) == FIELD_LIMITS["summary"] and record.abstract.startswith("word word")
    assert len(record.title) <= FIELD_LIMITS["title_en"] and len(record.comment) <= FIELD_LIMITS["comments"]
