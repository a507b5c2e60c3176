"""What people type after `/papers subscribe`, read into a SubscribeRequest.

`[en|zh] [DAYS] [TIME] [tz:ZONE] [top:N] [order:new|foryou|popular] [notify:empty] [FILTER]`:
options first in any order, the rest is the filter. The words for days, times and zones
are read by bot/digests/times.py; a line that can't be read raises SubscribeError with
the i18n key that says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.digests.times import (
    EVERY_DAY,
    EVERY_DAY_WORDS,
    WEEKDAY_WORDS,
    WEEKDAYS,
    WEEKLY_WORDS,
    canonical_days,
    day_set,
    is_timeish,
    is_zone_word,
    normalize_word,
    parse_day_word,
    parse_time,
    parse_zone,
    suggest_time,
)
from bot.errors import SubscribeError, ZoneRefusal
from bot.i18n import is_lang, normalize_lang, t

MAX_TOP = 25  # a highlight row is one block; 25 leave room in a 50-block message


MAX_FILTER_CHARS = 500


NOTIFY_EMPTY = {"notify:empty": True, "notify:always": True, "notify:none": False, "notify:new": False}


_TOP = re.compile(r"^(?:top|highlights|精选)[:：](\S*)$", re.IGNORECASE)


_ZONE_PREFIX = ("tz:", "时区:", "zone:")  # after NFKC, which folds the full-width colon


@dataclass
class SubscribeRequest:
    """`/papers subscribe [en|zh] [DAYS] [TIME] [tz:ZONE] [top:N] [notify:empty] [FILTER]`, parsed."""

    lang: str | None = None
    hour: int | None = None
    minute: int | None = None
    timezone: str | None = None
    notify_empty: bool | None = None
    days: str | None = None
    top: int | None = None
    filter_text: str = ""
    order: str | None = None  # "new" | "foryou" | "popular"

    @property
    def has_options(self) -> bool:
        values = (self.lang, self.hour, self.timezone, self.notify_empty, self.days, self.top, self.order)
        return any(v is not None for v in values) or bool(self.filter_text)


ORDERS = ("new", "foryou", "popular")


def check_zone(name: str) -> str | None:
    """Return the IANA zone `name` means (any spelling bot.digests.times reads), else None."""
    try:
        return parse_zone(name)
    except ZoneRefusal:
        return None


def _zone_error(refusal: ZoneRefusal) -> SubscribeError:
    if refusal.key == "ambiguous":
        options = " / ".join(f"`tz:{o}`" for o in refusal.options)  # reads the same in both languages
        return SubscribeError("subscribe.zone_ambiguous", value=refusal.value, options=options)
    if refusal.key == "offset":
        return SubscribeError("subscribe.zone_offset", value=refusal.value)
    return SubscribeError("subscribe.bad_zone", value=refusal.value or "tz:")


def _time_error(word: str) -> SubscribeError:
    suggestion = suggest_time(word)
    if suggestion:
        return SubscribeError("subscribe.bad_time_suggest", value=word, suggestion=suggestion)
    return SubscribeError("subscribe.bad_time", value=word)


def _spelled_time(word: str) -> tuple[int, int] | None:
    """A time nobody means as a filter word (with a colon, am/pm or 点: `9:30`, `9pm`, `8点`), read; else None."""
    text = normalize_word(word).lower()
    if not (":" in text or text.endswith(("am", "pm")) or any(c in text for c in "点點时時")):
        return None
    return parse_time(word)


def parse_subscribe(text: str) -> SubscribeRequest:
    """Parse the words after `subscribe`: options first (any order), the rest is the filter.

    Options are read only before the filter starts, so a filter may hold anything the
    search syntax allows (`author:Chen`, `"KV cache" OR 推测解码`). A time or zone after
    the filter starts is still caught: the first is taken, a second one is an error
    (`9:00 9:30`), never a filter. Raises SubscribeError.
    """
    request = SubscribeRequest()
    words = text.split()
    days: set[str] | None = None
    last_was_day = False
    while words:
        word, lowered = words[0], normalize_word(words[0]).lower()
        taken = 1
        is_day = False
        if is_lang(word) and request.lang is None:  # the words `/papers lang` knows
            request.lang = normalize_lang(word)
        elif lowered.startswith(_ZONE_PREFIX) or is_zone_word(word):
            value = normalize_word(word).split(":", 1)[1] if lowered.startswith(_ZONE_PREFIX) else word
            if request.timezone is not None:
                raise SubscribeError("subscribe.two_zones", first=request.timezone, second=value)
            request.timezone, taken = _read_zone(value, words[1:])
        elif lowered.startswith("notify:") and request.notify_empty is None:
            key = lowered
            if key not in NOTIFY_EMPTY:
                raise SubscribeError("subscribe.bad_notify", value=word)
            request.notify_empty = NOTIFY_EMPTY[key]
        elif lowered.startswith(("order:", "order：")) and request.order is None:
            value = lowered[6:]
            if value not in ORDERS:
                raise SubscribeError("subscribe.bad_order", value=word)
            request.order = value
        elif top := _TOP.match(lowered):
            raw = top.group(1)
            if not raw.isdigit() or not 1 <= int(raw) <= MAX_TOP:
                raise SubscribeError("subscribe.bad_top", value=word, limit=MAX_TOP)
            request.top = int(raw)
        elif lowered in EVERY_DAY_WORDS or lowered in WEEKDAY_WORDS:
            if days is not None:
                raise SubscribeError("subscribe.two_schedules", value=word)
            days = set(day_set(EVERY_DAY if lowered in EVERY_DAY_WORDS else WEEKDAYS))
        elif lowered in WEEKLY_WORDS:
            if days is not None:
                raise SubscribeError("subscribe.two_schedules", value=word)
            following = parse_day_word(words[1]) if len(words) > 1 else None
            days, taken = (following, 2) if following else ({"mon"}, 1)
            is_day = bool(following)
        elif (named := parse_day_word(word)) is not None and (days is None or last_was_day):
            days = (days or set()) | named
            is_day = True
        elif is_timeish(word) or (word.isdigit() and len(words) > 1 and words[1].lower() in ("am", "pm")):
            if len(words) > 1 and words[1].lower() in ("am", "pm") and word.isdigit():
                word, taken = word + words[1], 2
            if request.hour is not None:
                if word.isdigit():  # "9 2024 results": a bare number after the time is a filter word
                    break
                raise SubscribeError("subscribe.two_times", first=f"{request.hour:02d}:{request.minute:02d}", second=word)
            parsed = parse_time(word)
            if parsed is None:
                raise _time_error(word)
            request.hour, request.minute = parsed
        else:
            break
        last_was_day = is_day
        del words[:taken]
    rest: list[str] = []
    for word in words:  # a time or zone that strayed into the filter
        lowered = normalize_word(word).lower()
        if (spelled := _spelled_time(word)) is not None:
            if request.hour is not None:
                raise SubscribeError("subscribe.two_times", first=f"{request.hour:02d}:{request.minute:02d}", second=word)
            request.hour, request.minute = spelled
        elif lowered.startswith(_ZONE_PREFIX):
            if request.timezone is not None:
                raise SubscribeError("subscribe.two_zones", first=request.timezone, second=word)
            request.timezone, _ = _read_zone(normalize_word(word).split(":", 1)[1], [])
        else:
            rest.append(word)
    request.days = canonical_days(days) if days is not None else None
    request.filter_text = " ".join(rest)
    if len(request.filter_text) > MAX_FILTER_CHARS:
        raise SubscribeError("subscribe.filter_too_long", limit=MAX_FILTER_CHARS)
    return request


def _read_zone(value: str, following: list[str]) -> tuple[str, int]:
    """The zone `value` names, trying `value` plus the next word (`tz:New York`); how many words it took."""
    try:
        return parse_zone(value), 1
    except ZoneRefusal as refusal:
        if refusal.key == "unknown" and following:
            try:
                return parse_zone(f"{value} {following[0]}"), 2
            except ZoneRefusal:
                pass
        raise _zone_error(refusal) from None


BAD_FILTER_PROBLEMS = {
    "query_empty": "subscribe.filter_problem_query_empty",
    "query_repaired": "subscribe.filter_problem_query_repaired",
    "query_truncated": "subscribe.filter_problem_query_truncated",
}
"""A filter the parser had to repair would not mean what the subscriber typed: refused,
with its own words (unlike a search, nothing was ignored: the subscription was not made)."""


def filter_problem_text(problem: str, lang: str) -> str:
    """Why a filter was refused; `problem` is one of BAD_FILTER_PROBLEMS."""
    return t(BAD_FILTER_PROBLEMS[problem], lang)
