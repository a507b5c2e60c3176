"""When a digest runs, as people type it: times, time zones and days of the week.

Pure functions, no I/O. `parse_time` reads `9`, `9am`, `09:30`, `9.30`, `0930`,
`9:30pm`, `早上8点`, `上午9点半`, `下午3点`, `晚上9点`; `suggest_time` offers a
correction for time-like words that don't parse (`8;30` -> 08:30). `parse_zone` reads
IANA names in any case, `UTC+8` / `GMT-5`, and city or country names in English and
Chinese, and refuses abbreviations that name several zones (EST, CST, IST) with the
zones they might mean. `parse_days` reads `daily`, `weekdays`, `weekly mon`, `每周一`.

Days are stored as APScheduler's cron `day_of_week` field in a canonical form: "*"
(every day) or a comma list of three-letter names in week order ("mon,tue,wed,thu,fri").
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.errors import ZoneRefusal

WEEK = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
EVERY_DAY = "*"
WEEKDAYS = "mon,tue,wed,thu,fri"

# -- times ---------------------------------------------------------------------------------

# 9 | 09 | 9:30 | 9.30 | 9am | 9 pm | 9:30pm | 21:00 (after NFKC, so full-width ９：３０ too)
_CLOCK = re.compile(r"^(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$", re.IGNORECASE)
_COMPACT = re.compile(r"^(\d{1,2})(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?$", re.IGNORECASE)  # 930 | 0930 | 2130 | 830am
_OCLOCK = re.compile(r"^(\d{1,2})\s*o['’]?\s*clock$", re.IGNORECASE)  # 9 o'clock | 9oclock
_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_NUMERAL = "0-9零〇一二两三四五六七八九十"
# Parts of the day that say which half of the clock an hour is in (上午9点, 晚上9:30).
CN_PERIODS = (
    "今天早上", "今天上午", "今天下午", "今天晚上", "今早", "今晚", "今夜",
    "凌晨", "清晨", "早上", "早晨", "上午", "中午", "午后", "下午", "傍晚", "晚上", "夜里", "夜间",
)  # fmt: skip
_CN_PERIOD = "|".join(CN_PERIODS)
# 早上8点 | 上午9点半 | 下午3点15分 | 晚上九点 | 8点30 | 20点 | 8时 | 9点钟 | 9点整
_CN_TIME = re.compile(
    rf"^({_CN_PERIOD})?"
    rf"([{_CN_NUMERAL}]{{1,3}})[点點时時](?:钟|鐘|整)?"
    rf"(?:(半|一刻|三刻)|([{_CN_NUMERAL}]{{1,3}})分?)?$"
)
_CN_PERIOD_CLOCK = re.compile(rf"^({_CN_PERIOD})(\d{{1,2}}(?:[:.]\d{{2}})?)$")  # 上午9:30 | 晚上9.30 | 早上8
_AFTERNOON = {"午后", "下午", "傍晚", "晚上", "夜里", "夜间", "今天下午", "今天晚上", "今晚", "今夜"}
_EN_AFTERNOON = {"afternoon", "evening", "tonight"}
NAMED_TIMES = {
    "noon": (12, 0), "midday": (12, 0), "12noon": (12, 0), "中午": (12, 0), "正午": (12, 0),
    "midnight": (0, 0), "12midnight": (0, 0), "午夜": (0, 0),
}  # fmt: skip
"""Times with a name: a digest at noon or midnight (`中午12点` is read by _CN_TIME)."""
DATE_WORDS = frozenset({"today", "tomorrow", "今天", "明天", "后天", "今日", "明日", "明早", "明晚", "明天早上", "明天晚上"})
"""A date, not a schedule: digests follow days of the week, so `tomorrow` is explained, not a filter."""
PERIOD_WORDS = frozenset({*CN_PERIODS, "morning", "afternoon", "evening", "tonight"})
"""A part of the day without an hour (`上午`, `morning`): time-like, but which hour is not said."""
# What looks like an attempt at a time: digits with a separator, am/pm, or 点.
_TIMEISH = re.compile(
    r"^\d{1,2}\s*[:;,.'h]\s*\d*$|^\d{1,2}(?:[:.]\d+)?\s*(?:am|pm|a|p|ish|h|hrs?|uhr)$|^\d{1,2}[:.]$|^\d{5,6}$|"
    rf"^(?:{_CN_PERIOD})?[{_CN_NUMERAL}]{{1,3}}[点點时時](?:钟|鐘|整|半|一刻|三刻|[{_CN_NUMERAL}]{{1,3}}分?)?$|"
    rf"^(?:{_CN_PERIOD})[\d:.]+$",
    re.IGNORECASE,
)
# A letter typed for a digit inside a time: 8:3O, O8:30, 8:3o, l0:30 (O for 0, l or I for 1).
_LOOKALIKES = str.maketrans({"O": "0", "o": "0", "l": "1", "I": "1"})
_WITH_LOOKALIKES = re.compile(r"^[\dOolI]{1,2}[:.][\dOolI]{1,2}(?:am|pm)?$|^[\dOolI]{3,4}(?:am|pm)$", re.IGNORECASE)


def _cn_number(text: str) -> int | None:
    """Read 8, 08, 八, 十, 十二, 二十, 二十三, 三十 as an int; None otherwise."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        if len(tens) > 1 or len(ones) > 1:
            return None
        high = _CN_DIGITS.get(tens) if tens else 1
        low = _CN_DIGITS.get(ones) if ones else 0
        return None if high is None or low is None else high * 10 + low
    if len(text) == 1:
        return _CN_DIGITS.get(text)
    return None


