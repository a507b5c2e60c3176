"""Installs from a link (issue 25, point 1): Slack's OAuth v2 flow end to end over real HTTP.

paperbot runs with a client id and secret and no SLACK_BOT_TOKEN; the fake Slack answers
oauth.v2.access (a code for a team's token) and auth.test for that token. The browser's
side (GET /slack/install, the state cookie, GET /slack/oauth_redirect) is played with
http.client, as a browser sends it.
"""

from __future__ import annotations

import html
import http.client
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
from slack_helpers import SIGNING_SECRET, SlackSender, button_values, slash_command_fields
from slack_sdk.oauth.installation_store import Installation
from test_manifest import manifest_list
from test_serve_process import free_port, health

from bot.config import Settings
from bot.errors import ConfigError
from bot.i18n import lang_from_accept_language
from bot.logs import RedactSecrets
from bot.slack.oauth import BOT_SCOPES, StoreInstallationStore, StoreStateStore
from bot.slack.server import start_app_server
from bot.store.database import open_store
from bot.store.installs import Installations

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def oauth_server(fake_slack, seed_corpus, tmp_path):
    settings = Settings(
        data_dir=tmp_path,
        slack_signing_secret=SIGNING_SECRET,
        slack_client_id="1234.5678",
        slack_client_secret="test-client-secret-abcdef",
        slack_api_base_url=fake_slack.api_url.rstrip("/"),
        ack_budget_ms=2500,
    )
    running = start_app_server(settings, seed_corpus)
    yield running
    running.shutdown()


