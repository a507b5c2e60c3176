"""The Messages tab: a DM to paperbot is a `/papers` line without the `/papers`.

Register after bot/slack/listeners/uploads.py: Bolt runs only the first `message`
listener that matches, and a DM with files is an upload.
"""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.i18n import t
from bot.services import Services
from bot.slack.alerts import AdminAlerts
from bot.slack.answers.commands import answer_command
from bot.slack.client import error_code
from bot.slack.delivery import send_upload, share_in_channel, tell_user
from bot.slack.reply import failure_reply, reader_lang


def register(app: App, services: Services, *, alerts: AdminAlerts | None = None) -> None:
    corpus = services.corpus

    @app.event("message")
    def on_message(event, client: WebClient, logger, body, context):
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return
        user_id, channel_id, text = event.get("user", ""), event.get("channel", ""), event.get("text", "")
        team_id = context.get("team_id") or body.get("team_id") or event.get("team") or ""  # Slack's signed envelope
        try:
            reply = answer_command(services, user_id, channel_id, text, team_id=team_id)
        except Exception as error:
            logger.exception("answering a DM from %s failed", user_id)
            reply = failure_reply(error, reader_lang(corpus, user_id, text), alerts=alerts, client=client)
        if reply.share is not None:
            share_in_channel(reply, client=client, respond=None, channel_id=channel_id, user_id=user_id, logger=logger)
            return
        try:
            client.chat_postMessage(channel=channel_id, text=reply.text, blocks=reply.blocks, unfurl_links=False)
            if reply.upload is not None:  # `export bibtex` typed in the DM
                send_upload(reply, client=client, respond=None, user_id=user_id, channel_id="")
        except SlackApiError as error:
            logger.warning("answering a DM failed: %s", error_code(error))
            tell_user(
                t("slack.error", reply.lang, error=error_code(error)),
                lang=reply.lang,
                respond=None,
                client=client,
                user_id=user_id,
                channel_id="",
            )
