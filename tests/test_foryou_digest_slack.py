"""👍 / 👎 on digests over real HTTP (issue 27): a channel digest row's menu votes for the
channel once per person, and a 👎'd paper stays out of its reader's next personal digest.

The digest world of tests/test_digest_slack.py: its fake Slack, a corpus, an injected clock
and a real scheduler run by hand.
"""

from __future__ import annotations

from digest_support import ingest, listing_text
from slack_helpers import all_text, button_values
from test_digest_slack import posts, run_at, slack, w, world  # noqa: F401 (fixtures)

from bot.slack.values import decode_value

TEAM = "T0001"


def rows_of(blocks: list[dict]) -> list[dict]:
    return [b for b in blocks if b.get("block_id", "").startswith("digest:")]


def option(row: dict, action: str) -> dict:
    return next(o for o in row["accessory"]["options"] if "url" not in o and decode_value(o["value"]).action == action)


def test_a_channel_digest_rows_thumbs_are_the_channels_once_per_person(w, slack):  # noqa: F811 (fixtures)
    slack.command("subscribe", user_id="U_DV1", channel_id="C_DV1")
    ingest(w.corpus, w.tmp, "dv-1.txt", listing_text("Vote Feed（投票）", 7000, 3, topic="Graph Networks"))
    run_at(w, 2026, 12, 1, 9, 0)
    (head,) = posts(w.fake)
    row = rows_of(head.args["blocks"])[0]
    paper_id = row["block_id"].removeprefix("digest:")
    like, dislike = option(row, "paper_like"), option(row, "paper_dislike")
    assert like["text"]["text"] == "👍 Interesting to me" and "U_DV" not in like["value"]
    message = {"ts": head.response["ts"], "text": head.args["text"], "blocks": head.args["blocks"]}
    for user in ("U_DV2", "U_DV2", "U_DV3"):  # U_DV2's click arrives twice
        slack.click("paper_menu", like, user_id=user, channel_id="C_DV1", ephemeral=False, message=message)
    slack.click("paper_menu", dislike, user_id="U_DV4", channel_id="C_DV1", ephemeral=False, message=message)
    notes = w.fake.wait_for("response", 4)
    assert all(n.args["response_type"] == "ephemeral" for n in notes)  # the channel sees no one's vote
    assert "It also counts as your vote in <#" in all_text(notes[0].args["blocks"])
    votes = w.services.library.feedback.place_votes(TEAM, "C_DV1")[paper_id]
    assert (votes.up, votes.down) == (2, 1)

    # Undo, from the private note, takes back only the clicker's vote.
    (undo,) = button_values(notes[-1].args["blocks"], "paper_unvote")
    slack.click("paper_unvote", undo, user_id="U_DV4", channel_id="C_DV1")
    w.fake.wait_for("response", 5)
    votes = w.services.library.feedback.place_votes(TEAM, "C_DV1")[paper_id]
    assert (votes.up, votes.down) == (2, 0)


def test_a_paper_disliked_in_search_stays_out_of_the_next_personal_digest(w, slack):  # noqa: F811
    slack.command("subscribe", user_id="U_DV5", channel_id="D_DV5")
    ingest(w.corpus, w.tmp, "dv-2.txt", listing_text("Vote Feed（投票）", 7100, 4, topic="Tabular Learning"))
    _, results = slack.command("Tabular Learning Study Number 7102", user_id="U_DV5", channel_id="D_DV5")
    dislike = button_values(results["blocks"], "paper_dislike")[0]
    disliked = decode_value(dislike).id
    assert "7102" in w.corpus.get(disliked).title_en
    slack.click("paper_dislike", dislike, user_id="U_DV5", channel_id="D_DV5")
    w.fake.wait_for("response")
    run_at(w, 2026, 12, 1, 9, 0)
    (digest,) = [p for p in posts(w.fake) if p.args["channel"] == "DU_DV5"]  # the reader's DM, as the fake opens it
    shown = [r["block_id"].removeprefix("digest:") for r in rows_of(digest.args["blocks"])]
    assert disliked not in shown and len(shown) == 3  # the other three still come
    assert "3 new papers" in digest.args["text"]
    assert all("↳ " in r["text"]["text"] for r in rows_of(digest.args["blocks"]))  # each with a reason
