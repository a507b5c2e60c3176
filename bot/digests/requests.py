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
    CN_PERIODS,
    DATE_WORDS,
    EVERY_DAY,
    EVERY_DAY_WORDS,
    PERIOD_WORDS,
    WEEK,
    WEEKDAY_WORDS,
    WEEKDAYS,
    WEEKLY_WORDS,
    canonical_days,
    day_set,
    is_spelled_time,
    is_timeish,
    is_zone_word,
    normalize_word,
    parse_day_word,
    parse_time,
    parse_zone,
    split_day_prefix,
    suggest_time,
    with_period_word,
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

    def line(self, *, filter_text: str | None = None) -> str:
        """This request written back as a subscribe line that reads the same (for a button
        that subscribes on the person's behalf), optionally with another filter."""
        days = {EVERY_DAY: "daily", WEEKDAYS: "weekdays"}.get(self.days or "", self.days or "")
        words = [
            self.lang or "",
            days,
            f"{self.hour:02d}:{self.minute or 0:02d}" if self.hour is not None else "",
            f"tz:{self.timezone}" if self.timezone else "",
            f"top:{self.top}" if self.top else "",
            f"order:{self.order}" if self.order else "",
            {True: "notify:empty", False: "notify:none", None: ""}[self.notify_empty],
            self.filter_text if filter_text is None else filter_text,
        ]
        return " ".join(w for w in words if w)

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
    """A time in the filter's place: read when nobody would mean it as a filter word
    (`9:30`, `9pm`, `8点`, `noon`); a spelled time that can't be read is a did-you-mean."""
    if not is_spelled_time(word):
        return None
    parsed = parse_time(word)
    if parsed is None:
        raise _time_error(word)
    return parsed


_HALF = ("am", "pm", "a.m.", "p.m.")
_CN_AFTER_HOUR = re.compile(r"^(?:[点點时時](?:钟|鐘|整|半|一刻|三刻|\d{1,2}分?)?|钟|鐘|整|半|一刻|三刻|\d{1,2}分)$")
_HOURISH = re.compile(rf"^(?:{'|'.join(CN_PERIODS)})?[0-9零〇一二两三四五六七八九十]{{1,3}}(?:[:.]\d{{2}})?$")
_CN_HOUR = re.compile(rf"^(?:{'|'.join(CN_PERIODS)})?[0-9零〇一二两三四五六七八九十]+[点點时時]$")  # 8点, 下午3点
_EVERY = {"day": "daily", "weekday": "weekdays", "weekdays": "weekdays", "week": "weekly"}


def join_time_phrases(words: list[str]) -> list[str]:
    """Join the pieces of a time typed with spaces into one word, so it is read as one.

    `上午 9:30` -> `上午9:30`, `9 点` -> `9点`, `下午 3 点 半` -> `下午3点半`, `9:30 am` ->
    `9:30am`, `12 noon` -> `12noon`, `9 o'clock` -> `9o'clock`, `every monday` -> `monday`,
    `每天早上9点` -> `每天`, `早上9点`. Words that are not pieces of a time pass unchanged.
    """
    out: list[str] = []
    for raw in words:
        for word in split_day_prefix(raw):
            lowered = normalize_word(word).lower()
            previous = normalize_word(out[-1]).lower() if out else ""
            if out and previous in CN_PERIODS and re.match(r"^[0-9零〇一二两三四五六七八九十]", lowered):
                out[-1] += word  # 上午 9:30
            elif out and _HOURISH.match(previous) and _CN_AFTER_HOUR.match(lowered):
                out[-1] += word  # 9 点, 下午3 点, 8点 半
            elif out and _CN_HOUR.match(previous) and (_CN_AFTER_HOUR.match(lowered) or re.match(r"^\d{1,2}$", lowered)):
                out[-1] += word  # 8点 半, 9点 30
            elif out and lowered in _HALF and re.match(r"^\d{1,4}(?:[:.]\d{2})?$", previous):
                out[-1] += word  # 9:30 am
            elif out and lowered in ("noon", "midnight") and previous == "12":
                out[-1] += word  # 12 noon
            elif out and lowered in ("o'clock", "oclock", "o’clock") and previous.isdigit():
                out[-1] += word  # 9 o'clock
            elif previous == "every" and lowered in _EVERY | {d: d for d in _DAY_NAMES}:
                out[-1] = _EVERY.get(lowered, word)  # every day, every monday
            else:
                out.append(word)
    return out


