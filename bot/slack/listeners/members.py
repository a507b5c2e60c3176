"""The bot joined a channel: resume the digest that waited for the invitation."""

from __future__ import annotations

from slack_bolt import App

from bot.services import Services
from bot.slack.answers.subscribe import resume_after_invite


def register(app: App, services: Services) -> None:
    @app.event("member_joined_channel")
    def on_member_joined(event, body, context, logger):
        if event.get("user") != context.get("bot_user_id"):
            return
        team_id = context.get("team_id") or event.get("team") or body.get("team_id") or ""
        try:
            resume_after_invite(services, team_id, event.get("channel", ""))
        except Exception:
            logger.exception("resuming the digest of %s failed", event.get("channel"))
