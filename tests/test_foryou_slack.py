"""The learning for-you over real HTTP (issue 27): 👍 / 👎 on every surface, answered
privately and undoable, counted once; interests; reasons; privacy across people and teams.

Signed Slack requests in, calls to the fake Slack out, the session's seeded corpus. Each
test uses its own user and channel ids.
"""

from __future__ import annotations

import json
import time

from slack_helpers import all_text, button_values

from bot.slack.render.blocks import check_blocks
from bot.slack.render.digest import paper_menu
from bot.slack.values import decode_value

TEAM = "T0001"


def vote_values(blocks: list[dict], action_id: str = "paper_like") -> list[str]:
    return button_values(blocks, action_id)


def test_thumbs_on_search_results_answer_privately_with_undo_and_count_once(slack, fake_slack, seed_services):
    feedback = seed_services.library.feedback
    _, body = slack.command("ParisKV", user_id="U_FB1")
    likes, dislikes = vote_values(body["blocks"]), vote_values(body["blocks"], "paper_dislike")
    assert likes and len(likes) == len(dislikes)  # one 👍 and one 👎 per result
    assert "U_FB1" not in json.dumps(body)  # no button value names the reader
    paper_id = decode_value(likes[0]).id

    slack.click("paper_like", likes[0], user_id="U_FB1")
    (note,) = fake_slack.wait_for("response")
    assert note.args["response_type"] == "ephemeral" and not note.args.get("replace_original")
    assert check_blocks(note.args["blocks"]) == []
    assert "👍 on *ParisKV" in all_text(note.args["blocks"]) and "Only you see this." in all_text(note.args["blocks"])
    assert feedback.vote_of(TEAM, "U_FB1", paper_id) == 1
    assert feedback.vote_of(TEAM, "U_FB2", paper_id) == 0  # nobody else's

    slack.click("paper_like", likes[0], user_id="U_FB1")  # delivered twice: still one 👍
    fake_slack.wait_for("response", 2)
    assert [s.paper_id for s in feedback.signals(TEAM, "U_FB1")] == [paper_id]

    slack.click("paper_dislike", dislikes[0], user_id="U_FB1")  # a change of mind replaces it
    third = fake_slack.wait_for("response", 3)[2]
    assert "`/papers foryou` and your own digest won't show it again" in all_text(third.args["blocks"])
    assert feedback.vote_of(TEAM, "U_FB1", paper_id) == -1 and len(feedback.signals(TEAM, "U_FB1")) == 1

    (undo,) = button_values(third.args["blocks"], "paper_unvote")
    assert "U_FB1" not in undo
    slack.click("paper_unvote", undo, user_id="U_FB1")
    undone = fake_slack.wait_for("response", 4)[3]
    assert undone.args["replace_original"] is True and "is undone" in all_text(undone.args["blocks"])
    assert feedback.vote_of(TEAM, "U_FB1", paper_id) == 0


def test_thumbs_answer_in_chinese_for_a_chinese_reader(slack, fake_slack):
    slack.command("lang zh", user_id="U_FB_ZH")
    _, body = slack.command("ParisKV", user_id="U_FB_ZH")
    slack.click("paper_dislike", vote_values(body["blocks"], "paper_dislike")[0], user_id="U_FB_ZH")
    (note,) = fake_slack.wait_for("response")
    text = all_text(note.args["blocks"])
    assert "已记下你对《" in text and "不会再出现在“为你推荐”和发给你的日报中" in text and "撤销" in text


