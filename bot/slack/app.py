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
from bot.slack import actions, commands, home

logger = logging.getLogger(__name__)


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


def build_app(settings: Settings, corpus) -> App:
    """Build the Bolt app. auth.test is deferred to the first request (no call at start)."""
    app = App(
        name="paperbot",
        client=build_client(settings),  # Bolt takes the bot token from the client
        # Socket Mode needs no signing secret; an unguessable one keeps HTTP requests out.
        signing_secret=settings.slack_signing_secret or secrets.token_hex(32),
        token_verification_enabled=False,
        logger=logging.getLogger("bot.slack.bolt"),
    )
    commands.register(app, corpus)
    actions.register(app, corpus)
    home.register(app, corpus)
    return app
