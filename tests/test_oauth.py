"""Installs from a link (issue 25, point 1): Slack's OAuth v2 flow end to end over real HTTP.

paperbot runs with a client id and secret and no SLACK_BOT_TOKEN; the fake Slack answers
oauth.v2.access (a code for a team's token) and auth.test for that token. The browser's
side (GET /slack/install, the state cookie, GET /slack/oauth_redirect) is played with
http.client, as a browser sends it.
"""

from __future__ import annotations

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
from test_manifest import manifest_list
from test_serve_process import free_port, health

from bot.config import Settings
from bot.errors import ConfigError
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


def browser_get(url: str, path: str, cookie: str = "") -> tuple[int, dict[str, str], str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode("utf-8")
    finally:
        conn.close()


def start_install(url: str) -> tuple[str, str]:
    """GET /slack/install as a browser: the state in the Add to Slack link, and the cookie set."""
    status, headers, page = browser_get(url, "/slack/install")
    assert status == 200
    assert "https://slack.com/oauth/v2/authorize?state=" in page and "Add to Slack" in page
    assert "client_id=1234.5678" in page and "scope=commands,chat:write," in page
    state = re.search(r"state=([\w-]+)", page).group(1)
    cookie = headers["set-cookie"].split(";")[0]
    assert cookie == f"slack-app-oauth-state={state}"
    return state, cookie


def install(url: str, fake_slack, code: str, team_id: str, team_name: str, token: str, **rotation) -> str:
    fake_slack.add_install(code, team_id, team_name, token, **rotation)
    state, cookie = start_install(url)
    status, _, page = browser_get(url, f"/slack/oauth_redirect?{urlencode({'code': code, 'state': state})}", cookie)
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
    assert "paperbot is now installed in Lab Nine" in page and "paperbot 已安装到 Lab Nine" in page
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
    assert "no longer installed in this workspace" in told.args["text"] and "请工作区管理员" in told.args["text"]
    assert not fake_slack.calls_to("chat.postMessage")


def test_a_forged_state_is_refused_with_a_clear_page(oauth_server, fake_slack, seed_corpus):
    fake_slack.add_install("code-forged", "T0901", "Forged", "xoxb-forged")
    start_install(oauth_server.url)  # a real state exists, but the forger does not have it
    forged = "made-up-state-0123456789"
    status, headers, page = browser_get(
        oauth_server.url, f"/slack/oauth_redirect?code=code-forged&state={forged}", f"slack-app-oauth-state={forged}"
    )
    assert status == 401 and headers["content-type"].startswith("text/html")
    assert "This install link has expired, was already used" in page and "请在当前浏览器中重新打开 /slack/install" in page
    assert "Traceback" not in page
    assert not fake_slack.calls_to("oauth.v2.access")  # the code was never traded
    assert Installations(seed_corpus.store).find(None, "T0901") is None
    # Without the browser's cookie the state is not even looked up.
    state, _ = start_install(oauth_server.url)
    status, _, page = browser_get(oauth_server.url, f"/slack/oauth_redirect?code=code-forged&state={state}")
    assert status == 400 and "nothing was installed" in page


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
    status, _, page = browser_get(oauth_server.url, f"/slack/oauth_redirect?error=access_denied&state={state}", cookie)
    assert status == 200 and "The install was cancelled in Slack" in page and "安装已在 Slack 中取消" in page


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


def test_the_stores_keep_installs_states_and_pauses_on_sqlite_and_postgresql(database_location):
    store = open_store(database_location)
    try:
        installations = Installations(store)
        states, bots = StoreStateStore(installations), StoreInstallationStore(installations)
        state = states.issue()
        assert states.consume(state) and not states.consume(state) and not states.consume("forged")
        from slack_sdk.oauth.installation_store import Installation

        bots.save(
            Installation(team_id="T1", team_name="One", bot_token="xoxb-1", bot_id="B1", user_id="U1", bot_scopes="commands")
        )
        assert bots.find_bot(enterprise_id=None, team_id="T1").bot_token == "xoxb-1"
        assert bots.find_installation(enterprise_id=None, team_id="T1").user_id == "U1"
        bots.delete_all(enterprise_id=None, team_id="T1")
        assert bots.find_bot(enterprise_id=None, team_id="T1") is None and installations.is_paused(None, "T1")
        bots.save(Installation(team_id="T1", bot_token="xoxb-2", bot_id="B1", user_id="U1"))
        assert not installations.is_paused(None, "T1") and bots.find_bot(enterprise_id=None, team_id="T1").bot_token == "xoxb-2"
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
