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
to a channel at most once a second across every instance, calls each method within its
Slack tier across all of them (`METHOD_PACES`), and a 429's Retry-After holds that method
for all of them, not only the process that was told (`PacedClient`). The background
client waits as long as its turn takes; the lookup client and listeners' clients
(`paced_like`), answering someone, wait at most PROMPT_MAX_WAIT_S and count their calls for
the others.

Slack's limits are per app and workspace: a client made for one workspace (installs from a
link: `team_id`, its own token) takes its turns under that workspace's names in the ledger,
so a workspace posting a hundred digests at 09:00 does not hold back another's. In
single-workspace token mode every call is the one workspace's, under the plain names.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from enum import Enum

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.handler import RetryHandler

from bot.config import Settings
from bot.store.claims import Ledger, ledger_place

logger = logging.getLogger(__name__)

PACED_METHODS = frozenset({"chat.postMessage", "chat.update", "chat.postEphemeral", "chat.scheduleMessage"})
CHANNEL_SPACING_S = 1.0  # Slack: one message a second per channel (short bursts allowed)
PROMPT_MAX_WAIT_S = 0.5  # someone waits for the answer (a lookup before the 3 s ack, a listener): no minute's quota


@dataclass(frozen=True)
class MethodPace:
    """At most `per_minute` calls of a method in any minute across every instance, `burst` of
    them at once after a quiet spell (Slack tolerates bursts; the quota is per app and workspace)."""

    per_minute: int
    burst: int

    @property
    def spacing_s(self) -> float:
        # A burst of b, then one every T: any minute holds at most 60/T + b = per_minute calls.
        return 60.0 / (self.per_minute - self.burst)

    @property
    def burst_s(self) -> float:
        return (self.burst - 1) * self.spacing_s


TIER_2 = MethodPace(per_minute=20, burst=3)
TIER_3 = MethodPace(per_minute=50, burst=5)
TIER_4 = MethodPace(per_minute=100, burst=10)
METHOD_PACES: dict[str, MethodPace] = {
    # Slack's published tiers (api.slack.com/methods) for the methods paperbot calls.
    # chat.postMessage is Slack's special tier: one a second per channel (CHANNEL_SPACING_S);
    # its workspace-wide limit ("several hundred a minute") is not published as a number.
    "chat.update": TIER_3,
    "chat.postEphemeral": TIER_4,
    "chat.scheduleMessage": TIER_3,
    "conversations.open": TIER_3,
    "conversations.info": TIER_3,
    "users.info": TIER_4,
    "views.publish": TIER_4,
    "files.info": TIER_4,
}


class PacedClient(WebClient):
    """A WebClient that waits for its turn in the shared ledger before each call: the
    method's Retry-After, its tier (METHOD_PACES) and, for a post, the channel's slot."""

    ledger: Ledger | None = None
    max_wait_s: float | None = None  # None: wait as long as the turn takes (nobody is waiting)
    team_id: str = ""  # whose quota the calls count in ('' in token mode: the one workspace's)

    def api_call(self, api_method: str, **kwargs):
        channel = ""
        if self.ledger is not None:
            pace = METHOD_PACES.get(api_method)
            if api_method in PACED_METHODS:
                body = kwargs.get("json") or kwargs.get("data") or kwargs.get("params") or {}
                channel = str(body.get("channel") or "")
            try:
                self.ledger.wait_turn(
                    channel, api_method, spacing_s=CHANNEL_SPACING_S,
                    method_spacing_s=pace.spacing_s if pace else 0.0, method_burst_s=pace.burst_s if pace else 0.0,
                    max_wait_s=self.max_wait_s, team_id=self.team_id,
                )  # fmt: skip
            except sqlite3.Error as exc:
                # The store is away (PostgreSQL restarting): call unpaced rather than fail a
                # lookup or a post on it; Slack's Retry-After still holds this instance back.
                logger.warning("Slack's shared pace is unavailable (%s); calling %s unpaced", exc, api_method)
        response = super().api_call(api_method, **kwargs)
        if self.ledger is not None and channel:
            # The channel's next post waits a second from this answer too, not only from this
            # request's start: a request slowed on its way (a loaded host, a slow network)
            # must not reach Slack right before the next one (the fan-out bench saw 0.15 s).
            try:
                self.ledger.hold(ledger_place("channel", channel, self.team_id), CHANNEL_SPACING_S)
            except sqlite3.Error as exc:
                logger.warning("could not record the post to %s in Slack's shared pace: %s", channel, exc)
        return response


