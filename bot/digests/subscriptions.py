"""Digest subscriptions and their deliveries, in the store's SQLite file.

One subscription per place: a channel (`kind="channel"`, `place_id` = channel id) or a
person's DM (`kind="user"`, `place_id` = user id). Subscribing again in the same place
updates it.

`cursor_seq` is the ingest sequence (`Paper.seq`) up to which the place has had its
papers. A new subscription starts at the store's current last seq, so it gets the
papers that arrive from then on, not the whole back catalogue.

A delivery is one digest for one local date. It is claimed before anything is posted,
under UNIQUE (subscription_id, local_date), so two instances (or a restart) never post
the same day's digest twice. Its status moves:

    posting -> sent | empty          cursor moves in the same transaction
    posting -> failed                nothing lost; may be claimed again (retry, resume)
    posting -> posting               the poster died (no heartbeat for a lease): another
                                     instance, or this one restarted, takes the claim over
                                     and finishes the digest in its thread
    posting -> interrupted           no heartbeat for longer than the day's digest may be
                                     late (GRACE): nobody will finish it
    skipped                          never claimed: the workspace was paused (uninstalled,
                                     token revoked) at the run; `error` says why, and the
                                     cursor moved past that day's papers (`skip`)

The claim is a lease: `holder` names the instance posting it, and its heartbeat is renewed
while it posts (every message, and on a timer between them). `posted_ids` records, per
accepted Slack message, which papers went out, so a digest that was cut short (failed,
taken over, interrupted) is completed without repeating them; at worst the one message in
flight when its poster died (accepted by Slack, not yet recorded) goes out twice.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.clock import Clock, system_clock, to_iso
from bot.digests.times import (
    EVERY_DAY,
    WEEKDAYS,
    day_set,
)
from bot.i18n import normalize_lang
from bot.store import tenancy
from bot.store.claims import instance_name
from bot.store.database import Store

logger = logging.getLogger(__name__)

COLUMNS: dict[str, dict[str, str]] = {
    "subscriptions": {
        "days": "TEXT NOT NULL DEFAULT '*'",  # cron day_of_week (bot.digests.times); older rows: every day
        "top": "INTEGER NOT NULL DEFAULT 10",  # papers in the first message; the rest in its thread
        # order:new|foryou|popular (issue 10); '' = the place's default (bot.library.readinglist.digest_order)
        "ranking": "TEXT NOT NULL DEFAULT ''",
    },
    "deliveries": {
        "holder": "TEXT NOT NULL DEFAULT ''",  # the instance posting it (bot.store.claims.instance_name)
    },
}
"""Columns added to the tables below after they first shipped (see bot.store.database.ensure_columns)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS subscriptions (
    id            INTEGER PRIMARY KEY,
    team_id       TEXT NOT NULL DEFAULT '',
    kind          TEXT NOT NULL CHECK (kind IN ('channel', 'user')),
    place_id      TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    lang          TEXT NOT NULL,
    hour          INTEGER NOT NULL,
    minute        INTEGER NOT NULL,
    timezone      TEXT NOT NULL,
    filter_text   TEXT NOT NULL,
    notify_empty  INTEGER NOT NULL DEFAULT 0,
    cursor_seq    INTEGER NOT NULL,
    status        TEXT NOT NULL DEFAULT 'active',
    paused_reason TEXT NOT NULL DEFAULT '',
    active_since  TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    UNIQUE (team_id, kind, place_id)
);
CREATE INDEX IF NOT EXISTS subscriptions_created_by ON subscriptions (team_id, created_by);
CREATE TABLE IF NOT EXISTS deliveries (
    id              INTEGER PRIMARY KEY,
    team_id         TEXT NOT NULL DEFAULT '',
    subscription_id INTEGER NOT NULL,
    local_date      TEXT NOT NULL,
    status          TEXT NOT NULL,
    from_seq        INTEGER NOT NULL,
    to_seq          INTEGER,
    papers          INTEGER NOT NULL DEFAULT 0,
    posted_ids      TEXT NOT NULL DEFAULT '[]',
    messages        INTEGER NOT NULL DEFAULT 0,
    channel_id      TEXT NOT NULL DEFAULT '',
    message_ts      TEXT NOT NULL DEFAULT '',
    attempts        INTEGER NOT NULL DEFAULT 1,
    error           TEXT NOT NULL DEFAULT '',
    claimed_at      TEXT NOT NULL,
    heartbeat_at    TEXT NOT NULL,
    finished_at     TEXT,
    UNIQUE (team_id, subscription_id, local_date)
);
CREATE TABLE IF NOT EXISTS removed_subscriptions (
    team_id         TEXT NOT NULL DEFAULT '',
    subscription_id INTEGER NOT NULL,
    removed_by      TEXT NOT NULL,
    removed_at      TEXT NOT NULL,
    data            TEXT NOT NULL,  -- the row and its deliveries, as JSON, for an undo
    PRIMARY KEY (team_id, subscription_id)
);
"""

DEFAULT_HOUR, DEFAULT_MINUTE = 9, 0
DEFAULT_DAYS = WEEKDAYS  # weekends hold few new papers
DEFAULT_TOP = 10
REMOVED_KEPT = timedelta(days=7)
"""How long a removed subscription can be restored (its Undo button)."""


TEAM_TABLES = ("subscriptions", "deliveries", "removed_subscriptions")
"""Per-workspace (bot/store/tenancy.py): a workspace's digests, their days and their undos."""


