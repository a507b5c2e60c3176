"""The reading list over real HTTP: signed Slack requests in, calls to the fake Slack out.

Each test uses its own user and channel ids: the seeded corpus (and its saves) is shared
by the session.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import bibtexparser
import pytest
from slack_helpers import all_text, button_values

from bot.slack.render.blocks import check_blocks, check_view
from bot.slack.values import decode_value


def eventually(check, timeout: float = 15.0):
    """Events are handled after the ack: wait until `check()` is truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.02)


def post_share(slack, fake_slack, query: str, *, user_id: str, channel_id: str):
    """Share `query` the way a person does: the private preview, then Post; return the post."""
    _, preview = slack.command(f"share {query}", user_id=user_id, channel_id=channel_id)
    slack.click("share_post", button_values(preview["blocks"], "share_post")[0], user_id=user_id, channel_id=channel_id)
    (post,) = fake_slack.wait_for("chat.postMessage")
    fake_slack.wait_for("response")  # "Shared to #channel", to the sharer
    fake_slack.reset()
    return post


def save_buttons(blocks: list[dict]) -> list[dict]:
    return [e for b in blocks if b.get("type") == "actions" for e in b["elements"] if e.get("action_id") == "paper_save"]


def test_the_save_button_toggles_and_redraws_the_results_for_the_clicker(slack, fake_slack, seed_corpus, seed_services):
    _, body = slack.command("ParisKV", user_id="U_SV1")
    first = save_buttons(body["blocks"])[0]
    assert first["text"]["text"] == "Save"
    value = decode_value(first["value"])
    assert "U_SV1" not in json.dumps(body)  # no button value names the reader

    slack.click("paper_save", first["value"], user_id="U_SV1")
    (redrawn,) = fake_slack.wait_for("response")
    assert redrawn.args["replace_original"] is True and redrawn.args["response_type"] == "ephemeral"
    assert check_blocks(redrawn.args["blocks"]) == []
    assert save_buttons(redrawn.args["blocks"])[0]["text"]["text"] == "Saved ✓"
    assert redrawn.args["blocks"][0] == body["blocks"][0]  # the same results page
    assert seed_services.library.saved_ids("U_SV1") == {value.id}

    _, body = slack.command("ParisKV", user_id="U_SV1")  # a new search shows it saved
    assert save_buttons(body["blocks"])[0]["text"]["text"] == "Saved ✓"
    _, other = slack.command("ParisKV", user_id="U_SV2")  # to nobody else
    assert save_buttons(other["blocks"])[0]["text"]["text"] == "Save"

    slack.click("paper_save", save_buttons(body["blocks"])[0]["value"], user_id="U_SV1")
    again = fake_slack.wait_for("response", 2)[1]
    assert save_buttons(again.args["blocks"])[0]["text"]["text"] == "Save"
    assert seed_services.library.saved_ids("U_SV1") == set()


def test_saves_are_private_whoever_clicks_or_asks(slack, fake_slack, seed_corpus, seed_services):
    _, body = slack.command("save ParisKV", user_id="U_PRIV1")
    assert "Saved *ParisKV" in body["text"]
    _, listed = slack.command("saved", user_id="U_PRIV2")
    assert "You haven't saved any papers yet" in all_text(listed["blocks"])
    _, results = slack.command("ParisKV", user_id="U_PRIV1")
    # Another person clicking the same value (a forwarded or forged click) saves for themselves.
    slack.click("paper_save", save_buttons(results["blocks"])[0]["value"], user_id="U_PRIV2")
    fake_slack.wait_for("response")
    assert seed_services.library.saved_ids("U_PRIV1") == seed_services.library.saved_ids("U_PRIV2")
    slack.click("paper_save", save_buttons(results["blocks"])[0]["value"], user_id="U_PRIV2")
    fake_slack.wait_for("response", 2)
    assert seed_services.library.saved_ids("U_PRIV2") == set() and len(seed_services.library.saved_ids("U_PRIV1")) == 1
    title = seed_corpus.resolve("ParisKV").title_en
    for text in ("saved U_PRIV1", "saved <@U_PRIV1>", "export bibtex U_PRIV1", "saved ParisKV"):
        _, answer = slack.command(text, user_id="U_PRIV3")
        assert title not in json.dumps(answer, ensure_ascii=False)
    assert not fake_slack.calls_to("files.completeUploadExternal")


