"""Reactions on the bot's paper cards in channels are that channel's votes (bot/library/).

A reaction counts in the workspace the event came from (its signed `team_id`), on the
cards the bot posted there. A bot's reaction (another app's, Slackbot's) is no one's vote: the event doesn't say who
is a bot, so users.info does (SlackDirectory.profile, cached for an hour). When Slack
can't be asked, the reaction counts: a person's vote is not lost to an outage.
"""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.services import Services
from bot.slack.listeners.actions import team_id_of


def register(app: App, services: Services) -> None:
    def on_reaction(event: dict, team_id: str, added: bool, log: logging.Logger) -> None:
        item = event.get("item") or {}
        user_id = event.get("user", "")
        if item.get("type") != "message":
            return
        try:
            if user_id and services.directory.profile(user_id, team_id=team_id).is_bot:
                return
            services.library.react(
                channel_id=item.get("channel", ""), message_ts=str(item.get("ts", "")), user_id=user_id,
                reaction=event.get("reaction", ""), added=added, event_ts=str(event.get("event_ts", "")),
                team_id=team_id,
            )  # fmt: skip
        except Exception:
            log.exception("recording a reaction in %s failed", item.get("channel"))

    @app.event("reaction_added")
    def on_reaction_added(event, body, logger):
        on_reaction(event, team_id_of(body), True, logger)

    @app.event("reaction_removed")
    def on_reaction_removed(event, body, logger):
        on_reaction(event, team_id_of(body), False, logger)