def browser_get(url: str, path: str, cookie: str = "", lang: str = "") -> tuple[int, dict[str, str], str]:
    """GET `path` as a browser: with the state cookie, and Accept-Language `lang` when given."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    headers = {"Cookie": cookie} if cookie else {}
    if lang:
        headers["Accept-Language"] = lang
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode("utf-8")
    finally:
        conn.close()


def start_install(url: str, lang: str = "") -> tuple[str, str]:
    """GET /slack/install as a browser: the state in the Add to Slack link, and the cookie set."""
    status, headers, page = browser_get(url, "/slack/install", lang=lang)
    assert status == 200
    (button,) = re.findall(r'<a class="add" href="([^"]+)"', page)
    button = html.unescape(button)
    assert button.startswith("https://slack.com/oauth/v2/authorize?state=")
    assert "client_id=1234.5678" in button and "scope=commands,chat:write," in button
    state = re.search(r"state=([\w-]+)", button).group(1)
    cookie = headers["set-cookie"].split(";")[0]
    assert cookie == f"slack-app-oauth-state={state}"
    return state, cookie


def install(url: str, fake_slack, code: str, team_id: str, team_name: str, token: str, **rotation) -> str:
    fake_slack.add_install(code, team_id, team_name, token, **rotation)
    return finish_install(url, code)


def finish_install(url: str, code: str, lang: str = "") -> str:
    """Open the install link, then come back from Slack with `code` (as after Allow)."""
    state, cookie = start_install(url, lang)
    status, _, page = browser_get(url, f"/slack/oauth_redirect?{urlencode({'code': code, 'state': state})}", cookie, lang)
    assert status == 200, page
    return page


def command_from(sender: SlackSender, team_id: str, text: str, user_id: str):
    fields = slash_command_fields(text, sender.fake.response_url(), user_id=user_id, channel_id="C_OAUTH")
    fields["team_id"] = team_id
    return sender.post(urlencode(fields), "application/x-www-form-urlencoded")


def authorizations(fake_slack, method: str) -> list[str]:
    return [c.headers.get("Authorization", "") for c in fake_slack.calls_to(method)]


def test_an_install_stores_the_workspace_and_its_requests_use_its_token(oauth_server, fake_slack, seed_corpus):
    page = install(oauth_server.url, fake_slack, "code-nine", "T0900", "Lab Nine", "xoxb-lab-nine")
    assert "paperbot is now installed in Lab Nine" in page and '<html lang="en">' in page and "已安装" not in page
    (trade,) = fake_slack.calls_to("oauth.v2.access")
    assert trade.args["code"] == "code-nine"
    assert "Bearer xoxb-lab-nine" in authorizations(fake_slack, "auth.test")  # Bolt checked the new token
    stored = Installations(seed_corpus.store).find(None, "T0900")
    assert stored["bot_token"] == "xoxb-lab-nine" and stored["team_name"] == "Lab Nine"

    sender = SlackSender(oauth_server.url, fake_slack)
    try:
        status, body = command_from(sender, "T0900", "ParisKV", "U_OAUTH1")
        assert status == 200 and body["response_type"] == "ephemeral"
        value = button_values(body["blocks"], "paper_share")[0]
        sender.click("paper_share", value, user_id="U_OAUTH1", channel_id="C_OAUTH", team_id="T0900")
        (preview,) = fake_slack.wait_for("response")
        (post_value,) = button_values(preview.args["blocks"], "share_post")
        sender.click("share_post", post_value, user_id="U_OAUTH1", channel_id="C_OAUTH", team_id="T0900")
        (posted,) = fake_slack.wait_for("chat.postMessage")
    finally:
        sender.close()
    assert posted.args["channel"] == "C_OAUTH"
    assert posted.headers["Authorization"] == "Bearer xoxb-lab-nine"  # that workspace's own token


def test_a_workspace_that_never_installed_is_told_to_install(oauth_server, fake_slack):
    sender = SlackSender(oauth_server.url, fake_slack)
    try:
        command_from(sender, "T0NOBODY", "ParisKV", "U_OAUTH2")
        (told,) = fake_slack.wait_for("response")
    finally:
        sender.close()
    assert "no longer installed in this workspace" in told.args["text"] and "请工作区或组织管理员" in told.args["text"]
    assert not fake_slack.calls_to("chat.postMessage")


@pytest.mark.parametrize(
    ("accept", "html_lang", "fix"),
    [
        ("en-GB,en;q=0.9", "en", "This install link has expired, was already used"),
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh-Hans", "请在当前浏览器中重新打开 /slack/install"),
    ],
    ids=["en", "zh"],
)
def test_a_forged_state_is_refused_with_a_clear_page(oauth_server, fake_slack, seed_corpus, accept, html_lang, fix):
    fake_slack.add_install("code-forged", "T0901", "Forged", "xoxb-forged")
    start_install(oauth_server.url)  # a real state exists, but the forger does not have it
    forged = "made-up-state-0123456789"
    status, headers, page = browser_get(
        oauth_server.url, f"/slack/oauth_redirect?code=code-forged&state={forged}", f"slack-app-oauth-state={forged}", accept
    )
    assert status == 401 and headers["content-type"].startswith("text/html")
    assert f'<html lang="{html_lang}">' in page and fix in page
    assert ("已过期" in page) == (html_lang == "zh-Hans")  # one language, the browser's
    assert "Traceback" not in page
    assert not fake_slack.calls_to("oauth.v2.access")  # the code was never traded
    assert Installations(seed_corpus.store).find(None, "T0901") is None
    # Without the browser's cookie the state is not even looked up.
    state, _ = start_install(oauth_server.url)
    status, _, page = browser_get(oauth_server.url, f"/slack/oauth_redirect?code=code-forged&state={state}", lang=accept)
    assert status == 400 and fix in page


def test_a_replayed_state_is_refused(oauth_server, fake_slack, seed_corpus):
    fake_slack.add_install("code-once", "T0902", "Once", "xoxb-once")
    state, cookie = start_install(oauth_server.url)
    path = f"/slack/oauth_redirect?code=code-once&state={state}"
    assert browser_get(oauth_server.url, path, cookie)[0] == 200
    fake_slack.add_install("code-once", "T0902", "Once", "xoxb-once-again")  # a code Slack would take
    status, _, page = browser_get(oauth_server.url, path, cookie)
    assert status == 401 and "already used" in page and "Traceback" not in page
    assert len(fake_slack.calls_to("oauth.v2.access")) == 1
    assert Installations(seed_corpus.store).find(None, "T0902")["bot_token"] == "xoxb-once"


def test_a_cancelled_install_says_so(oauth_server, fake_slack):
    state, cookie = start_install(oauth_server.url)
    path = f"/slack/oauth_redirect?error=access_denied&state={state}"
    status, _, page = browser_get(oauth_server.url, path, cookie)
    assert status == 200 and "The install was cancelled in Slack" in page
    status, _, page = browser_get(oauth_server.url, path, cookie, "zh-TW,zh;q=0.9")
    assert status == 200 and "安装已在 Slack 中取消" in page and "<title>paperbot 未能安装</title>" in page


def _event(sender: SlackSender, team_id: str, event: dict):
    body = json.dumps(
        {
            "token": "legacy-verification-token", "team_id": team_id, "api_app_id": "A0001", "event": event,
            "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
        }
    )  # fmt: skip
    return sender.post(body, "application/json")


def eventually(check, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within 5 s"
        time.sleep(0.02)


@pytest.mark.parametrize(
    "event",
    [{"type": "app_uninstalled"}, {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOTT0903"]}}],
    ids=["app_uninstalled", "tokens_revoked"],
)
def test_uninstall_removes_the_workspace_and_a_reinstall_resumes_it(oauth_server, fake_slack, seed_corpus, event):
    installations = Installations(seed_corpus.store)
    install(oauth_server.url, fake_slack, "code-a", "T0903", "Lab Three", "xoxb-three-a")
    sender = SlackSender(oauth_server.url, fake_slack)
    try:
        status, _ = _event(sender, "T0903", event)
        assert status == 200
        eventually(lambda: installations.find(None, "T0903") is None)  # its token is gone (Bolt acks, then runs the listener)
        assert installations.is_paused(None, "T0903")
        command_from(sender, "T0903", "ParisKV", "U_OAUTH3")
        (told,) = fake_slack.wait_for("response")
        assert "no longer installed" in told.args["text"]

        install(oauth_server.url, fake_slack, "code-b", "T0903", "Lab Three", "xoxb-three-b")
        assert not installations.is_paused(None, "T0903")
        status, body = command_from(sender, "T0903", "ParisKV", "U_OAUTH3")
    finally:
        sender.close()
    assert status == 200 and button_values(body["blocks"], "paper_share")
    assert authorizations(fake_slack, "auth.test")[-1] == "Bearer xoxb-three-b"


def test_an_expiring_token_is_rotated_before_it_is_used(oauth_server, fake_slack, seed_corpus):
    # Slack's rotating tokens last 12 hours; this one expires in 60 s, inside the 120-minute margin.
    install(
        oauth_server.url,
        fake_slack,
        "code-r",
        "T0904",
        "Rotating",
        "xoxe.xoxb-old",
        refresh_token="xoxe-1-refresh-a",
        expires_in=60,
    )
    fake_slack.add_refresh("xoxe-1-refresh-a", "T0904", "xoxe.xoxb-new", next_refresh="xoxe-1-refresh-b", expires_in=43200)
    sender = SlackSender(oauth_server.url, fake_slack)
    try:
        status, _ = command_from(sender, "T0904", "ParisKV", "U_OAUTH4")
    finally:
        sender.close()
    assert status == 200
    refresh = [c for c in fake_slack.calls_to("oauth.v2.access") if c.args.get("grant_type") == "refresh_token"]
    assert [c.args["refresh_token"] for c in refresh] == ["xoxe-1-refresh-a"]
    stored = Installations(seed_corpus.store).find(None, "T0904")
    assert stored["bot_token"] == "xoxe.xoxb-new" and stored["bot_refresh_token"] == "xoxe-1-refresh-b"
    assert authorizations(fake_slack, "auth.test")[-1] == "Bearer xoxe.xoxb-new"


def test_the_stores_keep_installs_states_pauses_and_org_installs_on_sqlite_and_postgresql(database_location):
    store = open_store(database_location)
    try:
        installations = Installations(store)
        states, bots = StoreStateStore(installations), StoreInstallationStore(installations)
        state = states.issue()
        assert states.consume(state) and not states.consume(state) and not states.consume("forged")
        bots.save(
            Installation(team_id="T1", team_name="One", bot_token="xoxb-1", bot_id="B1", user_id="U1", bot_scopes="commands")
        )
        assert bots.find_bot(enterprise_id=None, team_id="T1").bot_token == "xoxb-1"
        assert bots.find_installation(enterprise_id=None, team_id="T1").user_id == "U1"
        bots.delete_all(enterprise_id=None, team_id="T1")
        assert bots.find_bot(enterprise_id=None, team_id="T1") is None and installations.is_paused(None, "T1")
        bots.save(Installation(team_id="T1", bot_token="xoxb-2", bot_id="B1", user_id="U1"))
        assert not installations.is_paused(None, "T1") and bots.find_bot(enterprise_id=None, team_id="T1").bot_token == "xoxb-2"

        # An org-wide install: one row under the enterprise, found for any workspace it serves.
        bots.save(Installation(enterprise_id="E1", team_id=None, bot_token="xoxb-org", bot_id="BE", user_id="W1",
                               is_enterprise_install=True))  # fmt: skip
        found = bots.find_bot(enterprise_id="E1", team_id="T2", is_enterprise_install=True)
        assert found.bot_token == "xoxb-org" and found.is_enterprise_install
        assert bots.find_bot(enterprise_id="E1", team_id="T2") is None  # a workspace install of T2 there is none
        assert installations.serving("T2") is None  # until a request from T2 says it is the org's
        assert installations.join_org("E1", "T2") and not installations.join_org("E1", "T2")
        installations.join_org("E1", "T3")
        assert installations.serving("T2") == ("E1", "") and installations.enterprise_of("T3") == "E1"
        assert installations.org_teams("E1") == {"T2", "T3"} and installations.serving("T1") == ("", "T1")
        bots.save(Installation(enterprise_id="E1", team_id="T3", bot_token="xoxb-t3", bot_id="B3", user_id="W1"))
        assert installations.serving("T3") == ("E1", "T3")  # its own install wins over the org's
        bots.delete_all(enterprise_id="E1", team_id=None)
        assert installations.pause_reason("T2") == "app_uninstalled" and installations.pause_reason("T3") == ""
        assert installations.serving("T2") is None and installations.pause_reason("T1") == ""
        bots.save(Installation(enterprise_id="E1", team_id=None, bot_token="xoxb-org-2", bot_id="BE", user_id="W1",
                               is_enterprise_install=True))  # fmt: skip
        assert installations.pause_reason("T2") == "" and installations.serving("T2") == ("E1", "")
    finally:
        store.close()


def test_an_expired_state_is_refused(tmp_path):
    store = open_store(tmp_path / "s.sqlite3")
    try:
        states = StoreStateStore(Installations(store), lasts_seconds=-1)
        assert not states.consume(states.issue())
    finally:
        store.close()


def test_the_install_asks_for_the_manifests_scopes():
    assert set(BOT_SCOPES) == manifest_list("bot")
    assert "https://YOUR-HOST/slack/oauth_redirect" in manifest_list("redirect_urls")


def test_client_id_and_secret_come_in_pairs_and_need_http_mode():
    both = Settings.from_env({"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "sekrit-1", "SLACK_SIGNING_SECRET": "x"})
    assert both.oauth_enabled and both.missing_slack_settings() == [] and "sekrit-1" in both.secrets
    ours = Settings.from_env(
        {"PAPERBOT_SLACK_CLIENT_ID": "9.9", "PAPERBOT_SLACK_CLIENT_SECRET": "sekrit-9f3a", "SLACK_CLIENT_ID": "1.2"}
    )
    assert ours.slack_client_id == "9.9" and "sekrit-9f3a" not in repr(ours)
    with pytest.raises(ConfigError, match="PAPERBOT_SLACK_CLIENT_SECRET"):
        Settings.from_env({"SLACK_CLIENT_ID": "1.2"})
    with pytest.raises(ConfigError, match="unset SLACK_APP_TOKEN"):
        Settings.from_env({"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s", "SLACK_APP_TOKEN": "xapp-1"})
    assert not Settings.from_env({"SLACK_BOT_TOKEN": "xoxb-1"}).oauth_enabled


def test_serve_runs_installs_from_a_link_without_a_bot_token(tmp_path, fake_slack):
    """`python -m bot serve` with only a client id, secret and signing secret: the settings
    check lets it start, it says where the install link is, and the secret never shows."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        PAPERBOT_SLACK_CLIENT_ID="1234.5678",
        PAPERBOT_SLACK_CLIENT_SECRET="serve-client-secret-77aa",
        SLACK_API_BASE_URL=fake_slack.api_url,
        PORT=str(port),
        PAPERBOT_HOST="127.0.0.1",
        PAPERBOT_DATA_DIR=str(tmp_path / "data"),
        PAPERBOT_SEEDS_DIR=str(tmp_path / "no-seeds"),
        PAPERBOT_ARXIV="off",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None and time.monotonic() < deadline
            try:
                if health(port)[0] == 200:
                    break
            except (ConnectionError, urllib.error.URLError):
                pass
            time.sleep(0.05)
        start_install(f"http://127.0.0.1:{port}")
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert f"share https://YOUR-HOST/slack/install (here: http://127.0.0.1:{port}/slack/install)" in output
    assert "serve-client-secret-77aa" not in output and "Traceback" not in output