def test_a_vote_on_a_channel_card_is_one_of_the_channels_per_person_and_team(slack, fake_slack, seed_services):
    feedback = seed_services.library.feedback
    _, body = slack.command("ParisKV", user_id="U_FB3", channel_id="C_FB3")
    like = vote_values(body["blocks"])[0]
    paper_id = decode_value(like).id
    for user in ("U_FB3", "U_FB3", "U_FB4"):  # U_FB3's click arrives twice
        slack.click("paper_like", like, user_id=user, channel_id="C_FB3", ephemeral=False)
    slack.click(
        "paper_dislike", vote_values(body["blocks"], "paper_dislike")[0], user_id="U_FB5", channel_id="C_FB3", ephemeral=False
    )
    notes = fake_slack.wait_for("response", 4)
    assert all(n.args["response_type"] == "ephemeral" for n in notes)
    assert "It also counts as your vote in <#" in all_text(notes[0].args["blocks"])
    votes = feedback.place_votes(TEAM, "C_FB3")[paper_id]
    assert (votes.up, votes.down) == (2, 1)

    # Another workspace's member with the same ids shares nothing with this one.
    slack.click("paper_like", like, user_id="U_FB5", channel_id="C_FB3", ephemeral=False, team_id="T_OTHER")
    fake_slack.wait_for("response", 5)
    assert feedback.place_votes(TEAM, "C_FB3")[paper_id].down == 1
    assert feedback.vote_of(TEAM, "U_FB5", paper_id) == -1 and feedback.vote_of("T_OTHER", "U_FB5", paper_id) == 1
    assert feedback.place_votes("T_OTHER", "C_FB3")[paper_id].up == 1


def test_for_you_rows_have_thumbs_and_details_is_a_weak_positive(slack, fake_slack, seed_services):
    _, body = slack.command("foryou", user_id="U_FB6")
    assert vote_values(body["blocks"]) and vote_values(body["blocks"], "paper_dislike")
    details = button_values(body["blocks"], "paper_details")[0]
    slack.click("paper_details", details, user_id="U_FB6")
    fake_slack.wait_for("response")
    (signal,) = seed_services.library.feedback.signals(TEAM, "U_FB6")
    assert signal.weak and signal.value == 1 and signal.paper_id == decode_value(details).id


def hit_ids(blocks: list[dict]) -> list[str]:
    return [b["block_id"].split(":")[2] for b in blocks if b.get("block_id", "").startswith("hit:")]


def test_a_thumbs_down_from_for_you_is_gone_from_the_next_and_every_row_says_why(slack, fake_slack, seed_services):
    slack.command("save ParisKV", user_id="U_FB7")
    _, body = slack.command("foryou", user_id="U_FB7")
    first = hit_ids(body["blocks"])[0]
    (dislike,) = [v for v in vote_values(body["blocks"], "paper_dislike") if decode_value(v).id == first]
    slack.click("paper_dislike", dislike, user_id="U_FB7")
    fake_slack.wait_for("response")
    _, after = slack.command("foryou", user_id="U_FB7")
    assert first not in hit_ids(after["blocks"]) and len(hit_ids(after["blocks"])) == len(hit_ids(body["blocks"]))
    assert "ranked by what you saved, rated 👍 / 👎 and follow" in after["text"]
    # One reason line right under every row, in the reader's language.
    rows = [i for i, b in enumerate(after["blocks"]) if b.get("block_id", "").startswith("hit:")]
    reasons = [after["blocks"][i + 1] for i in rows]
    assert all(r["type"] == "context" and r["elements"][0]["text"] for r in reasons)
    assert "like *ParisKV*, which you saved" in all_text(reasons)
    slack.command("save ParisKV", user_id="U_FB8")
    _, other = slack.command("foryou", user_id="U_FB8")  # someone else's, with the same save, still has it
    assert first in hit_ids(other["blocks"])


def notice_text(body) -> str:
    return all_text(body["blocks"])


def test_interests_add_list_remove_in_both_languages_and_give_a_cold_start(slack, fake_slack):
    slack.command("lang en", user_id="U_IN1")
    _, body = slack.command("interests add KV cache, 推测解码", user_id="U_IN1")
    assert "Added “KV cache”, “推测解码”." in notice_text(body)
    _, body = slack.command("interests add kv CACHE", user_id="U_IN1")  # the same, in other case
    assert "You already follow “kv CACHE”." in notice_text(body)
    _, body = slack.command("interests", user_id="U_IN1")
    assert "*Your interests* (only you see them): “KV cache”, “推测解码”" in notice_text(body)

    _, body = slack.command("foryou", user_id="U_IN1")  # nothing saved or rated: interests lead
    assert check_blocks(body["blocks"]) == []
    assert "by your interests (KV cache, 推测解码)" in body["text"]
    assert "matches your interest “KV cache”" in notice_text(body)
    # One of each interest leads, whether or not the background builder has embedded the
    # papers yet (with vectors ParisKV's "KV-Cache" may lead the other KV cache paper).
    top = all_text([b for b in body["blocks"] if b.get("block_id", "").startswith("hit:")][:2]).replace("-", " ")
    assert "KV Cache" in top and "Speculative Decoding" in top

    _, body = slack.command("interests remove kv cache", user_id="U_IN1")
    assert "Removed “KV cache”." in notice_text(body)
    _, body = slack.command("interests remove diffusion", user_id="U_IN1")
    assert "You don't follow “diffusion”" in notice_text(body)

    _, other = slack.command("interests list", user_id="U_IN2")  # privacy: nobody else sees them
    assert "You follow no topics yet" in notice_text(other)


