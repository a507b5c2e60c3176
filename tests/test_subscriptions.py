"""Subscribe lines, one subscription per place, and the delivery claims."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from digest_support import FakeClock, ingest, listing_text, open_corpus

from bot.digests.requests import parse_subscribe
from bot.digests.subscriptions import SubscriptionStore
from bot.digests.times import parse_time
from bot.errors import SubscribeError


@pytest.mark.parametrize(
    ("word", "expected"),
    [("9", (9, 0)), ("09", (9, 0)), ("9:00", (9, 0)), ("09:30", (9, 30)), ("21:05", (21, 5)), ("9am", (9, 0)),
     ("9:30pm", (21, 30)), ("12am", (0, 0)), ("12pm", (12, 0)), ("8：30", (8, 30)), ("0:00", (0, 0)),
     ("25:00", None), ("24:00", None), ("9:75", None), ("13pm", None), ("0am", None), ("nine", None)],
)  # fmt: skip
def test_parse_time(word, expected):
    assert parse_time(word) == expected


def test_parse_the_issue_example():
    request = parse_subscribe("zh 08:30 tz:Asia/Shanghai KV缓存 OR speculative decoding")
    assert (request.lang, request.hour, request.minute, request.timezone) == ("zh", 8, 30, "Asia/Shanghai")
    assert request.filter_text == "KV缓存 OR speculative decoding"
    assert request.notify_empty is None


@pytest.mark.parametrize(
    ("text", "filter_text"),
    [("", ""), ("en", ""), ("tz:UTC 7 notify:empty en", ""), ("author:Chen \"KV cache\"", 'author:Chen "KV cache"'),
     ("3D vision", "3D vision"), ("9 2024 results", "2024 results"), ("en en", "en")],
)  # fmt: skip
def test_options_come_first_and_the_rest_is_the_filter(text, filter_text):
    assert parse_subscribe(text).filter_text == filter_text


@pytest.mark.parametrize(
    ("text", "key"),
    [("25:00", "bad_time"), ("9:75 KV", "bad_time"), ("13pm", "bad_time_suggest"), ("tz:Mars/Olympus", "bad_zone"),
     ("tz:", "bad_zone"), ("tz:../../etc/passwd", "bad_zone"), ("notify:sometimes", "bad_notify"), ("x" * 501, "filter_too_long")],
)  # fmt: skip
def test_bad_lines_say_what_is_wrong(text, key):
    with pytest.raises(SubscribeError) as raised:
        parse_subscribe(text)
    assert raised.value.key == f"subscribe.{key}"


@pytest.fixture
def corpus(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    yield corpus
    corpus.close()


def save(subs, **kwargs):
    options = {
        "team_id": "",
        "kind": "channel",
        "place_id": "C1",
        "user_id": "U1",
        "lang": "en",
        "hour": 9,
        "minute": 0,
        "timezone": "UTC",
    }
    return subs.save(**{**options, **kwargs})


def test_one_subscription_per_place_and_a_new_one_starts_at_the_current_last_seq(corpus, tmp_path):
    ingest(corpus, tmp_path, "a.txt", listing_text("Feed", 1, 3))
    subs = SubscriptionStore(corpus.store, clock=FakeClock(datetime(2026, 12, 1, 8, tzinfo=UTC)))
    first, created = save(subs, filter_text="KV")
    assert created and first.cursor_seq == 3
    again, created = save(subs, hour=10, lang="zh")
    assert not created and again.id == first.id and (again.hour, again.lang, again.filter_text) == (10, "zh", "")
    personal, created = save(subs, kind="user", place_id="U1")
    assert created and personal.id != first.id
    assert [s.id for s in subs.for_user("", "U1")] == [personal.id, first.id]


def test_updating_keeps_the_cursor_and_resumes_a_paused_subscription(corpus, tmp_path):
    clock = FakeClock(datetime(2026, 12, 1, 8, tzinfo=UTC))
    subs = SubscriptionStore(corpus.store, clock=clock)
    sub, _ = save(subs)
    ingest(corpus, tmp_path, "a.txt", listing_text("Feed", 1, 3))
    subs.pause(sub.id, "not_in_channel")
    clock.advance(hours=1)
    resumed, _ = save(subs)
    assert (resumed.status, resumed.paused_reason, resumed.cursor_seq) == ("active", "", 0)
    assert resumed.active_since > sub.active_since


def test_a_day_is_claimed_once_and_only_a_failed_claim_can_be_taken_again(corpus):
    clock = FakeClock(datetime(2026, 12, 1, 9, tzinfo=UTC))
    subs = SubscriptionStore(corpus.store, clock=clock)
    sub, _ = save(subs)
    day = date(2026, 12, 1)
    claim = subs.claim(sub.id, day)
    assert claim.status == "posting"
    assert subs.claim(sub.id, day) is None
    subs.release(claim.id, "ratelimited")
    again = subs.claim(sub.id, day)
    assert (again.id, again.attempts) == (claim.id, 2)
    subs.finish(again.id, status="sent", to_seq=7)
    assert subs.claim(sub.id, day) is None and subs.get(sub.id).cursor_seq == 7
    subs.finish(again.id, status="sent", to_seq=3)
    assert subs.get(sub.id).cursor_seq == 7  # the cursor never moves back


def test_a_stale_claim_becomes_interrupted_and_keeps_its_posted_papers_out(corpus):
    clock = FakeClock(datetime(2026, 12, 1, 9, tzinfo=UTC))
    subs = SubscriptionStore(corpus.store, clock=clock)
    sub, _ = save(subs)
    claim = subs.claim(sub.id, date(2026, 12, 1))
    subs.plan(claim.id, to_seq=10, papers=4)
    subs.record_posted(claim.id, ["a", "b"], channel_id="C1", message_ts="1.1")
    assert subs.recover_stale(clock() - timedelta(minutes=10)) == 0  # fresh heartbeat
    clock.advance(minutes=11)
    assert subs.recover_stale(clock() - timedelta(minutes=10)) == 1
    assert subs.delivery(sub.id, "2026-12-01").status == "interrupted"
    assert subs.claim(sub.id, date(2026, 12, 1)) is None
    assert subs.posted_since(sub.id, 0) == {"a", "b"}
    assert subs.posted_since(sub.id, 10) == set()


def test_unsubscribing_removes_its_deliveries(corpus):
    subs = SubscriptionStore(corpus.store, clock=FakeClock(datetime(2026, 12, 1, 9, tzinfo=UTC)))
    sub, _ = save(subs)
    subs.claim(sub.id, date(2026, 12, 1))
    assert subs.delete(sub.id) and subs.get(sub.id) is None and subs.deliveries(sub.id) == []


def test_a_long_write_in_another_process_neither_blocks_reads_nor_loses_the_day(corpus, monkeypatch):
    """Another process holds SQLite's write lock (a big ingest): reads go on, a claim retries."""
    import sqlite3

    from digest_support import RecordingPoster, service_for

    clock = FakeClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    subs = SubscriptionStore(corpus.store, clock=clock)
    sub, _ = save(subs)
    service = service_for(corpus, RecordingPoster(), clock)
    retries = []
    service.on_retry = lambda sub_id, delay: retries.append((sub_id, delay))
    corpus.store._db.execute("PRAGMA busy_timeout = 200")
    other = sqlite3.connect(corpus.store.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        assert subs.get(sub.id).place_id == "C1"  # a read does not wait for the writer
        outcome = service.run(sub.id)
        assert (outcome.status, outcome.error) == ("retry", "database_busy")
        assert retries and retries[0][0] == sub.id
        assert subs.deliveries(sub.id) == []  # nothing claimed, so nothing stuck
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert service.run(sub.id).status in ("sent", "empty")  # the retry goes through
