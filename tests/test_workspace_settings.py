"""Per-workspace settings and admins (issue 25 point 3), over real HTTP with signed requests.

`/papers settings` (设置) and App Home's "Workspace settings" change a workspace's default
digest language and zone, its admins and whether its uploads are shared; only that
workspace's admins may, and another workspace never reads them. PAPERBOT_ADMINS administer
the home workspace (token mode); in OAuth mode the person who installed is the first admin.

The module runs its own paperbot over its own store, whose home workspace is T0001 (what a
token-mode start learns from auth.test), so what PAPERBOT_ADMINS reach is fixed.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest
from slack_helpers import SIGNING_SECRET, SlackSender, all_text, slash_command_fields
from test_oauth import browser_get, start_install

from bot.config import Settings
from bot.corpus import Corpus
from bot.slack.alerts import AdminAlerts
from bot.slack.client import build_client
from bot.slack.render.blocks import check_view
from bot.slack.server import start_app_server
from bot.slack.words import Command, read_command
from bot.store import tenancy
from bot.store.database import open_store
from bot.store.workspaces import Workspaces

REPO = Path(__file__).resolve().parent.parent
HOME = "T0001"  # the home workspace: PAPERBOT_ADMINS administer it
SERVER_ADMIN = "U_SRV_ADMIN"


@pytest.fixture(scope="module")
def ws_server(slack_settings, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("ws-data")
    corpus = Corpus.load(Settings(data_dir=data_dir, seeds_dir=REPO / "seeds"))
    tenancy.adopt(corpus.store, HOME)  # what a token-mode start does once it knows its workspace
    running = start_app_server(dataclasses.replace(slack_settings, admins=frozenset({SERVER_ADMIN})), corpus)
    yield running
    running.shutdown()
    corpus.close()


@pytest.fixture
def ws(ws_server):
    return ws_server.services


@pytest.fixture
def sender(ws_server, fake_slack):
    sender = SlackSender(ws_server.url, fake_slack)
    yield sender
    sender.close()


def command(sender: SlackSender, text: str, *, user_id: str, team_id: str = HOME, channel_id: str = "C_WS") -> dict:
    fields = slash_command_fields(text, sender.fake.response_url(), user_id=user_id, channel_id=channel_id)
    fields["team_id"] = team_id
    status, body = sender.post(urlencode(fields), "application/x-www-form-urlencoded")
    assert status == 200 and isinstance(body, dict), body
    return body


def text_of(body: dict) -> str:
    return all_text(body["blocks"])


def open_home(sender: SlackSender, user_id: str, team_id: str, count: int = 1) -> dict:
    body = json.dumps(
        {
            "token": "legacy-verification-token", "team_id": team_id, "api_app_id": "A0001",
            "event": {"type": "app_home_opened", "user": user_id, "channel": f"D{user_id}", "tab": "home"},
            "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
        }
    )  # fmt: skip
    assert sender.post(body, "application/json")[0] == 200
    view = sender.fake.wait_for("views.publish", count)[-1].args["view"]
    assert check_view(view) == []
    return view


def element(view: dict, action_id: str) -> dict | None:
    for block in view["blocks"]:
        accessory = block.get("accessory") or {}
        if accessory.get("action_id") == action_id:
            return accessory
    return None


def opened_modal(fake_slack) -> dict:
    modal = fake_slack.wait_for("views.open")[-1].args["view"]
    return json.loads(modal) if isinstance(modal, str) else modal


def admin_of(ws, team_id: str, user_id: str) -> None:
    ws.workspaces.update(team_id, by="test", admins=(user_id,))


# -- the vocabulary -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "command"),
    [("settings", Command.SETTINGS), ("设置", Command.SETTINGS), ("settings zone Asia/Shanghai", Command.SETTINGS),
     ("设置 时区 北京", Command.SETTINGS), ("settings admins add x", Command.SETTINGS), ("设置 上传 共享", Command.SETTINGS),
     ("settings for offline RL", Command.SEARCH), ("设置 最优 学习率", Command.SEARCH)],
)  # fmt: skip
def test_settings_is_a_command_only_before_a_setting(line, command):
    assert read_command(line)[0] is command


# -- /papers settings ----------------------------------------------------------------------


def test_anyone_sees_the_settings_read_only_with_whom_to_ask(sender, ws):
    body = command(sender, "settings", user_id="U_WS_READER")
    text = text_of(body)
    assert "Workspace settings" in text and "English (the default)" in text and "UTC (the default)" in text
    assert f"<@{SERVER_ADMIN}>" in text and "visible only in this workspace" in text
    assert f"Only this workspace's admins change these; ask <@{SERVER_ADMIN}>." in text
    assert "settings zone Asia/Shanghai" not in text  # how to change them is for admins
    zh = text_of(command(sender, "设置", user_id="U_WS_READER"))
    assert "工作区设置" in zh and "英文（默认）" in zh and f"请联系 <@{SERVER_ADMIN}>。" in zh


@pytest.mark.parametrize(
    ("team_id", "admin", "lines", "said"),
    [
        ("T_WS_EN", "U_WS_EN", ["settings lang zh", "settings zone Asia/Shanghai", "settings admins add <@U_WS_EN2|ann>",
                                "settings uploads shared"],
         ["New digests in this workspace now default to Chinese.", "This workspace's time zone is now Asia/Shanghai",
          "Now admins of paperbot in this workspace: <@U_WS_EN2>.", "now visible in every workspace"]),
        ("T_WS_ZH", "U_WS_ZH", ["设置 语言 中文", "设置 时区 北京", "设置 管理员 添加 <@U_WS_ZH2>", "设置 上传 共享"],
         ["本工作区新建的日报默认使用中文。", "本工作区的时区已设为 北京时间", "已将 <@U_WS_ZH2> 设为本工作区的 paperbot 管理员",
          "现在对使用此 paperbot 的所有工作区可见"]),
    ],
    ids=["en", "zh"],
)  # fmt: skip
def test_an_admin_changes_each_setting_by_command(sender, ws, team_id, admin, lines, said):
    admin_of(ws, team_id, admin)
    for line, sentence in zip(lines, said, strict=True):
        assert sentence in text_of(command(sender, line, user_id=admin, team_id=team_id))
    settings = ws.workspaces.get(team_id)
    assert (settings.lang, settings.timezone, settings.share_uploads) == ("zh", "Asia/Shanghai", True)
    assert set(settings.admins) == {admin, admin + "2"} and settings.updated_by == admin
    shown = text_of(command(sender, "settings", user_id=admin + "2", team_id=team_id))  # the new admin may change them too
    assert "Asia/Shanghai" in shown or "北京" in shown
    assert "settings admins add @someone" in shown or "设置 管理员 添加 @某人" in shown
    command(sender, "settings uploads private", user_id=admin + "2", team_id=team_id)
    assert not ws.workspaces.get(team_id).share_uploads
    assert ws.workspaces.get(HOME).lang == ""  # the home workspace's own settings are untouched


@pytest.mark.parametrize(
    ("line", "sentence"),
    [
        ("settings zone Mars/Olympus", "“Mars/Olympus” isn't a time zone I know. Use an IANA name such as `Asia/Shanghai`"),
        ("settings zone EST", "“EST” means different zones in different places. Say which one: `America/New_York`"),
        ("settings zone UTC+5:30", "I can only take whole-hour offsets such as `UTC+8`. For “UTC+5:30”, name the place"),
        ("settings lang fr", "“fr” isn't a language paperbot speaks: use `/papers settings lang en`"),
        ("settings uploads maybe", "Say `/papers settings uploads shared` or `/papers settings uploads private`."),
        ("settings admins add", "Name who, picked from Slack's @ list: `/papers settings admins add @someone`"),
        (
            "settings admins add @bob",
            "Or use *Admins → Change* in paperbot's App Home.",
        ),  # a bare name, not a mention: nobody to add
        ("设置 时区 火星", "无法识别时区“火星”。请使用 IANA 时区名"),
    ],
)
def test_bad_input_is_answered_helpfully_and_changes_nothing(sender, ws, line, sentence):
    admin_of(ws, "T_WS_BAD", "U_WS_BAD")
    before = ws.workspaces.get("T_WS_BAD")
    body = command(sender, line, user_id="U_WS_BAD", team_id="T_WS_BAD")
    assert sentence in text_of(body) and "Traceback" not in text_of(body)
    assert ws.workspaces.get("T_WS_BAD") == before


def test_the_last_admin_names_another_before_leaving(sender, ws):
    admin_of(ws, "T_WS_LAST", "U_WS_LAST")
    text = text_of(command(sender, "settings admins remove <@U_WS_LAST>", user_id="U_WS_LAST", team_id="T_WS_LAST"))
    assert "That would leave this workspace with no admin. Add someone else first" in text
    assert ws.workspaces.get("T_WS_LAST").admins == ("U_WS_LAST",)
    command(sender, "settings admins add <@U_WS_NEXT>", user_id="U_WS_LAST", team_id="T_WS_LAST")
    text = text_of(command(sender, "settings admins remove <@U_WS_LAST>", user_id="U_WS_LAST", team_id="T_WS_LAST"))
    assert "No longer admins here: <@U_WS_LAST>." in text
    assert ws.workspaces.get("T_WS_LAST").admins == ("U_WS_NEXT",)
    assert not ws.is_admin("T_WS_LAST", "U_WS_LAST")
    # PAPERBOT_ADMINS are set where paperbot runs, not from Slack.
    text = text_of(command(sender, f"settings admins remove <@{SERVER_ADMIN}>", user_id=SERVER_ADMIN))
    assert "admin through `PAPERBOT_ADMINS`" in text and ws.is_admin(HOME, SERVER_ADMIN)


@pytest.mark.parametrize(
    ("line", "sentence"),
    [("settings lang zh", "Only this workspace's admins change its settings; nothing was changed."),
     ("设置 上传 共享", "只有本工作区的管理员可以修改设置，没有做任何更改。"),
     ("settings admins add <@U_WS_SNEAK>", "Only this workspace's admins change its settings")],
)  # fmt: skip
def test_a_non_admin_is_refused_politely(sender, ws, line, sentence):
    before = ws.workspaces.get(HOME)
    text = text_of(command(sender, line, user_id="U_WS_SNEAK"))
    assert sentence in text and f"<@{SERVER_ADMIN}>" in text  # and whom to ask
    assert ws.workspaces.get(HOME) == before and not ws.is_admin(HOME, "U_WS_SNEAK")


def test_paperbot_admins_administer_the_home_workspace_in_token_mode(sender, ws):
    text = text_of(command(sender, "settings uploads private", user_id=SERVER_ADMIN))
    assert "Listings uploaded in this workspace are now visible only here." in text
    assert ws.workspaces.get(HOME).updated_by == SERVER_ADMIN
    assert "Feeds are managed by" not in text_of(command(sender, "sources", user_id=SERVER_ADMIN))  # the admin's list
    # ... and no other workspace: the same person from T_WS_ELSE is nobody's admin there.
    text = text_of(command(sender, "settings uploads shared", user_id=SERVER_ADMIN, team_id="T_WS_ELSE"))
    assert "nothing was changed" in text and not ws.workspaces.get("T_WS_ELSE").share_uploads


def test_server_admins_apply_to_any_workspace_until_the_home_one_is_known(tmp_path):
    store = open_store(tmp_path / "s.sqlite3")
    try:
        token = Workspaces(store, server_admins=frozenset({"U_OPS"}), token_mode=True)
        oauth = Workspaces(store, server_admins=frozenset({"U_OPS"}), token_mode=False)
        assert token.is_admin("T_ANY", "U_OPS") and token.is_admin(tenancy.LOCAL, "U_OPS")  # single-workspace, as before
        assert not oauth.is_admin("T_ANY", "U_OPS") and oauth.is_admin(tenancy.LOCAL, "U_OPS")
        tenancy.adopt(store, "T_HOME")
        token = Workspaces(store, server_admins=frozenset({"U_OPS"}), token_mode=True)
        assert token.is_admin("T_HOME", "U_OPS") and not token.is_admin("T_ANY", "U_OPS")
        assert Workspaces(store, server_admins=frozenset({"U_OPS"}), token_mode=False).is_admin("T_HOME", "U_OPS")
        assert not token.is_admin("T_HOME", "") and token.admins_of("T_NONE") == frozenset()
    finally:
        store.close()


def test_admins_change_in_one_transaction_on_sqlite_and_postgresql(database_location):
    from bot.errors import WorkspaceError

    store = open_store(database_location)
    try:
        workspaces = Workspaces(store)
        assert workspaces.welcome("T1", enterprise_id="E1", installer="U1").admins == ("U1",)
        assert workspaces.welcome("T1", installer="U9").admins == ("U1",)  # a reinstall keeps the admins
        assert workspaces.get("T1").enterprise_id == "E1"
        after = workspaces.change_admins("T1", by="U1", add=("U2", "U3"), remove=("U1",))
        assert after.admins == ("U2", "U3") and after.updated_by == "U1"
        with pytest.raises(WorkspaceError) as refused:
            workspaces.change_admins("T1", by="U2", remove=("U2", "U3"))
        assert refused.value.key == "settings.last_admin" and workspaces.get("T1").admins == ("U2", "U3")
        assert workspaces.get("T2").admins == () and not workspaces.is_admin("T2", "U2")
    finally:
        store.close()


# -- a foreign workspace -------------------------------------------------------------------


def test_a_foreign_workspace_reads_its_own_defaults_never_another_s(sender, ws, fake_slack):
    command(sender, "settings lang zh", user_id=SERVER_ADMIN)
    command(sender, "settings zone Asia/Tokyo", user_id=SERVER_ADMIN)
    command(sender, "settings admins add <@U_WS_T1ADMIN>", user_id=SERVER_ADMIN)
    try:
        # T2 (`settings`): its defaults, none of T1's admins, and nobody to change them yet.
        text = text_of(command(sender, "settings", user_id="U_WS_T2", team_id="T_WS_T2"))
        assert "English (the default)" in text and "UTC (the default)" in text and "Tokyo" not in text
        assert "U_WS_T1ADMIN" not in text and SERVER_ADMIN not in text
        assert "No one administers paperbot in this workspace yet" in text
        # The same user id from T2 (Enterprise Grid) administers nothing there.
        text = text_of(command(sender, "settings lang zh", user_id="U_WS_T1ADMIN", team_id="T_WS_T2"))
        assert "nothing was changed" in text and ws.workspaces.get("T_WS_T2").lang == ""
        # Sources: T1's admins neither manage T2's feeds nor are named as its admins.
        text = text_of(command(sender, "sources add https://example.org/list.txt", user_id="U_WS_T1ADMIN", team_id="T_WS_T2"))
        assert "Only paperbot's admins add, remove or poll feeds." in text and "U_WS_T1ADMIN" not in text
        text = text_of(command(sender, "sources", user_id="U_WS_T2", team_id="T_WS_T2"))
        assert "No one is a paperbot admin yet" in text and SERVER_ADMIN not in text
        # Home: a read-only line with T2's own (no) admins; no controls, no feeds.
        view = open_home(sender, "U_WS_T1ADMIN", "T_WS_T2")
        home = all_text(view["blocks"])
        assert "Workspace settings" in home and "No one administers paperbot in this workspace yet" in home
        assert "Tokyo" not in home and "U_WS_T1ADMIN>" not in home and SERVER_ADMIN not in home
        assert element(view, "home_settings_lang") is None and element(view, "home_settings_admins") is None
        # T1 still reads its own.
        assert "Asia/Tokyo" in text_of(command(sender, "settings", user_id="U_WS_T1ADMIN"))
    finally:
        ws.workspaces.update(HOME, by="test", lang="", timezone="", admins=())


def test_uploads_and_alerts_go_by_the_workspace_s_admins(sender, ws, fake_slack, slack_settings):
    # A listing sent in a DM from another workspace, by a PAPERBOT_ADMINS id: not an admin there.
    body = json.dumps(
        {
            "token": "legacy-verification-token", "team_id": "T_WS_UP", "api_app_id": "A0001", "type": "event_callback",
            "event": {"type": "message", "channel_type": "im", "subtype": "file_share", "user": SERVER_ADMIN, "text": "",
                      "channel": "D_WS_UP", "files": [{"id": "F_WS_UP", "name": "list.txt", "size": 10}]},
            "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
        }
    )  # fmt: skip
    assert sender.post(body, "application/json")[0] == 200
    (reply,) = fake_slack.wait_for("chat.postMessage")
    assert "Only paperbot admins can add papers, so I haven't read `list.txt`" in reply.args["text"]
    assert not fake_slack.calls_to("files.info")  # nothing downloaded
    # A full disk: each workspace's own admins are told, once a day each.
    admin_of(ws, "T_WS_FULL_A", "U_WS_FULL_A")
    admin_of(ws, "T_WS_FULL_B", "U_WS_FULL_B")
    alerts, client = AdminAlerts(ws.admins_of, ws.corpus, slack_settings.data_dir), build_client(slack_settings)
    assert alerts.storage_full(client, "T_WS_FULL_A") and alerts.storage_full(client, "T_WS_FULL_A")
    assert alerts.storage_full(client, "T_WS_FULL_B") and not alerts.storage_full(client, "T_WS_FULL_NOBODY")
    assert [c.args["users"] for c in fake_slack.calls_to("conversations.open")] == ["U_WS_FULL_A", "U_WS_FULL_B"]


# -- App Home ------------------------------------------------------------------------------


def submitted_zone(value: str) -> dict:
    return {"settings_zone": {"settings_zone": {"type": "plain_text_input", "value": value}}}


def submitted_admins(users: list[str]) -> dict:
    return {"settings_admins": {"settings_admins": {"type": "multi_users_select", "selected_users": users}}}


@pytest.mark.parametrize(
    ("locale", "labels"),
    [("en-US", ("Workspace settings", "Time zone", "Chinese", "Asia/Shanghai", "whole-hour offsets", "That would leave")),
     ("zh-CN", ("工作区设置", "时区", "中文", "北京时间", "只支持整点偏移", "这样本工作区将没有管理员"))],
    ids=["en", "zh"],
)  # fmt: skip
def test_an_admin_changes_each_setting_in_app_home(sender, ws, fake_slack, locale, labels):
    title, zone_title, chinese, shanghai, _, no_admin = labels
    team_id, admin = f"T_WS_HOME_{locale[:2]}", f"U_WS_HOME_{locale[:2]}"
    admin_of(ws, team_id, admin)
    fake_slack.users[admin] = {"locale": locale}
    view = open_home(sender, admin, team_id)
    assert title in all_text(view["blocks"])
    lang_select = element(view, "home_settings_lang")
    assert [o["value"] for o in lang_select["options"]] == ["en", "zh"] and "initial_option" not in lang_select

    zh_option = lang_select["options"][1]
    sender.click("home_settings_lang", zh_option, user_id=admin, container="home", team_id=team_id)
    view = json.loads(json.dumps(fake_slack.wait_for("views.publish", 2)[-1].args["view"]))
    assert ws.workspaces.get(team_id).lang == "zh"
    assert element(view, "home_settings_lang")["initial_option"]["text"]["text"] == chinese

    shared = element(view, "home_settings_uploads")["options"][1]
    sender.click("home_settings_uploads", shared, user_id=admin, container="home", team_id=team_id)
    fake_slack.wait_for("views.publish", 3)
    assert ws.workspaces.get(team_id).share_uploads

    zone_button = element(view, "home_settings_zone")
    sender.click("home_settings_zone", zone_button["value"], user_id=admin, container="home", team_id=team_id)
    modal = opened_modal(fake_slack)
    assert modal["callback_id"] == "settings_zone" and modal["title"]["text"] == zone_title
    status, body = sender.submit_view(modal, submitted_zone("UTC+5:30"), user_id=admin, team_id=team_id)
    assert status == 200 and body["response_action"] == "errors" and labels[4] in body["errors"]["settings_zone"]
    assert ws.workspaces.get(team_id).timezone == ""
    status, body = sender.submit_view(modal, submitted_zone("Asia/Shanghai"), user_id=admin, team_id=team_id)
    assert status == 200 and not body and ws.workspaces.get(team_id).timezone == "Asia/Shanghai"
    view = fake_slack.wait_for("views.publish", 4)[-1].args["view"]
    assert shanghai in all_text(view["blocks"])

    admins_button = element(view, "home_settings_admins")
    sender.click("home_settings_admins", admins_button["value"], user_id=admin, container="home", team_id=team_id)
    modal = opened_modal(fake_slack)
    assert modal["blocks"][0]["element"]["type"] == "multi_users_select"
    assert modal["blocks"][0]["element"]["initial_users"] == [admin]
    status, body = sender.submit_view(modal, submitted_admins([]), user_id=admin, team_id=team_id)
    assert body["response_action"] == "errors" and no_admin in body["errors"]["settings_admins"]
    status, body = sender.submit_view(modal, submitted_admins([admin, "U_WS_PICKED"]), user_id=admin, team_id=team_id)
    assert status == 200 and not body
    assert ws.workspaces.get(team_id).admins == tuple(sorted((admin, "U_WS_PICKED")))
    view = fake_slack.wait_for("views.publish", 5)[-1].args["view"]
    assert "<@U_WS_PICKED>" in all_text(view["blocks"])


def test_home_refuses_a_non_admin_and_shows_them_one_line(sender, ws, fake_slack):
    admin_of(ws, "T_WS_HOMENO", "U_WS_HOMENO_ADMIN")
    view = open_home(sender, "U_WS_HOMENO", "T_WS_HOMENO")
    text = all_text(view["blocks"])
    assert "*Default digest language:* English (the default)" in text and "ask <@U_WS_HOMENO_ADMIN>" in text
    assert element(view, "home_settings_lang") is None
    # A click forged from a Home an admin saw: refused, told by DM, nothing changed.
    forged = {"text": {"type": "plain_text", "text": "中文"}, "value": "zh"}
    sender.click("home_settings_lang", forged, user_id="U_WS_HOMENO", container="home", team_id="T_WS_HOMENO")
    (dm,) = fake_slack.wait_for("chat.postMessage")
    assert "Only this workspace's admins change its settings" in dm.args["text"]
    assert ws.workspaces.get("T_WS_HOMENO").lang == ""
    # ... and so is a modal submitted by someone who is not (or no longer) an admin.
    status, body = sender.submit_view(
        {"type": "modal", "callback_id": "settings_zone", "private_metadata": "en"}, submitted_zone("Asia/Tokyo"),
        user_id="U_WS_HOMENO", team_id="T_WS_HOMENO",
    )  # fmt: skip
    assert body["response_action"] == "errors" and ws.workspaces.get("T_WS_HOMENO").timezone == ""


# -- the defaults apply ----------------------------------------------------------------------


def test_new_digests_and_people_without_a_language_take_the_workspace_defaults(sender, ws, fake_slack):
    team_id = "T_WS_DEF"
    admin_of(ws, team_id, "U_WS_DEF_ADMIN")
    command(sender, "settings lang zh", user_id="U_WS_DEF_ADMIN", team_id=team_id)
    command(sender, "settings zone Asia/Shanghai", user_id="U_WS_DEF_ADMIN", team_id=team_id)
    # A channel digest set up with no language or zone: the workspace's (the reply is the typist's English).
    text = text_of(command(sender, "subscribe 08:30", user_id="U_WS_DEF_ADMIN", team_id=team_id, channel_id="C_WS_DEF"))
    assert "Chinese" in text and "Asia/Shanghai" in text and "this workspace's default" in text
    # Someone with no language of their own and no Slack locale is answered in the workspace's.
    fake_slack.users["U_WS_NOLOCALE"] = {"locale": ""}
    assert "工作区设置" in text_of(command(sender, "settings", user_id="U_WS_NOLOCALE", team_id=team_id))
    text = text_of(command(sender, "subscribe", user_id="U_WS_NOLOCALE", team_id=team_id, channel_id="D_WS_NOLOCALE"))
    assert "中文" in text and "北京时间" in text  # a personal digest: their language, the workspace's zone
    # A Slack locale still wins; and another workspace's person keeps the server's defaults.
    assert "Workspace settings" in text_of(command(sender, "settings", user_id="U_WS_LOCALE", team_id=team_id))
    fake_slack.users["U_WS_ELSEWHERE"] = {"locale": ""}
    assert "Workspace settings" in text_of(command(sender, "settings", user_id="U_WS_ELSEWHERE", team_id="T_WS_DEF2"))


def test_help_points_to_the_settings(sender):
    assert "`/papers settings`" in text_of(command(sender, "help", user_id="U_WS_HELP"))


# -- OAuth: the installer is the first admin -------------------------------------------------


@pytest.fixture
def oauth_server(fake_slack, seed_corpus, tmp_path):
    settings = Settings(
        data_dir=tmp_path, slack_signing_secret=SIGNING_SECRET, slack_client_id="1234.5678",
        slack_client_secret="test-client-secret-abcdef", slack_api_base_url=fake_slack.api_url.rstrip("/"), ack_budget_ms=2500,
        admins=frozenset({SERVER_ADMIN}),
    )  # fmt: skip
    running = start_app_server(settings, seed_corpus)
    yield running
    running.shutdown()


def install(url: str, fake_slack, code: str, team_id: str) -> None:
    fake_slack.add_install(code, team_id, "Lab", f"xoxb-{code}")
    state, cookie = start_install(url)
    status, _, page = browser_get(url, f"/slack/oauth_redirect?{urlencode({'code': code, 'state': state})}", cookie)
    assert status == 200, page


def test_the_installer_is_the_first_admin_in_oauth_mode(oauth_server, fake_slack):
    services = oauth_server.services
    install(oauth_server.url, fake_slack, "code-ws-1", "T0950")
    assert services.workspaces.get("T0950").admins == ("UINSTALLER",)  # fake Slack's authed_user
    assert not services.is_admin("T0950", SERVER_ADMIN)  # PAPERBOT_ADMINS run the server, not this workspace
    sender = SlackSender(oauth_server.url, fake_slack)
    try:
        text = text_of(command(sender, "settings admins add <@U_WS_SECOND>", user_id="UINSTALLER", team_id="T0950"))
        assert "Now admins of paperbot in this workspace: <@U_WS_SECOND>." in text
        install(oauth_server.url, fake_slack, "code-ws-2", "T0950")  # a reinstall keeps the admins it has
        assert services.workspaces.get("T0950").admins == ("UINSTALLER", "U_WS_SECOND")
        install(oauth_server.url, fake_slack, "code-ws-3", "T0951")  # another workspace: its own installer, nobody else
        text = text_of(command(sender, "settings", user_id="U_WS_OTHER", team_id="T0951"))
        assert "<@UINSTALLER>" in text and "U_WS_SECOND" not in text
        assert services.workspaces.get("T0951").admins == ("UINSTALLER",)
    finally:
        sender.close()