def normalize_word(word: str) -> str:
    """Fold full-width forms (９：３０, ＵＴＣ＋８) to ASCII, and trim."""
    return unicodedata.normalize("NFKC", word or "").strip()


def parse_time(word: str) -> tuple[int, int] | None:
    """Read a time as people type it into (hour, minute); None when it isn't one.

    `12am` is midnight, `12pm` noon; `noon`, `midnight`, `中午`, `9 o'clock`, `830am`,
    `上午9:30` and `9点钟` are times too. `24:00`, `9:75`, `13pm` are None. A four-digit
    word that reads as a year (19xx, 20xx) is not a time: `2024` stays a filter word.
    """
    word = normalize_word(word).replace(" ", "")
    if word.lower() in NAMED_TIMES:
        return NAMED_TIMES[word.lower()]
    oclock = _OCLOCK.match(word)
    if oclock:
        hour = int(oclock.group(1))
        return (hour, 0) if hour <= 23 else None
    match = _CLOCK.match(word) or _COMPACT.match(word)
    if match:
        if match.re is _COMPACT and len(word) == 4 and word[:2] in ("19", "20"):
            return None
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        half = (match.group(3) or "").lower().replace(".", "")
        if half:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if half == "pm" else 0)
        return (hour, minute) if hour <= 23 and minute <= 59 else None
    return _parse_chinese_time(word)


def _with_period(period: str | None, hour: int) -> int:
    """The hour on a 24-hour clock once the part of the day is known (下午3点 is 15:00)."""
    if period in _AFTERNOON and 1 <= hour < 12:
        return hour + 12
    if period == "中午" and hour < 3:
        return hour + 12  # 中午1点 is 13:00; 中午12点 stays noon
    if period in ("凌晨", "清晨", "早上", "早晨", "上午") and hour == 12:
        return 0 if period == "凌晨" else 12
    return hour


def with_period_word(period: str, hour: int) -> int:
    """The hour once a part of the day typed beside it is known: `tonight 9` is 21:00,
    `9pm tonight` stays 21:00, `morning 9` 09:00, `晚上 9点` 21:00."""
    if period.lower() == "tonight" and hour == 12:
        return 0  # tonight 12 is midnight
    if period.lower() in _EN_AFTERNOON and 1 <= hour < 12:
        return hour + 12
    return _with_period(period, hour)


def _parse_chinese_time(word: str) -> tuple[int, int] | None:
    clock = _CN_PERIOD_CLOCK.match(word)
    if clock:
        parsed = _CLOCK.match(clock.group(2))
        if not parsed:
            return None
        clock_hour, clock_minute = int(parsed.group(1)), int(parsed.group(2) or 0)
        if clock_hour > 23 or clock_minute > 59:
            return None
        return _with_period(clock.group(1), clock_hour), clock_minute
    match = _CN_TIME.match(word)
    if not match:
        return None
    period, hour_text, fraction, minute_text = match.groups()
    hour = _cn_number(hour_text)
    minute: int | None = {"半": 30, "一刻": 15, "三刻": 45}.get(fraction or "", 0)
    if minute_text:
        minute = _cn_number(minute_text)
    if hour is None or minute is None or hour > 23 or minute > 59:
        return None
    return _with_period(period, hour), minute