def test_slash_save_then_list_search_within_and_remove(slack, fake_slack):
    user = "U_LIST"
    _, body = slack.command("save ParisKV", user_id=user)
    assert "Saved *ParisKV" in body["text"]
    _, body = slack.command("save ParisKV", user_id=user)
    assert "already in your saved papers" in body["text"]
    _, body = slack.command("收藏 推测解码", user_id=user)
    assert body["text"].startswith("已收藏")
    _, listed = slack.command("saved", user_id=user)
    assert check_blocks(listed["blocks"]) == []
    text = all_text(listed["blocks"])
    assert "*2* saved papers" in text
    titles = [b["text"]["text"].split("\n")[0] for b in listed["blocks"] if b.get("block_id", "").startswith("hit:")]
    assert "ParisKV" in titles[1] and "ParisKV" not in titles[0]  # newest save first
    assert [e["text"]["text"] for e in save_buttons(listed["blocks"])] == ["Remove", "Remove"]

    _, found = slack.command("saved kv cache", user_id=user)
    assert "*1* of your saved papers matches “kv cache”" in all_text(found["blocks"])
    _, found = slack.command("saved 推测解码", user_id=user)
    assert "1" in found["text"] and "ParisKV" not in all_text(found["blocks"])
    _, found = slack.command("saved qwertyuiop", user_id=user)
    assert "None of your saved papers match “qwertyuiop”" in found["text"]

    slack.click("paper_save", save_buttons(listed["blocks"])[1]["value"], user_id=user)  # Remove ParisKV
    (redrawn,) = fake_slack.wait_for("response")
    assert redrawn.args["replace_original"] is True
    assert "*1* saved paper" in all_text(redrawn.args["blocks"]) and "ParisKV" not in all_text(redrawn.args["blocks"])

    for text, expected in (("save", "Tell me what to save"), ("save qwertyuiop asdfghjkl", "nothing was saved")):
        _, body = slack.command(text, user_id=user)
        assert expected in body["text"]


def test_saved_pages_through_many(slack, fake_slack, seed_corpus, seed_services):
    user = "U_PAGED"
    for paper in seed_corpus.store.newest(7):
        seed_services.library.save(user, paper.id)
    _, listed = slack.command("saved", user_id=user)
    assert "page 1 of 2" in listed["text"]
    (next_value,) = button_values(listed["blocks"], "results_next")
    slack.click("results_next", next_value, user_id=user)
    (page,) = fake_slack.wait_for("response")
    assert "page 2 of 2" in page.args["text"] and page.args["replace_original"] is True
    assert len(save_buttons(page.args["blocks"])) == 2


def test_app_home_has_a_saved_section_with_remove(slack, fake_slack, seed_corpus, seed_services):
    user = "U_HOMESAVE"
    paper = seed_corpus.resolve("ParisKV")
    seed_services.library.save(user, paper.id)
    slack.event({"type": "app_home_opened", "user": user, "channel": "D1", "tab": "home"})
    (publish,) = fake_slack.wait_for("views.publish")
    view = publish.args["view"]
    assert check_view(view) == []
    text = all_text(view["blocks"])
    assert "Your saved papers" in text and paper.title_en.split(":")[0] in text
    removes = [e for e in save_buttons(view["blocks"]) if e["text"]["text"] == "Remove"]
    assert len(removes) == 1
    slack.click("paper_save", removes[0]["value"], user_id=user, container="home")
    publishes = fake_slack.wait_for("views.publish", 2)
    assert "Nothing saved yet" in all_text(publishes[1].args["view"]["blocks"])
    assert seed_services.library.saved_ids(user) == set()