@dataclass
class Subscription:
    id: int
    kind: str  # "channel" | "user"
    place_id: str  # channel id, or the user id for a personal (DM) digest
    created_by: str
    lang: str
    hour: int
    minute: int
    timezone: str
    filter_text: str = ""
    notify_empty: bool = False
    cursor_seq: int = 0
    status: str = "active"  # "active" | "paused"
    paused_reason: str = ""  # the Slack error that paused it
    active_since: str = ""  # runs before this moment (creation, resume, time change) are never due
    created_at: str = ""
    updated_at: str = ""
    ranking: str = ""  # order:new|foryou|popular; '' = the default for the kind of place
    days: str = EVERY_DAY  # cron day_of_week: "*" or "mon,tue,wed,thu,fri" (bot.digests.times)
    top: int = DEFAULT_TOP
    team_id: str = ""  # the workspace (Slack's team id) the place is in; LOCAL: the console's

    @property
    def day_set(self) -> set[str]:
        return day_set(self.days)

    @property
    def job_id(self) -> str:
        return f"digest:{self.id}"

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    @property
    def time_label(self) -> str:
        return f"{self.hour:02d}:{self.minute:02d}"


@dataclass
class Delivery:
    id: int
    subscription_id: int
    local_date: str
    status: str
    from_seq: int
    to_seq: int | None = None
    papers: int = 0
    posted_ids: list[str] = field(default_factory=list)
    messages: int = 0
    channel_id: str = ""
    message_ts: str = ""
    attempts: int = 1
    error: str = ""
    claimed_at: str = ""
    heartbeat_at: str = ""
    finished_at: str | None = None
    holder: str = ""
    team_id: str = ""


# -- what people type -------------------------------------------------------------------


# -- the tables ----------------------------------------------------------------------------


