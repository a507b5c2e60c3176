"""Interests in App Home (issue 27, point 2: "and the same in App Home"), over real HTTP.

Home lists a person's interests with Remove on each and an Add interests button that opens
a modal (views.open on the fake Slack); the modal's view_submission adds them, or keeps
the modal open with what is wrong under its input, in the person's language. Whose
interests a click or a submission changes comes from the signed payload, never a value.
"""

from __future__ import annotations

import json

from slack_helpers import all_text

from bot.slack.render.blocks import check_view

TEAM = "T0001"


def open_home(slack, fake_slack, user_id: str, count: int = 1) -> dict:
    slack.event({"type": "app_home_opened", "user": user_id, "channel": f"D{user_id}", "tab": "home"})
    view = fake_slack.wait_for("views.publish", count)[-1].args["view"]
    assert check_view(view) == []
    return view


def elements(view: dict, action_id: str) -> list[dict]:
    found = []
    for block in view["blocks"]:
        for element in [block.get("accessory") or {}, *block.get("elements", [])]:
            if element.get("action_id") == action_id:
                found.append(element)
    return found


def submitted(value: str) -> dict:
    return {"interests_text": {"interests_text": {"type": "plain_text_input", "value": value}}}


def test_home_lists_interests_removes_one_and_adds_through_a_modal(slack, fake_slack, seed_services):
    feedback = seed_services.library.feedback
    slack.command("lang en", user_id="U_IH1")
    slack.command("interests add KV cache, 推测解码", user_id="U_IH1")
    view = open_home(slack, fake_slack, "U_IH1")
    text = all_text(view["blocks"])
    assert "Your interests" in text and "“KV cache”" in text and "“推测解码”" in text
    removes = elements(view, "home_interest_remove")
    assert [r["text"]["text"] for r in removes] == ["Remove", "Remove"]
    assert all("U_IH1" not in r["value"] for r in removes)  # no value names its owner

    slack.click("home_interest_remove", removes[0]["value"], user_id="U_IH1", container="home")
    after = fake_slack.wait_for("views.publish", 2)[1].args["view"]
    assert "“KV cache”" not in all_text(after["blocks"]) and "“推测解码”" in all_text(after["blocks"])
    assert feedback.interests(TEAM, "U_IH1") == ["推测解码"]

    (add,) = elements(after, "home_interests_add")
    slack.click("home_interests_add", add["value"], user_id="U_IH1", container="home")
    (opened,) = fake_slack.wait_for("views.open")
    assert opened.args["trigger_id"] == "1.2.3"
    modal = opened.args["view"]
    modal = json.loads(modal) if isinstance(modal, str) else modal
    assert modal["type"] == "modal" and modal["title"]["text"] == "Add interests"
    assert modal["blocks"][0]["type"] == "input" and "separated by commas" in modal["blocks"][0]["label"]["text"]

    status, body = slack.submit_view(modal, submitted("RLHF，扩散模型"), user_id="U_IH1")
    assert status == 200 and not body  # an empty ack closes the modal
    assert feedback.interests(TEAM, "U_IH1") == ["推测解码", "RLHF", "扩散模型"]
    home = fake_slack.wait_for("views.publish", 3)[2].args["view"]
    assert "“RLHF”" in all_text(home["blocks"]) and "“扩散模型”" in all_text(home["blocks"])

    # Bad input keeps the modal open, saying what is wrong under the input; nothing is stored.
    status, body = slack.submit_view(modal, submitted("x" * 90), user_id="U_IH1")
    assert status == 200 and body["response_action"] == "errors"
    assert "at most 80 characters" in body["errors"]["interests_text"]
    assert feedback.interests(TEAM, "U_IH1") == ["推测解码", "RLHF", "扩散模型"]
    # Privacy: another person's Home shows none of them, another team's submission is its own.
    other = open_home(slack, fake_slack, "U_IH2", 4)
    assert "RLHF" not in all_text(other["blocks"]) and "You follow no topics yet" in all_text(other["blocks"])
    slack.submit_view(modal, submitted("robotics"), user_id="U_IH1", team_id="T_OTHER")
    assert feedback.interests("T_OTHER", "U_IH1") == ["robotics"] and "robotics" not in feedback.interests(TEAM, "U_IH1")
    fake_slack.wait_for("views.publish", 5)  # its Home, published after the ack: not into the next test


def test_home_interests_and_their_modal_in_chinese(slack, fake_slack, seed_services):
    slack.command("lang zh", user_id="U_IH3")
    view = open_home(slack, fake_slack, "U_IH3")
    assert "你关注的主题" in all_text(view["blocks"]) and "你还没有关注任何主题" in all_text(view["blocks"])
    (add,) = elements(view, "home_interests_add")
    assert add["text"]["text"] == "添加主题"
    slack.click("home_interests_add", add["value"], user_id="U_IH3", container="home")
    modal = fake_slack.wait_for("views.open")[0].args["view"]
    modal = json.loads(modal) if isinstance(modal, str) else modal
    assert modal["title"]["text"] == "添加关注的主题" and modal["submit"]["text"] == "添加"
    assert "中英文皆可" in modal["blocks"][0]["hint"]["text"]
    status, body = slack.submit_view(modal, submitted("the, !!"), user_id="U_IH3")
    assert "没有可用于匹配论文的词" in body["errors"]["interests_text"]
    status, body = slack.submit_view(modal, submitted("推测解码"), user_id="U_IH3")
    assert not body and seed_services.library.feedback.interests(TEAM, "U_IH3") == ["推测解码"]
    home = fake_slack.wait_for("views.publish", 2)[1].args["view"]
    (remove,) = elements(home, "home_interest_remove")
    assert remove["text"]["text"] == "删除" and "“推测解码”" in all_text(home["blocks"])
