"""Work claimed in the database, so that of several instances on one store each job runs once.

`Leases`: a named piece of background work (a feed poll, the arXiv lookups, an inbox scan)
is run by whichever instance claims it first; the claim is a row with an expiry, renewed
while the work goes on, released when it ends. An instance that dies (kill -9, a lost
machine) stops renewing, and once its lease has expired another instance claims the work.
Digests have claims of their own (bot/digests/subscriptions.py: one per subscription and
local date).

`Ledger`: when each Slack channel (or API method) may next be called, shared by every
instance: one message a second per channel, each method's rate (Slack's tiers, given by
bot/slack/client.py), and a method's Retry-After holds them all. Slack counts them per
workspace, so each workspace has its own places (`ledger_place`: `rate:T1:users.info`,
`channel:T1:C123`); the single workspace of token mode keeps the plain names.

Both work on SQLite too (one process, or several on one data folder): the rows and the
write transactions are the same, and writers take turns on either store.

A lease, and a ledger's slot, is compared by one clock for every instance: the database's on
PostgreSQL (`Store.shared_clock`), so an instance whose clock runs ahead does not take over live work,
nor one whose clock lags hold a lease past its expiry. Leases take turns in a write domain
of their own (CLAIMS), so a renewal never waits behind another instance's ingest or digest.

Work whose lease is lost (an instance frozen past its lease, the database away while it ran
out, another instance took it over) is stopped: each write transaction the work opens checks
first that the lease is still ours and unexpired, and refuses with WorkClaimLost if not, so
the work stops at its next write instead of storing alongside the instance that took over.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

from bot.clock import Clock, system_clock, to_iso
from bot.errors import WorkClaimLost
from bot.store.database import CLAIMS, Store, apply_schema

logger = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS work_claims (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    claimed_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS slack_ledger (
    place   TEXT PRIMARY KEY,
    next_at REAL NOT NULL
);
"""


