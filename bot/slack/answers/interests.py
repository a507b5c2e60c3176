"""`/papers interests add|list|remove ...`: what a person reads, a cold start for their for-you.

Interests are analysed as search analyses text (bot/search/analysis.py), so `KV cache`
and `推测解码` both match papers in either language's titles and summaries. They are the
person's alone, keyed by the (team, user) Slack signed for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.search.analysis import analyze
from bot.services import Services
from bot.slack.render.blocks import truncate
from bot.slack.render.mrkdwn import escape
from bot.slack.reply import Reply, notice
from bot.slack.words import INTERESTS_ACTIONS

MAX_INTEREST_CHARS = 80
MAX_INTERESTS = 30
_SEPARATORS = re.compile(r"[,，、;；\n]+")


def split_interests(text: str) -> list[str]:
    """`KV cache, 推测解码；RLHF` -> ['KV cache', '推测解码', 'RLHF']: commas in either script."""
    return [" ".join(part.split()) for part in _SEPARATORS.split(text) if part.strip()]


def listed(interests: list[str], lang: str) -> str:
    separator = "、" if lang == "zh" else ", "
    return separator.join(f"“{escape(truncate(i, MAX_INTEREST_CHARS))}”" for i in interests)


@dataclass(frozen=True)
class Outcome:
    """What a change to someone's interests came to: a message (an i18n key and its fields),
    and whether it stored anything (App Home's modal shows a refusal under its input)."""

    key: str
    fields: dict = field(default_factory=dict)
    changed: bool = False


def add_interests(services: Services, team_id: str, user_id: str, text: str, lang: str) -> Outcome:
    """Add the comma-separated topics in `text`; bad input stores nothing and says why."""
    feedback = services.library.feedback
    wanted = split_interests(text)
    if not wanted:
        return Outcome("interests.usage")
    for interest in wanted:
        if len(interest) > MAX_INTEREST_CHARS:
            return Outcome("interests.too_long", {"interest": escape(truncate(interest, 40)), "limit": MAX_INTEREST_CHARS})
        if not analyze(interest):
            return Outcome("interests.no_words", {"interest": escape(interest)})
    current = feedback.interests(team_id, user_id)
    known = {i.casefold() for i in current}
    fresh = list(dict.fromkeys(i for i in wanted if i.casefold() not in known))
    if len(current) + len(fresh) > MAX_INTERESTS:
        return Outcome("interests.too_many", {"limit": MAX_INTERESTS})
    if not fresh:
        return Outcome("interests.already", {"interests": listed(wanted, lang)})
    feedback.add_interests(team_id, user_id, fresh)
    return Outcome("interests.added", {"interests": listed(fresh, lang), "all": listed(current + fresh, lang)}, True)


def remove_interests(services: Services, team_id: str, user_id: str, wanted: list[str], lang: str) -> Outcome:
    """Remove these topics (any case) from the person's interests."""
    removed = services.library.feedback.remove_interests(team_id, user_id, wanted)
    if not removed:
        return Outcome("interests.not_found", {"interests": listed(wanted, lang)})
    return Outcome("interests.removed", {"interests": listed(removed, lang)}, True)


def answer_interests(services: Services, team_id: str, user_id: str, rest: str, lang: str) -> Reply:
    """Add, list or remove the person's interests; bad input says what is wrong and how to fix it."""
    word, _, text = rest.strip().partition(" ")
    action = INTERESTS_ACTIONS.get(word.lower()) if word else "list"
    if action is None:
        return notice("interests.usage", lang)
    if action == "list":
        current = services.library.feedback.interests(team_id, user_id)
        if not current:
            return notice("interests.none", lang)
        return notice("interests.list", lang, interests=listed(current, lang))
    if action == "remove":
        wanted = split_interests(text)
        if not wanted:
            return notice("interests.usage", lang)
        outcome = remove_interests(services, team_id, user_id, wanted, lang)
    else:
        outcome = add_interests(services, team_id, user_id, text, lang)
    return notice(outcome.key, lang, **outcome.fields)
