"""Buttons on results and cards, and a digest row's menu: ack, answer, deliver.

Each listener acks first, makes one domain call (answers/actions.py's `answer_action`),
then delivers: a share goes to the channel, everything else privately to the clicker.
Clicks in App Home have no response_url: paging re-renders Home, the rest arrives by DM.
"""

from __future__ import annotations

import logging
import re

from slack_bolt import App
from slack_bolt.context.respond import Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.i18n import t
from bot.services import Services
from bot.slack.alerts import AdminAlerts
from bot.slack.answers.actions import answer_action
from bot.slack.answers.feedback import record_open
from bot.slack.answers.library import flip_save_button
from bot.slack.client import error_code
from bot.slack.delivery import publish_home, respond_privately, share_in_channel
from bot.slack.render.blocks import render_notice
from bot.slack.reply import Reply, failure_reply, is_dm
from bot.slack.values import BUTTON_ACTIONS, LINK, MENU_ACTIONS, NUMBERED, Action, ButtonValue, base_action, decode_value

logger = logging.getLogger(__name__)


def register(app: App, services: Services, *, alerts: AdminAlerts | None = None) -> None:
    """Wire the buttons and a digest row's menu; `alerts` tells the admins about a full disk."""

    def _opened(body: dict, value: ButtonValue, log: logging.Logger) -> None:
        """Count an opened link for the clicker (whose: the signed payload's team and user)."""
        try:
            record_open(services, team_id_of(body), body["user"]["id"], value)
        except Exception:  # a lost weak signal is not worth a message to someone reading a paper
            log.exception("recording an opened link failed for %s", body["user"]["id"])

    @app.action(LINK)
    def on_link(ack, body, action, logger):
        # Slack opens the URL itself, and still tells the app, which must ack or the
        # button shows a warning. An opened link is a weak positive; nothing to answer.
        ack()
        _opened(body, decode_value(action.get("value")), logger)

    @app.action(re.compile("^(" + "|".join(sorted(BUTTON_ACTIONS)) + ")$|" + NUMBERED.pattern))
    def on_button(ack, body, action, client: WebClient, respond: Respond, logger):
        ack()
        user_id = body["user"]["id"]
        channel_id = (body.get("channel") or {}).get("id", "")
        from_home = (body.get("view") or {}).get("type") == "home"
        action_id = base_action(action["action_id"])
        value = decode_value(action.get("value"))
        container = body.get("container") or {}
        # A save from a card everyone in the channel sees (a share, a digest) is the channel's
        # signal too; one from a private results list is only the person's.
        public_card = bool(channel_id) and not from_home and not is_dm(channel_id) and not container.get("is_ephemeral")
        try:
            reply = answer_action(
                services, user_id, action_id, value, shareable=not from_home and not is_dm(channel_id),
                card_channel_id=channel_id if public_card else "", channel_id=channel_id,
                channel_name=(body.get("channel") or {}).get("name", ""), team_id=team_id_of(body),
            )  # fmt: skip
        except Exception as error:  # a Save writes: a full disk is named, and the admins told
            logger.exception("button %s failed for user %s", action_id, user_id)
            reply = failure_reply(error, value.lang or "en", alerts=alerts, client=client)
        if reply.share is not None and channel_id:
            if share_in_channel(
                reply,
                client=client,
                respond=respond,
                channel_id=channel_id,
                user_id=user_id,
                logger=logger,
                library=services.library,
            ):
                # Say where it went: from the channel's own page of results that is not obvious.
                done = Reply(render_notice(t("share.posted_to", reply.lang, channel_id=channel_id)), lang=reply.lang)
                respond_privately(
                    done, respond=respond, client=client, user_id=user_id, channel_id=channel_id, replace=reply.replace
                )
        elif from_home and action_id == Action.SAVE:  # keep the search results Home was showing
            publish_home(client, services, user_id, result=reply.result, lang=reply.lang, team_id=team_id_of(body))
        elif (
            action_id == Action.SAVE
            and not reply.replace
            and _redraw_dm_message(body, services, user_id, value, client, reply.lang)
        ):
            pass  # a DM message only its reader sees (a personal digest): redrawn in place
        elif from_home and reply.replace and reply.result is not None:
            publish_home(client, services, user_id, result=reply.result, lang=reply.lang, team_id=team_id_of(body))
        else:
            respond_privately(
                reply, respond=respond, client=client, user_id=user_id, channel_id=channel_id, replace=reply.replace
            )

    @app.action(Action.MENU)
    def on_menu(ack, body, action, client: WebClient, respond: Respond, logger):
        """A digest row's overflow menu: the chosen option's value names the action (`a`)."""
        ack()
        user_id = body["user"]["id"]
        channel_id = (body.get("channel") or {}).get("id", "")
        value = decode_value((action.get("selected_option") or {}).get("value"))
        action_id = value.action
        if action_id == Action.MENU_LINK:  # a link option (url): Slack opened it; it counts, unanswered
            _opened(body, value, logger)
            return
        if action_id not in MENU_ACTIONS:  # a forged option gets no answer
            return
        public_card = bool(channel_id) and not is_dm(channel_id) and not (body.get("container") or {}).get("is_ephemeral")
        try:
            reply = answer_action(
                services, user_id, action_id, value, shareable=not is_dm(channel_id),
                card_channel_id=channel_id if public_card else "", team_id=team_id_of(body),
            )  # fmt: skip
        except Exception as error:
            logger.exception("menu %s failed for user %s", action_id, user_id)
            reply = failure_reply(error, value.lang or "en", alerts=alerts, client=client)
        respond_privately(reply, respond=respond, client=client, user_id=user_id, channel_id=channel_id)


def team_id_of(body: dict) -> str:
    """The clicker's workspace, from Slack's signed payload: it keys their 👍 / 👎 and interests."""
    return (body.get("team") or {}).get("id") or (body.get("user") or {}).get("team_id") or body.get("team_id") or ""


def _redraw_dm_message(body: dict, services: Services, user_id: str, value: ButtonValue, client: WebClient, lang: str) -> bool:
    """Flip the Save button on a bot message in a DM with chat.update; False when it can't."""
    channel_id = (body.get("channel") or {}).get("id", "")
    message = body.get("message") or {}
    if not is_dm(channel_id) or (body.get("container") or {}).get("is_ephemeral") or not message.get("ts"):
        return False
    paper_id = value.id
    blocks = flip_save_button(message.get("blocks") or [], paper_id, services.library.is_saved(user_id, paper_id), lang)
    if blocks is None:
        return False
    try:
        client.chat_update(channel=channel_id, ts=message["ts"], text=message.get("text") or " ", blocks=blocks)
        return True
    except SlackApiError as error:
        logger.warning("chat.update of %s in %s failed: %s", message["ts"], channel_id, error_code(error))
        return False