def test_reactions_on_shared_cards_are_the_channels_votes(slack, fake_slack, seed_corpus, seed_services):
    channel = "C_VOTES"
    post = post_share(slack, fake_slack, "ParisKV", user_id="U_SHARER", channel_id=channel)
    assert button_values(post.args["blocks"], "paper_save")  # a Save button on the shared card
    ts = post.response["ts"]
    # The fake records the post before answering it; the card is recorded after the answer.
    (paper_id,) = eventually(lambda: seed_services.library.papers_on(channel, ts))

    def reaction(kind, user, event_ts, item_ts=ts, emoji="thumbsup"):
        return {"type": kind, "user": user, "reaction": emoji, "item_user": "UBOT", "event_ts": event_ts,
                "item": {"type": "message", "channel": channel, "ts": item_ts}}  # fmt: skip

    def voters():
        return seed_services.library.votes(channel).get(paper_id, (0.0, 0))[1]

    slack.event(reaction("reaction_added", "U_V1", "10.1"))
    slack.event(reaction("reaction_added", "U_V1", "10.1"))  # Slack retrying the same event
    slack.event(reaction("reaction_added", "U_V1", "10.2", emoji="tada"))  # same person, another emoji
    slack.event(reaction("reaction_added", "U_V2", "10.3"))
    slack.event(reaction("reaction_added", "U_V3", "10.4", item_ts="123.456"))  # not a paper card
    assert eventually(lambda: voters() == 2)
    _, top = slack.command("top", user_id="U_SHARER", channel_id=channel)
    assert check_blocks(top["blocks"]) == []
    text = all_text(top["blocks"])
    assert "Popular in <#C_VOTES> this week" in text and "shared by 1 person · 2 people reacted" in text

    slack.event(reaction("reaction_removed", "U_V2", "10.5"))
    assert eventually(lambda: voters() == 1)
    _, top = slack.command("top month", user_id="U_SHARER", channel_id=channel)
    assert "shared by 1 person · 1 person reacted" in all_text(top["blocks"])
    _, top = slack.command("热门", user_id="U_SHARER", channel_id="C_QUIET")
    assert "本周还没有" in top["text"]
    _, top = slack.command("top", user_id="U_SHARER", channel_id="D_SOMEONE")
    assert "run it in a channel" in top["text"]
    _, search = slack.command("top-k sampling", user_id="U_SHARER", channel_id=channel)
    assert "for “top-k sampling”" in search["text"]  # a search, not the command


def test_a_bot_s_reactions_are_no_one_s_vote(slack, fake_slack, seed_corpus, seed_services):
    """Issue 29, point 10: another app's (and Slackbot's) reactions counted as votes."""
    channel = "C_BOTVOTES"
    post = post_share(slack, fake_slack, "ParisKV", user_id="U_BOTSHARER", channel_id=channel)
    ts = post.response["ts"]
    (paper_id,) = eventually(lambda: seed_services.library.papers_on(channel, ts))
    fake_slack.users["U_OTHER_APP"] = {"is_bot": True}

    def reaction(user, event_ts, kind="reaction_added"):
        return {"type": kind, "user": user, "reaction": "thumbsup", "item_user": "UBOT", "event_ts": event_ts,
                "item": {"type": "message", "channel": channel, "ts": ts}}  # fmt: skip

    for user, event_ts in (("U_OTHER_APP", "20.1"), ("USLACKBOT", "20.2"), ("U_PERSON", "20.3")):
        slack.event(reaction(user, event_ts))
    assert eventually(lambda: seed_services.library.votes(channel).get(paper_id) == (1.0, 1))
    slack.event(reaction("U_OTHER_APP", "20.4", kind="reaction_removed"))
    time.sleep(0.3)  # handled after the ack; nothing may change
    assert seed_services.library.votes(channel).get(paper_id) == (1.0, 1)
    asked = {call.args.get("user") for call in fake_slack.calls_to("users.info")}
    assert {"U_OTHER_APP", "U_PERSON"} <= asked


def test_a_save_from_a_public_card_counts_for_the_channel_and_answers_privately(slack, fake_slack, seed_corpus, seed_services):
    channel, user = "C_PUBSAVE", "U_PUBSAVE"
    post = post_share(slack, fake_slack, "ParisKV", user_id="U_SOMEONE", channel_id=channel)
    assert eventually(lambda: seed_services.library.papers_on(channel, post.response["ts"]))
    (value,) = button_values(post.args["blocks"], "paper_save")
    slack.click("paper_save", value, user_id=user, channel_id=channel, ephemeral=False)
    (note,) = fake_slack.wait_for("response")
    assert note.args["replace_original"] is False and note.args["response_type"] == "ephemeral"  # the card stays as it is
    assert "Saved *ParisKV" in note.args["text"]
    _, top = slack.command("top", user_id=user, channel_id=channel)
    assert "shared by 1 person · saved by 1 person" in all_text(top["blocks"])

    (undo,) = button_values(note.args["blocks"], "paper_save")
    slack.click("paper_save", undo, user_id=user, channel_id=channel)
    removed = fake_slack.wait_for("response", 2)[1]
    assert removed.args["replace_original"] is True and "Removed *ParisKV" in removed.args["text"]
    assert seed_services.library.saved_ids(user) == set()


