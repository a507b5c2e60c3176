"""Digests: what is new for a subscription, when a digest is due, how it renders."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest
from digest_support import ingest, listing_text, open_corpus

from bot.digests.compose import compose_digest, rank_highlights
from bot.digests.runs import due_date, next_run, run_time
from bot.digests.subscriptions import Subscription
from bot.models import Paper
from bot.slack.render.blocks import check_blocks, menu_option
from bot.slack.render.digest import (
    MENU_BUILDERS,
    group_papers,
    paper_menu,
    render_digest,
    render_digest_paper,
    render_preview,
)
from bot.slack.render.when import format_date


@pytest.fixture(scope="module")
def corpus150(tmp_path_factory):
    """150 papers from one real listing file, through the real parser, store and index."""
    tmp = tmp_path_factory.mktemp("digest150")
    corpus = open_corpus(tmp / "data")
    ingest(corpus, tmp, "icml.txt", listing_text("ICML Feed（ICML订阅）", 1, 150))
    yield corpus
    corpus.close()


def sub_at(hour: int, minute: int, zone: str, *, active_since: str = "2020-01-01T00:00:00+00:00") -> Subscription:
    return Subscription(id=1, kind="channel", place_id="C1", created_by="U1", lang="en", hour=hour, minute=minute,
                        timezone=zone, active_since=active_since)  # fmt: skip


# -- when ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (datetime(2026, 12, 1, 8, 59, tzinfo=UTC), None),  # before today's 09:00, yesterday's is past the grace
        (datetime(2026, 12, 1, 9, 0, tzinfo=UTC), date(2026, 12, 1)),
        (datetime(2026, 12, 1, 14, 59, tzinfo=UTC), date(2026, 12, 1)),  # 5h59 late: still due
        (datetime(2026, 12, 1, 15, 1, tzinfo=UTC), None),  # beyond the 6h grace
    ],
)
def test_due_date_within_the_grace(now, expected):
    assert due_date(sub_at(9, 0, "UTC"), now) == expected


def test_due_date_crosses_midnight_to_yesterdays_run():
    sub = sub_at(23, 30, "Asia/Shanghai")
    assert due_date(sub, datetime(2026, 12, 1, 17, 0, tzinfo=UTC)) == date(2026, 12, 1)  # 01:00 on the 2nd in Shanghai


def test_a_run_time_before_the_subscription_started_is_not_due():
    sub = sub_at(9, 0, "UTC", active_since="2026-12-01T09:30:00+00:00")
    assert due_date(sub, datetime(2026, 12, 1, 10, 0, tzinfo=UTC)) is None
    assert next_run(sub, datetime(2026, 12, 1, 10, 0, tzinfo=UTC)) == datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("day", "hour", "minute", "utc"),
    [
        (date(2026, 3, 8), 2, 30, datetime(2026, 3, 8, 7, 30, tzinfo=UTC)),  # in the gap: 03:30 EDT
        (date(2026, 11, 1), 1, 30, datetime(2026, 11, 1, 5, 30, tzinfo=UTC)),  # ambiguous: the first, EDT
        (date(2026, 7, 1), 9, 0, datetime(2026, 7, 1, 13, 0, tzinfo=UTC)),
    ],
)
def test_run_time_on_daylight_saving_days(day, hour, minute, utc):
    from zoneinfo import ZoneInfo

    assert run_time(day, hour, minute, ZoneInfo("America/New_York")) == utc


def test_next_run_is_in_the_subscriptions_zone():
    sub = sub_at(8, 30, "Asia/Shanghai")
    when = next_run(sub, datetime(2026, 12, 1, 1, 0, tzinfo=UTC))  # 09:00 in Shanghai: today's has passed
    assert (when.date(), when.hour, when.minute, str(when.tzinfo)) == (date(2026, 12, 2), 8, 30, "Asia/Shanghai")


# -- what --------------------------------------------------------------------------------------


def test_compose_covers_papers_after_the_cursor_oldest_first(corpus150):
    digest = compose_digest(corpus150, after_seq=100, local_date=date(2026, 12, 1))
    assert [p.seq for p in digest.papers] == list(range(101, 151))
    assert (digest.from_seq, digest.to_seq) == (100, 150)


def test_compose_filters_with_search_syntax(corpus150):
    digest = compose_digest(
        corpus150, after_seq=0, filter_text='"Study Number 7" OR "Study Number 77"', local_date=date(2026, 12, 1)
    )
    assert sorted(p.title_en.split(":")[0] for p in digest.papers) == [
        "Sparse Attention Study Number 7",
        "Sparse Attention Study Number 77",
    ]
    assert digest.to_seq == 150  # nothing else matched, so the cursor still moves past them all


def test_compose_holds_back_papers_over_the_cap_for_the_next_digest(corpus150):
    first = compose_digest(corpus150, after_seq=0, local_date=date(2026, 12, 1), max_papers=60)
    assert (first.count, first.held_back, first.to_seq) == (60, 90, 60)
    second = compose_digest(corpus150, after_seq=first.to_seq, local_date=date(2026, 12, 2), max_papers=60)
    assert [p.seq for p in second.papers] == list(range(61, 121))


def test_compose_leaves_out_papers_already_posted(corpus150):
    posted = {p.id for p in corpus150.new_papers(after_seq=0, limit=200)[:10]}
    digest = compose_digest(corpus150, after_seq=0, local_date=date(2026, 12, 1), exclude_ids=posted)
    assert digest.count == 140 and not posted & {p.id for p in digest.papers}


@pytest.fixture(scope="module")
def flooded(tmp_path_factory):
    """A feed that flooded the library (150 papers), then two ordinary feeds' new papers."""
    tmp = tmp_path_factory.mktemp("flooded")
    corpus = open_corpus(tmp / "data")
    ingest(corpus, tmp, "flood.txt", listing_text("Flood <!channel> *now*", 1, 150, topic="Flood"))
    ingest(corpus, tmp, "icml.txt", listing_text("ICML", 1, 12, topic="Kernel"))
    ingest(corpus, tmp, "neurips.txt", listing_text("NeurIPS", 1, 8, topic="Graph"))
    yield corpus
    corpus.close()


