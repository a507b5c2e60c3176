"""Digests: what is new for a subscription, when a digest is due, how it renders."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime, timedelta

import pytest
from digest_support import ingest, listing_text, open_corpus

from bot.digest import compose_digest, due_date, next_run, run_time
from bot.models import Paper
from bot.slack.blocks import LIMITS, check_blocks
from bot.slack.digest import (
    format_date,
    group_papers,
    render_digest,
    render_digest_paper,
    render_preview,
)
from bot.subscriptions import Subscription


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
    digest = compose_digest(corpus150, after_seq=0, filter_text='"Study Number 7" OR "Study Number 77"', local_date=date(2026, 12, 1))
    assert sorted(p.title_en.split(":")[0] for p in digest.papers) == ["Sparse Attention Study Number 7", "Sparse Attention Study Number 77"]
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


# -- how it looks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_150_papers_split_into_a_thread_within_block_kit_limits(corpus150, lang):
    digest = compose_digest(corpus150, after_seq=0, lang=lang, local_date=date(2026, 12, 1))
    messages = render_digest(digest)
    assert len(messages) > 1
    delivered = [paper_id for m in messages for paper_id in m.paper_ids]
    assert sorted(delivered) == sorted(p.id for p in digest.papers)  # every paper, once
    for message in messages:
        assert check_blocks(message.blocks) == []
        assert len(message.blocks) <= LIMITS["message_blocks"]
        assert len(json.dumps(message.blocks, ensure_ascii=False)) < 30_000
        assert message.text
        shown = [b["block_id"].removeprefix("digest:") for b in message.blocks if b.get("block_id", "").startswith("digest:")]
        assert shown == message.paper_ids
    numbers = [int(b["text"]["text"].split(".")[0].strip("*")) for m in messages for b in m.blocks if b.get("block_id", "").startswith("digest:")]
    assert numbers == list(range(1, 151))
    head = messages[0].blocks
    assert head[0]["type"] == "header"
    replies = len(messages) - 1  # the thread's replies: the head message isn't one of them
    expected = {"en": f"continued in the thread ({replies} more messages)", "zh": f"其余内容见消息串（另有 {replies} 条）"}[lang]
    assert "150" in head[1]["elements"][0]["text"] and expected in head[1]["elements"][0]["text"]


def test_a_digest_of_two_messages_says_one_more_is_in_the_thread(corpus150):
    digest = compose_digest(corpus150, after_seq=0, lang="en", local_date=date(2026, 12, 1))
    head = render_digest(dataclasses.replace(digest, papers=digest.papers[:30]))
    assert len(head) == 2
    assert "continued in the thread (1 more message)" in head[0].blocks[1]["elements"][0]["text"]


def test_english_digest_holds_english_titles_affiliations_venues_and_comments(corpus150):
    digest = compose_digest(corpus150, after_seq=0, lang="en", local_date=date(2026, 12, 1))
    text = json.dumps([m.blocks for m in render_digest(digest)], ensure_ascii=False)
    for expected in ("Paper digest · Tue 1 Dec 2026", "Sparse Attention Study Number 42", "Tsinghua University",
                     "Lab 42 of Peking University", "*ICML 2026*", "*NeurIPS 2025*", "Accepted at ICML 2026", "*ICML Feed*"):  # fmt: skip
        assert expected in text
    assert "清华大学" not in text and "研究第42号" not in text and "本文研究" not in text


def test_chinese_digest_holds_chinese_titles_affiliations_and_summaries(corpus150):
    digest = compose_digest(corpus150, after_seq=0, lang="zh", local_date=date(2026, 12, 1))
    messages = render_digest(digest)
    text = json.dumps([m.blocks for m in messages], ensure_ascii=False)
    for expected in ("论文日报 · 2026年12月1日（周二）", "研究第42号：模型42的缩放定律", "清华大学", "北京大学第42实验室",
                     "本文研究第42号模型", "*ICML订阅*", "篇新论文", "分享", "详情"):  # fmt: skip
        assert expected in text
    assert "Tsinghua University" not in text and "Scaling Laws for Model 42" not in text
    assert "第 2/" in messages[1].blocks[0]["elements"][0]["text"]


def test_papers_are_grouped_by_venue_then_feed(corpus150):
    papers = corpus150.new_papers(after_seq=0, limit=200)
    groups = dict(group_papers(papers, "en"))
    assert set(groups) == {"ICML 2026", "NeurIPS 2025", "ICLR 2026 Workshop", "ICML Feed"}
    assert all(p.venue == "ICML 2026" for p in groups["ICML 2026"])
    assert sum(len(v) for v in groups.values()) == 150


def test_buttons_are_the_search_results_buttons(corpus150):
    digest = compose_digest(corpus150, after_seq=149, lang="en", local_date=date(2026, 12, 1))
    (message,) = render_digest(digest)
    (buttons,) = [b for b in message.blocks if b["type"] == "actions"]
    values = {e["action_id"]: json.loads(e["value"]) for e in buttons["elements"] if "value" in e}  # link buttons have a url
    assert values["paper_share"] == values["paper_details"] == {"id": digest.papers[0].id, "l": "en"}


def test_preview_shows_the_first_papers_and_counts_the_rest(corpus150):
    digest = compose_digest(corpus150, after_seq=0, lang="en", local_date=date(2026, 12, 1))
    message = render_preview(digest, "Tue 1 Dec 2026, 09:00 (UTC)")
    assert check_blocks(message.blocks) == []
    assert "…and 142 more" in message.blocks[-1]["elements"][0]["text"]


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
    assert payload["papers"] == 40 and len(payload["messages"]) == 2
    assert all(check_blocks(m["blocks"]) == [] and m["text"] for m in payload["messages"])

    proc = run_cli(tmp_path / "data", "digest", "--lang", "zh", "--since", "30", "--filter", "\"Study Number 35\" OR \"Study Number 5\"", "--json")
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
    en = render_digest_paper(paper, "en", 1)[0]["text"]["text"].split("\n")
    assert en[0] == "*1. A∗ Search for ∗Bold∗ Claims: xˍ1*"  # no arXiv page: the title links nowhere
    assert en[1] == "O'Brien ∗Jr∗"
    assert en[2] == "_Oral; code at <https://github.com/x/my_repo> and ˍmoreˍ_"
    zh = render_digest_paper(paper, "zh", 1)[0]["text"]["text"].split("\n")
    assert zh[-1] == "> 代码见<https://github.com/x/my_repo>，欢迎使用。"
