"""`/papers interests add|list|remove ...`: what a person reads, a cold start for their for-you.

Interests are analysed as search analyses text (bot/search/analysis.py), so `KV cache`
and `推测解码` both match papers in either language's titles and summaries. They are the
person's alone, keyed by the (team, user) Slack signed for.
"""

from __future__ import annotations

import re

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


def answer_interests(services: Services, team_id: str, user_id: str, rest: str, lang: str) -> Reply:
    """Add, list or remove the person's interests; bad input says what is wrong and how to fix it."""
    feedback = services.library.feedback
    word, _, text = rest.strip().partition(" ")
    action = INTERESTS_ACTIONS.get(word.lower()) if word else "list"
    if action is None:
        return notice("interests.usage", lang)
    current = feedback.interests(team_id, user_id)
    if action == "list":
        if not current:
            return notice("interests.none", lang)
        return notice("interests.list", lang, interests=listed(current, lang))
    wanted = split_interests(text)
    if not wanted:
        return notice("interests.usage", lang)
    if action == "remove":
        removed = feedback.remove_interests(team_id, user_id, wanted)
        if not removed:
            return notice("interests.not_found", lang, interests=listed(wanted, lang))
        return notice("interests.removed", lang, interests=listed(removed, lang))
    for interest in wanted:
        if len(interest) > MAX_INTEREST_CHARS:
            return notice("interests.too_long", lang, interest=escape(truncate(interest, 40)), limit=MAX_INTEREST_CHARS)
        if not analyze(interest):
            return notice("interests.no_words", lang, interest=escape(interest))
    known = {i.casefold() for i in current}
    fresh = list(dict.fromkeys(i for i in wanted if i.casefold() not in known))
    if len(current) + len(fresh) > MAX_INTERESTS:
        return notice("interests.too_many", lang, limit=MAX_INTERESTS)
    if not fresh:
        return notice("interests.already", lang, interests=listed(wanted, lang))
    feedback.add_interests(team_id, user_id, fresh)
    return notice("interests.added", lang, interests=listed(fresh, lang), all=listed(current + fresh, lang))
