"""Send requests to a running paperbot the way Slack does: signed, form-encoded or JSON.

`SlackSender.command("speculative decoding")` posts a slash command;
`.click(...)` an interactivity payload; `.event(...)` an Events API callback. Each
returns (status, parsed body). Signatures follow Slack's scheme (and
slack_sdk.signature.SignatureVerifier): HMAC-SHA256 over `v0:{timestamp}:{body}`.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import time
from urllib.parse import urlencode, urlsplit

SIGNING_SECRET = "test-signing-secret-0123456789abcdef"
BOT_TOKEN = "xoxb-test-bot-token-0123456789"


def sign(body: str, timestamp: int | str, secret: str = SIGNING_SECRET) -> str:
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def signed_headers(body: str, content_type: str, *, timestamp: int | None = None, secret: str = SIGNING_SECRET) -> dict:
    timestamp = int(time.time()) if timestamp is None else timestamp
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(timestamp),
        "X-Slack-Signature": sign(body, timestamp, secret),
    }


def slash_command_fields(
    text: str, response_url: str, *, user_id: str = "U100", channel_id: str = "C100", team_id: str = "T0001"
) -> dict:
    """The fields Slack sends with `/papers TEXT`: form-encoded over HTTP, JSON in Socket Mode."""
    return {
        "token": "legacy-verification-token",
        "team_id": team_id,
        "team_domain": "example",
        "channel_id": channel_id,
        "channel_name": "papers",
        "user_id": user_id,
        "user_name": "reader",
        "command": "/papers",
        "text": text,
        "api_app_id": "A0001",
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": "1.2.3",
    }


class SlackSender:
    """Posts Slack-shaped, Slack-signed requests to paperbot's /slack/events."""

    def __init__(self, app_url: str, fake_slack, secret: str = SIGNING_SECRET):
        self.app_url = app_url
        self.fake = fake_slack
        self.secret = secret
        parts = urlsplit(app_url)
        self._conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)

    def close(self) -> None:
        self._conn.close()

    def request(self, method: str, path: str, body: str = "", headers: dict | None = None) -> tuple[int, object]:
        """One HTTP request on a kept-alive connection; JSON bodies are parsed."""
        for attempt in (1, 2):
            try:
                self._conn.request(method, path, body=body.encode("utf-8"), headers=headers or {})
                response = self._conn.getresponse()
                raw = response.read().decode("utf-8")
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self._conn.close()
                if attempt == 2:
                    raise
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, raw

    def post(self, body: str, content_type: str, *, timestamp: int | None = None, signature: str | None = None):
        headers = signed_headers(body, content_type, timestamp=timestamp, secret=self.secret)
        if signature is not None:
            headers["X-Slack-Signature"] = signature
        return self.request("POST", "/slack/events", body, headers)

    def command_body(
        self,
        text: str,
        *,
        user_id: str = "U100",
        channel_id: str = "C100",
        response_url: str | None = None,
        team_id: str = "T0001",
    ) -> str:
        fields = slash_command_fields(
            text, response_url or self.fake.response_url(), user_id=user_id, channel_id=channel_id, team_id=team_id
        )
        return urlencode(fields)

    def command(self, text: str, **kwargs):
        return self.post(self.command_body(text, **kwargs), "application/x-www-form-urlencoded")

    def click(
        self,
        action_id: str,
        value: str,
        *,
        user_id: str = "U100",
        channel_id: str = "C100",
        container: str = "message",
        response_url: str | None = None,
        ephemeral: bool = True,
        message_ts: str = "1.1",
        message: dict | None = None,
        team_id: str = "T0001",
    ):
        """A block_actions payload for one button (or a static_select when value is a dict).

        `ephemeral=False`: the button sits on a message everyone in the channel sees.
        `team_id`: the clicker's workspace (another team's people share nothing).
        """
        action = {"action_id": action_id, "block_id": "b1", "type": "button", "action_ts": "1.2"}
        if isinstance(value, dict):
            action.update({"type": "static_select", "selected_option": value})
        else:
            action["value"] = value
        payload = {
            "type": "block_actions",
            "team": {"id": team_id, "domain": "example"},
            "user": {"id": user_id, "team_id": team_id},
            "api_app_id": "A0001",
            "token": "legacy-verification-token",
            "trigger_id": "1.2.3",
            "actions": [action],
        }
        if container == "home":
            payload["container"] = {"type": "view", "view_id": "V1"}
            payload["view"] = {"id": "V1", "type": "home", "team_id": "T0001"}
        else:
            payload["container"] = {
                "type": "message",
                "channel_id": channel_id,
                "is_ephemeral": ephemeral,
                "message_ts": message_ts,
            }
            payload["channel"] = {"id": channel_id, "name": "papers"}
            payload["response_url"] = response_url or self.fake.response_url()
            if message is not None:  # Slack sends the message a button sits on, unless ephemeral
                payload["message"] = message
        return self.post(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")

    def submit_view(self, view: dict, values: dict, *, user_id: str = "U100", team_id: str = "T0001"):
        """A view_submission of a modal `view` (as paperbot opened it), its inputs filled:
        `values` maps block_id -> action_id -> the element's state (`{"value": "..."}`)."""
        payload = {
            "type": "view_submission",
            "team": {"id": team_id, "domain": "example"},
            "user": {"id": user_id, "team_id": team_id},
            "api_app_id": "A0001",
            "token": "legacy-verification-token",
            "trigger_id": "2.3.4",
            "view": {**view, "id": "VMODAL", "team_id": team_id, "state": {"values": values}},
        }
        return self.post(urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded")

    def event(self, event: dict, *, team_id: str = "T0001"):
        body = json.dumps(
            {
                "token": "legacy-verification-token",
                "team_id": team_id,
                "api_app_id": "A0001",
                "event": event,
                "type": "event_callback",
                "event_id": f"Ev{time.time_ns()}",
                "event_time": int(time.time()),
                "authorizations": [{"team_id": team_id, "user_id": "UBOT", "is_bot": True}],
            }
        )
        return self.post(body, "application/json")


def button_values(blocks: list[dict], action_id: str) -> list[str]:
    """Every value of buttons with `action_id` in `blocks`, in order."""
    return [e["value"] for b in blocks if b.get("type") == "actions" for e in b["elements"] if e.get("action_id") == action_id]


def all_text(blocks: list[dict]) -> str:
    """Every string in `blocks`, joined: for 'does the message mention X' assertions."""
    out: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    out.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(blocks)
    return "\n".join(out)