class SharedRateLimitHandler(RateLimitErrorRetryHandler):
    """Slack's Retry-After, honoured here (the SDK's own wait) and recorded for every instance."""

    def __init__(self, ledger: Ledger, *, team_id: str = "", **kwargs):
        super().__init__(**kwargs)
        self.ledger = ledger
        self.team_id = team_id

    def prepare_for_next_attempt(self, *, state, request, response=None, error=None) -> None:
        if response is not None:
            wait = next((v for k, v in response.headers.items() if k.lower() == "retry-after"), ["1"])
            try:
                seconds = float(wait[0] if isinstance(wait, list) else wait)
            except ValueError:
                seconds = 1.0
            try:
                method = request.url.rstrip("/").rsplit("/", 1)[-1]
                self.ledger.hold(ledger_place("method", method, self.team_id), seconds)
            except sqlite3.Error as exc:  # the store is away: this instance still waits it out
                logger.warning("could not share Slack's Retry-After: %s", exc)
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


def build_client(
    settings: Settings,
    patience: Patience = Patience.LISTENERS,
    *,
    ledger: Ledger | None = None,
    token: str | None = None,
    team_id: str = "",
) -> WebClient:
    """A WebClient with the bot token (or `token`: a workspace's own, from its installation),
    `patience`'s timeout and retries, and SLACK_API_BASE_URL; with `ledger`, paced across
    instances (PacedClient) in `team_id`'s quota."""
    timeout, connection_retries, rate_limit_retries = _PROFILES[patience]
    kwargs: dict[str, object] = {}
    if settings.slack_api_base_url:
        base_url = settings.slack_api_base_url
        kwargs["base_url"] = base_url if base_url.endswith("/") else base_url + "/"
    if timeout is not None:
        kwargs["timeout"] = timeout
    token = token if token is not None else settings.slack_bot_token
    client = (PacedClient if ledger is not None else WebClient)(token=token or None, **kwargs)  # type: ignore[arg-type]
    if isinstance(client, PacedClient):
        client.ledger = ledger
        client.max_wait_s = None if patience is Patience.BACKGROUND else PROMPT_MAX_WAIT_S
        client.team_id = team_id
    handlers: list[RetryHandler] = []
    if connection_retries:
        handlers.append(ConnectionErrorRetryHandler(max_retry_count=connection_retries))
    if rate_limit_retries:
        handlers.append(
            SharedRateLimitHandler(ledger, team_id=team_id, max_retry_count=rate_limit_retries)
            if ledger is not None
            else RateLimitErrorRetryHandler(max_retry_count=rate_limit_retries)
        )
    client.retry_handlers = handlers
    return client


def paced_like(client: WebClient, ledger: Ledger, *, team_id: str = "") -> PacedClient:
    """`client` (the one Bolt makes for each request) as a PacedClient on `ledger`, so that
    listeners' calls count in the shared ledger (in `team_id`'s quota) and wait briefly for their turn."""
    paced = PacedClient(
        token=client.token, base_url=client.base_url, timeout=client.timeout, ssl=client.ssl, proxy=client.proxy,
        headers=client.headers, logger=client._logger,
        retry_handlers=[
            SharedRateLimitHandler(ledger, team_id=team_id, max_retry_count=handler.max_retry_count)
            if isinstance(handler, SharedRateLimitHandler) else handler  # a Retry-After holds this workspace's method
            for handler in client.retry_handlers
        ],
    )  # fmt: skip
    paced.default_params = dict(client.default_params)  # the request's team_id
    paced.ledger = ledger
    paced.max_wait_s = PROMPT_MAX_WAIT_S
    paced.team_id = team_id
    return paced


def error_code(error: BaseException) -> str:
    """The `error` field of a Slack API refusal (`not_in_channel`), else "unknown_error"."""
    try:
        return str(error.response.get("error") or "unknown_error")  # type: ignore[attr-defined]
    except Exception:
        return "unknown_error"