def test_export_sends_a_file_by_dm_that_parses_back(slack, fake_slack, seed_corpus, seed_services):
    user = "U_EXPORT"
    for query in ("ParisKV", "speculative decoding"):
        seed_services.library.save(user, seed_corpus.resolve(query).id)
    _, body = slack.command("export bibtex", user_id=user)
    assert "Sending your *2* saved papers as BibTeX" in body["text"]
    (complete,) = fake_slack.wait_for("files.completeUploadExternal")
    assert complete.args["channel_id"] == f"D{user}"
    assert "2* saved papers as BibTeX" in complete.args["initial_comment"]
    (content,) = fake_slack.uploaded().values()
    entries = bibtexparser.parse_string(content).entries
    assert len(entries) == 2 and any("ParisKV" in e["title"] for e in entries)
    (ask,) = fake_slack.calls_to("files.getUploadURLExternal")
    assert ask.args["filename"].endswith(".bib")

    slack.command("export csl-json", user_id=user)
    fake_slack.wait_for("files.completeUploadExternal", 2)
    assert len(json.loads(list(fake_slack.uploaded().values())[1])) == 2

    for text, who, expected in (
        ("export", user, "Zotero imports all three"),
        ("导出 bibtex", "U_EXPORT_NONE", "还没有可导出的收藏"),
    ):
        _, body = slack.command(text, user_id=who)
        assert expected in body["text"]


def test_a_failed_upload_is_explained(slack, fake_slack, seed_corpus, seed_services):
    user = "U_EXPORT_FAIL"
    seed_services.library.save(user, seed_corpus.resolve("ParisKV").id)
    fake_slack.fail("files.getUploadURLExternal", "not_allowed_token_type")
    slack.command("export ris", user_id=user)
    (told,) = fake_slack.wait_for("response")
    assert "couldn't send the file" in told.args["text"] and "not_allowed_token_type" in told.args["text"]


def test_foryou_ranks_by_saves_with_a_reason(slack, fake_slack, seed_corpus, seed_services):
    _, body = slack.command("foryou", user_id="U_FY_NONE")
    assert "Save a few papers, rate any paper 👍 / 👎, or name your interests" in body["text"]
    slack.command("save ParisKV", user_id="U_FY")
    _, body = slack.command("foryou", user_id="U_FY")
    assert check_blocks(body["blocks"]) == []
    assert "Picked for you" in body["text"]
    assert "like *ParisKV*, which you saved" in all_text(body["blocks"])
    assert "ParisKV:" not in all_text([b for b in body["blocks"] if b.get("block_id", "").startswith("hit:")])

    # Saving one of them: the list stays as it was (For you leaves saved papers out, so a
    # redraw would drop the row unexplained) and a private note says it was saved.
    first = save_buttons(body["blocks"])[0]
    slack.click("paper_save", first["value"], user_id="U_FY")
    (note,) = fake_slack.wait_for("response")
    assert note.args["replace_original"] is False and "Saved *" in note.args["text"]
    assert decode_value(first["value"]).id in seed_services.library.saved_ids("U_FY")


def test_export_typed_in_the_dm_is_uploaded_there_too(slack, fake_slack, seed_corpus, seed_services):
    user = "U_EXPORT_DM"
    seed_services.library.save(user, seed_corpus.resolve("ParisKV").id)
    slack.event({"type": "message", "channel_type": "im", "user": user, "channel": f"D{user}", "text": "export ris"})
    (complete,) = fake_slack.wait_for("files.completeUploadExternal")
    assert complete.args["channel_id"] == f"D{user}"
    (content,) = fake_slack.uploaded().values()
    assert content.startswith("TY  - ") and "ER  - " in content


def test_the_offline_console_writes_an_export_to_a_file(seed_corpus, seed_services):
    from bot.console import answer_line, console_services
    from bot.store import tenancy

    # The console is no Slack workspace: its person's saves are the console's own (LOCAL).
    seed_services.library.save("U_CONSOLE_EXPORT", seed_corpus.resolve("ParisKV").id, team_id=tenancy.LOCAL)
    answer = answer_line(console_services(seed_corpus, io.StringIO()), "/papers export csl-json", user_id="U_CONSOLE_EXPORT")
    path = answer.rsplit("`", 2)[-2]
    assert path.startswith(str(seed_corpus.settings.data_dir / "exports"))
    items = json.loads(Path(path).read_text(encoding="utf-8"))
    assert len(items) == 1 and "ParisKV" in items[0]["title"]