class SubscriptionStore:
    """Subscriptions and deliveries, sharing the Store's connection and its transactions.

    Every lookup by place or person names its workspace (`team_id`, from Slack's signed
    payload; tenancy.LOCAL for the console): channel and user ids are only unique within a
    workspace (Enterprise Grid shares user ids across them), and one workspace's digests
    are never another's to list, change, remove or restore. What runs a digest (the
    scheduler, DigestService) works by subscription id, which carries its workspace; a
    delivery row copies its subscription's team, first in its key.
    """

    def __init__(self, store: Store, *, clock: Clock = system_clock, holder: str | None = None):
        self.store = store
        # The database's clock on PostgreSQL (Store.shared_clock): a removed subscription's
        # removed_at and heartbeats are compared by other instances; a test's clock is kept.
        self._clock = store.shared_clock(clock)
        self.holder = holder or instance_name()
        with store.transaction() as db:
            tenancy.rekey(db, SCHEMA, TEAM_TABLES, COLUMNS)

    def _now(self) -> str:
        return to_iso(self._clock())

    # -- subscriptions -------------------------------------------------------------------

    def save(
        self,
        *,
        team_id: str,
        kind: str,
        place_id: str,
        user_id: str,
        lang: str,
        hour: int,
        minute: int,
        timezone: str,
        filter_text: str = "",
        notify_empty: bool = False,
        days: str = EVERY_DAY,
        top: int = DEFAULT_TOP,
        status: str = "active",
        paused_reason: str = "",
    ) -> tuple[Subscription, bool]:
        """Create the place's subscription, or update it; return it and whether it is new.

        Updating keeps the cursor (the next digest still holds everything since the last
        one) and resumes a paused subscription (unless `status` says paused: a channel the
        bot can't post in yet). A change of time, days or zone, or a resume, restarts
        `active_since`, so a run time already past today is not "missed".
        """
        assert status in ("active", "paused")
        now = self._now()
        lang = normalize_lang(lang)
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT * FROM subscriptions WHERE team_id = ? AND kind = ? AND place_id = ?", (team_id, kind, place_id)
            ).fetchone()
            if row is None:
                last_seq = db.execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()[0]
                cursor = db.execute(
                    "INSERT INTO subscriptions (team_id, kind, place_id, created_by, lang, hour, minute, timezone, filter_text,"
                    " notify_empty, cursor_seq, status, paused_reason, active_since, created_at, updated_at, days, top)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (team_id, kind, place_id, user_id, lang, hour, minute, timezone, filter_text, int(notify_empty), last_seq,
                     status, paused_reason, now, now, now, days, top),
                )  # fmt: skip
                created, sub_id = True, cursor.lastrowid
            else:
                old = _subscription(row)
                rescheduled = (old.hour, old.minute, old.timezone, old.days) != (
                    hour,
                    minute,
                    timezone,
                    days,
                ) or not old.is_active
                db.execute(
                    "UPDATE subscriptions SET created_by = ?, lang = ?, hour = ?, minute = ?, timezone = ?, filter_text = ?,"
                    " notify_empty = ?, status = ?, paused_reason = ?, active_since = ?, updated_at = ?, days = ?, top = ?"
                    " WHERE id = ?",
                    (user_id, lang, hour, minute, timezone, filter_text, int(notify_empty), status, paused_reason,
                     now if rescheduled else old.active_since, now, days, top, old.id),
                )  # fmt: skip
                created, sub_id = False, old.id
            saved = _subscription(db.execute("SELECT * FROM subscriptions WHERE id = ?", (sub_id,)).fetchone())
        return saved, created

    def get(self, sub_id: int) -> Subscription | None:
        """The subscription `sub_id`, whichever workspace's (the scheduler's and the runs' lookup)."""
        rows = self._rows("SELECT * FROM subscriptions WHERE id = ?", (sub_id,))
        return _subscription(rows[0]) if rows else None

    def for_place(self, team_id: str, kind: str, place_id: str) -> Subscription | None:
        rows = self._rows(
            "SELECT * FROM subscriptions WHERE team_id = ? AND kind = ? AND place_id = ?", (team_id, kind, place_id)
        )
        return _subscription(rows[0]) if rows else None

    def for_user(self, team_id: str, user_id: str) -> list[Subscription]:
        """The person's own digest first, then the channel digests they set up, in their workspace."""
        rows = self._rows(
            "SELECT * FROM subscriptions WHERE team_id = ?"
            " AND ((kind = 'user' AND place_id = ?) OR (kind = 'channel' AND created_by = ?))"
            " ORDER BY kind = 'channel', id",
            (team_id, user_id, user_id),
        )
        return [_subscription(r) for r in rows]

    def all(self, team_id: str | None = None) -> list[Subscription]:
        """Every subscription (the scheduler's view), or one workspace's."""
        if team_id is None:
            return [_subscription(r) for r in self._rows("SELECT * FROM subscriptions ORDER BY id")]
        return [_subscription(r) for r in self._rows("SELECT * FROM subscriptions WHERE team_id = ? ORDER BY id", (team_id,))]

    def delete(self, sub_id: int, *, removed_by: str = "") -> bool:
        """Remove a subscription and its deliveries; with `removed_by`, keep a copy for `restore`.

        The copy holds the deliveries too, so an undone unsubscribe keeps its cursor and
        its claimed days (a day already posted is not posted again), and is kept under the
        subscription's workspace: only that workspace's remover can restore it. Copies
        older than REMOVED_KEPT are dropped here. Callers find `sub_id` through a lookup
        that named the workspace (`for_place`, `for_user`).
        """
        now = self._clock()
        with self.store.transaction() as db:
            row = db.execute("SELECT * FROM subscriptions WHERE id = ?", (sub_id,)).fetchone()
            if row is not None and removed_by:
                deliveries = [dict(d) for d in db.execute("SELECT * FROM deliveries WHERE subscription_id = ?", (sub_id,))]
                db.execute(
                    "INSERT OR REPLACE INTO removed_subscriptions (team_id, subscription_id, removed_by, removed_at, data)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (row["team_id"], sub_id, removed_by, to_iso(now),
                     json.dumps({"subscription": dict(row), "deliveries": deliveries})),
                )  # fmt: skip
            db.execute("DELETE FROM removed_subscriptions WHERE removed_at < ?", (to_iso(now - REMOVED_KEPT),))
            db.execute("DELETE FROM deliveries WHERE subscription_id = ?", (sub_id,))
            return db.execute("DELETE FROM subscriptions WHERE id = ?", (sub_id,)).rowcount > 0

    def removed_by(self, team_id: str, sub_id: int) -> str | None:
        """Who in `team_id` removed the subscription `sub_id`, while it can still be restored; else None."""
        rows = self._rows(
            "SELECT removed_by FROM removed_subscriptions WHERE team_id = ? AND subscription_id = ?", (team_id, sub_id)
        )
        return rows[0][0] if rows else None

    def restore(self, team_id: str, sub_id: int, user_id: str) -> Subscription | None:
        """Undo `delete` for the person who removed it: the same settings, cursor and deliveries.

        None when there is nothing to restore (never removed, someone else removed it,
        another workspace's, restored already) or the place has a new subscription since.
        """
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT data FROM removed_subscriptions WHERE team_id = ? AND subscription_id = ? AND removed_by = ?",
                (team_id, sub_id, user_id),
            ).fetchone()
            if row is None:
                return None
            data = json.loads(row[0])
            old, deliveries = data["subscription"] | {"team_id": team_id}, data["deliveries"]
            taken = db.execute(
                "SELECT 1 FROM subscriptions WHERE team_id = ? AND kind = ? AND place_id = ?",
                (team_id, old["kind"], old["place_id"]),
            ).fetchone()
            if taken is not None:
                return None
            if db.execute("SELECT 1 FROM subscriptions WHERE id = ?", (sub_id,)).fetchone() is not None:
                old = {k: v for k, v in old.items() if k != "id"}  # the id went to another place's digest
            columns = ", ".join(old)
            cursor = db.execute(
                f"INSERT INTO subscriptions ({columns}) VALUES ({', '.join('?' * len(old))})", tuple(old.values())
            )
            new_id = old.get("id", cursor.lastrowid)
            if "id" in old and getattr(db, "dialect", "sqlite") == "postgresql":
                # An id given explicitly leaves PostgreSQL's sequence where it was; one from before the
                # migration may be past it (rekey counts the subscriptions kept, not the removed ones).
                db.execute(
                    "SELECT setval(pg_get_serial_sequence('subscriptions', 'id'),"
                    " GREATEST(nextval(pg_get_serial_sequence('subscriptions', 'id')), ?))",
                    (new_id,),
                )
            for delivery in deliveries:
                delivery = {k: v for k, v in delivery.items() if k != "id"} | {"subscription_id": new_id, "team_id": team_id}
                db.execute(
                    f"INSERT OR IGNORE INTO deliveries ({', '.join(delivery)}) VALUES ({', '.join('?' * len(delivery))})",
                    tuple(delivery.values()),
                )
            db.execute("DELETE FROM removed_subscriptions WHERE team_id = ? AND subscription_id = ?", (team_id, sub_id))
            restored = _subscription(db.execute("SELECT * FROM subscriptions WHERE id = ?", (new_id,)).fetchone())
        return restored

    def set_ranking(self, sub_id: int, ranking: str) -> None:
        """Set the subscription's order (`order:` when subscribing); '' for the default."""
        with self.store.transaction() as db:
            db.execute("UPDATE subscriptions SET ranking = ?, updated_at = ? WHERE id = ?", (ranking, self._now(), sub_id))

    def pause(self, sub_id: int, reason: str) -> None:
        with self.store.transaction() as db:
            db.execute(
                "UPDATE subscriptions SET status = 'paused', paused_reason = ?, updated_at = ? WHERE id = ?",
                (reason, self._now(), sub_id),
            )

    def resume(self, sub_id: int) -> bool:
        """Resume a paused subscription (the bot can post again); return whether it was paused."""
        now = self._now()
        with self.store.transaction() as db:
            return (
                db.execute(
                    "UPDATE subscriptions SET status = 'active', paused_reason = '', active_since = ?, updated_at = ?"
                    " WHERE id = ? AND status = 'paused'",
                    (now, now, sub_id),
                ).rowcount
                > 0
            )

    # -- deliveries ------------------------------------------------------------------------

    def claim(self, sub_id: int, local_date: date, *, stale_before: datetime | None = None) -> Delivery | None:
        """Claim the digest of `local_date` for this subscription; None if it is taken.

        A `failed` claim may be taken again (a retry or a resumed thread), and so may a
        `posting` one whose heartbeat is older than `stale_before`: its poster died, and
        the taker resumes from what was recorded as posted. Every other status means
        someone has, or had, that day's digest in hand.
        """
        now = self._now()
        day = local_date.isoformat()
        with self.store.transaction() as db:
            sub = db.execute("SELECT cursor_seq, team_id FROM subscriptions WHERE id = ?", (sub_id,)).fetchone()
            if sub is None:
                return None
            try:
                db.execute(
                    "INSERT INTO deliveries (team_id, subscription_id, local_date, status, from_seq, claimed_at, heartbeat_at,"
                    " holder) VALUES (?, ?, ?, 'posting', ?, ?, ?, ?)",
                    (sub[1], sub_id, day, sub[0], now, now, self.holder),
                )
            except sqlite3.IntegrityError:
                stale = to_iso(stale_before) if stale_before is not None else ""
                previous = db.execute(
                    "SELECT status, holder FROM deliveries WHERE subscription_id = ? AND local_date = ?", (sub_id, day)
                ).fetchone()
                taken = db.execute(
                    "UPDATE deliveries SET status = 'posting', attempts = attempts + 1, from_seq = ?, error = '',"
                    " heartbeat_at = ?, holder = ? WHERE subscription_id = ? AND local_date = ?"
                    " AND (status = 'failed' OR (status = 'posting' AND heartbeat_at < ?))",
                    (sub[0], now, self.holder, sub_id, day, stale),
                ).rowcount
                if not taken:
                    return None
                if previous is not None and previous[0] == "posting":
                    logger.warning("digest %s for %s: taking it over from %s, whose heartbeat stopped", sub_id, day, previous[1])
            row = db.execute("SELECT * FROM deliveries WHERE subscription_id = ? AND local_date = ?", (sub_id, day)).fetchone()
        return _delivery(row)

    def skip(self, sub_id: int, local_date: date, reason: str) -> Delivery | None:
        """Record that the digest of `local_date` was not posted, and why (its workspace is paused).

        The day is closed as `skipped` with the reason, and the cursor moves past the papers
        stored so far, as if it had been posted: a workspace that uninstalled paperbot for
        three weeks and comes back gets one day's digest at its next run, not three weeks
        of backlog drained a digest at a time (the skipped papers stay searchable). None if
        the day was already claimed (posted, or skipped by another instance).
        """
        now = self._now()
        day = local_date.isoformat()
        with self.store.transaction() as db:
            sub = db.execute("SELECT cursor_seq, team_id FROM subscriptions WHERE id = ?", (sub_id,)).fetchone()
            if sub is None:
                return None
            if db.execute("SELECT 1 FROM deliveries WHERE subscription_id = ? AND local_date = ?", (sub_id, day)).fetchone():
                return None
            last_seq = db.execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()[0]
            try:
                db.execute(
                    "INSERT INTO deliveries (team_id, subscription_id, local_date, status, from_seq, to_seq, error, claimed_at,"
                    " heartbeat_at, finished_at, holder) VALUES (?, ?, ?, 'skipped', ?, ?, ?, ?, ?, ?, ?)",
                    (sub[1], sub_id, day, sub[0], max(sub[0], last_seq), reason[:500], now, now, now, self.holder),
                )
            except sqlite3.IntegrityError:
                return None  # another instance recorded the day first
            db.execute("UPDATE subscriptions SET cursor_seq = MAX(cursor_seq, ?) WHERE id = ?", (last_seq, sub_id))
            row = db.execute("SELECT * FROM deliveries WHERE subscription_id = ? AND local_date = ?", (sub_id, day)).fetchone()
        return _delivery(row)

    def renew(self, delivery_id: int) -> bool:
        """Beat the heartbeat of our `posting` claim; False if it is no longer ours (taken over, closed)."""
        with self.store.transaction() as db:
            return (
                db.execute(
                    "UPDATE deliveries SET heartbeat_at = ? WHERE id = ? AND holder = ? AND status = 'posting'",
                    (self._now(), delivery_id, self.holder),
                ).rowcount
                > 0
            )

    def plan(self, delivery_id: int, *, to_seq: int, papers: int) -> None:
        """Record what the claimed digest will cover: papers up to `to_seq`."""
        with self.store.transaction() as db:
            db.execute(
                "UPDATE deliveries SET to_seq = ?, papers = ?, heartbeat_at = ? WHERE id = ?",
                (to_seq, papers, self._now(), delivery_id),
            )

    def record_posted(self, delivery_id: int, paper_ids: Iterable[str], *, channel_id: str, message_ts: str) -> bool:
        """Note one message Slack accepted: its papers, and the thread it started (the first).

        Return whether the claim is still ours: the message is recorded either way (its
        papers went out), but a poster that lost its claim stops, as another has taken over.
        """
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT posted_ids, message_ts, holder, status FROM deliveries WHERE id = ?", (delivery_id,)
            ).fetchone()
            if row is None:
                return False
            posted = json.loads(row[0]) + [p for p in paper_ids]
            db.execute(
                "UPDATE deliveries SET posted_ids = ?, messages = messages + 1, channel_id = ?, message_ts = ?,"
                " heartbeat_at = ? WHERE id = ?",
                (json.dumps(posted), channel_id, row[1] or message_ts, self._now(), delivery_id),
            )
        return row[2] == self.holder and row[3] == "posting"

    def finish(self, delivery_id: int, *, status: str, to_seq: int) -> None:
        """Close a delivery as `sent` or `empty` and move the cursor, in one transaction."""
        assert status in ("sent", "empty")
        with self.store.transaction() as db:
            row = db.execute("SELECT subscription_id FROM deliveries WHERE id = ?", (delivery_id,)).fetchone()
            if row is None:
                return
            db.execute(
                "UPDATE deliveries SET status = ?, to_seq = ?, finished_at = ?, error = '' WHERE id = ?",
                (status, to_seq, self._now(), delivery_id),
            )
            db.execute("UPDATE subscriptions SET cursor_seq = MAX(cursor_seq, ?) WHERE id = ?", (to_seq, row[0]))

    def release(self, delivery_id: int, error: str) -> int:
        """Mark our delivery `failed` (retryable, nothing lost); return its attempt count.

        A claim another instance has taken over meanwhile is left to it."""
        with self.store.transaction() as db:
            db.execute(
                "UPDATE deliveries SET status = 'failed', error = ?, finished_at = ? WHERE id = ? AND holder = ?",
                (error[:500], self._now(), delivery_id, self.holder),
            )
            row = db.execute("SELECT attempts FROM deliveries WHERE id = ?", (delivery_id,)).fetchone()
        return int(row[0]) if row else 0

    def recover_stale(self, before: datetime, sub_id: int | None = None) -> int:
        """Mark `posting` claims whose last heartbeat is older than `before` as interrupted.

        Their poster died (crash, kill, power) somewhere between claiming and finishing,
        and nobody took the claim over while that day's digest could still go out (the
        service calls this with its GRACE). What was not recorded as posted goes out in
        the next digest (the cursor never moved).
        """
        sql = "UPDATE deliveries SET status = 'interrupted', error = 'no heartbeat', finished_at = ? WHERE status = 'posting' AND heartbeat_at < ?"
        args: tuple = (self._now(), to_iso(before))
        if sub_id is not None:
            sql += " AND subscription_id = ?"
            args += (sub_id,)
        with self.store.transaction() as db:
            return db.execute(sql, args).rowcount

    def posted_since(self, sub_id: int, cursor_seq: int) -> set[str]:
        """Papers already posted by unfinished digests (failed/interrupted) past the cursor."""
        rows = self._rows(
            "SELECT posted_ids FROM deliveries WHERE subscription_id = ? AND status IN ('failed', 'interrupted', 'posting')"
            " AND (to_seq IS NULL OR to_seq > ?)",
            (sub_id, cursor_seq),
        )
        return {paper_id for row in rows for paper_id in json.loads(row[0])}

    def last_channel(self, sub: Subscription) -> str:
        """The channel the subscription's last posted digest went to ('' if none): a DM's D… id.

        Slack keeps a person's DM with the app under one id, so a DM digest needs
        conversations.open (tier 3: 50 a minute, shared by every instance) only the first time.
        """
        rows = self._rows(
            "SELECT channel_id FROM deliveries WHERE team_id = ? AND subscription_id = ? AND channel_id != ''"
            " ORDER BY local_date DESC LIMIT 1",
            (sub.team_id, sub.id),
        )
        return str(rows[0][0]) if rows else ""

    def delivery(self, sub_id: int, local_date: date | str) -> Delivery | None:
        day = local_date if isinstance(local_date, str) else local_date.isoformat()
        rows = self._rows("SELECT * FROM deliveries WHERE subscription_id = ? AND local_date = ?", (sub_id, day))
        return _delivery(rows[0]) if rows else None

    def deliveries(self, sub_id: int | None = None) -> list[Delivery]:
        if sub_id is None:
            rows = self._rows("SELECT * FROM deliveries ORDER BY id")
        else:
            rows = self._rows("SELECT * FROM deliveries WHERE subscription_id = ? ORDER BY id", (sub_id,))
        return [_delivery(r) for r in rows]

    def _rows(self, sql: str, args: tuple = ()) -> list[sqlite3.Row]:
        # A plain read, not BEGIN IMMEDIATE: it must not wait for a long ingest's write lock.
        return self.store.read(sql, args)


def _subscription(row: sqlite3.Row) -> Subscription:
    data = dict(row)
    data["notify_empty"] = bool(data["notify_empty"])
    return Subscription(**data)


def _delivery(row: sqlite3.Row) -> Delivery:
    data = dict(row)
    data["posted_ids"] = json.loads(data["posted_ids"])
    return Delivery(**data)
