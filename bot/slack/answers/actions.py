"""A click: Share, Details, More like this, a page, a suggested search, Save.

`answer_action` is pure, like the command answers: the listener (bot/slack/listeners/
actions.py) decodes the button's value (bot/slack/values.py) and delivers the Reply.
"""

from __future__ import annotations

import logging

from bot.i18n import detect_lang, normalize_lang
from bot.services import Services
from bot.slack.answers.commands import answer_command
from bot.slack.answers.feedback import answer_vote_click
from bot.slack.answers.library import answer_save_click, answer_saved
from bot.slack.answers.search import answer_details, answer_more_like, answer_search
from bot.slack.answers.share import channel_lang, share_preview, share_reply
from bot.slack.answers.subscribe import answer_restore
from bot.slack.reply import Reply, error_reply, not_ready_notice, notice
from bot.slack.values import Action, ButtonValue, base_action

logger = logging.getLogger(__name__)


def answer_action(
    services: Services,
    user_id: str,
    action_id: str,
    value: ButtonValue,
    *,
    shareable: bool = True,
    card_channel_id: str = "",
    channel_id: str = "",
    channel_name: str = "",
    team_id: str = "",
) -> Reply:
    """Answer a button: share, details, more like this, a page, a suggested search, save,
    and the buttons that run a `/papers` line for the clicker (a next step, an answer to a
    question, an undo).

    The reader's saved language wins over the one the message was rendered in.
    `shareable=False` where a share would reach nobody (App Home, a DM with the bot):
    results drop Share. `card_channel_id`: the channel whose public card (a share, a
    digest) was clicked; `channel_id`/`channel_name`: where the click happened; `team_id`: the
    clicker's workspace, from Slack's signed payload, which keys their language, saves and 👍 / 👎.
    """
    corpus, library = services.corpus, services.library
    action_id = base_action(action_id)
    stored = corpus.get_user_lang(user_id, team_id)
    lang = normalize_lang(stored or value.lang or detect_lang(value.query))
    if not corpus.is_ready():
        return not_ready_notice(corpus, lang)
    page = value.page_or(1)
    if action_id in (Action.COMMAND, Action.CONFIRM):
        reply = answer_command(
            services,
            user_id,
            channel_id,
            value.query,
            channel_name=channel_name,
            confirmed=value.exact and action_id == Action.CONFIRM,
            team_id=team_id,
        )
        reply.replace = action_id == Action.CONFIRM  # the answer takes the question's place
        return reply
    if action_id == Action.CANCEL:
        reply = notice("subscribe.cancelled", lang)
        reply.replace = True
        return reply
    if action_id == Action.UNSUBSCRIBE_UNDO:
        reply = answer_restore(services, team_id, user_id, value.id, lang)
        reply.replace = True
        return reply
    if action_id == Action.SHARE_CANCEL:
        reply = notice("share.cancelled", lang)
        reply.replace = True
        return reply
    if action_id in (Action.SHARE, Action.SHARE_POST):
        paper = corpus.get(value.id, team=team_id)
        if paper is None:
            return notice("card.paper_not_found", lang)
        if not shareable or not channel_id:  # an old message in a DM, or Home: no channel to share into
            return notice("share.needs_channel", lang, query=paper.id)
        card_lang = channel_lang(services, channel_id, lang, team_id)
        if action_id == Action.SHARE:  # the same preview as `/papers share`: Post or Cancel
            return share_preview(paper, user_id, channel_id, lang, card_lang=card_lang)
        reply = share_reply(paper, user_id, lang, card_lang=card_lang)
        reply.replace = True  # the confirmation replaces the preview
        return reply
    if action_id == Action.SAVE:
        return answer_save_click(
            services, user_id, value, lang, shareable=shareable, card_channel_id=card_channel_id, team_id=team_id
        )
    if action_id in (Action.LIKE, Action.DISLIKE, Action.UNVOTE):
        return answer_vote_click(services, team_id, user_id, action_id, value, lang, card_channel_id=card_channel_id)
    saved = library.saved_ids(user_id, team_id=team_id)
    if action_id in (Action.DETAILS, Action.MORE) and value.id and corpus.get(value.id, team=team_id) is not None:
        library.feedback.opened(team_id, user_id, value.id)  # a weak positive for their for-you
    if action_id == Action.DETAILS:
        return answer_details(corpus, value.id, lang, saved=saved, shareable=shareable, team_id=team_id)
    if action_id == Action.MORE:
        return answer_more_like(corpus, value.id, lang, shareable=shareable, saved=saved, team_id=team_id)
    if action_id in (Action.NEXT, Action.PREV):
        if value.mode == "more":
            reply = answer_more_like(corpus, value.id, lang, page=page, shareable=shareable, saved=saved, team_id=team_id)
        elif value.mode == "saved":
            reply = answer_saved(library, user_id, value.query, lang, page=page, shareable=shareable, team_id=team_id)
        else:
            reply = answer_search(corpus, value.query, lang, page=page, shareable=shareable, saved=saved, team_id=team_id)
        reply.replace = True
        return reply
    if action_id in (Action.SEARCH, Action.HOME_EXAMPLE):
        reply = answer_search(
            corpus, value.query, lang, shareable=shareable, saved=saved, correct=not value.exact, team_id=team_id
        )
        reply.replace = action_id == Action.SEARCH
        return reply
    logger.warning("unknown action %r", action_id)
    return error_reply(lang)
