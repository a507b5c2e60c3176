"""Digests and the reading list over real HTTP: `order:`, Save on digest rows, votes on
digest messages, and a channel digest opening with what the channel valued this week."""

from __future__ import annotations

import time

from digest_support import ingest, listing_text
from slack_helpers import all_text
from test_digest_slack import posts, run_at, slack, w, world  # noqa: F401 (fixtures)

from bot.digests.requests import parse_subscribe
from bot.slack.render.blocks import check_blocks
from bot.slack.values import decode_value


def test_order_is_read_from_the_subscribe_line():
    assert parse_subscribe("order:foryou 9:30 KV cache").order == "foryou"
    assert parse_subscribe("order：popular").order == "popular"
    assert parse_subscribe("KV cache order:new").order is None  # after the filter starts, it is the filter


def test_subscribe_with_an_order_says_so_and_a_bad_one_is_explained(w, slack):  # noqa: F811 (fixtures)
    _, body = slack.command("subscribe order:foryou", user_id="U_ORD1", channel_id="D_ORD1")
    assert "Papers come ordered by what you saved." in all_text(body["blocks"])
    assert w.services.subscriptions.for_place("T0001", "user", "U_ORD1").ranking == "foryou"
    _, body = slack.command("subscribe order:sometimes", user_id="U_ORD1", channel_id="D_ORD1")
    assert "`order:sometimes` is not an order I know" in all_text(body["blocks"])
    _, body = slack.command("subscribe zh order:popular", user_id="U_ORD1", channel_id="C_ORD1")
    assert "Papers come ordered by what this channel values most." in all_text(body["blocks"])  # the reply follows the person
    slack.command("lang zh", user_id="U_ORD1", channel_id="C_ORD1")
    _, body = slack.command("subscribe zh order:popular", user_id="U_ORD1", channel_id="C_ORD1")
    assert "论文按本频道最看重的论文排序。" in all_text(body["blocks"])


def test_reactions_on_a_digest_are_votes_and_the_next_digest_opens_with_them(w, slack):  # noqa: F811
    slack.command("subscribe", user_id="U_ORD2", channel_id="C_ORD2")
    ingest(w.corpus, w.tmp, "ord-1.txt", listing_text("Order Feed（排序）", 5000, 3, topic="Mixture of Experts"))
    run_at(w, 2026, 12, 1, 9, 0)
    (head,) = posts(w.fake)
    menus = [b["accessory"]["options"] for b in head.args["blocks"] if b.get("block_id", "").startswith("digest:")]
    assert len(menus) == 3 and all(any(decode_value(o["value"]).action == "paper_save" for o in m) for m in menus)
    ts = head.response["ts"]
    assert len(w.services.library.papers_on("C_ORD2", ts)) == 3
    slack.event({"type": "reaction_added", "user": "U_FAN", "reaction": "fire", "event_ts": "20.1",
                 "item": {"type": "message", "channel": "C_ORD2", "ts": ts}})  # fmt: skip
    deadline = time.monotonic() + 15
    while not w.services.library.votes("C_ORD2") and time.monotonic() < deadline:
        time.sleep(0.02)
    votes = w.services.library.votes("C_ORD2")
    assert len(votes) == 3 and all(abs(v - 1 / 3) < 1e-9 and people == 1 for v, people in votes.values())

    ingest(w.corpus, w.tmp, "ord-2.txt", listing_text("Order Feed（排序）", 6000, 2, topic="Protein Folding"))
    run_at(w, 2026, 12, 2, 9, 0)
    second = posts(w.fake)[1]
    assert check_blocks(second.args["blocks"]) == []
    assert "Popular in this channel this week:" in all_text(second.args["blocks"])
    assert "Mixture of Experts Study Number 500" in all_text(second.args["blocks"]).split("Popular in this channel this week:")[1]