def instance_name() -> str:
    """Who holds a claim: this host and process, and a random part (a pid is reused after a restart)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@contextmanager
def renewing(renew: Callable[[], bool], every_s: float, what: str) -> Iterator[threading.Event]:
    """Call `renew` every `every_s` seconds on a thread while the block runs. The event is set
    once `renew` answers False (the claim is someone else's now); a call that fails (the
    database away) is logged and tried again at the next beat, the claim running out meanwhile
    unless the database comes back. Leases and digest deliveries both hold claims this way."""
    stop, lost = threading.Event(), threading.Event()

    def keep() -> None:
        while not stop.wait(every_s):
            try:
                if not renew():
                    lost.set()
                    return
            except Exception as exc:
                logger.warning("could not renew %s: %s", what, exc)

    thread = threading.Thread(target=keep, name=f"renew {what}", daemon=True)
    thread.start()
    try:
        yield lost
    finally:
        stop.set()
        thread.join()


class Leases:
    """Claims on named work, each lasting `lease` unless renewed (see the module's docstring)."""

    def __init__(
        self, store: Store, *, holder: str | None = None, lease: timedelta = timedelta(minutes=2), clock: Clock = system_clock
    ):
        self.store = store
        self.holder = holder or instance_name()
        self.lease = lease
        self._clock = store.shared_clock(clock)
        # Names this instance is running now: the store's row says only "ours", so two jobs here
        # (feed polls and arXiv lookups share one claim) must not both take it and the first to
        # finish release it under the other.
        self._running: set[str] = set()
        self._running_lock = threading.Lock()
        with store.transaction() as db:
            apply_schema(db, SCHEMA)

    def take(self, name: str) -> bool:
        """Claim `name` for `lease`: True if it was free, expired, or already ours."""
        now = self._clock()
        with self.store.transaction(CLAIMS) as db:
            row = db.execute("SELECT holder, expires_at FROM work_claims WHERE name = ?", (name,)).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO work_claims (name, holder, claimed_at, expires_at) VALUES (?, ?, ?, ?)",
                    (name, self.holder, to_iso(now), to_iso(now + self.lease)),
                )
                return True
            if row[0] != self.holder and row[1] > to_iso(now):
                return False
            if row[0] != self.holder:
                logger.warning("taking over %s from %s, whose lease expired at %s", name, row[0], row[1])
            db.execute(
                "UPDATE work_claims SET holder = ?, claimed_at = ?, expires_at = ? WHERE name = ?",
                (self.holder, to_iso(now), to_iso(now + self.lease), name),
            )
            return True

    def renew(self, name: str) -> bool:
        """Extend our claim on `name`; False if it is no longer ours (we stalled past the lease)."""
        now = self._clock()
        with self.store.transaction(CLAIMS) as db:
            return (
                db.execute(
                    "UPDATE work_claims SET expires_at = ? WHERE name = ? AND holder = ?",
                    (to_iso(now + self.lease), name, self.holder),
                ).rowcount
                > 0
            )

    def release(self, name: str) -> None:
        with self.store.transaction(CLAIMS) as db:
            db.execute("DELETE FROM work_claims WHERE name = ? AND holder = ?", (name, self.holder))

    def is_held(self, db, name: str) -> bool:
        """Whether `name` is ours and unexpired, read inside `db`'s transaction."""
        row = db.execute(
            "SELECT 1 FROM work_claims WHERE name = ? AND holder = ? AND expires_at > ?",
            (name, self.holder, to_iso(self._clock())),
        ).fetchone()
        return row is not None

    def holder_of(self, name: str) -> str | None:
        rows = self.store.read("SELECT holder, expires_at FROM work_claims WHERE name = ?", (name,))
        return rows[0][0] if rows and rows[0][1] > to_iso(self._clock()) else None

    @contextmanager
    def held(self, name: str, *, renew_every_s: float | None = None) -> Iterator[bool]:
        """Claim `name` for the block, renewed on a thread meanwhile; yields whether it was ours to run.

        False too while another block of this instance holds `name`: one runner per name.
        While the block runs, each write transaction it opens on this thread first checks
        that the claim is still ours (see the module's docstring): WorkClaimLost if not."""
        with self._running_lock:
            busy_here = name in self._running
            if not busy_here:
                self._running.add(name)
        if busy_here:
            yield False
            return
        try:
            taken = self.take(name)
        except BaseException:
            self._forget(name)
            raise
        if not taken:
            self._forget(name)
            yield False
            return
        every = renew_every_s if renew_every_s is not None else max(1.0, self.lease.total_seconds() / 3)

        def renew_or_say() -> bool:
            if self.renew(name):
                return True
            logger.warning("lost the claim on %s (its lease expired); its work stops at its next write", name)
            return False

        def still_ours(db) -> None:
            if lost.is_set() or not self.is_held(db, name):
                lost.set()
                raise WorkClaimLost(f"the claim on {name} is no longer ours (its lease ran out)")

        try:
            with renewing(renew_or_say, every, f"the claim on {name}") as lost, self.store.guarded(still_ours):
                yield True
        finally:
            try:
                self.release(name)
            except Exception as exc:  # it expires by itself
                logger.warning("could not release the claim on %s: %s", name, exc)
            self._forget(name)

    def _forget(self, name: str) -> None:
        with self._running_lock:
            self._running.discard(name)

    def run(self, name: str, work: Callable[[], object]) -> object | None:
        """Run `work` if this instance claims `name`; None if another instance holds it."""
        with self.held(name) as ours:
            if not ours:
                logger.debug("%s is running on %s", name, self.holder_of(name))
                return None
            try:
                return work()
            except WorkClaimLost as exc:
                logger.warning("%s stopped: %s; the instance holding it now runs it", name, exc)
                return None


def ledger_place(kind: str, name: str, team_id: str = "") -> str:
    """The ledger's row for a channel, method or method's rate (`kind`) in one workspace's quota."""
    return f"{kind}:{team_id}:{name}" if team_id else f"{kind}:{name}"


