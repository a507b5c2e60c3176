"""Sharing a paper into a channel: `/papers share QUERY|ID` previews first, Post posts.

Share buttons on results post at once (the paper is the one clicked); `/papers share`
takes a query, whose best match may not be the paper meant, so it shows the card
privately with Post and Cancel.
"""

from __future__ import annotations

from bot.corpus import Corpus
from bot.i18n import t
from bot.models import Paper
from bot.search.query import MAX_QUERY_CHARS
from bot.slack.render.blocks import Message, actions, button, notification_text, section
from bot.slack.render.cards import render_card
from bot.slack.render.mrkdwn import escape_code
from bot.slack.reply import Reply, notice
from bot.slack.values import Action, ButtonValue


def share_reply(paper: Paper, user_id: str, lang: str) -> Reply:
    card = render_card(paper, lang, full=False, shared_by=user_id)
    return Reply(card, lang=lang, visibility="in_channel", share=paper)


def answer_share(corpus: Corpus, user_id: str, channel_id: str, query: str, lang: str) -> Reply:
    """`/papers share QUERY|ID`: the best match, to be posted in the channel."""
    query = query.strip()
    if not query:
        return notice("share.usage", lang)
    if not channel_id:
        return notice("share.needs_channel", lang, query=escape_code(query[:200]))
    paper = corpus.resolve(query[:MAX_QUERY_CHARS])
    if paper is None:
        return notice("share.not_found", lang, query=escape_code(query[:200]))
    return share_preview(paper, user_id, channel_id, lang)


def share_preview(paper: Paper, user_id: str, channel_id: str, lang: str) -> Reply:
    """What `/papers share` shows first, privately: the card as it would be posted, with
    Post and Cancel (the best match may not be the paper meant)."""
    card = render_card(paper, lang, full=False, shared_by=user_id)
    value = ButtonValue(id=paper.id, lang=lang)
    blocks = [
        section(t("share.preview", lang, channel_id=channel_id)),
        *[b for b in card.blocks if b.get("type") != "actions"],
        actions(button(t("button.post", lang), Action.SHARE_POST, value, style="primary"),
                button(t("button.cancel", lang), Action.SHARE_CANCEL, value), block_id="share_preview"),
    ]  # fmt: skip
    return Reply(Message(text=notification_text(t("share.preview", lang, channel_id=channel_id)), blocks=blocks), lang=lang)