def test_one_feed_cannot_fill_a_digest(flooded):
    """Oldest first, the flood alone filled the first 150 / 60 digests; the others waited behind it."""
    digest = compose_digest(flooded, after_seq=0, local_date=date(2026, 12, 1), max_papers=60, max_per_feed=30)
    feeds = [p.feeds[0] for p in digest.papers]
    assert (feeds.count("Flood <!channel> *now*"), feeds.count("ICML"), feeds.count("NeurIPS")) == (30, 12, 8)
    assert digest.left_out == {"Flood <!channel> *now*": 120} and digest.held_back == 0
    assert digest.to_seq == 170  # past the flood: the next digest is not the flood again
    assert compose_digest(flooded, after_seq=digest.to_seq, local_date=date(2026, 12, 2)).count == 0


def test_a_capped_feed_after_the_cut_comes_back_with_the_held_back(flooded):
    digest = compose_digest(flooded, after_seq=0, local_date=date(2026, 12, 1), max_papers=20, max_per_feed=15)
    assert [p.seq for p in digest.papers] == list(range(1, 16)) + list(range(151, 156))
    # Only the flood's papers below the cut are left out for good; the rest lead the next digest.
    assert digest.left_out == {"Flood <!channel> *now*": 135} and digest.held_back == 15 and digest.to_seq == 155
    again = compose_digest(flooded, after_seq=digest.to_seq, local_date=date(2026, 12, 2), max_papers=20, max_per_feed=15)
    assert [p.seq for p in again.papers] == list(range(156, 171)) and not again.left_out


def test_the_default_share_of_one_feed_is_half_a_digest():
    from bot.digests.compose import MAX_PAPERS, MAX_PER_FEED

    assert MAX_PER_FEED * 2 == MAX_PAPERS


@pytest.mark.parametrize(
    "lang, words",
    [("en", "120 more new papers from Flood &lt;!channel&gt; ∗now∗ are not in this digest: one feed fills at most 30"),
     ("zh", "另有 120 篇来自 Flood &lt;!channel&gt; ∗now∗ 的新论文未收入本期：每期中同一来源最多 30 篇")],
)  # fmt: skip
def test_the_digest_says_what_it_left_out_and_from_where(flooded, lang, words):
    from slack_helpers import all_text

    digest = compose_digest(flooded, after_seq=0, local_date=date(2026, 12, 1), lang=lang, max_papers=60, max_per_feed=30)
    first = render_digest(digest)[0]
    assert words in all_text(first.blocks) and "<!channel>" not in all_text(first.blocks)


