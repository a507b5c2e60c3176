"""paperbot over HTTP with digests and uploads, for the trust tests (retries, full disks)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

from digest_support import FakeClock
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender, signed_headers

from bot.config import Settings
from bot.corpus import Corpus
from bot.digests.scheduler import ManualScheduler
from bot.slack.app import build_app, slack_services
from bot.slack.http import start_http_server

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


class Bot:
    """paperbot with digests and uploads over HTTP on `data_dir`; stop() and start again to restart."""

    def __init__(self, data_dir, fake, admins=frozenset()):
        self.settings = Settings(
            data_dir=data_dir, seeds_dir=SEEDS,
            slack_bot_token=BOT_TOKEN, slack_signing_secret=SIGNING_SECRET,
            slack_api_base_url=fake.api_url.rstrip("/"), admins=frozenset(admins),
        )  # fmt: skip
        self.corpus = Corpus.open(self.settings)
        self.corpus.ingest_seeds_if_empty()
        clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
        self.services = slack_services(self.settings, self.corpus, clock=clock, scheduler=ManualScheduler(clock))
        self.jobs = self.services.scheduler
        self.server = start_http_server(build_app(self.settings, self.services), self.corpus.is_ready)
        self.sender = SlackSender(self.server.url, fake)

    @staticmethod
    def event_callback(event: dict, event_id: str) -> dict:
        """The Events API body Slack sends for `event`."""
        return {
            "token": "legacy-verification-token", "team_id": "T0001", "api_app_id": "A0001",
            "event": event, "type": "event_callback", "event_id": event_id, "event_time": int(time.time()),
            "authorizations": [{"team_id": "T0001", "user_id": "UBOT", "is_bot": True}],
        }  # fmt: skip

    def deliver(self, event: dict, event_id: str, retry: int = 0):
        """POST one event callback as Slack does; `retry` > 0 adds Slack's retry headers."""
        body = json.dumps(self.event_callback(event, event_id))
        headers = signed_headers(body, "application/json")
        if retry:
            headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
        return self.sender.request("POST", "/slack/events", body, headers)

    def stop(self):
        self.sender.close()
        self.server.shutdown()
        self.corpus.close()


def dm(user: str, text: str) -> dict:
    return {"type": "message", "channel_type": "im", "channel": f"D{user}", "user": user, "text": text, "ts": "1.1"}


def file_share(user: str, name: str, url: str) -> dict:
    return {
        "type": "message", "subtype": "file_share", "channel_type": "im", "channel": f"D{user}", "user": user, "text": "",
        "ts": "1.2", "files": [{"id": f"F_{name}", "name": name, "size": 100, "url_private_download": url}],
    }  # fmt: skip
