"""A click on 👍 / 👎 or its Undo: record the clicker's own signal, answer privately.

Whose vote it is comes from Slack's signed payload (team and user), never from the
button's value, which names only the paper. On a channel's public card (a digest row,
a shared card) the vote is also one of the channel's: `card_channel_id` says which.
A vote sets a state rather than toggling one, so a click Slack delivers twice counts once.
"""

from __future__ import annotations

from bot.services import Services
from bot.slack.render.feedback import render_unvote_note, render_vote_note
from bot.slack.reply import Reply, notice
from bot.slack.values import Action, ButtonValue

VOTES = {Action.LIKE: 1, Action.DISLIKE: -1}


def answer_vote_click(
    services: Services, team_id: str, user_id: str, action_id: str, value: ButtonValue, lang: str, *, card_channel_id: str = ""
) -> Reply:
    """👍 / 👎 / Undo on a paper: the private note says what was chosen, with Undo."""
    paper = services.corpus.get(value.id, team=team_id)
    if paper is None:
        return notice("card.paper_not_found", lang)
    feedback = services.library.feedback
    if action_id == Action.UNVOTE:
        undone = feedback.clear_vote(team_id, user_id, paper.id)
        reply = Reply(render_unvote_note(paper, lang, undone=undone), lang=lang)
        reply.replace = True  # the note it undoes becomes the "undone" note
        return reply
    vote = VOTES[Action(action_id)]
    feedback.vote(team_id, user_id, paper.id, vote, place_id=card_channel_id)
    return Reply(render_vote_note(paper, lang, vote, channel_id=card_channel_id), lang=lang)


def record_open(services: Services, team_id: str, user_id: str, value: ButtonValue) -> bool:
    """A link the person opened (arXiv, PDF, code, from a card or a digest row's menu): a
    weak positive for their for-you, as opening Details is. False for no such paper."""
    if not value.id or services.corpus.get(value.id, team=team_id) is None:
        return False
    services.library.feedback.opened(team_id, user_id, value.id)
    return True