# -- how it looks ---------------------------------------------------------------------------------


def rows(message) -> list[dict]:
    return [b for b in message.blocks if b.get("block_id", "").startswith("digest:")]


def menu_actions(row: dict) -> list[str]:
    """The menu's actions; its link options (arXiv, PDF, Code...) open a URL instead."""
    return [json.loads(o["value"])["a"] for o in row["accessory"]["options"] if "url" not in o]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_150_papers_open_with_ten_highlights_and_the_rest_in_the_thread(corpus150, lang):
    digest = compose_digest(corpus150, after_seq=0, lang=lang, local_date=date(2026, 12, 1))
    messages = render_digest(digest)
    head, thread = messages[0], messages[1:]
    assert len(rows(head)) == 10 and head.paper_ids == [p.id for p in digest.highlights()]
    assert head.blocks[0]["type"] == "header"
    # No filter, no saves: the highlights are main-track papers first, and say so (not "the top 10" of nothing).
    expected = {"en": "*150* new papers · 10 highlights here (main-track papers first), 140 more in the thread 🧵",
                "zh": "*150* 篇新论文 · 这里是 10 篇精选（主会论文优先），另外 140 篇在消息串中 🧵"}[lang]  # fmt: skip
    assert head.blocks[1]["elements"][0]["text"] == expected
    delivered = [paper_id for m in messages for paper_id in m.paper_ids]
    assert sorted(delivered) == sorted(p.id for p in digest.papers) and len(delivered) == 150  # every paper, once
    for message in messages:
        assert check_blocks(message.blocks) == []
        assert len(json.dumps(message.blocks, ensure_ascii=False)) < 30_000
        assert message.text
        assert [b["block_id"].removeprefix("digest:") for b in rows(message)] == message.paper_ids
        assert not [b for b in message.blocks if b["type"] == "actions"]  # no button rows, no Share
        assert all(menu_actions(row) == ["paper_save", "paper_like", "paper_dislike", "paper_details"] for row in rows(message))
    numbers = [int(b["text"]["text"].split(".")[0].strip("*")) for m in messages for b in rows(m)]
    assert numbers == list(range(1, 151))
    first_reply = thread[0].blocks
    assert ("第 2/" if lang == "zh" else "part 2 of") in first_reply[0]["elements"][0]["text"]
    assert {"en": "The other 140 papers, by venue:", "zh": "其余 140 篇论文，按会议/期刊分组："}[lang] == first_reply[1][
        "elements"
    ][0]["text"]


def test_ten_papers_fit_one_message_and_say_nothing_of_a_thread(corpus150):
    digest = compose_digest(corpus150, after_seq=140, lang="en", local_date=date(2026, 12, 1))
    (message,) = render_digest(digest)
    assert len(rows(message)) == 10 and "thread" not in message.blocks[1]["elements"][0]["text"]


def test_the_number_of_highlights_is_the_subscriptions_setting(corpus150):
    digest = compose_digest(corpus150, after_seq=100, lang="en", local_date=date(2026, 12, 1), top=3)
    messages = render_digest(digest)
    assert (
        len(rows(messages[0])) == 3
        and "3 highlights here (main-track papers first), 47 more in the thread" in (messages[0].blocks[1]["elements"][0]["text"])
    )


def test_highlights_are_ranked_by_the_filters_relevance(corpus150):
    digest = compose_digest(
        corpus150, after_seq=0, lang="en", local_date=date(2026, 12, 1), filter_text='"Model 42" OR "Model 7" OR Sparse', top=2
    )
    assert {p.id for p in digest.highlights()} == {p.id for p in digest.papers if p.title_en.endswith(("Model 42", "Model 7"))}
    ids = [p.id for p in digest.papers]
    assert rank_highlights(digest.papers, {ids[5]: 9.0, ids[3]: 4.0})[:2] == [digest.papers[5], digest.papers[3]]
    # without relevance: main-track venues first, then workshops, then none; oldest first within
    ranked = rank_highlights(digest.papers, {})
    assert [p.track for p in ranked[:3]] == ["main"] * 3 and ranked[-1].venue == ""


