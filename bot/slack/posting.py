"""Digests posted through Slack's Web API, and what Slack knows of people and channels.

`SlackDigestPoster` and `SlackDirectory` are the Slack side of the ports in
bot/digests/places.py; the console (bot/console.py) and the tests have their own.
`slack_services` builds the services the way `serve` does, with both.

Both run outside any request, so each call takes the client of the workspace it is for
(bot/slack/tokens.py): the subscription's team for a digest, the named team for a lookup.
A workspace with no installation (installs from a link) is sent nothing: its digest fails
with `not_installed`, and its lookups answer "unknown".
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.clock import Clock, system_clock
from bot.digests.compose import Digest
from bot.digests.places import PostedCallback, Profile
from bot.digests.subscriptions import Subscription
from bot.errors import DeliveryFailed
from bot.i18n import t
from bot.slack.client import error_code
from bot.slack.render.blocks import check_blocks, section
from bot.slack.render.digest import (
    PAUSE_REASONS,
    paused_reason,
    render_digest,
    render_empty,
    resume_hint,
)
from bot.slack.tokens import OneClient, WorkspaceClients

logger = logging.getLogger(__name__)

GONE = frozenset(PAUSE_REASONS)
"""Slack errors that mean the place can't take posts until someone acts: pause, tell the creator."""


PASSING = {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}


def _clients(clients: WebClient | WorkspaceClients | OneClient) -> WorkspaceClients | OneClient:
    return OneClient(clients) if isinstance(clients, WebClient) else clients


class SlackDigestPoster:
    """Posts digests with each workspace's client; Slack's refusals become DeliveryFailed."""

    def __init__(self, clients: WebClient | WorkspaceClients | OneClient):
        self.clients = _clients(clients)
        # A DM digest's channel from its earlier digests (SubscriptionStore.last_channel), set
        # once the store is built: without it every DM digest asks conversations.open first.
        self.known_channel: Callable[[Subscription], str] | None = None

    def client_for(self, sub: Subscription) -> WebClient:
        """The client of the subscription's workspace; DeliveryFailed when it has no installation."""
        client = self.clients.for_team(sub.team_id)
        if client is None:
            raise DeliveryFailed("not_installed")
        return client

    def channel_for(self, sub: Subscription, client: WebClient | None = None) -> str:
        if sub.kind == "channel":
            return sub.place_id
        client = client or self.client_for(sub)
        return client.conversations_open(users=sub.place_id)["channel"]["id"]

    def post_digest(self, sub: Subscription, digest: Digest, *, thread_ts: str, on_posted: PostedCallback) -> None:
        client = self.client_for(sub)
        try:
            known = self.known_channel(sub) if sub.kind != "channel" and self.known_channel is not None else ""
            remembered = bool(known)  # a DM's id from its last digest: no conversations.open
            channel_id = known or self.channel_for(sub, client)

            def post(**message) -> Any:
                nonlocal channel_id, remembered
                try:
                    return client.chat_postMessage(channel=channel_id, **message)
                except SlackApiError as error:
                    if not remembered or error_code(error) != "channel_not_found":
                        raise
                    remembered = False  # a DM Slack no longer knows by that id: open it afresh, once
                    channel_id = self.channel_for(sub, client)
                    return client.chat_postMessage(channel=channel_id, **message)

            if not digest.papers:
                note = render_empty(digest)
                response = post(text=note.text, blocks=note.blocks)
                on_posted([], response.get("channel") or channel_id, response["ts"])
                return
            for message in render_digest(digest):
                problems = check_blocks(message.blocks)
                if problems:  # a renderer bug: log it, Slack will say the rest
                    logger.warning("digest message breaks Block Kit limits: %s", "; ".join(problems[:3]))
                response = post(
                    text=message.text, blocks=message.blocks, unfurl_links=False, unfurl_media=False,
                    thread_ts=thread_ts or None,  # None is left out of the request
                )  # fmt: skip
                thread_ts = thread_ts or response["ts"]
                on_posted(message.paper_ids, response.get("channel") or channel_id, response["ts"])
        except SlackApiError as error:
            code = error_code(error)
            raise DeliveryFailed(code, gone=code in GONE, retryable=code in PASSING) from error
        except (OSError, TimeoutError) as error:  # URLError, connection reset, DNS: after the client's retries
            raise DeliveryFailed(f"network: {type(error).__name__}", retryable=True) from error

    def notify_paused(self, sub: Subscription, code: str) -> None:
        lang = sub.lang
        place = (
            t("subscribe.place_channel", lang, channel_id=sub.place_id)
            if sub.kind == "channel"
            else t("subscribe.place_your_dm", lang)
        )
        text = t("digest.paused_dm", lang, place=place, reason=paused_reason(code, lang), fix=resume_hint(code, lang))
        client = self.client_for(sub)
        dm = client.conversations_open(users=sub.created_by)["channel"]["id"]
        client.chat_postMessage(channel=dm, text=text, blocks=[section(text)])


