"""arXiv links, English abstracts and feeds over real HTTP: signed Slack requests in, calls to
the fake Slack out, arXiv and listing URLs served by tests/fake_arxiv.py, real APScheduler on
an injected clock."""

from __future__ import annotations

import dataclasses
import time
from datetime import UTC, datetime

import pytest
from digest_support import FakeClock, ingest, listing_text, open_corpus
from fake_arxiv import Entry, FakeArxiv
from fake_slack import FakeSlack
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender, all_text, button_values

from bot.config import ALL_NETWORKS, Settings
from bot.digests.scheduler import ManualScheduler
from bot.feeds.arxiv import ArxivClient, Enricher
from bot.services import start_services, stop_services
from bot.slack.app import build_app, slack_services
from bot.slack.http import start_http_server
from bot.slack.render.blocks import check_blocks

ADMIN = "UADMIN9"
ABSTRACT = (
    "Speculative decoding speeds up inference without changing outputs. We grow draft trees that a "
    "verifier accepts in one pass. On five benchmarks it is 2.4x faster than autoregressive decoding."
)
LISTING = """Links Feed

Speculative Decoding with Draft Trees
基于草稿树的推测解码
Ann Lee, Bo Wu
AI总结 提出草稿树推测解码方法，显著提升推理速度。
Comments Code: https://github.com/ann/trees ; project page https://trees.example.org ; also https://github.com/ann/trees

Grokking in Ridge Regression
岭回归中的顿悟现象
Mingyue Xu, Gal Vardi
AI总结 研究岭回归中的顿悟现象。

Glacier Flow Emulators
冰川流动模拟器
Ina Berg
AI总结 用神经网络模拟冰川流动。
Comments We release the code at https://glacier.github.io/emulator. Project Website: https://glacier-lab.github.io
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("links-slack")
    arxiv = FakeArxiv()
    arxiv.add(Entry("2611.00001", "Speculative Decoding with Draft Trees", ["Ann Lee", "Bo Wu"], abstract=ABSTRACT,
                    categories=["cs.CL", "cs.LG"], doi="10.18653/v1/2026.acl-long.42"))  # fmt: skip
    fake = FakeSlack().start()
    corpus = open_corpus(tmp / "data")
    ingest(corpus, tmp, "links.txt", LISTING)
    # Made ready as `serve` makes it (the dictionaries loaded), so the first search answers
    # within the ack budget on a loaded machine (it took 3.3 s cold).
    corpus.prepare()
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    Enricher(corpus, ArxivClient(arxiv.api_url, interval=0.0), clock=clock).enrich()
    settings = Settings(
        data_dir=tmp / "data", inbox_dir=tmp / "data" / "inbox", slack_bot_token=BOT_TOKEN, slack_signing_secret=SIGNING_SECRET,
        slack_api_base_url=fake.api_url.rstrip("/"), admins=frozenset({ADMIN}), timezone="UTC",
        arxiv_api_url=arxiv.api_url, arxiv_interval_seconds=0.0, arxiv_backoff_seconds=0.0,
        feeds_allow_private=ALL_NETWORKS,  # the fake feed server is on 127.0.0.1
    )  # fmt: skip
    services = slack_services(settings, corpus, clock=clock, scheduler=ManualScheduler(clock))
    start_services(services, background=True)
    server = start_http_server(build_app(settings, services), corpus.is_ready)
    world = dataclasses.make_dataclass("World", ["fake", "arxiv", "corpus", "services", "clock", "server", "tmp"])(
        fake, arxiv, corpus, services, clock, server, tmp
    )
    yield world
    server.shutdown()
    stop_services(services)
    corpus.close()
    fake.stop()
    arxiv.stop()


@pytest.fixture
def w(world):
    world.fake.reset()
    return world


@pytest.fixture
def slack(w):
    sender = SlackSender(w.server.url, w.fake)
    yield sender
    sender.close()


def links_of(blocks: list[dict]) -> list[tuple[str, str]]:
    """Link buttons, and a digest row's link options (its overflow menu)."""
    buttons = [e for b in blocks if b.get("type") == "actions" for e in b["elements"]]
    options = [o for b in blocks if (b.get("accessory") or {}).get("type") == "overflow" for o in b["accessory"]["options"]]
    return [(e["text"]["text"], e["url"]) for e in buttons + options if "url" in e]