def test_installed_tokens_never_reach_a_log_line():
    """slack_sdk logs oauth.v2.access's answer whole at DEBUG: tokens no setting names."""
    record = logging.LogRecord(
        "slack_sdk.web.base_client", logging.DEBUG, __file__, 1,
        "Received the following response - body: %s", ({"access_token": "xoxe.xoxb-1-abc", "refresh_token": "xoxe-1-def",
        "bot": "xoxb-9-ghi", "app": "xapp-1-A1-jkl"},), None,
    )  # fmt: skip
    RedactSecrets(()).filter(record)
    assert not re.search(r"abc|def|ghi|jkl", record.getMessage()), record.getMessage()
    assert record.getMessage().count("[redacted]") == 4


# -- the install page, in the browser's language ------------------------------------------------


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
        ("en-US,en;q=0.9,zh-CN;q=0.8", "en"),
        ("fr-FR,fr;q=0.9,zh;q=0.5,en;q=0.4", "zh"),  # the first of ours by weight
        ("de-DE", "en"),
        ("", "en"),
        (None, "en"),
        ("zh-Hant-TW", "zh"),
        ("en;q=0.2, zh;q=bad", "en"),  # a broken weight counts for nothing
        ("*", "en"),
    ],
)
def test_the_browsers_language_is_read_from_accept_language(header, lang):
    assert lang_from_accept_language(header) == lang