def test_an_english_row_is_the_title_short_authors_two_affiliations_and_the_venue(corpus150):
    digest = compose_digest(corpus150, after_seq=0, lang="en", local_date=date(2026, 12, 1))
    paper = next(p for p in digest.papers if p.title_en.startswith("Sparse Attention Study Number 42:"))
    lines = render_digest_paper(paper, "en", 7)["text"]["text"].split("\n")
    assert lines[0].startswith("*7. Sparse Attention Study Number 42")  # no arXiv page: the title links nowhere
    assert lines[1] == "Alice Zhang42, Bob Li +3 · Tsinghua University; Lab 42 of Peking University · _ICLR 2026 Workshop_"
    # No English abstract: no Chinese paragraph on an English row (Details has it, labelled).
    assert len(lines) == 2 and "本文" not in " ".join(lines)
    assert "Accepted at" not in " ".join(lines)  # arXiv comments stay on the card


def test_chinese_row_puts_the_chinese_title_first_and_counts_authors_the_chinese_way(corpus150):
    digest = compose_digest(corpus150, after_seq=0, lang="zh", local_date=date(2026, 12, 1))
    paper = next(p for p in digest.papers if p.title_en.startswith("Sparse Attention Study Number 42:"))
    lines = render_digest_paper(paper, "zh", 1)["text"]["text"].split("\n")
    assert "Sparse Attention研究第42号：模型42的缩放定律" in lines[0] and "Sparse Attention Study" not in " ".join(lines)
    assert lines[1] == "Alice Zhang42, Bob Li 等 5 人 · 清华大学；北京大学第42实验室 · _ICLR 2026 Workshop_"
    assert lines[2].startswith("> 本文研究") and len(lines) == 3
    assert [o["text"]["text"] for o in render_digest_paper(paper, "zh", 1)["accessory"]["options"]] == [
        "收藏",
        "👍 感兴趣",
        "👎 不感兴趣",
        "详情",
        "代码",  # its Comments say "code at https://example.org/…": Code, whatever the host
    ]


def test_papers_are_grouped_by_venue_then_feed(corpus150):
    papers = corpus150.new_papers(after_seq=0, limit=200)
    groups = dict(group_papers(papers, "en"))
    assert set(groups) == {"ICML 2026", "NeurIPS 2025", "ICLR 2026 Workshop", "ICML Feed"}
    assert all(p.venue == "ICML 2026" for p in groups["ICML 2026"])
    assert sum(len(v) for v in groups.values()) == 150


def test_the_menu_takes_entries_other_features_add(corpus150):
    paper = corpus150.new_papers(after_seq=0, limit=1)[0]
    MENU_BUILDERS["extra"] = lambda p, lang: [menu_option("arXiv", url=f"https://arxiv.org/abs/{p.id}")]
    try:
        menu = paper_menu(paper, "en", ["details", "extra", "more", "missing"])
    finally:
        del MENU_BUILDERS["extra"]
    assert [o["text"]["text"] for o in menu["options"]] == ["Details", "arXiv", "More like this"]
    assert menu["options"][1]["url"].startswith("https://arxiv.org/abs/")
    assert check_blocks([{"type": "section", "text": {"type": "mrkdwn", "text": "x"}, "accessory": menu}]) == []


def test_preview_shows_the_highlights_and_counts_the_rest(corpus150):
    digest = compose_digest(corpus150, after_seq=0, lang="en", local_date=date(2026, 12, 1))
    message = render_preview(digest, "Tue 1 Dec 2026, 09:00 (UTC)")
    assert check_blocks(message.blocks) == []
    assert "…and 140 more" in message.blocks[-1]["elements"][0]["text"]


@pytest.mark.parametrize(("lang", "expected"), [("en", "Sun 8 Mar 2026"), ("zh", "2026年3月8日（周日）")])
def test_dates_read_naturally(lang, expected):
    assert format_date(date(2026, 3, 8), lang) == expected