def test_interests_in_chinese_and_bad_input_is_explained(slack, fake_slack, seed_services):
    slack.command("lang zh", user_id="U_IN3")
    _, body = slack.command("兴趣 添加 推测解码，KV缓存", user_id="U_IN3")
    assert "已添加“推测解码”、“KV缓存”。" in notice_text(body)
    _, body = slack.command("兴趣 列表", user_id="U_IN3")
    assert "*你关注的主题*（仅你可见）：“推测解码”、“KV缓存”" in notice_text(body)
    _, body = slack.command("兴趣 删除 推测解码", user_id="U_IN3")
    assert "已删除“推测解码”。" in notice_text(body)
    _, body = slack.command("兴趣 清空", user_id="U_IN3")
    assert "`/papers interests add KV cache, 推测解码` 添加你关注的主题" in notice_text(body)
    _, body = slack.command("interests add " + "x" * 90, user_id="U_IN3")
    assert "每个主题最多 80 个字符" in notice_text(body)  # the person's language, whatever the line's
    _, body = slack.command("interests add the, !!", user_id="U_IN4")
    assert "has no words I can match papers by" in notice_text(body)
    assert seed_services.library.feedback.interests(TEAM, "U_IN4") == []  # nothing half-stored
    assert seed_services.library.feedback.interests(TEAM, "U_IN3") == ["KV缓存"]
    assert seed_services.library.feedback.interests("T_OTHER", "U_IN3") == []


def wait_for_signals(feedback, user_id: str, count: int = 1) -> list:
    """The clicker's signals, once `count` are stored (a link click is acked, then counted)."""
    deadline = time.monotonic() + 5
    while len(signals := feedback.signals(TEAM, user_id)) < count and time.monotonic() < deadline:
        time.sleep(0.02)
    return signals


def test_opening_a_link_on_a_card_or_a_digest_row_is_a_weak_positive(slack, fake_slack, seed_corpus, seed_services):
    feedback = seed_services.library.feedback
    paper = seed_corpus.resolve("World Action Verifier")
    _, preview = slack.command("share World Action Verifier", user_id="U_LK1", channel_id="C_LK")
    slack.click("share_post", button_values(preview["blocks"], "share_post")[0], user_id="U_LK1", channel_id="C_LK")
    (post,) = fake_slack.wait_for("chat.postMessage")
    links = [e for b in post.args["blocks"] if b.get("type") == "actions" for e in b["elements"] if "url" in e]
    assert links and all(decode_value(e["value"]).id == paper.id for e in links)  # each link names its paper
    assert all("U_LK" not in e["value"] for e in links)
    status, _ = slack.click(links[0]["action_id"], links[0]["value"], user_id="U_LK2", channel_id="C_LK", ephemeral=False)
    assert status == 200
    (signal,) = wait_for_signals(feedback, "U_LK2")
    assert (signal.paper_id, signal.weak, signal.value) == (paper.id, True, 1)
    assert feedback.signals(TEAM, "U_LK1") == []  # the sharer opened nothing

    # A digest row's menu: its link options name the paper too, and count for the one who opens them.
    menu = paper_menu(paper, "en", ["links"])
    option = next(o for o in menu["options"] if "url" in o)
    slack.click("paper_menu", option, user_id="U_LK3", channel_id="C_LK", ephemeral=False)
    (signal,) = wait_for_signals(feedback, "U_LK3")
    assert (signal.paper_id, signal.weak) == (paper.id, True)


def test_the_server_loads_the_for_you_model_before_it_answers(seed_services):
    """The model's libraries (~1.5 s of CPU) load before the first request, not inside its ack."""
    assert seed_services.library._recommender is not None
