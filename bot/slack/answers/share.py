"""Sharing a paper into a channel: a preview first, then Post posts.

One behaviour for the Share button and `/papers share QUERY|ID`: the card as the channel
will see it, privately, with Post and Cancel. Chosen over posting at once with an Undo:
a post notifies the whole channel, and a notification can't be taken back, while the
preview costs one click; and `/papers share` picks the best match of a query, which may
not be the paper meant, so it has to show it first anyway.

The card is in the channel's language when the channel has a digest (its readers chose
one), else in the sharer's.
"""

from __future__ import annotations

from bot.corpus import Corpus
from bot.i18n import t
from bot.models import Paper
from bot.search.query import MAX_QUERY_CHARS
from bot.services import Services
from bot.slack.render.blocks import Message, actions, button, notification_text, section
from bot.slack.render.cards import render_card
from bot.slack.render.mrkdwn import escape_code
from bot.slack.reply import Reply, notice
from bot.slack.values import Action, ButtonValue


def channel_lang(services: Services, channel_id: str, lang: str, team_id: str = "") -> str:
    """The language of a card posted in `channel_id` of `team_id`: its digest's, else `lang` (the sharer's)."""
    sub = services.subscriptions.for_place(team_id, "channel", channel_id) if channel_id else None
    return sub.lang if sub is not None else lang


def share_reply(paper: Paper, user_id: str, lang: str, *, card_lang: str | None = None) -> Reply:
    """The shared card, to post; `card_lang` is the channel's (`channel_lang`), `lang` the sharer's."""
    card = render_card(paper, card_lang or lang, full=False, shared_by=user_id)
    return Reply(card, lang=lang, visibility="in_channel", share=paper)


def answer_share(
    corpus: Corpus,
    user_id: str,
    channel_id: str,
    query: str,
    lang: str,
    *,
    card_lang: str | None = None,
    team_id: str | None = None,
) -> Reply:
    """`/papers share QUERY|ID`: the best match (of the papers `team_id` sees), to be posted in the channel."""
    query = query.strip()
    if not query:
        return notice("share.usage", lang)
    if not channel_id:
        return notice("share.needs_channel", lang, query=escape_code(query[:200]))
    paper = corpus.resolve(query[:MAX_QUERY_CHARS], team=team_id)
    if paper is None:
        return notice("share.not_found", lang, query=escape_code(query[:200]))
    return share_preview(paper, user_id, channel_id, lang, card_lang=card_lang)


def share_preview(paper: Paper, user_id: str, channel_id: str, lang: str, *, card_lang: str | None = None) -> Reply:
    """What a share shows first, privately: the card as it would be posted (in the
    channel's language), with Post and Cancel (in the sharer's)."""
    card = render_card(paper, card_lang or lang, full=False, shared_by=user_id)
    value = ButtonValue(id=paper.id, lang=lang)
    blocks = [
        section(t("share.preview", lang, channel_id=channel_id)),
        *[b for b in card.blocks if b.get("type") != "actions"],
        actions(button(t("button.post", lang), Action.SHARE_POST, value, style="primary"),
                button(t("button.cancel", lang), Action.SHARE_CANCEL, value), block_id="share_preview"),
    ]  # fmt: skip
    return Reply(Message(text=notification_text(t("share.preview", lang, channel_id=channel_id)), blocks=blocks), lang=lang)