def test_rendering_150_papers_is_fast(corpus150):
    digest = compose_digest(corpus150, after_seq=0, lang="zh", local_date=date(2026, 12, 1))
    start = datetime.now(UTC)
    render_digest(digest)
    assert datetime.now(UTC) - start < timedelta(seconds=1)


# -- python -m bot digest -------------------------------------------------------------------------


def run_cli(data_dir, *args):
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(PAPERBOT_DATA_DIR=str(data_dir), PAPERBOT_TIMEZONE="Asia/Shanghai")
    root = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_cli_digest_prints_the_messages_a_digest_would_post(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "a.txt", listing_text("ICML Feed（ICML订阅）", 1, 40))
    corpus.close()
    proc = run_cli(tmp_path / "data", "digest", "--json")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["papers"] == 40 and len(payload["messages"]) >= 2  # the highlights, then the thread
    rows_posted = [b for m in payload["messages"] for b in m["blocks"] if b.get("block_id", "").startswith("digest:")]
    assert len(rows_posted) == 40 and len({b["block_id"] for b in rows_posted}) == 40
    assert all(check_blocks(m["blocks"]) == [] and m["text"] for m in payload["messages"])

    proc = run_cli(
        tmp_path / "data",
        "digest",
        "--lang",
        "zh",
        "--since",
        "30",
        "--filter",
        '"Study Number 35" OR "Study Number 5"',
        "--json",
    )
    payload = json.loads(proc.stdout)
    assert payload["papers"] == 1  # Number 5 is older than seq 30
    assert "研究第35号" in json.dumps(payload, ensure_ascii=False)

    proc = run_cli(tmp_path / "data", "digest", "--lang", "zh")
    assert proc.returncode == 0 and proc.stdout.startswith("📚 论文日报") and "研究第40号" in proc.stdout

    proc = run_cli(tmp_path / "data", "digest", "--filter", '"unclosed')
    assert proc.returncode == 1 and "couldn't read the filter" in proc.stderr and "Traceback" not in proc.stderr


def test_a_digest_keeps_links_in_comments_and_markup_inert():
    paper = Paper(
        id="abcabcabcabc", title_en="A* Search for *Bold* Claims: x_1", title_zh="A*搜索：x_1",
        authors=["O'Brien *Jr*"], summary_zh="代码见https://github.com/x/my_repo，欢迎使用。",
        comments="Oral; code at https://github.com/x/my_repo and _more_", urls=["https://example.org/a_b"],
    )  # fmt: skip
    en = render_digest_paper(paper, "en", 1)["text"]["text"].split("\n")
    assert en[0] == "*1. A∗ Search for ∗Bold∗ Claims: xˍ1*"  # no arXiv page: the title links nowhere
    assert en[1] == "O'Brien ∗Jr∗"
    zh = render_digest_paper(paper, "zh", 1)["text"]["text"].split("\n")
    assert zh[0] == "*1. A∗搜索：xˍ1*"
    assert zh[-1] == "> 代码见<https://github.com/x/my_repo>，欢迎使用。"
    links = [o for o in render_digest_paper(paper, "en", 1)["accessory"]["options"] if "url" in o]
    assert [(o["text"]["text"], o["url"]) for o in links] == [("Project", "https://example.org/a_b")]  # Comments' URL


def test_a_row_with_many_links_keeps_its_actions_and_offers_the_arxiv_page(corpus150):
    from dataclasses import replace

    from bot.models import ArxivRecord

    paper = corpus150.new_papers(after_seq=0, limit=1)[0]
    paper = replace(
        paper,
        urls=["https://example.org/p", "https://github.com/x/y"],  # as the listing parser finds them in Comments
        arxiv=ArxivRecord(arxiv_id="2612.00001", version=2),
    )
    options = render_digest_paper(paper, "en", 1)["accessory"]["options"]
    assert len(options) == 5  # Slack's limit: 👍 / 👎 (issue 27) leave one link, the arXiv page (Details has all)
    assert [o["text"]["text"] for o in options] == ["Save", "👍 Interesting to me", "👎 Not for me", "Details", "arXiv"]
    assert options[4]["url"] == "https://arxiv.org/abs/2612.00001"
