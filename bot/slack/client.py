"""Slack's Web API client, built one way, and the error code of a refusal.

Three patiences, one builder:

    LISTENERS   the Bolt app's client: listeners answer a person who is waiting, so one
                retry on a dropped connection and two after a rate limit (Retry-After)
    BACKGROUND  digests and admin DMs: nobody is waiting on a click, so it waits out rate
                limits and network errors for longer (30 s timeout, 3 and 5 retries)
    LOOKUP      what a slash command asks before its ack (users.info, conversations.info),
                which must answer within Slack's 3 s: a 2 s timeout and no retries

`SLACK_API_BASE_URL` points every client at another host (the tests' fake Slack).

With a `Ledger` (several instances on one PostgreSQL: bot/store/claims.py) a client posts
to a channel at most once a second across every instance, and a 429's Retry-After holds
that method for all of them, not only the process that was told (`PacedClient`).
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
from bot.store.claims import Ledger

PACED_METHODS = frozenset({"chat.postMessage", "chat.update", "chat.postEphemeral", "chat.scheduleMessage"})
CHANNEL_SPACING_S = 1.0  # Slack: one message a second per channel (short bursts allowed)


class PacedClient(WebClient):
    """A WebClient that waits for the channel's turn in the shared ledger before posting."""

    ledger: Ledger | None = None

    def api_call(self, api_method: str, **kwargs):
        if self.ledger is not None and api_method in PACED_METHODS:
            body = kwargs.get("json") or kwargs.get("data") or kwargs.get("params") or {}
            self.ledger.wait_turn(str(body.get("channel") or ""), api_method, spacing_s=CHANNEL_SPACING_S)
        return super().api_call(api_method, **kwargs)


class SharedRateLimitHandler(RateLimitErrorRetryHandler):
    """Slack's Retry-After, honoured here (the SDK's own wait) and recorded for every instance."""

    def __init__(self, ledger: Ledger, **kwargs):
        super().__init__(**kwargs)
        self.ledger = ledger

    def prepare_for_next_attempt(self, *, state, request, response=None, error=None) -> None:
        if response is not None:
            wait = next((v for k, v in response.headers.items() if k.lower() == "retry-after"), ["1"])
            try:
                seconds = float(wait[0] if isinstance(wait, list) else wait)
            except ValueError:
                seconds = 1.0
            self.ledger.hold(f"method:{request.url.rstrip('/').rsplit('/', 1)[-1]}", seconds)
        super().prepare_for_next_attempt(state=state, request=request, response=response, error=error)


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


def build_client(settings: Settings, patience: Patience = Patience.LISTENERS, *, ledger: Ledger | None = None) -> WebClient:
    """A WebClient with the bot token, `patience`'s timeout and retries, and SLACK_API_BASE_URL;
    with `ledger`, paced across instances (PacedClient)."""
    timeout, connection_retries, rate_limit_retries = _PROFILES[patience]
    kwargs: dict[str, object] = {}
    if settings.slack_api_base_url:
        base_url = settings.slack_api_base_url
        kwargs["base_url"] = base_url if base_url.endswith("/") else base_url + "/"
    if timeout is not None:
        kwargs["timeout"] = timeout
    client = (PacedClient if ledger is not None else WebClient)(token=settings.slack_bot_token or None, **kwargs)  # type: ignore[arg-type]
    if isinstance(client, PacedClient):
        client.ledger = ledger
    handlers: list[RetryHandler] = []
    if connection_retries:
        handlers.append(ConnectionErrorRetryHandler(max_retry_count=connection_retries))
    if rate_limit_retries:
        handlers.append(
            SharedRateLimitHandler(ledger, max_retry_count=rate_limit_retries)
            if ledger is not None
            else RateLimitErrorRetryHandler(max_retry_count=rate_limit_retries)
        )
    client.retry_handlers = handlers
    return client


def error_code(error: BaseException) -> str:
    """The `error` field of a Slack API refusal (`not_in_channel`), else "unknown_error"."""
    try:
        return str(error.response.get("error") or "unknown_error")  # type: ignore[attr-defined]
    except Exception:
        return "unknown_error"
