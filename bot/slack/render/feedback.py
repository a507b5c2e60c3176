"""What a 👍 / 👎 answers with: a private note saying what was chosen, and Undo.

A channel's card looks the same to everyone, so the choice shows only here, to the
clicker (bot/slack/answers/feedback.py).
"""

from __future__ import annotations

from bot.i18n import t
from bot.library.ranking import short_title
from bot.models import Paper, Reason
from bot.slack.render.blocks import Message, actions, button, context, notification_text, section, truncate
from bot.slack.render.mrkdwn import escape
from bot.slack.values import Action, ButtonValue

VOTE_NOTES = {1: "foryou.liked", -1: "foryou.disliked"}
"""The note a vote answers with, by its value."""

LIKE_REASONS = {
    "saved": "library.reason_saved",
    "liked": "foryou.reason_liked",
    "opened": "foryou.reason_opened",
    "channel_like": "library.reason_channel",
}
"""A "like *X*, which you ..." reason, by its kind."""
PLAIN_REASONS = {"own": "foryou.reason_own", "channel_own": "foryou.reason_channel_own", "new": "foryou.reason_new"}
"""A reason that names no paper, by its kind."""


def reason_line(reason: Reason, lang: str) -> str:
    """Why a pick is where it is, in the reader's language: never empty."""
    if reason.kind in LIKE_REASONS and reason.paper is not None:
        return t(LIKE_REASONS[reason.kind], lang, title=escape(short_title(reason.paper, lang)))
    if reason.kind == "interest":
        return t("foryou.reason_interest", lang, interest=escape(truncate(reason.interest, 80)))
    if reason.kind == "channel" and reason.count:
        key = "foryou.reason_channel_votes_one" if reason.count == 1 else "foryou.reason_channel_votes"
        return t(key, lang, count=reason.count, channel_id=reason.channel_id)
    return t(PLAIN_REASONS.get(reason.kind, "foryou.reason_new"), lang)


def render_vote_note(paper: Paper, lang: str, value: int, *, channel_id: str = "") -> Message:
    """ "👍 on *X*: ..." with Undo; `channel_id` when it also counted as the channel's vote."""
    title = escape(truncate(paper.title(lang), 200))
    text = t(VOTE_NOTES[value], lang, title=title)
    blocks: list[dict] = [section(text)]
    if channel_id:
        blocks.append(context(t("foryou.channel_vote", lang, channel_id=channel_id)))
    undo = button(t("foryou.button_undo", lang), Action.UNVOTE, ButtonValue(id=paper.id, lang=lang, mode="note"))
    blocks.append(actions(undo, block_id=f"vote:{paper.id}"))
    return Message(notification_text(text), blocks)


def render_unvote_note(paper: Paper, lang: str, *, undone: bool) -> Message:
    title = escape(truncate(paper.title(lang), 200))
    text = t("foryou.undone" if undone else "foryou.undo_none", lang, title=title)
    return Message(notification_text(text), [section(text)])
