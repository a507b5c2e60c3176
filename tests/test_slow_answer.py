"""A slow /papers is never a lost answer: "Searching…" in the ack, the results through response_url.

The corpus is the real seeded one behind a wrapper whose searches wait until the test
lets them go (after the ack): slower than the ack budget, as a 1M-paper index during an
ingest is, without a race against the clock on a busy machine. Over HTTP with signed requests,
and over Socket Mode (the same listener), against the fake Slack's response_url.
"""

from __future__ import annotations

import dataclasses
import threading
import time

import pytest
from fake_socket_mode import FakeSocketMode, slash_command_envelope
from slack_helpers import SlackSender, all_text, button_values

from bot.slack.server import start_app_server

BUDGET_MS = 500


class SlowCorpus:
    """The seeded corpus, with searches that wait for `go` (set by the test once acked)."""

    def __init__(self, corpus):
        self._corpus = corpus
        self.go = threading.Event()

    def search(self, *args, **kwargs):
        self.go.wait(30)
        return self._corpus.search(*args, **kwargs)

    def resolve(self, *args, **kwargs):
        self.go.wait(30)
        return self._corpus.resolve(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._corpus, name)


@pytest.fixture(scope="module")
def slow_settings(slack_settings):
    return dataclasses.replace(slack_settings, ack_budget_ms=BUDGET_MS)


@pytest.fixture
def slow_corpus(seed_corpus):
    slow = SlowCorpus(seed_corpus)
    yield slow
    slow.go.set()  # no search thread is left waiting


@pytest.fixture
def slow_server(slow_settings, slow_corpus, fake_slack):
    running = start_app_server(slow_settings, slow_corpus)
    sender = SlackSender(running.url, fake_slack)
    yield sender
    sender.close()
    running.shutdown()


@pytest.mark.parametrize(
    ("query", "searching", "found"),
    [("speculative decoding", "Searching…", "papers for “speculative decoding”"), ("推测解码", "正在搜索……", "共找到")],
)
def test_a_slow_search_acks_searching_then_delivers_through_the_response_url(
    slow_server, slow_corpus, fake_slack, query, searching, found
):
    status, ack = slow_server.command(query, user_id="U_SLOW", response_url=fake_slack.response_url("slow"))
    assert status == 200 and ack["response_type"] == "ephemeral"
    assert searching in ack["text"]  # the ack did not wait for the search (it waits for `go`)
    assert fake_slack.calls_to("response") == []
    slow_corpus.go.set()
    (late,) = fake_slack.wait_for("response")
    assert late.args["replace_original"] is True  # the results replace "Searching…"
    assert late.args["response_type"] == "ephemeral"
    assert found in late.args["blocks"][0]["text"]["text"]
    assert any(b.get("block_id", "").startswith("hit:") for b in late.args["blocks"])


@pytest.mark.parametrize(("query", "sorry"), [("speculative decoding", "took too long"), ("推测解码", "处理时间过长")])
def test_an_answer_that_never_comes_replaces_searching_with_an_apology(slow_server, fake_slack, monkeypatch, query, sorry):
    from bot.slack.listeners import commands

    monkeypatch.setattr(commands, "LATE_ANSWER_SECONDS", 0.1)  # the search (waiting for `go`) outlasts it
    status, ack = slow_server.command(query, user_id="U_HUNG", response_url=fake_slack.response_url("hung"))
    assert status == 200 and "hourglass" in ack["text"]
    (late,) = fake_slack.wait_for("response")
    assert late.args["replace_original"] is True and sorry in all_text(late.args["blocks"])
    assert not any(b.get("block_id", "").startswith("hit:") for b in late.args["blocks"])


def test_a_fast_answer_still_rides_in_the_ack(slow_server, fake_slack):
    status, ack = slow_server.command("help", user_id="U_SLOW_HELP")  # no search: well within budget
    assert status == 200 and "/papers speculative decoding" in all_text(ack["blocks"])
    time.sleep(0.1)
    assert fake_slack.calls_to("response") == []


def test_a_slow_share_acks_then_delivers_its_preview_and_post_shares(slow_server, slow_corpus, fake_slack):
    status, ack = slow_server.command("share ParisKV", user_id="U_SLOW_SHARE", response_url=fake_slack.response_url("slowshare"))
    assert status == 200 and "Searching" in ack["text"]
    slow_corpus.go.set()
    (late,) = fake_slack.wait_for("response")  # the Post / Cancel preview replaces "Searching…"
    assert late.args["replace_original"] is True and "ParisKV" in all_text(late.args["blocks"])
    assert fake_slack.calls_to("chat.postMessage") == []  # nothing reaches the channel before Post
    slow_server.click("share_post", button_values(late.args["blocks"], "share_post")[0], user_id="U_SLOW_SHARE")
    (post,) = fake_slack.wait_for("chat.postMessage")
    assert post.args["channel"] == "C100" and "ParisKV" in post.args["text"]
    done = fake_slack.wait_for("response", count=2)[1]  # and the clicker hears where it went
    assert "Shared to <#C100>" in done.args["text"]


def test_socket_mode_delivers_a_slow_answer_the_same_way(slow_settings, seed_corpus, fake_slack):
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    from bot.slack.app import build_app, slack_services

    socket_mode = FakeSocketMode().start()
    fake_slack.socket_url = socket_mode.url
    slow = SlowCorpus(seed_corpus)
    handler = SocketModeHandler(build_app(slow_settings, slack_services(slow_settings, slow)), "xapp-1-A0001-test")
    try:
        handler.connect()
        socket_mode.wait_connected()
        socket_mode.push(slash_command_envelope("slow1", "推测解码", fake_slack.response_url("slow1"), user_id="U_SLOW_SM"))
        ack = socket_mode.wait_for_ack("slow1")
        assert "正在搜索" in ack["payload"]["text"]
        slow.go.set()
        (late,) = fake_slack.wait_for("response")
        assert late.args["replace_original"] is True and "共找到" in late.args["blocks"][0]["text"]["text"]
    finally:
        slow.go.set()
        handler.close()
        socket_mode.stop()
