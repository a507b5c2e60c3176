"""When a subscription runs: its run time on a day, whether a day is one of its days,
which day's digest is due now, and the next run after now.

Times are the subscription's own zone's wall-clock times; daylight-saving gaps and
repeats are resolved here the way APScheduler's CronTrigger resolves them.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.clock import parse_iso
from bot.digests.subscriptions import Subscription
from bot.digests.times import WEEK

GRACE = timedelta(hours=6)
"""How late a digest may still go out: a restart or an outage shorter than this delays
the day's digest; a longer one skips the day (its papers come in the next digest)."""


def run_time(day: date, hour: int, minute: int, zone: ZoneInfo) -> datetime:
    """The moment (UTC) of `hour:minute` on `day` in `zone`.

    On a spring-forward day a time in the gap (02:30 in New York) means the instant it
    would have been before the clocks moved (03:30 new time); on a fall-back day an
    ambiguous time means its first occurrence. APScheduler's CronTrigger fires at the same
    instants, and fires the repeated hour a second time, which the daily claim absorbs.
    """
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone).astimezone(UTC)


def is_run_day(sub: Subscription, day: date) -> bool:
    """Whether the subscription posts on `day` (its local date): daily, weekdays, chosen days."""
    return WEEK[day.weekday()] in sub.day_set


def due_date(sub: Subscription, now: datetime, grace: timedelta = GRACE) -> date | None:
    """The local date whose digest is due at `now`: a run day, run time passed less than `grace` ago."""
    zone = sub.zone
    today = now.astimezone(zone).date()
    since = parse_iso(sub.active_since) if sub.active_since else None
    for day in (today, today - timedelta(days=1)):
        if not is_run_day(sub, day):
            continue
        at = run_time(day, sub.hour, sub.minute, zone)
        if at <= now and now - at <= grace and (since is None or at >= since):
            return day
    return None


def next_run(sub: Subscription, now: datetime) -> datetime:
    """The next run time after `now` on one of its days, in the subscription's zone."""
    zone = sub.zone
    today = now.astimezone(zone).date()
    for offset in range(9):
        day = today + timedelta(days=offset)
        if not is_run_day(sub, day):
            continue
        at = run_time(day, sub.hour, sub.minute, zone)
        if at > now:
            return at.astimezone(zone)
    raise AssertionError("unreachable: a weekly time recurs within nine days")