def _repaired(word: str) -> str:
    """`word` with look-alike letters made digits when it is a time otherwise (8:3O -> 8:30)."""
    return word.translate(_LOOKALIKES) if _WITH_LOOKALIKES.match(word) and any(c.isdigit() for c in word) else word


def is_timeish(word: str) -> bool:
    """Tell whether `word` looks like an attempt at a time (so it must not become a filter)."""
    word = normalize_word(word)
    if word.lower() in PERIOD_WORDS:
        return True
    repaired = _repaired(word)
    return parse_time(repaired) is not None or bool(_TIMEISH.search(repaired))


def is_spelled_time(word: str) -> bool:
    """A time nobody types as a filter word: with a colon, am/pm, 点, a name (`noon`), or
    a letter for a digit (`8:3O`). A bare number is not one (`GPT 4`, `2024 results`)."""
    text = _repaired(normalize_word(word))
    lowered = text.lower()
    if lowered in NAMED_TIMES:
        return True
    if not any(c.isdigit() or c in _CN_NUMERAL for c in text) or text.isdigit():
        return False
    return bool(_TIMEISH.search(text)) or parse_time(text) is not None


def suggest_time(word: str) -> str | None:
    """The time a time-like word probably meant, as HH:MM (`8;30`, `8:3`, `8h30`, `8:3O` -> 08:30)."""
    text = _repaired(normalize_word(word))
    for attempt in (text, text + "m", re.sub(r"(?i)(ish|hrs?|uhr)$", "", text)):
        parsed = parse_time(attempt)
        if parsed is not None:
            return f"{parsed[0]:02d}:{parsed[1]:02d}"
    digits = re.findall(r"\d+", text)
    if len(digits) == 2:
        hour, minute = digits
        if len(minute) == 1:
            minute += "0"
        if len(minute) == 2 and int(hour) <= 23 and int(minute) <= 59:
            return f"{int(hour):02d}:{minute}"
    if len(digits) == 1 and len(digits[0]) in (3, 4):
        hour, minute = int(digits[0][:-2]), int(digits[0][-2:])
        if hour <= 23 and minute <= 59:
            return f"{hour:02d}:{minute:02d}"
    if len(digits) == 1 and len(digits[0]) <= 2 and int(digits[0]) <= 23:
        return f"{int(digits[0]):02d}:00"
    return None


# -- zones ---------------------------------------------------------------------------------


# Abbreviations and names that mean more than one place; what each might mean.
AMBIGUOUS = {
    "est": ("America/New_York", "America/Toronto", "UTC-5"),
    "edt": ("America/New_York", "America/Toronto"),
    "et": ("America/New_York", "America/Toronto"),
    "cst": ("America/Chicago", "Asia/Shanghai", "America/Havana"),
    "cdt": ("America/Chicago", "America/Havana"),
    "ct": ("America/Chicago", "Asia/Shanghai"),
    "ist": ("Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"),
    "pst": ("America/Los_Angeles", "Asia/Manila"),
    "pdt": ("America/Los_Angeles",),
    "pt": ("America/Los_Angeles",),
    "mst": ("America/Denver", "America/Phoenix"),
    "mdt": ("America/Denver",),
    "bst": ("Europe/London", "Asia/Dhaka"),
    "ast": ("America/Halifax", "Asia/Riyadh"),
    "cet": ("Europe/Berlin", "Europe/Paris", "Europe/Madrid"),
    "cest": ("Europe/Berlin", "Europe/Paris", "Europe/Madrid"),
    "eet": ("Europe/Athens", "Europe/Helsinki", "Africa/Cairo"),
    "wet": ("Europe/Lisbon", "Atlantic/Canary"),
    "aest": ("Australia/Sydney", "Australia/Brisbane"),
    "hst": ("Pacific/Honolulu",),
    "us": ("America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles"),
    "usa": ("America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles"),
    "america": ("America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles"),
    "美国": ("America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles"),
    "canada": ("America/Toronto", "America/Vancouver", "America/Halifax"),
    "加拿大": ("America/Toronto", "America/Vancouver", "America/Halifax"),
    "australia": ("Australia/Sydney", "Australia/Brisbane", "Australia/Perth"),
    "澳大利亚": ("Australia/Sydney", "Australia/Brisbane", "Australia/Perth"),
    "澳洲": ("Australia/Sydney", "Australia/Brisbane", "Australia/Perth"),
    "russia": ("Europe/Moscow", "Asia/Novosibirsk", "Asia/Vladivostok"),
    "俄罗斯": ("Europe/Moscow", "Asia/Novosibirsk", "Asia/Vladivostok"),
}

