"""build_app(settings, corpus) -> a Bolt App with every listener registered.

Only wiring lives here. Nothing runs at import time: the WebClient and App are built
when `build_app` is called.
"""

from __future__ import annotations

import logging
import secrets

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)

from bot.config import Settings
from bot.slack import actions, commands, events, home, library
from bot.slack.alerts import AdminAlerts

logger = logging.getLogger(__name__)


class _DropMessage(logging.Filter):
    def __init__(self, fragment: str):
        super().__init__()
        self.fragment = fragment

    def filter(self, record: logging.LogRecord) -> bool:
        return self.fragment not in str(record.msg)


def build_client(settings: Settings) -> WebClient:
    """A WebClient that retries rate limits after Retry-After and honours SLACK_API_BASE_URL."""
    kwargs = {}
    if settings.slack_api_base_url:
        base_url = settings.slack_api_base_url
        kwargs["base_url"] = base_url if base_url.endswith("/") else base_url + "/"
    client = WebClient(token=settings.slack_bot_token or None, **kwargs)
    client.retry_handlers = [
        ConnectionErrorRetryHandler(max_retry_count=1),
        RateLimitErrorRetryHandler(max_retry_count=2),
    ]
    return client


def build_app(settings: Settings, corpus, digests=None) -> App:
    """Build the Bolt app. auth.test is deferred to the first request (no call at start)."""
    bolt_logger = logging.getLogger("bot.slack.bolt")
    # App() also reads SLACK_BOT_TOKEN from the environment and then warns that the client's
    # token wins; it is the same token, so the warning is only noise at every start.
    quiet = _DropMessage("token` will be unused")
    bolt_logger.addFilter(quiet)
    try:
        app = App(
            name="paperbot",
            client=build_client(settings),  # Bolt takes the bot token from the client
            # Socket Mode needs no signing secret; an unguessable one keeps HTTP requests out.
            signing_secret=settings.slack_signing_secret or secrets.token_hex(32),
            token_verification_enabled=False,
            logger=bolt_logger,
        )
    finally:
        bolt_logger.removeFilter(quiet)
    events.register(app, corpus)  # first: a retried event reaches no listener
    alerts = AdminAlerts(settings.admins, corpus, settings.data_dir)
    if digests is not None:
        from bot.slack import subscribe, uploads

        # Before home's catch-all `message` listener: Bolt runs only the first match.
        uploads.register(app, digests, token=settings.slack_bot_token, alerts=alerts)
        subscribe.register(app, digests)
    commands.register(app, corpus, digests, ack_budget=settings.ack_budget_ms / 1000, alerts=alerts)
    actions.register(app, corpus, digests, alerts=alerts)
    home.register(app, corpus, digests, alerts=alerts)
    library.register(app, corpus)
    return app