FAILED_PROFILE_TTL = timedelta(minutes=1)
SLACKBOT = "USLACKBOT"


class SlackDirectory:
    """Ask Slack about people (users.info) and channels (conversations.info), cached.

    Strategy for "can the bot post here": conversations.info (`is_archived`; for a
    private channel `is_member`, and `channel_not_found` when the bot isn't in it), not
    a test post, which would ping the channel. A public channel takes posts without
    the bot joining (chat:write.public). An answer we can't
    read (missing scope on a group DM, a network error) counts as "yes": the first post
    then says for sure, and pauses the digest if Slack refuses.
    """

    def __init__(
        self,
        clients: WebClient | WorkspaceClients | OneClient,
        *,
        clock: Clock = system_clock,
        ttl: timedelta = timedelta(hours=1),
    ):
        self.clients = _clients(clients)
        self.clock = clock
        self.ttl = ttl
        self._profiles: dict[tuple[str, str], tuple[datetime, Profile]] = {}  # (team, user) -> when, what

    def profile(self, user_id: str, *, team_id: str = "") -> Profile:
        # One person id may be two people's in two workspaces (each its own token); token mode has one.
        key = (team_id if self.clients.per_workspace else "", user_id)
        cached = self._profiles.get(key)
        if cached and self.clock() - cached[0] < self.ttl:
            return cached[1]
        client = self.clients.for_team(team_id)
        if client is None:  # a workspace with no installation: nobody to ask
            return Profile()
        try:
            user = client.users_info(user=user_id, include_locale=True).get("user")
            user = user if isinstance(user, dict) else {}  # an answer without a user object says nothing
            is_bot = user.get("is_bot") is True or user_id == SLACKBOT  # Slackbot says is_bot: false
            profile = Profile(tz=user.get("tz") or None, locale=user.get("locale") or None, is_bot=is_bot)
        except (SlackApiError, OSError, TimeoutError) as error:
            code = error_code(error) if isinstance(error, SlackApiError) else type(error).__name__
            logger.warning("users.info for %s failed: %s", user_id, code)
            # Remembered briefly, so an outage doesn't slow every command by a timeout.
            self._profiles[key] = (self.clock() - self.ttl + FAILED_PROFILE_TTL, Profile())
            return Profile()
        self._profiles[key] = (self.clock(), profile)
        return profile

    def cannot_post(self, channel_id: str, *, team_id: str = "") -> str:
        """Why the bot can't post in `channel_id` (a Slack error code), or "" when it can."""
        client = self.clients.for_team(team_id)
        if client is None:
            return ""  # as for an answer we can't read: the first post says for sure
        try:
            channel = client.conversations_info(channel=channel_id).get("channel") or {}
        except SlackApiError as error:
            code = error_code(error)
            return code if code in GONE else ""
        except (OSError, TimeoutError):
            return ""
        if channel.get("is_archived"):
            return "is_archived"
        # chat:write.public lets the bot post in a public channel it hasn't joined; a
        # private one (or a group DM) needs it as a member.
        if channel.get("is_member") is False and (channel.get("is_private") or channel.get("is_mpim")):
            return "not_in_channel"
        return ""

    def announce(self, channel_id: str, text: str, *, team_id: str = "") -> bool:
        """Tell a channel about its digest (set up, changed, stopped); False if Slack refused."""
        client = self.clients.for_team(team_id)
        if client is None:
            return False
        try:
            client.chat_postMessage(channel=channel_id, text=text, blocks=[section(text)], unfurl_links=False)
            return True
        except (SlackApiError, OSError, TimeoutError) as error:
            logger.warning("announcing to %s failed: %s", channel_id, type(error).__name__)
            return False