# Places people name (English and Chinese) -> their zone. IANA's own city names (Tokyo,
# London, New_York, ...) are found without this table, in any case, with spaces or `_`.
PLACES = {
    "beijing": "Asia/Shanghai", "peking": "Asia/Shanghai", "china": "Asia/Shanghai", "prc": "Asia/Shanghai",
    "北京": "Asia/Shanghai", "上海": "Asia/Shanghai", "中国": "Asia/Shanghai", "深圳": "Asia/Shanghai",
    "广州": "Asia/Shanghai", "杭州": "Asia/Shanghai", "南京": "Asia/Shanghai", "武汉": "Asia/Shanghai",
    "成都": "Asia/Shanghai", "西安": "Asia/Shanghai", "合肥": "Asia/Shanghai", "天津": "Asia/Shanghai",
    "苏州": "Asia/Shanghai", "shenzhen": "Asia/Shanghai", "guangzhou": "Asia/Shanghai",
    "hangzhou": "Asia/Shanghai", "nanjing": "Asia/Shanghai", "wuhan": "Asia/Shanghai",
    "chengdu": "Asia/Shanghai", "香港": "Asia/Hong_Kong", "hk": "Asia/Hong_Kong", "hkt": "Asia/Hong_Kong",
    "台北": "Asia/Taipei", "台湾": "Asia/Taipei", "taiwan": "Asia/Taipei", "澳门": "Asia/Macau",
    "东京": "Asia/Tokyo", "日本": "Asia/Tokyo", "japan": "Asia/Tokyo", "jst": "Asia/Tokyo", "京都": "Asia/Tokyo",
    "kyoto": "Asia/Tokyo", "osaka": "Asia/Tokyo", "大阪": "Asia/Tokyo",
    "首尔": "Asia/Seoul", "韩国": "Asia/Seoul", "korea": "Asia/Seoul", "kst": "Asia/Seoul",
    "新加坡": "Asia/Singapore", "sgt": "Asia/Singapore",
    "印度": "Asia/Kolkata", "india": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata", "bangalore": "Asia/Kolkata", "bengaluru": "Asia/Kolkata", "孟买": "Asia/Kolkata",
    "迪拜": "Asia/Dubai", "以色列": "Asia/Jerusalem", "israel": "Asia/Jerusalem", "tel aviv": "Asia/Jerusalem",
    "伦敦": "Europe/London", "英国": "Europe/London", "uk": "Europe/London", "england": "Europe/London",
    "britain": "Europe/London", "oxford": "Europe/London", "cambridge": "Europe/London", "牛津": "Europe/London",
    "剑桥": "Europe/London", "edinburgh": "Europe/London", "爱丁堡": "Europe/London",
    "巴黎": "Europe/Paris", "法国": "Europe/Paris", "france": "Europe/Paris",
    "柏林": "Europe/Berlin", "德国": "Europe/Berlin", "germany": "Europe/Berlin", "munich": "Europe/Berlin",
    "慕尼黑": "Europe/Berlin", "苏黎世": "Europe/Zurich", "瑞士": "Europe/Zurich", "switzerland": "Europe/Zurich",
    "阿姆斯特丹": "Europe/Amsterdam", "荷兰": "Europe/Amsterdam", "netherlands": "Europe/Amsterdam",
    "莫斯科": "Europe/Moscow", "罗马": "Europe/Rome", "意大利": "Europe/Rome", "italy": "Europe/Rome",
    "马德里": "Europe/Madrid", "西班牙": "Europe/Madrid", "spain": "Europe/Madrid",
    "纽约": "America/New_York", "波士顿": "America/New_York", "boston": "America/New_York",
    "pittsburgh": "America/New_York", "匹兹堡": "America/New_York", "princeton": "America/New_York",
    "普林斯顿": "America/New_York", "washington": "America/New_York", "华盛顿": "America/New_York",
    "atlanta": "America/New_York", "philadelphia": "America/New_York", "费城": "America/New_York",
    "多伦多": "America/Toronto", "蒙特利尔": "America/Toronto", "montreal": "America/Toronto",
    "芝加哥": "America/Chicago", "austin": "America/Chicago", "奥斯汀": "America/Chicago",
    "houston": "America/Chicago", "休斯顿": "America/Chicago", "dallas": "America/Chicago",
    "丹佛": "America/Denver", "菲尼克斯": "America/Phoenix",
    "洛杉矶": "America/Los_Angeles", "旧金山": "America/Los_Angeles", "san francisco": "America/Los_Angeles",
    "sf": "America/Los_Angeles", "seattle": "America/Los_Angeles", "西雅图": "America/Los_Angeles",
    "san jose": "America/Los_Angeles", "圣何塞": "America/Los_Angeles", "palo alto": "America/Los_Angeles",
    "stanford": "America/Los_Angeles", "斯坦福": "America/Los_Angeles", "berkeley": "America/Los_Angeles",
    "伯克利": "America/Los_Angeles", "硅谷": "America/Los_Angeles", "silicon valley": "America/Los_Angeles",
    "温哥华": "America/Vancouver", "悉尼": "Australia/Sydney", "墨尔本": "Australia/Melbourne",
    "新西兰": "Pacific/Auckland", "new zealand": "Pacific/Auckland", "奥克兰": "Pacific/Auckland",
    "utc": "UTC", "gmt": "UTC", "z": "UTC", "zulu": "UTC", "协调世界时": "UTC", "世界时": "UTC",
}  # fmt: skip


