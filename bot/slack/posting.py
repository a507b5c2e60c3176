"""Digests posted through Slack's Web API, and what Slack knows of people and channels.

`SlackDigestPoster` and `SlackDirectory` are the Slack side of the ports in
bot/digests/places.py; the console (bot/console.py) and the tests have their own.
`slack_services` builds the services the way `serve` does, with both, for one workspace.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

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

logger = logging.getLogger(__name__)

GONE = frozenset(PAUSE_REASONS)
"""Slack errors that mean the place can't take posts until someone acts: pause, tell the creator."""


PASSING = {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}


class SlackDigestPoster:
    """Posts digests with a WebClient; Slack's refusals become DeliveryFailed."""

    def __init__(self, client: WebClient):
        self.client = client

    def channel_for(self, sub: Subscription) -> str:
        if sub.kind == "channel":
            return sub.place_id
        return self.client.conversations_open(users=sub.place_id)["channel"]["id"]

    def post_digest(self, sub: Subscription, digest: Digest, *, thread_ts: str, on_posted: PostedCallback) -> None:
        try:
            channel_id = self.channel_for(sub)
            if not digest.papers:
                note = render_empty(digest)
                response = self.client.chat_postMessage(channel=channel_id, text=note.text, blocks=note.blocks)
                on_posted([], response.get("channel") or channel_id, response["ts"])
                return
            for message in render_digest(digest):
                problems = check_blocks(message.blocks)
                if problems:  # a renderer bug: log it, Slack will say the rest
                    logger.warning("digest message breaks Block Kit limits: %s", "; ".join(problems[:3]))
                response = self.client.chat_postMessage(
                    channel=channel_id, text=message.text, blocks=message.blocks, unfurl_links=False, unfurl_media=False,
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
        dm = self.client.conversations_open(users=sub.created_by)["channel"]["id"]
        self.client.chat_postMessage(channel=dm, text=text, blocks=[section(text)])


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

    def __init__(self, client: WebClient, *, clock: Clock = system_clock, ttl: timedelta = timedelta(hours=1)):
        self.client = client
        self.clock = clock
        self.ttl = ttl
        self._profiles: dict[str, tuple[datetime, Profile]] = {}

    def profile(self, user_id: str) -> Profile:
        cached = self._profiles.get(user_id)
        if cached and self.clock() - cached[0] < self.ttl:
            return cached[1]
        try:
            user = self.client.users_info(user=user_id, include_locale=True).get("user")
            user = user if isinstance(user, dict) else {}  # an answer without a user object says nothing
            is_bot = user.get("is_bot") is True or user_id == SLACKBOT  # Slackbot says is_bot: false
            profile = Profile(tz=user.get("tz") or None, locale=user.get("locale") or None, is_bot=is_bot)
        except (SlackApiError, OSError, TimeoutError) as error:
            code = error_code(error) if isinstance(error, SlackApiError) else type(error).__name__
            logger.warning("users.info for %s failed: %s", user_id, code)
            # Remembered briefly, so an outage doesn't slow every command by a timeout.
            self._profiles[user_id] = (self.clock() - self.ttl + FAILED_PROFILE_TTL, Profile())
            return Profile()
        self._profiles[user_id] = (self.clock(), profile)
        return profile

    def cannot_post(self, channel_id: str) -> str:
        """Why the bot can't post in `channel_id` (a Slack error code), or "" when it can."""
        try:
            channel = self.client.conversations_info(channel=channel_id).get("channel") or {}
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

    def announce(self, channel_id: str, text: str) -> bool:
        """Tell a channel about its digest (set up, changed, stopped); False if Slack refused."""
        try:
            self.client.chat_postMessage(channel=channel_id, text=text, blocks=[section(text)], unfurl_links=False)
            return True
        except (SlackApiError, OSError, TimeoutError) as error:
            logger.warning("announcing to %s failed: %s", channel_id, type(error).__name__)
            return False