class Ledger:
    """When each Slack place may next be posted to, across every instance (see the module's docstring)."""

    def __init__(self, store: Store, *, now: Callable[[], float] | None = None, sleep: Callable[[float], None] = time.sleep):
        """`now` (seconds since the epoch) is the database's clock unless a test gives one: a
        slot written by an instance whose clock runs ahead would hold the others back by as
        much, and one whose clock lags would post into another's slot."""
        self.store = store
        if now is None:
            database = store.shared_clock(system_clock)
            now = lambda: database().timestamp()  # noqa: E731
        self._now = now
        self._sleep = sleep
        with store.transaction() as db:
            apply_schema(db, SCHEMA)

    def reserve(self, place: str, spacing_s: float) -> float:
        """Take the next slot of `place` (slots `spacing_s` apart); return how long to wait for it."""
        now = self._now()
        with self.store.transaction() as db:
            row = db.execute("SELECT next_at FROM slack_ledger WHERE place = ?", (place,)).fetchone()
            slot = max(now, float(row[0])) if row is not None else now
            db.execute("INSERT OR REPLACE INTO slack_ledger (place, next_at) VALUES (?, ?)", (place, slot + spacing_s))
        return slot - now

    def hold(self, place: str, seconds: float) -> None:
        """Slack said Retry-After: nobody calls `place` for `seconds` (unless it is held longer already)."""
        until = self._now() + seconds
        with self.store.transaction() as db:
            row = db.execute("SELECT next_at FROM slack_ledger WHERE place = ?", (place,)).fetchone()
            if row is None or float(row[0]) < until:
                db.execute("INSERT OR REPLACE INTO slack_ledger (place, next_at) VALUES (?, ?)", (place, until))

    def wait_turn(
        self,
        channel: str,
        method: str,
        *,
        spacing_s: float = 1.0,
        method_spacing_s: float = 0.0,
        method_burst_s: float = 0.0,
        max_wait_s: float | None = None,
        team_id: str = "",
    ) -> float:
        """Take this call's turn and wait for it; return the wait.

        The turn is the first moment when the method is not held (Retry-After), the
        method's rate allows it (`method_spacing_s` apart, up to `method_burst_s` early:
        the generic cell rate algorithm, one number a place) and the channel's next slot
        (`spacing_s` apart) has come. All of it is read and taken in one write
        transaction, so two instances never take the same turn. A caller that can't wait
        long (someone is waiting for the answer) gives `max_wait_s`: its call still counts
        for everyone else, and Slack's Retry-After covers what it then sends early.
        Every place is `team_id`'s (Slack's limits are per workspace): another workspace's
        calls neither wait for these turns nor take them.
        """
        now = self._now()
        held, rated, posted = (ledger_place(kind, name, team_id) for kind, name in
                               (("method", method), ("rate", method), ("channel", channel)))  # fmt: skip
        with self.store.transaction() as db:
            start = max(now, self._next_at(db, held, now))
            rate = self._next_at(db, rated, now) if method_spacing_s > 0 else now
            start = max(start, rate - method_burst_s)
            slot = self._next_at(db, posted, now) if channel else now
            start = max(start, slot)
            if method_spacing_s > 0:
                self._set(db, rated, max(rate, start) + method_spacing_s)
            if channel:
                self._set(db, posted, start + spacing_s)
        wait = start - now if max_wait_s is None else min(start - now, max_wait_s)
        if wait > 0:
            self._sleep(wait)
        return max(wait, 0.0)

    @staticmethod
    def _next_at(db, place: str, default: float) -> float:
        row = db.execute("SELECT next_at FROM slack_ledger WHERE place = ?", (place,)).fetchone()
        return float(row[0]) if row is not None else default

    @staticmethod
    def _set(db, place: str, next_at: float) -> None:
        db.execute("INSERT OR REPLACE INTO slack_ledger (place, next_at) VALUES (?, ?)", (place, next_at))


ARXIV_PLACE = "api:arxiv"
"""The ledger's row for arXiv's API: one request every PAPERBOT_ARXIV_INTERVAL_SECONDS from any instance."""


def shared_turns(ledger: Ledger, place: str) -> Callable[[float], float]:
    """Turns at `place` taken in the ledger: `turn(spacing_s)` takes the next and returns how long
    to wait for it (bot/feeds/arxiv.py's RateLimiter, so arXiv's spacing holds across instances)."""
    return lambda spacing_s: ledger.reserve(place, spacing_s)