def chinese_city(zone: str) -> str | None:
    """The Chinese place name for a zone (Asia/Shanghai -> 北京), from PLACES; None if none."""
    return _chinese_cities().get(zone)


@cache
def _chinese_cities() -> dict[str, str]:
    names: dict[str, str] = {}
    for place, zone in PLACES.items():
        if re.search(r"[\u4e00-\u9fff]", place) and zone != "UTC":
            names.setdefault(zone, place)
    return names


_AREAS = ("Africa/", "America/", "Antarctica/", "Asia/", "Atlantic/", "Australia/", "Europe/", "Indian/", "Pacific/")
# UTC+8 | UTC+08:00 | GMT-5 | UTC +5 (after NFKC and dropping spaces)
_OFFSET = re.compile(r"^(?:utc|gmt)([+-])(\d{1,2})(?::?(\d{2}))?$", re.IGNORECASE)


@cache
def _zone_names() -> dict[str, str]:
    """Every zone zoneinfo knows, keyed by its lowercase name and (when unique) its city."""
    names = {n for n in available_timezones() if n not in ("Factory", "localtime")}
    table = {n.lower(): n for n in names}
    cities: dict[str, list[str]] = {}
    for name in names:
        if name.startswith(_AREAS):
            cities.setdefault(name.rsplit("/", 1)[1].lower(), []).append(name)
    for city, zones in cities.items():
        if len(zones) == 1:
            table.setdefault(city, zones[0])
            table.setdefault(city.replace("_", " "), zones[0])
    return table


def _key(word: str) -> str:
    text = normalize_word(word).strip("\"'“”‘’()（）")
    for suffix in ("时间", "時間"):
        if text.endswith(suffix) and len(text) > len(suffix):
            text = text[: -len(suffix)]
    return " ".join(text.replace("_", " ").split()).lower()


def parse_zone(word: str) -> str:
    """Read a time zone as people name it; return its IANA name or raise ZoneRefusal.

    `asia/shanghai`, `Asia/Shanghai`, `UTC+8` (-> Etc/GMT-8: POSIX signs are inverted),
    `GMT-5`, `北京`, `北京时间`, `Tokyo`, `new york`, `New_York`. EST, CST, IST, `US` and
    the like name several zones: refused, with `options`.
    """
    raw = normalize_word(word)
    key = _key(raw)
    if not key or key.startswith(("/", ".")) or ".." in key:
        raise ZoneRefusal("unknown", raw)
    if key in AMBIGUOUS:
        raise ZoneRefusal("ambiguous", raw, AMBIGUOUS[key])
    offset = _OFFSET.match(key.replace(" ", ""))
    if offset:
        sign, hours, minutes = offset.group(1), int(offset.group(2)), int(offset.group(3) or 0)
        if minutes or hours > 14:
            raise ZoneRefusal("offset", raw)
        if hours == 0:
            return "UTC"
        return f"Etc/GMT{'-' if sign == '+' else '+'}{hours}"
    name = PLACES.get(key) or _zone_names().get(key) or _zone_names().get(key.replace(" ", "_"))
    if name is None:
        raise ZoneRefusal("unknown", raw)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ZoneRefusal("unknown", raw) from None
    return name