TREES_LINKS_EN = [
    ("arXiv", "https://arxiv.org/abs/2611.00001"),
    ("PDF", "https://arxiv.org/pdf/2611.00001"),
    ("Code", "https://github.com/ann/trees"),
    ("Project", "https://trees.example.org"),
]


def run_at(w, **delta):
    w.clock.advance(**delta)
    w.services.scheduler.scheduler.run_pending()


def test_results_link_to_arxiv_pdf_code_and_project_and_show_the_abstract(w, slack):
    status, body = slack.command("draft trees", user_id="U_EN9")
    assert status == 200 and check_blocks(body["blocks"]) == []
    assert links_of(body["blocks"]) == TREES_LINKS_EN  # each URL once, the repeated one too
    text = all_text(body["blocks"])
    assert "*<https://arxiv.org/abs/2611.00001|Speculative Decoding with Draft Trees>*" in text
    assert "Speculative decoding speeds up inference without changing outputs. We grow draft trees" in text
    assert "2.4x faster" not in text  # the lead only; the whole abstract is in Details
    # A click on a URL button reaches the app too, which acks it quietly.
    status, _ = slack.click("link_pdf_1", "", user_id="U_EN9")
    assert status == 200 and not w.fake.calls_to("response")


def test_a_chinese_reader_keeps_the_summary_and_gets_chinese_link_labels(w, slack):
    slack.command("lang zh", user_id="U_ZH9")
    _, body = slack.command("草稿树", user_id="U_ZH9")
    assert [label for label, _ in links_of(body["blocks"])] == ["arXiv 页面", "PDF 全文", "代码", "项目主页"]
    text = all_text(body["blocks"])
    assert "草稿树" in text and "Speculative decoding speeds up" not in text


@pytest.mark.parametrize("user_id, lang", [("U_DET_EN", "en"), ("U_DET_ZH", "zh")])
def test_details_hold_the_whole_abstract_and_the_links(w, slack, user_id, lang):
    slack.command(f"lang {lang}", user_id=user_id)
    _, body = slack.command("draft trees", user_id=user_id)
    value = button_values(body["blocks"], "paper_details")[0]
    slack.click("paper_details", value, user_id=user_id)
    (card,) = w.fake.wait_for("response")
    blocks = card.args["blocks"]
    assert check_blocks(blocks) == []
    text = all_text(blocks)
    assert ABSTRACT in text and "提出草稿树推测解码方法" in text
    # The reader's own language first: the English abstract, or the Chinese AI summary.
    assert (text.index(ABSTRACT) < text.index("提出草稿树推测解码方法")) is (lang == "en")
    assert len(links_of(blocks)) == 4 and "2611.00001v1 · cs.CL, cs.LG" in text
    assert "arxiv.org/abs" not in text  # the arXiv page is one button, not a URL shown again


def test_a_shared_card_carries_the_links(w, slack):
    _, body = slack.command("draft trees", user_id="U_SH9", channel_id="C_SH9")
    slack.click("paper_share", button_values(body["blocks"], "paper_share")[0], user_id="U_SH9", channel_id="C_SH9")
    (preview,) = w.fake.wait_for("response")
    slack.click("share_post", button_values(preview.args["blocks"], "share_post")[0], user_id="U_SH9", channel_id="C_SH9")
    (post,) = w.fake.wait_for("chat.postMessage")
    assert post.args["channel"] == "C_SH9"
    blocks = post.args["blocks"]
    assert links_of(blocks) == TREES_LINKS_EN
    assert "Speculative decoding speeds up inference" in all_text(blocks)


def test_anyone_sees_the_feeds_and_who_manages_them_but_only_admins_change_them(w, slack):
    _, body = slack.command("sources", user_id="U_NOT_ADMIN")
    text = all_text(body["blocks"])
    assert "Feeds" in text and f"Feeds are managed by <@{ADMIN}>; ask one of them" in text  # read-only, and whom to ask
    assert "PAPERBOT_ADMINS" not in text
    _, body = slack.command("sources add arxiv:cs.CL", user_id="U_NOT_ADMIN")
    text = all_text(body["blocks"])
    assert "Only paperbot's admins add, remove or poll feeds." in text and f"<@{ADMIN}>" in text and "PAPERBOT_ADMINS" not in text
    _, body = slack.command("lang zh", user_id="U_NOT_ADMIN_ZH")
    _, body = slack.command("sources", user_id="U_NOT_ADMIN_ZH")
    assert f"订阅源由 <@{ADMIN}> 管理" in all_text(body["blocks"])
    _, body = slack.command("sources of error in grokking", user_id="U_NOT_ADMIN")
    assert "Only paperbot's admins" not in all_text(body["blocks"])  # not the command: a search


