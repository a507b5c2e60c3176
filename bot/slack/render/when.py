"""Dates, times, zones and schedules as readers read them, in either language.

`Tue 1 Dec 2026, 09:00 (UTC)` / `2026年12月1日（周二）09:00（北京时间）`; in messages, through
Slack's date formatting (`<!date^…>`), so each reader sees their own local time.
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.digests.times import WEEK, WEEKDAYS, chinese_city, day_set, zone_offset_label
from bot.i18n import t


def format_date(day: date, lang: str) -> str:
    """Tue 1 Dec 2026 / 2026年12月1日（周二）."""
    weekday = t("digest.weekdays", lang).split("|")[day.weekday()]
    month = t("digest.months", lang).split("|")[day.month - 1]
    return t("digest.date", lang, weekday=weekday, day=day.day, month=month, year=day.year)


def zone_label(zone: str, lang: str) -> str:
    """A zone as a reader names it: `UTC+8` as typed, 北京时间 in Chinese, else the IANA name."""
    offset = zone_offset_label(zone)
    if offset or zone == "UTC":
        return offset or "UTC"
    city = chinese_city(zone) if lang == "zh" else None
    if city:
        return t("zone.label_city", lang, city=city)
    return t("zone.label", lang, zone=zone)


def schedule_label(days: str, lang: str) -> str:
    """`*` -> every day, weekdays -> every weekday, `mon` -> every Monday / 每周一."""
    chosen = [d for d in WEEK if d in day_set(days)]
    if len(chosen) == 7:
        return t("schedule.every_day", lang)
    if days == WEEKDAYS:
        return t("schedule.weekdays", lang)
    names = t("schedule.day_names", lang).split("|")
    shown = [names[WEEK.index(d)] for d in chosen]
    if len(shown) == 1:
        return t("schedule.one_day", lang, day=shown[0])
    return t("schedule.some_days", lang, days=LIST_SEPARATOR[lang].join(shown[:-1]), last=shown[-1])


LIST_SEPARATOR = {"en": ", ", "zh": "、"}  # how a list of day names is joined


def format_when(moment: datetime, lang: str) -> str:
    """A moment for readers: Slack's `<!date^…>` shows it in each reader's own time zone;
    the fallback (old clients, notifications) is `Tue 1 Dec 2026, 09:00 (Asia/Shanghai)`."""
    return slack_date(moment, plain_when(moment, lang))


def plain_when(moment: datetime, lang: str) -> str:
    """Tue 1 Dec 2026, 09:00 (UTC) / 2026年12月1日（周二）09:00（北京时间）, in the moment's zone."""
    zone = getattr(moment.tzinfo, "key", None) or moment.tzname() or "UTC"
    return t(
        "digest.when", lang, date=format_date(moment.date(), lang), time=moment.strftime("%H:%M"), zone=zone_label(zone, lang)
    )


def slack_date(moment: datetime, fallback: str) -> str:
    """Slack's date formatting: `<!date^UNIX^{date_short_pretty} {time}|fallback>`."""
    safe = fallback.replace("|", "/").replace(">", "›").replace("<", "‹")
    return f"<!date^{int(moment.timestamp())}^{{date_short_pretty}} {{time}}|{safe}>"


def next_run_text(moment: datetime, lang: str, reader_zone: str | None = None) -> str:
    """A digest's next run beside its time and zone: the date in the digest's own zone (the
    line already says the time), and the reader's own time when their zone differs.

    A line that said "09:00 (Asia/Shanghai) · next: Tue 02:00" (Slack's date in the reader's
    zone) mixed two clocks; this one says which is which.
    """
    day = format_date(moment.date(), lang)
    if not reader_zone:
        return day
    try:
        theirs = moment.astimezone(ZoneInfo(reader_zone))
    except (ZoneInfoNotFoundError, ValueError):
        return day
    if theirs.utcoffset() == moment.utcoffset():
        return day
    return t("zone.next_your_time", lang, date=day, yours=slack_date(moment, plain_when(theirs, lang)))
