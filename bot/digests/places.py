"""Where digests go and who reads them: the ports a frontend provides.

A `Poster` posts a digest's messages (in the subscription's workspace, `sub.team_id`) and tells a subscription's creator it was paused; a
`Directory` says what Slack knows of a person (their zone and locale), whether the bot
can post in a channel, and announces a channel's digest there. bot/slack/posting.py
implements both over Slack's Web API, bot/console.py over a simulated channel, and the
tests over lists. Nothing here imports Slack.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from bot.digests.compose import Digest
    from bot.digests.subscriptions import Subscription

PostedCallback = Callable[[list[str], str, str], None]
"""on_posted(paper_ids, channel_id, message_ts) after Slack accepts each message."""


class Poster(Protocol):
    def post_digest(self, sub: Subscription, digest: Digest, *, thread_ts: str, on_posted: PostedCallback) -> None:
        """Post every message of `digest` (in `thread_ts` when resuming); raise DeliveryFailed."""

    def notify_paused(self, sub: Subscription, code: str) -> None:
        """Tell the subscription's creator why it was paused and how to resume it."""


@dataclass
class Profile:
    """What Slack says about a person: their zone and locale for digests (None: unknown), and
    whether it is a bot (another app, or Slackbot), whose reactions are no one's vote."""

    tz: str | None = None
    locale: str | None = None
    is_bot: bool = False


class Directory(Protocol):
    """Each call names the workspace it asks about (`team_id`, tenancy.LOCAL when unknown):
    over Slack, that workspace's own token answers (bot/slack/posting.py)."""

    def profile(self, user_id: str, *, team_id: str = "") -> Profile:
        """What Slack says about a person: their zone and locale (unknown: None)."""

    def cannot_post(self, channel_id: str, *, team_id: str = "") -> str:
        """Why the bot can't post in `channel_id` (a Slack error code), or "" when it can."""

    def announce(self, channel_id: str, text: str, *, team_id: str = "") -> bool:
        """Tell a channel about its digest (set up, changed, stopped); False if refused."""
