"""Slack's Web API client, built one way, and the error code of a refusal.

Three patiences, one builder:

    LISTENERS   the Bolt app's client: listeners answer a person who is waiting, so one
                retry on a dropped connection and two after a rate limit (Retry-After)
    BACKGROUND  digests and admin DMs: nobody is waiting on a click, so it waits out rate
                limits and network errors for longer (30 s timeout, 3 and 5 retries)
    LOOKUP      what a slash command asks before its ack (users.info, conversations.info),
                which must answer within Slack's 3 s: a 2 s timeout and no retries

`SLACK_API_BASE_URL` points every client at another host (the tests' fake Slack).
"""

from __future__ import annotations

from enum import Enum

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.handler import RetryHandler

from bot.config import Settings


class Patience(Enum):
    LISTENERS = "listeners"
    BACKGROUND = "background"
    LOOKUP = "lookup"


_PROFILES: dict[Patience, tuple[int | None, int, int]] = {
    # (timeout in seconds, or the SDK's default; connection retries; rate-limit retries)
    Patience.LISTENERS: (None, 1, 2),
    Patience.BACKGROUND: (30, 3, 5),
    Patience.LOOKUP: (2, 0, 0),
}


def build_client(settings: Settings, patience: Patience = Patience.LISTENERS) -> WebClient:
    """A WebClient with the bot token, `patience`'s timeout and retries, and SLACK_API_BASE_URL."""
    timeout, connection_retries, rate_limit_retries = _PROFILES[patience]
    kwargs: dict[str, object] = {}
    if settings.slack_api_base_url:
        base_url = settings.slack_api_base_url
        kwargs["base_url"] = base_url if base_url.endswith("/") else base_url + "/"
    if timeout is not None:
        kwargs["timeout"] = timeout
    client = WebClient(token=settings.slack_bot_token or None, **kwargs)  # type: ignore[arg-type]
    handlers: list[RetryHandler] = []
    if connection_retries:
        handlers.append(ConnectionErrorRetryHandler(max_retry_count=connection_retries))
    if rate_limit_retries:
        handlers.append(RateLimitErrorRetryHandler(max_retry_count=rate_limit_retries))
    client.retry_handlers = handlers
    return client


def error_code(error: BaseException) -> str:
    """The `error` field of a Slack API refusal (`not_in_channel`), else "unknown_error"."""
    try:
        return str(error.response.get("error") or "unknown_error")  # type: ignore[attr-defined]
    except Exception:
        return "unknown_error"
