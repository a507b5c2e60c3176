"""Buttons on results and cards: Share, Details, More like this, Previous/Next, suggestions.

Each listener acks first, makes one domain call (`commands.answer_action`), then
delivers: a share goes to the channel, everything else privately to the clicker.
Clicks in App Home have no response_url: paging re-renders Home, the rest arrives by DM.
"""

from __future__ import annotations

import re

from bot.slack.blocks import decode_value
from bot.slack.commands import answer_action, error_reply, is_dm
from bot.slack.delivery import respond_privately, share_in_channel
from bot.slack.home import publish_home

BUTTONS = re.compile(r"^(paper_share|paper_details|paper_more|results_next|results_prev|search_run)$")
LINKS = re.compile(r"^link_(arxiv|pdf|code|project)_\d+$")  # URL buttons (blocks.link_buttons)


def register(app, corpus, digests=None) -> None:
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
        try:
            reply = answer_action(corpus, user_id, action_id, value, shareable=not from_home and not is_dm(channel_id))
        except Exception:
            logger.exception("button %s failed for user %s", action_id, user_id)
            reply = error_reply(value.get("l", "en"))
        if reply.share is not None and channel_id:
            share_in_channel(reply, client=client, respond=respond, channel_id=channel_id, user_id=user_id, logger=logger)
        elif from_home and reply.replace and reply.result is not None:
            publish_home(client, corpus, user_id, result=reply.result, lang=reply.lang, digests=digests)
        else:
            respond_privately(reply, respond=respond, client=client, user_id=user_id, channel_id=channel_id, replace=reply.replace)
