"""Buttons on results and cards: Share, Details, More like this, Previous/Next, suggestions.

Each listener acks first, makes one domain call (`commands.answer_action`), then
delivers: a share goes to the channel, everything else privately to the clicker.
Clicks in App Home have no response_url: paging re-renders Home, the rest arrives by DM.
"""

from __future__ import annotations

import logging
import re

from slack_sdk.errors import SlackApiError

from bot.i18n import t
from bot.slack.blocks import decode_value, render_notice
from bot.slack.commands import Reply, answer_action, failure_reply, is_dm
from bot.slack.delivery import error_code, respond_privately, share_in_channel
from bot.slack.home import publish_home

logger = logging.getLogger(__name__)

# What a digest row's menu may ask for; others add theirs.
MENU_ACTIONS = {"paper_details", "paper_more", "paper_save"}
BUTTONS = re.compile(
    r"^(paper_share|paper_details|paper_more|paper_save|results_next|results_prev|search_run|share_post|share_cancel)$"
)
LINKS = re.compile(r"^link_(arxiv|pdf|code|project)_\d+$")  # URL buttons (blocks.link_buttons)


def register(app, corpus, digests=None, *, alerts=None) -> None:
    """Wire the buttons and a digest row's menu; `alerts` tells the admins about a full disk."""
    @app.action(LINKS)
    def on_link(ack):
        # Slack opens the URL itself, and still tells the app, which must ack or the
        # button shows a warning.
        ack()

    @app.action(BUTTONS)
    def on_button(ack, body, action, client, respond, logger):
        ack()
        user_id = body["user"]["id"]
        channel_id = (body.get("channel") or {}).get("id", "")
        from_home = (body.get("view") or {}).get("type") == "home"
        action_id = action["action_id"]
        value = decode_value(action.get("value"))
        container = body.get("container") or {}
        # A save from a card everyone in the channel sees (a share, a digest) is the channel's
        # signal too; one from a private results list is only the person's.
        public_card = bool(channel_id) and not from_home and not is_dm(channel_id) and not container.get("is_ephemeral")
        try:
            reply = answer_action(
                corpus, user_id, action_id, value, shareable=not from_home and not is_dm(channel_id),
                card_channel_id=channel_id if public_card else "",
            )  # fmt: skip
        except Exception as error:  # a Save writes: a full disk is named, and the admins told
            logger.exception("button %s failed for user %s", action_id, user_id)
            reply = failure_reply(error, value.get("l", "en"), alerts=alerts, client=client)
        if reply.share is not None and channel_id:
            if share_in_channel(
                reply, client=client, respond=respond, channel_id=channel_id, user_id=user_id, logger=logger, library=corpus.library
            ):
                # Say where it went: from the channel's own page of results that is not obvious.
                done = Reply(render_notice(t("share.posted_to", reply.lang, channel_id=channel_id)), lang=reply.lang)
                respond_privately(done, respond=respond, client=client, user_id=user_id, channel_id=channel_id, replace=reply.replace)
        elif from_home and action_id == "paper_save":  # keep the search results Home was showing
            publish_home(client, corpus, user_id, result=reply.result, lang=reply.lang, digests=digests)
        elif action_id == "paper_save" and not reply.replace and _redraw_dm_message(body, corpus, user_id, value, client, reply.lang):
            pass  # a DM message only its reader sees (a personal digest): redrawn in place
        elif from_home and reply.replace and reply.result is not None:
            publish_home(client, corpus, user_id, result=reply.result, lang=reply.lang, digests=digests)
        else:
            respond_privately(reply, respond=respond, client=client, user_id=user_id, channel_id=channel_id, replace=reply.replace)

    @app.action("paper_menu")
    def on_menu(ack, body, action, client, respond, logger):
        """A digest row's overflow menu: the chosen option's value names the action (`a`)."""
        ack()
        user_id = body["user"]["id"]
        channel_id = (body.get("channel") or {}).get("id", "")
        value = decode_value((action.get("selected_option") or {}).get("value"))
        action_id = str(value.get("a", ""))
        if action_id not in MENU_ACTIONS:  # a link option (url) needs no answer; a forged one gets none
            return
        public_card = bool(channel_id) and not is_dm(channel_id) and not (body.get("container") or {}).get("is_ephemeral")
        try:
            reply = answer_action(
                corpus, user_id, action_id, value, shareable=not is_dm(channel_id),
                card_channel_id=channel_id if public_card else "",
            )  # fmt: skip
        except Exception as error:
            logger.exception("menu %s failed for user %s", action_id, user_id)
            reply = failure_reply(error, value.get("l", "en"), alerts=alerts, client=client)
        respond_privately(reply, respond=respond, client=client, user_id=user_id, channel_id=channel_id)


def _redraw_dm_message(body: dict, corpus, user_id: str, value: dict, client, lang: str) -> bool:
    """Flip the Save button on a bot message in a DM with chat.update; False when it can't."""
    channel_id = (body.get("channel") or {}).get("id", "")
    message = body.get("message") or {}
    if not is_dm(channel_id) or (body.get("container") or {}).get("is_ephemeral") or not message.get("ts"):
        return False
    from bot.slack.library import flip_save_button

    paper_id = str(value.get("id", ""))
    blocks = flip_save_button(message.get("blocks") or [], paper_id, corpus.library.is_saved(user_id, paper_id), lang)
    if blocks is None:
        return False
    try:
        client.chat_update(channel=channel_id, ts=message["ts"], text=message.get("text") or " ", blocks=blocks)
        return True
    except SlackApiError as error:
        logger.warning("chat.update of %s in %s failed: %s", message["ts"], channel_id, error_code(error))
        return False
