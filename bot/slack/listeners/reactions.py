"""Reactions on the bot's paper cards in channels are that channel's votes (bot/library/)."""

from __future__ import annotations

import logging

from slack_bolt import App

from bot.services import Services


def register(app: App, services: Services) -> None:
    def on_reaction(event: dict, added: bool, log: logging.Logger) -> None:
        item = event.get("item") or {}
        if item.get("type") != "message":
            return
        try:
            services.library.react(
                channel_id=item.get("channel", ""), message_ts=str(item.get("ts", "")), user_id=event.get("user", ""),
                reaction=event.get("reaction", ""), added=added, event_ts=str(event.get("event_ts", "")),
            )  # fmt: skip
        except Exception:
            log.exception("recording a reaction in %s failed", item.get("channel"))

    @app.event("reaction_added")
    def on_reaction_added(event, logger):
        on_reaction(event, True, logger)

    @app.event("reaction_removed")
    def on_reaction_removed(event, logger):
        on_reaction(event, False, logger)