def is_zone_word(word: str) -> bool:
    """A bare word that can only be a zone: `UTC+8`, `Asia/Shanghai`, `北京时间` (not `London`)."""
    raw = normalize_word(word)
    if _OFFSET.match(raw.replace(" ", "")):
        return True
    if "/" in raw and raw.split("/")[0].lower() + "/" in {a.lower() for a in _AREAS}:
        return True
    return raw.endswith(("时间", "時間")) and _key(raw) in PLACES


def zone_offset_label(name: str) -> str | None:
    """`Etc/GMT-8` -> `UTC+8` (what the person typed); None for other zones."""
    match = re.fullmatch(r"Etc/GMT([+-])(\d{1,2})", name)
    if not match:
        return None
    return f"UTC{'-' if match.group(1) == '+' else '+'}{match.group(2)}"


# -- days ----------------------------------------------------------------------------------

_DAY_WORDS = {
    **{d: d for d in WEEK},
    "monday": "mon", "tuesday": "tue", "tues": "tue", "wednesday": "wed", "thursday": "thu", "thur": "thu",
    "thurs": "thu", "friday": "fri", "saturday": "sat", "sunday": "sun",
    "mondays": "mon", "tuesdays": "tue", "wednesdays": "wed", "thursdays": "thu", "fridays": "fri",
    "saturdays": "sat", "sundays": "sun",
}  # fmt: skip
_CN_WEEKDAY = {
    "一": "mon",
    "二": "tue",
    "三": "wed",
    "四": "thu",
    "五": "fri",
    "六": "sat",
    "日": "sun",
    "天": "sun",
    "末": "sat,sun",
}
_CN_DAYS = re.compile(r"^(?:每)?(?:周|星期|礼拜|禮拜)([一二三四五六日天末]+)$")
EVERY_DAY_WORDS = {"daily", "everyday", "every-day", "每天", "每日", "天天"}
WEEKDAY_WORDS = {"weekdays", "weekday", "workdays", "工作日", "每个工作日", "周一至周五", "周一到周五"}
WEEKLY_WORDS = {"weekly", "每周", "每星期", "每礼拜"}


def canonical_days(days: set[str]) -> str:
    """Days in week order as the cron field: all seven -> "*"."""
    if set(WEEK) <= days:
        return EVERY_DAY
    return ",".join(d for d in WEEK if d in days)


def day_set(days: str) -> set[str]:
    return set(WEEK) if days in ("", EVERY_DAY) else set(days.split(","))


def parse_day_word(word: str) -> set[str] | None:
    """`mon`, `Monday`, `mon,wed,fri`, `mon-fri`, `周一`, `每周一三五`, `周末` -> days; else None."""
    text = normalize_word(word).lower().strip(",，、")
    if text in ("weekend", "weekends"):
        return {"sat", "sun"}
    match = _CN_DAYS.match(text)
    if match:
        return {d for ch in match.group(1) for d in _CN_WEEKDAY[ch].split(",")}
    if "-" in text and text.count("-") == 1:
        start, end = (_DAY_WORDS.get(p) for p in text.split("-"))
        if start and end:
            i, j = WEEK.index(start), WEEK.index(end)
            return set(WEEK[i : j + 1]) if i <= j else set(WEEK[i:] + WEEK[: j + 1])
        return None
    parts = [p for p in re.split(r"[,，、/]", text) if p]
    if parts and all(p in _DAY_WORDS for p in parts):
        return {_DAY_WORDS[p] for p in parts}
    return None


_CN_DAY_PREFIX = re.compile(r"^(?:每个工作日|工作日|每天|每日|天天|(?:每)?(?:周|星期|礼拜|禮拜)[一二三四五六日天末]|每周|每星期)")


def split_day_prefix(word: str) -> list[str]:
    """Split the days off a Chinese time typed without a space: `每天早上9点` -> `每天`, `早上9点`.

    Only when what follows the days is time-like; any other word comes back whole.
    """
    match = _CN_DAY_PREFIX.match(normalize_word(word))
    if not match or match.end() == len(normalize_word(word)):
        return [word]
    head, tail = normalize_word(word)[: match.end()], normalize_word(word)[match.end() :]
    return [head, tail] if is_timeish(tail) else [word]