@pytest.mark.parametrize(
    ("accept", "query", "html_lang", "title", "intro", "button", "other"),
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", "", "zh-Hans", "将 paperbot 添加到 Slack", "以中英文搜索科研论文", "添加到 Slack", "English"),
        (
            "en-US,en;q=0.9",
            "",
            "en",
            "Add paperbot to Slack",
            "finds research papers in English and Chinese",
            "Add to Slack",
            "中文",
        ),
        ("en-US,en;q=0.9", "?lang=zh", "zh-Hans", "将 paperbot 添加到 Slack", "以中英文搜索科研论文", "添加到 Slack", "English"),
    ],
    ids=["zh", "en", "en-asks-zh"],
)
def test_the_install_page_speaks_the_browsers_language(oauth_server, accept, query, html_lang, title, intro, button, other):
    status, headers, page = browser_get(oauth_server.url, f"/slack/install{query}", lang=accept)
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert f'<html lang="{html_lang}">' in page and f"<title>{title}</title>" in page and intro in page
    zh = html_lang == "zh-Hans"
    assert ("它需要的权限" in page) == zh and ("It asks to add the /papers command" in page) == (not zh)  # what it asks for
    (href, label) = re.findall(r'<a class="add" href="([^"]+)">([^<]+)</a>', page)[0]
    authorize = html.unescape(href)
    state = re.search(r"state=([\w-]+)", authorize).group(1)
    assert label == button and headers["set-cookie"].split(";")[0] == f"slack-app-oauth-state={state}"
    assert authorize == (
        f"https://slack.com/oauth/v2/authorize?state={state}&client_id=1234.5678&scope={','.join(BOT_SCOPES)}&user_scope="
    )
    switch = re.search(r'<a href="([^"]+)" hreflang="[^"]+">([^<]+)</a>', page)
    assert switch.group(2) == other and html.unescape(switch.group(1)) == f"/slack/install?lang={'en' if zh else 'zh'}"
    assert StoreStateStore(Installations(oauth_server.services.corpus.store)).consume(state)  # a state the store issued