def wait_until(predicate, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_a_feeds_new_papers_arrive_in_the_next_digest_with_links(w, slack):
    slack.command("subscribe 09:00", user_id=ADMIN, channel_id="C_FEED9")
    w.arxiv.add(Entry("2612.00077", "Lookahead Drafting for Fast Decoding", ["Ivy Po"], categories=["cs.CL"],
                      abstract="We draft ahead. It is fast.", comment="https://github.com/ivy/lookahead"))  # fmt: skip
    _, body = slack.command("sources add arxiv:cs.CL", user_id=ADMIN)
    assert "Added `arxiv:cs.CL`" in all_text(body["blocks"])
    wait_until(lambda: w.services.sources.list_sources()[0].last_success)  # polled at once, in the background
    assert any(p.title_en.startswith("Lookahead") for p in w.corpus.newest(3))
    _, body = slack.command("sources", user_id=ADMIN)
    assert "`arxiv:cs.CL` · last poll 2026-12-01T08:00:00+00:00" in all_text(body["blocks"])
    assert "1 paper added · no errors" in all_text(body["blocks"])

    w.clock.set(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    w.services.scheduler.scheduler.run_pending()
    # The channel heard of its new subscription first; then comes the digest.
    (post,) = [
        c
        for c in w.fake.calls_to("chat.postMessage")
        if c.args["channel"] == "C_FEED9" and c.args["blocks"][0]["type"] == "header"
    ]
    text = all_text(post.args["blocks"])
    assert "Lookahead Drafting for Fast Decoding" in text and "We draft ahead." in text
    assert ("arXiv", "https://arxiv.org/abs/2612.00077") in links_of(post.args["blocks"])
    # The row's menu has room for one link since 👍 / 👎 joined it (issue 27): the code is in Details.
    assert ("Code", "https://github.com/ivy/lookahead") not in links_of(post.args["blocks"])

    # The admins' App Home shows the feed and its last poll; a reader's does not.
    slack.event({"type": "app_home_opened", "user": ADMIN, "tab": "home"})
    slack.event({"type": "app_home_opened", "user": "U_READER9", "tab": "home"})
    views = {c.args["user_id"]: all_text(c.args["view"]["blocks"]) for c in w.fake.wait_for("views.publish", 2)}
    assert "`arxiv:cs.CL` · last poll" in views[ADMIN] and "arxiv:cs.CL" not in views["U_READER9"]


def test_a_failing_feed_tells_the_admins_once(w, slack):
    w.services.sources.add(w.arxiv.url + "/nothing-here.txt", added_by=ADMIN)
    for _ in range(3):
        w.services.sources.poll_all(force=True)
    dms = [c for c in w.fake.calls_to("chat.postMessage") if "nothing-here.txt" in c.args.get("text", "")]
    assert len(dms) == 1 and "is failing: the server answered `HTTP 404`" in dms[0].args["text"]
    w.services.sources.remove(w.arxiv.url + "/nothing-here.txt")


HOSTILE = "<https://evil.example|Click here to re-authorize paperbot> <!channel> *bold* `tick`"


def test_a_feed_servers_text_reaches_admins_as_inert_text(w, slack):
    """Its Content-Type (in the "web page" error) in the admins' DM, App Home and /papers sources."""
    url = w.arxiv.url + "/hostile.txt"
    w.arxiv.script("/hostile.txt", *[(200, {"Content-Type": f"text/html; {HOSTILE}"}, "<html>hi</html>")] * 3)
    w.services.sources.add(url, added_by=ADMIN)
    try:
        (result,) = w.services.sources.poll_all([url], force=True)
        assert result.error == "html" and HOSTILE in result.source.last_error_detail
        (dm,) = [c for c in w.fake.calls_to("chat.postMessage") if "hostile.txt" in c.args.get("text", "")]
        slack.event({"type": "app_home_opened", "user": ADMIN, "tab": "home"})
        (view,) = [c for c in w.fake.wait_for("views.publish") if c.args["user_id"] == ADMIN][-1:]
        _, body = slack.command("sources", user_id=ADMIN)
        shown = {
            "dm": dm.args["text"] + all_text(dm.args["blocks"]),
            "home": all_text(view.args["view"]["blocks"]),
            "sources": all_text(body["blocks"]),
        }
        for where, text in shown.items():
            assert "<https://evil.example" not in text and "<!channel>" not in text, where
            assert "`text/html; &lt;https://evil.example|Click here to re-authorize paperbot&gt; &lt;!channel&gt; " in text, where
            assert "*bold* ˋtickˋ`" in text, where  # inside code: no formatting, no stray backtick to close it
    finally:
        w.services.sources.remove(url)


def test_an_admin_removes_a_feeds_papers_after_confirming(w, slack):
    url = w.arxiv.url + "/cleanup.txt"
    w.arxiv.pages["/cleanup.txt"] = (listing_text("Cleanup（清理）", 1, 2, topic="Internal Memo"), "")
    w.services.sources.add(url, added_by=ADMIN)
    assert w.services.sources.poll_all([url], force=True)[0].added == 2
    before = w.corpus.store.state()[0]
    _, body = slack.command(f"sources remove-papers <{url}>", user_id=ADMIN)
    text = all_text(body["blocks"])
    assert f"Removing the papers of `{url}` takes away 2 papers that only it brought" in text
    assert f"Nothing is removed yet. To go ahead: `/papers sources remove-papers {url} confirm`" in text
    assert w.corpus.store.state()[0] == before
    _, body = slack.command(f"sources remove-papers {url}", user_id="U_NOT_ADMIN")
    assert "Only paperbot's admins" in all_text(body["blocks"])
    _, body = slack.command(f"sources remove-papers {url} confirm", user_id=ADMIN)
    assert f"Removed 2 papers that only `{url}` brought. `{url}` is no longer a source." in all_text(body["blocks"])
    assert w.corpus.store.state()[0] == before - 2 and w.corpus.search('"Internal Memo Study Number 1"').total == 0


def test_serve_enriches_new_papers_in_the_background(w, slack):
    w.arxiv.add(
        Entry("2612.00099", "Grokking in Ridge Regression", ["Mingyue Xu", "Gal Vardi"], abstract="Delayed generalization.")
    )
    w.arxiv.entries.append(Entry("2612.00100", "Brand New Listing Paper", ["Zoe Ray"], abstract="Fresh."))
    ingest(w.corpus, w.tmp, "later.txt", "Later Feed\n\nBrand New Listing Paper\n全新论文\nZoe Ray\nAI总结 全新。\n")
    run_at(w, minutes=3)  # the enrichment job's next run
    paper = next(p for p in w.corpus.newest(5) if p.title_en == "Brand New Listing Paper")
    assert paper.arxiv is not None and paper.arxiv.arxiv_id == "2612.00100"
    assert w.corpus.search("fresh").hits[0].paper.id == paper.id  # re-indexed with its abstract


def test_code_on_github_io_is_labelled_code_when_the_paper_says_so(w, slack):
    _, body = slack.command("glacier flow emulators", user_id="U_GHIO")
    assert links_of(body["blocks"]) == [
        ("Code", "https://glacier.github.io/emulator"),  # "the code at", though github.io hosts pages
        ("Project", "https://glacier-lab.github.io"),
    ]


@pytest.mark.parametrize(
    "pasted",
    [
        "https://arxiv.org/abs/2611.00001v1",
        "arXiv:2611.00001",
        "https://arxiv.org/pdf/2611.00001.pdf",
        "https://doi.org/10.18653/v1/2026.ACL-long.42",  # DOIs are case-insensitive
        "doi:10.18653/v1/2026.acl-long.42",
    ],
)
def test_a_pasted_arxiv_link_id_or_doi_finds_that_paper(w, slack, pasted):
    _, body = slack.command(pasted, user_id="U_PASTE_ARXIV")
    hits = [b for b in body["blocks"] if b.get("block_id", "").startswith("hit:")]
    assert len(hits) == 1 and "Speculative Decoding with Draft Trees" in hits[0]["text"]["text"]
    assert "*1* paper" in body["blocks"][0]["text"]["text"]
