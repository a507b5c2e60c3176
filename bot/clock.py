"""Time, one copy: the clock everything is handed, and the store's timestamp format.

Nothing deep in paperbot reads the wall clock: a `Clock` is passed in (tests pass a fake
one), and `system_clock` is the real one, used only where the app is put together.
Timestamps in the store are ISO 8601 in UTC to the second (`2026-12-02T09:30:00+00:00`),
so they sort as text.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""Returns the current time as an aware datetime (UTC). Injected everywhere, for tests."""


def system_clock() -> datetime:
    """The real clock: now, in UTC."""
    return datetime.now(UTC)


def to_iso(moment: datetime) -> str:
    """The store's timestamp format: ISO 8601, UTC, to the second."""
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def parse_iso(text: str) -> datetime:
    """Read a stored timestamp back as an aware UTC datetime."""
    return datetime.fromisoformat(text).astimezone(UTC)


def utc_now_iso() -> str:
    """Now, in the store's timestamp format (for a Store built without a clock)."""
    return to_iso(system_clock())