def test_the_pages_after_slack_speak_the_browsers_language(oauth_server, fake_slack):
    fake_slack.add_install("code-zh", "T0905", "实验室", "xoxb-zh")
    page = finish_install(oauth_server.url, "code-zh", "zh-CN,zh;q=0.9")
    assert '<html lang="zh-Hans">' in page and "<title>paperbot 已安装</title>" in page
    assert "paperbot 已安装到 实验室。回到 Slack，在任意频道输入 /papers" in page and "installed" not in page


# -- org-wide installs (Enterprise Grid) ----------------------------------------------------------

ORG, ORG_TOKEN = "E0ORG", "xoxb-org-wide"
ORG_A, ORG_B = "T0ORGA", "T0ORGB"  # two workspaces of the org


def org_command(sender: SlackSender, team_id: str, text: str, user_id: str):
    """A slash command from a workspace of an org-wide install, as Slack sends it."""
    fields = slash_command_fields(text, sender.fake.response_url(), user_id=user_id, channel_id="C_ORG")
    fields.update(team_id=team_id, enterprise_id=ORG, enterprise_name="Grid Org", is_enterprise_install="true")
    return sender.post(urlencode(fields), "application/x-www-form-urlencoded")


def org_click(sender: SlackSender, team_id: str, action_id: str, value: str, user_id: str):
    """A block_actions payload from a workspace of the org: the org's install, the workspace in `team` and `user`."""
    payload = {
        "type": "block_actions", "api_app_id": "A0001", "token": "legacy-verification-token", "trigger_id": "1.2.3",
        "enterprise": {"id": ORG, "name": "Grid Org"}, "is_enterprise_install": True,
        "team": {"id": team_id, "domain": "lab", "enterprise_id": ORG}, "user": {"id": user_id, "team_id": team_id},
        "actions": [{"action_id": action_id, "block_id": "b1", "type": "button", "value": value, "action_ts": "1.2"}],
        "container": {"type": "message", "channel_id": "C_ORG", "is_ephemeral": True, "message_ts": "1.1"},
        "channel": {"id": "C_ORG", "name": "papers"}, "response_url": sender.fake.response_url(),
    }  # fmt: skip
    return sender.post(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")


def org_event(sender: SlackSender, team_id: str, event: dict):
    """An Events API callback for an org-wide install: the workspace at the top, the org in `authorizations`."""
    body = {
        "token": "legacy-verification-token", "team_id": team_id, "enterprise_id": ORG, "api_app_id": "A0001",
        "event": event, "type": "event_callback", "event_id": f"Ev{time.time_ns()}", "event_time": int(time.time()),
        "authorizations": [{"enterprise_id": ORG, "team_id": None, "user_id": "UBOT" + ORG, "is_bot": True,
                            "is_enterprise_install": True}],
        "is_ext_shared_channel": False,
    }  # fmt: skip
    return sender.post(json.dumps(body), "application/json")


def org_clients(oauth_server):
    from bot.slack.client import Patience
    from bot.slack.tokens import WorkspaceClients

    return WorkspaceClients(
        oauth_server.services.settings, Patience.BACKGROUND, installations=Installations(oauth_server.services.corpus.store)
    )


def test_an_org_wide_install_serves_each_workspace_of_the_org_and_keeps_them_apart(oauth_server, fake_slack):
    services = oauth_server.services
    installations = Installations(services.corpus.store)
    fake_slack.add_org_install("code-org", ORG, "Grid Org", ORG_TOKEN)
    page = finish_install(oauth_server.url, "code-org", "zh-CN")
    assert "paperbot 已为整个 Grid Org 组织安装" in page
    stored = installations.find(ORG, None)  # one row for the org, no workspace in its key
    assert stored["is_enterprise_install"] is True and stored["bot_token"] == ORG_TOKEN and stored["team_id"] is None
    assert stored["enterprise_url"] == "https://org.enterprise.slack.com/"  # Bolt took it from auth.test
    assert installations.find(ORG, ORG_A) is None and installations.enterprise_of(ORG_A) is None  # not heard from yet

    sender = SlackSender(oauth_server.url, fake_slack)
    try:
        # A command from workspace A: authorized by the org's install, answered, A noted as the org's.
        status, body = org_command(sender, ORG_A, "ParisKV", "WORGADMIN")
        assert status == 200 and body["response_type"] == "ephemeral", body
        save = button_values(body["blocks"], "paper_save")[0]
        assert installations.serving(ORG_A) == (ORG, "") and org_clients(oauth_server).for_team(ORG_A).token == ORG_TOKEN
        # The org's installer is each workspace's first admin; a setting changed in A stays A's.
        status, body = org_command(sender, ORG_A, "settings lang zh", "WORGADMIN")
        assert status == 200 and "Traceback" not in json.dumps(body)
        org_command(sender, ORG_B, "lang", "WORGADMIN")
        a, b = services.workspaces.get(ORG_A), services.workspaces.get(ORG_B)
        assert (a.lang, a.enterprise_id, a.admins) == ("zh", ORG, ("WORGADMIN",))
        assert (b.lang, b.enterprise_id, b.admins) == ("", ORG, ("WORGADMIN",))

        # A click from workspace A saves for A; the same person in B has saved nothing.
        org_click(sender, ORG_A, "paper_save", save, "WORGADMIN")
        fake_slack.wait_for("response")
        assert len(services.library.saved_ids("WORGADMIN", team_id=ORG_A)) == 1
        assert services.library.saved_ids("WORGADMIN", team_id=ORG_B) == set()
        status, body = org_command(sender, ORG_B, "saved", "WORGADMIN")
        assert status == 200 and "You haven't saved any papers yet" in json.dumps(body)

        # An event from workspace B (App Home): answered with the org's token, for B.
        fake_slack.reset()
        org_event(sender, ORG_B, {"type": "app_home_opened", "user": "WORGADMIN", "channel": "DHOME", "tab": "home"})
        (published,) = fake_slack.wait_for("views.publish")
        assert published.headers["Authorization"] == f"Bearer {ORG_TOKEN}" and published.args["user_id"] == "WORGADMIN"

        # The org uninstalls: its installation goes, and every workspace it served is paused.
        org_event(sender, ORG_B, {"type": "app_uninstalled"})
        eventually(lambda: installations.find(ORG, None) is None)
        assert services.digests.team_paused(ORG_A) == services.digests.team_paused(ORG_B) == "app_uninstalled"
        assert org_clients(oauth_server).for_team(ORG_A) is None
        org_command(sender, ORG_A, "ParisKV", "WORGADMIN")
        (told,) = fake_slack.wait_for("response")
        assert "no longer installed" in told.args["text"]

        # Reinstalled org-wide: both workspaces resume with the new token, their records as they were.
        fake_slack.add_org_install("code-org-2", ORG, "Grid Org", ORG_TOKEN + "-2")
        finish_install(oauth_server.url, "code-org-2")
        assert services.digests.team_paused(ORG_A) == services.digests.team_paused(ORG_B) == ""
        assert org_clients(oauth_server).for_team(ORG_B).token == ORG_TOKEN + "-2"
        status, body = org_command(sender, ORG_B, "ParisKV", "WORGADMIN")
        assert status == 200 and button_values(body["blocks"], "paper_share")
    finally:
        sender.close()
    assert len(services.library.saved_ids("WORGADMIN", team_id=ORG_A)) == 1 and services.workspaces.get(ORG_A).lang == "zh"


def test_an_org_that_revokes_its_token_is_paused_and_a_workspace_install_of_its_own_is_not(oauth_server, fake_slack):
    """tokens_revoked from an org-wide install removes the org's row; a workspace of the org
    that installed paperbot itself (enterprise id and team id) keeps its own installation."""
    installations = Installations(oauth_server.services.corpus.store)
    fake_slack.add_org_install("code-org-r", ORG, "Grid Org", ORG_TOKEN)
    finish_install(oauth_server.url, "code-org-r")
    sender = SlackSender(oauth_server.url, fake_slack)
    try:
        org_command(sender, ORG_A, "ParisKV", "WORGADMIN")
        installations.join_org(ORG, ORG_B)
        StoreInstallationStore(installations).save(
            Installation(enterprise_id=ORG, team_id=ORG_B, bot_token="xoxb-own-b", bot_id="BOWN", user_id="WORGADMIN")
        )  # B installed paperbot in itself too
        org_event(sender, ORG_A, {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT" + ORG]}})
        eventually(lambda: installations.find(ORG, None) is None)
    finally:
        sender.close()
    assert installations.pause_reason(ORG_A) == "tokens_revoked" and installations.pause_reason(ORG_B) == ""
    assert installations.serving(ORG_B) == (ORG, ORG_B) and org_clients(oauth_server).for_team(ORG_B).token == "xoxb-own-b"