_DAY_NAMES = frozenset({*WEEK, "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})


def _hour_and_minutes(words: list[str]) -> str:
    """`8 30` as the time it looks like (08:30), or "" when the two words aren't one."""
    if len(words) < 2 or not (words[0].isdigit() and len(words[0]) <= 2 and words[1].isdigit() and len(words[1]) == 2):
        return ""
    hour, minute = int(words[0]), int(words[1])
    return f"{hour:02d}:{minute:02d}" if hour <= 23 and minute <= 59 else ""


def _at_time(words: list[str], *, bare: bool) -> bool:
    """`at 9am`, `@ 21:00`, `around noon`: a word before what is a time; `bare`: a bare hour counts (`at 9`)."""
    if len(words) < 2 or normalize_word(words[0]).lower() not in ("at", "@", "around", "about"):
        return False
    following = words[1]
    return is_spelled_time(following) or (bare and following.isdigit() and parse_time(following) is not None)


def parse_subscribe(text: str) -> SubscribeRequest:
    """Parse the words after `subscribe`: options first (any order), the rest is the filter.

    Options are read only before the filter starts, so a filter may hold anything the
    search syntax allows (`author:Chen`, `"KV cache" OR 推测解码`). A time or zone after
    the filter starts is still caught: the first is taken, a second one is an error
    (`9:00 9:30`), never a filter. Raises SubscribeError.
    """
    request = SubscribeRequest()
    words = join_time_phrases([w.removeprefix("@") if len(w) > 1 else w for w in text.split()])
    days: set[str] | None = None
    last_was_day = last_was_time = False
    while words:
        word, lowered = words[0], normalize_word(words[0]).lower()
        taken = 1
        is_day = is_time = False
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
        elif _at_time(words, bare=True):
            pass  # "at 9": the time is the next word
        elif lowered in DATE_WORDS or lowered.startswith(("明天", "明早", "明晚", "明日", "后天")):  # tomorrow, 明早9点: a date
            raise SubscribeError("subscribe.not_a_schedule", value=word)
        elif lowered in PERIOD_WORDS:  # tonight 9pm, 9pm tonight: it says which half; 上午 alone: which hour?
            next_time = parse_time(words[1]) if len(words) > 1 and request.hour is None else None
            if next_time is not None:
                request.hour, request.minute = with_period_word(lowered, next_time[0]), next_time[1]
                taken, is_time = 2, True
            elif request.hour is not None and last_was_time:
                request.hour = with_period_word(lowered, request.hour)
            else:
                raise SubscribeError("subscribe.time_needs_hour", value=word)
        elif is_timeish(word):
            if request.hour is None and _hour_and_minutes(words):  # "8 30": ask, don't guess
                raise SubscribeError(
                    "subscribe.bad_time_suggest", value=f"{words[0]} {words[1]}", suggestion=_hour_and_minutes(words)
                )
            if request.hour is not None:
                if word.isdigit():  # "9 2024 results": a bare number after the time is a filter word
                    break
                raise SubscribeError("subscribe.two_times", first=f"{request.hour:02d}:{request.minute:02d}", second=word)
            parsed = parse_time(word)
            if parsed is None:
                raise _time_error(word)
            request.hour, request.minute = parsed
            is_time = True
        else:
            break
        last_was_day, last_was_time = is_day, is_time
        del words[:taken]
    rest: list[str] = []
    for index, word in enumerate(words):  # a time or zone that strayed into the filter
        lowered = normalize_word(word).lower()
        if _at_time(words[index:], bare=False):
            continue  # "KV cache at 9pm": the "at" goes with the time
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
