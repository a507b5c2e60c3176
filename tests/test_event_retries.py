"""Slack's retries of an event are acked and not acted on again, across a restart too.

Real HTTP with Slack-signed bodies; the fake Slack serves the Web API and the uploaded
file. A retry is the same body (same `event_id`) with `X-Slack-Retry-Num` and
`X-Slack-Retry-Reason`, exactly as Slack re-sends an event whose ack it missed.
"""

from __future__ import annotations

import dataclasses
import time

import pytest
from digest_support import listing_text
from fake_slack import FilesFakeSlack
from trust_support import Bot, dm, file_share

from bot.slack.app import build_app

ADMIN = "U_RETRY_ADMIN"
APP_TOKEN = "xapp-1-A0001-test-app-token-0123456789"
QUIET = 0.4  # how long a retry gets to (wrongly) do something before we look


@pytest.fixture(scope="module")
def fake_files():
    fake = FilesFakeSlack().start()
    yield fake
    fake.stop()


@pytest.fixture
def fake(fake_files):
    fake_files.reset()
    return fake_files


@pytest.fixture(scope="module")
def running(tmp_path_factory, fake_files):
    bot = Bot(tmp_path_factory.mktemp("retries") / "data", fake_files, admins={ADMIN})
    yield bot
    bot.stop()


@pytest.fixture
def bot(running, fake):
    return running


def settle(fake, method: str, count: int) -> list:
    """Wait for `count` calls of `method`, then a little longer: a retry must add none."""
    fake.wait_for(method, count)
    time.sleep(QUIET)
    return fake.calls_to(method)


def test_a_retried_dm_is_acked_and_answered_once(bot, fake):
    assert bot.deliver(dm("U_RETRY_DM", "speculative decoding"), "EvDM1")[0] == 200
    assert len(settle(fake, "chat.postMessage", 1)) == 1
    assert [bot.deliver(dm("U_RETRY_DM", "speculative decoding"), "EvDM1", retry=n)[0] for n in (1, 2, 3)] == [200] * 3
    assert len(settle(fake, "chat.postMessage", 1)) == 1
    # A new event (new id) with the same text is a new question: answered.
    bot.deliver(dm("U_RETRY_DM", "speculative decoding"), "EvDM2")
    assert len(settle(fake, "chat.postMessage", 2)) == 2


def test_a_retried_file_share_downloads_and_ingests_once(bot, fake):
    url = fake.file_url("retry.txt", listing_text("Retry Feed（重试）", 9100, 3).encode())
    before = bot.corpus.store.stats()["ingests"]
    bot.deliver(file_share(ADMIN, "retry.txt", url), "EvFILE1")
    assert len(settle(fake, "chat.postMessage", 1)) == 1
    status, _ = bot.deliver(file_share(ADMIN, "retry.txt", url), "EvFILE1", retry=1)
    assert status == 200
    assert len(settle(fake, "chat.postMessage", 1)) == 1
    assert len(fake.calls_to("GET")) == 1
    assert bot.corpus.store.stats()["ingests"] == before + 1


def test_a_retried_app_home_opened_publishes_once(bot, fake):
    event = {"type": "app_home_opened", "user": "U_RETRY_HOME", "channel": "DHOME", "tab": "home"}
    bot.deliver(event, "EvHOME1")
    assert len(settle(fake, "views.publish", 1)) == 1
    assert bot.deliver(event, "EvHOME1", retry=1)[0] == 200
    assert len(settle(fake, "views.publish", 1)) == 1


def test_after_a_restart_an_event_already_handled_is_not_acted_on(tmp_path, fake):
    first = Bot(tmp_path / "data", fake, admins={ADMIN})
    try:
        first.deliver(dm("U_RESTART", "推测解码"), "EvRESTART1")
        fake.wait_for("chat.postMessage", 1)
    finally:
        first.stop()
    again = Bot(tmp_path / "data", fake, admins={ADMIN})  # a new process would open the same files the same way
    try:
        status, _ = again.deliver(dm("U_RESTART", "推测解码"), "EvRESTART1", retry=2)
        assert status == 200
        assert len(settle(fake, "chat.postMessage", 1)) == 1
    finally:
        again.stop()


def test_a_socket_mode_retry_is_acked_and_not_acted_on(bot, fake):
    """Socket Mode says `retry_attempt` in the envelope; the same middleware sees it."""
    from fake_socket_mode import FakeSocketMode
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    socket_mode = FakeSocketMode().start()
    fake.socket_url = socket_mode.url
    settings = dataclasses.replace(bot.settings, slack_app_token=APP_TOKEN)
    handler = SocketModeHandler(build_app(settings, bot.services), APP_TOKEN)
    handler.connect()
    try:
        socket_mode.wait_connected()
        payload = bot.event_callback(dm("U_RETRY_SOCKET", "推测解码"), "EvSOCKET1")
        for attempt, envelope_id in enumerate(("s1", "s2", "s3")):
            socket_mode.push({"envelope_id": envelope_id, "type": "events_api", "accepts_response_payload": False,
                              "retry_attempt": attempt, "retry_reason": "timeout" if attempt else "", "payload": payload})  # fmt: skip
            socket_mode.wait_for_ack(envelope_id)
        assert len(settle(fake, "chat.postMessage", 1)) == 1
    finally:
        handler.close()
        socket_mode.stop()


def test_event_ids_are_forgotten_after_a_day(tmp_path):
    from bot.store.database import Store

    now = ["2026-12-01T08:00:00+00:00"]
    store = Store(tmp_path / "s.sqlite3", clock=lambda: now[0])
    try:
        assert store.claim_event("Ev1") is True
        assert store.claim_event("Ev1") is False
        now[0] = "2026-12-02T09:00:00+00:00"
        assert store.claim_event("Ev2") is True  # and Ev1, 25 hours old, is pruned
        assert [r[0] for r in store.read("SELECT event_id FROM slack_events")] == ["Ev2"]
    finally:
        store.close()