def test_save_on_details_and_more_like_this_redraws_them(slack, fake_slack):
    user = "U_DETAILS_SAVE"
    _, body = slack.command("ParisKV", user_id=user)
    (details,) = button_values(body["blocks"], "paper_details")[:1]
    slack.click("paper_details", details, user_id=user)
    (card,) = fake_slack.wait_for("response")
    (save,) = save_buttons(card.args["blocks"])
    assert save["text"]["text"] == "Save" and decode_value(save["value"]).mode == "details"
    slack.click("paper_save", save["value"], user_id=user)
    redrawn = fake_slack.wait_for("response", 2)[1]
    assert redrawn.args["replace_original"] is True and redrawn.args["blocks"][0]["type"] == "header"
    assert [e["text"]["text"] for e in save_buttons(redrawn.args["blocks"])] == ["Saved ✓"]

    (more,) = button_values(body["blocks"], "paper_more")[:1]
    slack.click("paper_more", more, user_id=user)
    similar = fake_slack.wait_for("response", 3)[2]
    first = save_buttons(similar.args["blocks"])[0]
    slack.click("paper_save", first["value"], user_id=user)
    again = fake_slack.wait_for("response", 4)[3]
    assert again.args["replace_original"] is True and "like" in again.args["text"].lower()
    assert save_buttons(again.args["blocks"])[0]["text"]["text"] == "Saved ✓"


def test_save_from_a_personal_digest_row_in_a_dm_saves_for_that_reader(slack, fake_slack, seed_corpus, seed_services):
    from datetime import date

    from bot.digests.compose import Digest
    from bot.slack.render.digest import render_digest

    user, dm = "U_DM_DIGEST", "DU_DM_DIGEST"
    papers = seed_corpus.store.newest(2)
    (message,) = render_digest(Digest(lang="en", local_date=date(2026, 12, 1), papers=papers))
    row = [b for b in message.blocks if b.get("block_id", "").startswith("digest:")][1]
    option = next(o for o in row["accessory"]["options"] if decode_value(o["value"]).action == "paper_save")
    assert option["text"]["text"] == "Save" and user not in option["value"]
    slack.click("paper_menu", option, user_id=user, channel_id=dm, ephemeral=False,
                message={"ts": "55.5", "text": message.text, "blocks": message.blocks})  # fmt: skip
    (note,) = fake_slack.wait_for("response")
    chosen = seed_corpus.store.get(decode_value(option["value"]).id)
    assert row["block_id"] == f"digest:{chosen.id}"  # the option saves the row it sits on
    assert note.args["response_type"] == "ephemeral" and f"Saved *{chosen.title_en[:20]}" in note.args["text"]
    assert seed_services.library.saved_ids(user) == {chosen.id}
    assert save_buttons(note.args["blocks"])  # with a way to take it back


def test_save_on_a_card_everyone_sees_never_unsaves(slack, fake_slack, seed_corpus, seed_services):
    """A shared card or a digest row always says Save: a second click keeps the save."""
    channel, user = "C_SAVETWICE", "U_SAVETWICE"
    post = post_share(slack, fake_slack, "ParisKV", user_id="U_SOMEONE2", channel_id=channel)
    (value,) = button_values(post.args["blocks"], "paper_save")
    for n in (1, 2):
        slack.click("paper_save", value, user_id=user, channel_id=channel, ephemeral=False)
        note = fake_slack.wait_for("response", n)[-1]
        assert seed_services.library.saved_ids(user) == {decode_value(value).id}
    assert "already in your saved papers" in note.args["text"]
    assert [e["text"]["text"] for e in save_buttons(note.args["blocks"])] == ["Remove"]  # the way to unsave


@pytest.mark.parametrize("text", ["export foo", "export csl json", "导出 foo"])
def test_export_with_an_unknown_format_explains_the_formats(slack, text):
    _, body = slack.command(text, user_id="U_EXPFMT")
    shown = all_text(body["blocks"])
    assert "/papers export bibtex" in shown and "hit" not in json.dumps(body)  # usage, not a search
