"""SQLite, the source of truth: papers, the feeds that listed them, reader settings.

Two connections per Store, each shared by threads behind a lock: one writes (every
transaction), one reads what was last committed, so a search never waits for a file's
transaction (WAL readers never wait for a writer). WAL also lets another process (a CLI
`ingest` while `serve` runs) read and write alongside. A third connection, on a thread of
its own, checkpoints the WAL, so the writer never waits for that (bot/store/wal.py).

Papers are shared: every workspace sees them. A listing a workspace uploads in Slack is
the exception: each paper it brings that no shared source listed is private to that
workspace (a `paper_teams` row, team first in its key; a paper with no row is shared).
Another workspace uploading it too adds its row; a shared source listing it (the seeds, the
inbox, the CLI, a feed) deletes the rows, and it is shared from then on (bot/store/visibility.py
says who sees what, with the workspaces that share their uploads).

Every change to a paper takes the next value of one counter: `seq` is the value at which
the paper was first stored (what digests call new), `rev` the value of its latest change
(what the index compares against to know it is current).
"""

from __future__ import annotations

import errno
import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from json.encoder import encode_basestring  # how json.dumps(ensure_ascii=False) quotes a string
from pathlib import Path
from urllib.parse import urlsplit

from bot.clock import Clock, utc_now_iso
from bot.models import Affiliation, ArxivRecord, IngestReport, Listing, Paper
from bot.store.wal import Checkpointer

logger = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS papers (
    id           TEXT PRIMARY KEY,
    seq          INTEGER NOT NULL UNIQUE,
    rev          INTEGER NOT NULL,
    first_seen   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    title_en     TEXT NOT NULL,
    title_zh     TEXT NOT NULL,
    authors      TEXT NOT NULL,
    affiliations TEXT NOT NULL,
    summary_zh   TEXT NOT NULL,
    comments     TEXT NOT NULL,
    journal_ref  TEXT NOT NULL,
    venue        TEXT NOT NULL,
    venue_name   TEXT NOT NULL,
    year         INTEGER,
    track        TEXT NOT NULL,
    urls         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS papers_rev ON papers (rev);
CREATE TABLE IF NOT EXISTS paper_tombstones (
    paper_id   TEXT PRIMARY KEY,
    seq        INTEGER NOT NULL,
    rev        INTEGER NOT NULL,  -- the rev the removal took: followers delete in place (Store.removed_since)
    removed_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS paper_tombstones_rev ON paper_tombstones (rev);
CREATE TABLE IF NOT EXISTS paper_feeds (
    paper_id   TEXT NOT NULL REFERENCES papers (id),
    feed       TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    PRIMARY KEY (paper_id, feed)
);
CREATE TABLE IF NOT EXISTS paper_teams (
    team_id  TEXT NOT NULL DEFAULT '',
    paper_id TEXT NOT NULL REFERENCES papers (id),
    PRIMARY KEY (team_id, paper_id)
);
CREATE INDEX IF NOT EXISTS paper_teams_paper ON paper_teams (paper_id);
CREATE TABLE IF NOT EXISTS ingests (
    id        INTEGER PRIMARY KEY,
    path      TEXT NOT NULL,
    feed      TEXT NOT NULL,
    at        TEXT NOT NULL,
    new       INTEGER NOT NULL,
    updated   INTEGER NOT NULL,
    unchanged INTEGER NOT NULL,
    rejected  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS arxiv_records (
    paper_id         TEXT PRIMARY KEY REFERENCES papers (id),
    status           TEXT NOT NULL,  -- 'found' | 'missing' (looked for, not on arXiv)
    checked_at       TEXT NOT NULL,
    arxiv_id         TEXT NOT NULL DEFAULT '',
    version          INTEGER NOT NULL DEFAULT 0,
    title            TEXT NOT NULL DEFAULT '',
    abstract         TEXT NOT NULL DEFAULT '',
    authors          TEXT NOT NULL DEFAULT '[]',
    primary_category TEXT NOT NULL DEFAULT '',
    categories       TEXT NOT NULL DEFAULT '[]',
    published        TEXT NOT NULL DEFAULT '',
    updated          TEXT NOT NULL DEFAULT '',
    doi              TEXT NOT NULL DEFAULT '',
    comment          TEXT NOT NULL DEFAULT '',
    journal_ref      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS arxiv_records_id ON arxiv_records (arxiv_id);
DROP INDEX IF EXISTS arxiv_records_doi;
CREATE INDEX IF NOT EXISTS arxiv_records_doi_lower ON arxiv_records (lower(doi));
CREATE INDEX IF NOT EXISTS arxiv_records_checked ON arxiv_records (checked_at);
"""

WORKSPACE_SCHEMA = """
CREATE TABLE IF NOT EXISTS user_prefs (
    team_id TEXT NOT NULL DEFAULT '',
    user_id TEXT NOT NULL,
    lang    TEXT NOT NULL,
    PRIMARY KEY (team_id, user_id)
);
CREATE TABLE IF NOT EXISTS slack_events (
    team_id  TEXT NOT NULL DEFAULT '',
    event_id TEXT NOT NULL,
    seen_at  TEXT NOT NULL,
    PRIMARY KEY (team_id, event_id)
);
CREATE INDEX IF NOT EXISTS slack_events_seen ON slack_events (seen_at);
"""
"""The store's per-workspace tables (bot/store/tenancy.py): a person's language, and the
Slack events a workspace's app already acted on. Opened with `tenancy.rekey`, so a store
from before workspaces gets its team in each key (`open_schema`)."""
WORKSPACE_TABLES = ("user_prefs", "slack_events")
WRITES, PAPERS, CLAIMS = "writes", "papers", "claims"
"""Write domains: which writers take turns with which (Store.transaction).

On SQLite every write transaction takes the file's one write lock, whatever its domain. On
PostgreSQL each domain has a lock of its own (bot/store/postgres.py), so a writer stalled in
one (a frozen instance, a long ingest) holds up only that domain's writers:

    PAPERS  every change that takes the papers' counter (ingest, arXiv records, feeds added,
            removals): revs become visible in the order they were taken, which a following
            instance relies on (bot/corpus.py), and papers' rows are read and merged by one
            writer at a time
    CLAIMS  leases on background work (bot/store/claims.py): a renewal never waits behind
            an ingest or a digest
    WRITES  everything else, one writer at a time, as before: the rooms' transactions read
            and then write (a delivery's claim, the Slack ledger's turns, a save), which is
            safe only if no other writer of their tables runs between the two

A table belongs to one domain (DOMAIN_TABLES; tables not named are WRITES'), and on
PostgreSQL writing it from another domain's transaction is refused. `meta` is written from
several, each its own keys (PAPERS: counter, papers, removed_rev), always by key.
"""
DOMAIN_TABLES: dict[str, frozenset[str]] = {
    PAPERS: frozenset({"papers", "paper_feeds", "paper_teams", "arxiv_records", "ingests", "paper_tombstones"}),
    CLAIMS: frozenset({"work_claims"}),
}
SHARED_TABLES = frozenset({"meta"})

EVENT_MEMORY = timedelta(days=1)  # how long a Slack event id is remembered (Store.claim_event)

COLUMNS: dict[str, dict[str, str]] = {
    # who stored a listing, when the one who asked cannot tell (a child process that failed
    # after its commit: bot/corpus.py _in_child)
    "ingests": {"token": "TEXT"},
}
"""Columns added to a table after it first shipped: {table: {column: type and default}}.

`CREATE TABLE IF NOT EXISTS` leaves an older file's table as it was, so a newer column is
added here too, once, by `ensure_columns` when the store opens.
"""

_CONTENT = (
    "title_en", "title_zh", "authors", "affiliations", "summary_zh", "comments",
    "journal_ref", "venue", "venue_name", "year", "track", "urls",
)  # fmt: skip
_JSON = {"authors", "affiliations", "urls"}
_INSERT_PAPER = (
    f"INSERT INTO papers (id, seq, rev, first_seen, updated_at, {', '.join(_CONTENT)}) "
    f"VALUES (?, ?, ?, ?, ?, {', '.join('?' for _ in _CONTENT)})"
)
_INSERT_FEED = "INSERT OR IGNORE INTO paper_feeds (paper_id, feed, first_seen) VALUES (?, ?, ?)"
_ARXIV = (
    "arxiv_id", "version", "title", "abstract", "authors", "primary_category", "categories",
    "published", "updated", "doi", "comment", "journal_ref",
)  # fmt: skip
_ARXIV_JSON = {"authors", "categories"}


def apply_schema(db: sqlite3.Connection, schema: str, columns: dict[str, dict[str, str]] | None = None) -> None:
    """Create what `schema` names if missing, then add the newer `columns` ({table: {name: decl}}).

    Every table owner (the store, subscriptions, the library, feeds) opens its tables so, on
    SQLite or on PostgreSQL (whose connection translates the types: bot/store/postgres.py).
    """
    for statement in schema.split(";"):
        if statement.strip():
            db.execute(statement)
    for table, wanted in (columns or {}).items():
        ensure_columns(db, table, wanted)


def ensure_columns(db: sqlite3.Connection, table: str, columns: dict[str, str]) -> None:
    """Add each of `columns` that `table` lacks (a store made by an older version); idempotent."""
    if getattr(db, "dialect", "sqlite") == "postgresql":  # bot/store/postgres.py's PgConnection
        present = db.columns(table)  # type: ignore[attr-defined]
    else:
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
    for name, decl in columns.items():
        if name not in present:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")


def open_schema(db: sqlite3.Connection) -> None:
    """Open the store's tables in its opening transaction (SQLite or PostgreSQL): SCHEMA, and
    WORKSPACE_SCHEMA through `tenancy.rekey`; each with its newer COLUMNS."""
    # Deferred: bot/store/tenancy.py imports this module (Store, apply_schema).
    from bot.store import tenancy

    apply_schema(db, SCHEMA, {table: wanted for table, wanted in COLUMNS.items() if table not in WORKSPACE_TABLES})
    newer = {table: wanted for table, wanted in COLUMNS.items() if table in WORKSPACE_TABLES}
    tenancy.rekey(db, WORKSPACE_SCHEMA, WORKSPACE_TABLES, newer)


def is_storage_full(error: BaseException) -> bool:
    """True if `error` says the disk (or the database's size limit) is full."""
    cause = error.__cause__
    if isinstance(error, sqlite3.Error) and getattr(cause, "sqlstate", None) is not None:
        return getattr(cause, "sqlstate", None) == "53100"  # PostgreSQL's disk_full
    if isinstance(error, sqlite3.Error):
        return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "database or disk is full" in str(error)
    return isinstance(error, OSError) and error.errno == errno.ENOSPC


def is_store_unavailable(error: BaseException) -> bool:
    """True if `error` says the store can't be reached just now: PostgreSQL restarting or
    unreachable (bot/store/postgres.py raises sqlite3's OperationalError for it), or a
    SQLite file locked past its timeout. Not a full disk, which needs someone to act."""
    return isinstance(error, sqlite3.OperationalError) and not is_storage_full(error)


def is_postgres_url(location: object) -> bool:
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


def schema_location(url: str) -> str:
    """The URL as logs and messages show it: scheme, host, port and database only, so no
    password (in the user info or a `?password=`) can reach them."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return f"{parts.scheme}://{host}{parts.path}"


def open_store(location: Path | str, *, clock: Callable[[], str] = utc_now_iso, readonly: bool = False) -> Store:
    """The store at `location`: a postgresql:// URL (PAPERBOT_DATABASE_URL), else a SQLite file's path.

    What a process opens the store with, the server and the child processes it starts alike.
    """
    if is_postgres_url(location):
        # Deferred: psycopg costs SQLite's processes 0.2 s and 20 MB at start (bench/run.py --code); only PostgreSQL's load it.
        from bot.store.postgres import PostgresStore

        return PostgresStore(str(location), clock=clock, readonly=readonly)
    return Store(Path(location), clock=clock, readonly=readonly)


class Store:
    """Papers and settings in one SQLite file."""

    path: Path | str  # the file, or PostgresStore's URL: what a child process opens it with (open_store)

    def __init__(self, path: Path, *, clock: Callable[[], str] = utc_now_iso, readonly: bool = False):
        """Open (and create or upgrade) the store at `path`; `readonly` opens an existing
        one only to read it (an index worker process reading its share of the papers)."""
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()  # the writing connection, and transactions on it
        self._read_lock = threading.Lock()  # the reading connection
        self._reader: sqlite3.Connection | None = None
        self._writing: int | None = None  # the thread inside a transaction, if any
        self._checkpointer: Checkpointer | None = None
        self._guards = threading.local()  # per thread: checks each write transaction runs first (guarded)
        if readonly:
            self._db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False, timeout=30)
            self._db.row_factory = sqlite3.Row
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        # Bulk ingest inserts at random places in the id indexes, which outgrow SQLite's
        # default 2 MB page cache: storing 20k new papers into a 100k store took 1.15-1.41 s
        # CPU, 0.94-1.01 s with 16 MB (pages are allocated as used: up to 16 MB of memory).
        self._db.execute("PRAGMA cache_size=-16384")
        # The WAL is checkpointed beside the writer, not inside its commits (bot/store/wal.py).
        self._checkpointer = Checkpointer(path, self._db, owner=self)
        with self.transaction() as db:
            open_schema(db)
        self._count_once()
        # Reads have a connection of their own (see read()): through the writer's, a search
        # waited for a whole file's transaction (0.6-0.75 s for a day's file at 1M papers).
        self._reader = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._reader.row_factory = sqlite3.Row
        self._reader.execute("PRAGMA query_only=ON")

    def now(self) -> str:
        """The time by the store's clock, as it records times."""
        return self._clock()

    def shared_clock(self, clock: Clock) -> Clock:
        """The clock that leases and heartbeats on this store compare by (bot/store/claims.py).

        On SQLite every process shares this machine's clock, so `clock` as it is; on
        PostgreSQL the database's, instead of each instance's own (bot/store/postgres.py).
        """
        return clock

    def shared_now(self) -> str:
        """Now by the clock every instance compares this store's shared times by (`shared_clock`),
        as the store records times: a tombstone's `removed_at`, which whichever instance prunes
        compares with its retention horizon. On SQLite the store's own clock."""
        return self._clock()

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        with self._lock:
            self._db.close()
        with self._read_lock:
            if self._reader is not None:
                self._reader.close()

    @contextmanager
    def transaction(self, domain: str = WRITES) -> Iterator[sqlite3.Connection]:
        """Run a block as one IMMEDIATE transaction: all of it lands, or none of it.

        `domain` says which writers it takes turns with (WRITES, PAPERS, CLAIMS: see
        WRITES's docstring); SQLite has one write lock for them all.
        """
        with self._lock:
            if self._checkpointer is not None:
                self._checkpointer.before_write(self._db)
            self._db.execute("BEGIN IMMEDIATE")
            self._writing = threading.get_ident()
            try:
                try:
                    self.run_guards(self._db)
                    yield self._db
                except BaseException:
                    # SQLite rolls back by itself after some errors (SQLITE_FULL among them): a
                    # second ROLLBACK would raise and hide the error that matters.
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
                try:
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            finally:
                self._writing = None
            if self._checkpointer is not None:
                self._checkpointer.committed()

    @contextmanager
    def guarded(self, check: Callable[[sqlite3.Connection], None]) -> Iterator[None]:
        """Run `check(db)` first in every write transaction this thread opens in the block.

        A check that raises refuses the transaction: how work whose lease ran out is stopped
        at its next write (bot/store/claims.py), not after it wrote twice with another instance.
        """
        checks = self._guards.__dict__.setdefault("checks", [])
        checks.append(check)
        try:
            yield
        finally:
            checks.remove(check)

    def run_guards(self, db: sqlite3.Connection) -> None:
        for check in list(self._guards.__dict__.get("checks", ())):
            check(db)

    def read(self, sql: str, args: tuple = ()) -> list[sqlite3.Row]:
        """Run one SELECT. In WAL mode it never waits for a writer: it reads what was last
        committed, through a connection of its own. Inside a transaction, the thread that
        opened it reads through it, and so sees what it has written so far."""
        reader = self._reader
        if reader is None or self._writing == threading.get_ident():
            with self._lock:
                return self._db.execute(sql, args).fetchall()
        with self._read_lock:
            return reader.execute(sql, args).fetchall()

    # -- papers ------------------------------------------------------------------------

    def ingest_listing(self, listing: Listing, *, token: str | None = None, team: str | None = None) -> IngestReport:
        """Store every good record of a listing in one transaction; report new/updated/same.

        A paper already stored is updated. Listed again by a feed that listed it before,
        the new record replaces the old one whole (so a corrected file can also clear a
        field). Listed by another feed, its non-empty fields replace the old ones and the
        feed is added. Nothing changed means no new `rev`. `token`, recorded with the
        ingest, lets `ingested()` tell later whether this transaction committed.

        `team`: the workspace that uploaded it (a Slack upload); its new papers, and those
        private to other workspaces, become visible to it, and shared papers stay shared.
        None: a shared source, which makes every paper it lists shared (a paper that was
        private takes a new `rev`, so the index learns from it now: bot/search/writers.py).
        """
        report = IngestReport(path=listing.path, feed=listing.feed, errors=list(listing.errors))
        now = self._clock()
        with self.transaction(PAPERS) as db:
            counter = self._counter(db)
            # What is stored is read for the whole file up front, and new papers are written
            # in batches (executemany), in the same order as one by one: at 20k papers the
            # per-paper statements cost more than the rows. A paper listed twice in the file
            # is read again once written, and a batch is written out before any other
            # statement, so each statement sees what it saw one by one.
            ids = [paper.id for _, paper in listing.records]
            stored = self._rows_of(db, ids)
            relisted_ids = self._listed_by(db, ids, listing.feed)
            private_ids = self._private_of(db, ids)
            new_papers: list[tuple] = []
            new_feeds: list[tuple] = []
            seen: set[str] = set()

            def write_new() -> None:
                if new_papers:
                    db.executemany(_INSERT_PAPER, new_papers)
                    db.executemany(_INSERT_FEED, new_feeds)
                    new_papers.clear()
                    new_feeds.clear()

            for _, paper in listing.records:
                if paper.id in seen:
                    write_new()
                    row = db.execute("SELECT * FROM papers WHERE id = ?", (paper.id,)).fetchone()
                    relisted = (
                        bool(row)
                        and db.execute(
                            "SELECT 1 FROM paper_feeds WHERE paper_id = ? AND feed = ?", (paper.id, listing.feed)
                        ).fetchone()
                        is not None
                    )
                else:
                    seen.add(paper.id)
                    row = stored.get(paper.id)
                    relisted = paper.id in relisted_ids
                if row is None:
                    counter += 1
                    new_papers.append((paper.id, counter, counter, now, now, *_to_row(paper)))
                    new_feeds.extend((paper.id, feed, now) for feed in paper.feeds)
                    report.new += 1
                    continue
                write_new()
                feeds_added = self._add_feeds(db, paper.id, paper.feeds, now)
                merged = _to_row(paper) if relisted else _merge(row, paper)
                made_shared = team is None and paper.id in private_ids
                if merged != tuple(row[c] for c in _CONTENT) or feeds_added or made_shared:
                    counter += 1
                    db.execute(
                        f"UPDATE papers SET rev = ?, updated_at = ?, {', '.join(f'{c} = ?' for c in _CONTENT)} WHERE id = ?",
                        (counter, now, *merged, paper.id),
                    )
                    report.updated += 1
                else:
                    report.unchanged += 1
            write_new()
            self._set_visibility(db, ids, stored, private_ids, team)
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('counter', ?)", (str(counter),))
            self._count_papers(db, report.new)
            db.execute(
                "INSERT INTO ingests (path, feed, at, new, updated, unchanged, rejected, token) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (listing.path, listing.feed, now, report.new, report.updated, report.unchanged, report.rejected, token),
            )
        return report

    def ingested(self, token: str) -> tuple[int, int, int] | None:
        """(new, updated, unchanged) of the ingest recorded under `token`, or None if none was."""
        rows = self.read("SELECT new, updated, unchanged FROM ingests WHERE token = ?", (token,))
        return (rows[0][0], rows[0][1], rows[0][2]) if rows else None

    @staticmethod
    def _counter(db: sqlite3.Connection) -> int:
        row = db.execute("SELECT value FROM meta WHERE key = 'counter'").fetchone()
        return int(row[0]) if row else 0

    @staticmethod
    def _count_papers(db: sqlite3.Connection, delta: int) -> None:
        """Move the papers' count kept in `meta` (state() reads it) by `delta`, in the same transaction."""
        if delta:
            row = db.execute("SELECT value FROM meta WHERE key = 'papers'").fetchone()
            count = (int(row[0]) if row else 0) + delta
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('papers', ?)", (str(count),))

    def _count_once(self) -> None:
        """Count the papers once into `meta` for a store from before the count was kept there."""
        if self.read("SELECT 1 FROM meta WHERE key = 'papers'"):
            return
        with self.transaction(PAPERS) as db:
            if db.execute("SELECT 1 FROM meta WHERE key = 'papers'").fetchone() is None:  # another instance was first
                count = db.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
                db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('papers', ?)", (str(count),))

    def recount(self) -> int:
        """Count the papers again into `meta` (the count a rebuilt index found differed); return it."""
        with self.transaction(PAPERS) as db:
            count = int(db.execute("SELECT COUNT(*) FROM papers").fetchone()[0])
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('papers', ?)", (str(count),))
        return count

    @staticmethod
    def _rows_of(db: sqlite3.Connection, ids: list[str]) -> dict[str, sqlite3.Row]:
        """The stored rows of these papers, by id (ids not stored are absent)."""
        rows: dict[str, sqlite3.Row] = {}
        for start in range(0, len(ids), 500):  # SQLite caps the number of bound variables
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            rows.update((row["id"], row) for row in db.execute(f"SELECT * FROM papers WHERE id IN ({marks})", chunk))
        return rows

    @staticmethod
    def _listed_by(db: sqlite3.Connection, ids: list[str], feed: str) -> set[str]:
        """Which of these papers `feed` has listed before."""
        listed: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            listed.update(
                row[0]
                for row in db.execute(
                    f"SELECT paper_id FROM paper_feeds WHERE feed = ? AND paper_id IN ({marks})", (feed, *chunk)
                )
            )
        return listed

    @staticmethod
    def _private_of(db: sqlite3.Connection, ids: list[str]) -> set[str]:
        """Which of these papers are private to some workspace (have a paper_teams row)."""
        if db.execute("SELECT 1 FROM paper_teams LIMIT 1").fetchone() is None:
            return set()  # a library with no private uploads (most): one cheap query
        private: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = list(dict.fromkeys(ids[start : start + 500]))
            marks = ", ".join("?" for _ in chunk)
            private.update(
                row[0] for row in db.execute(f"SELECT DISTINCT paper_id FROM paper_teams WHERE paper_id IN ({marks})", chunk)
            )
        return private

    @staticmethod
    def _set_visibility(
        db: sqlite3.Connection, ids: list[str], stored: dict[str, sqlite3.Row], private_ids: set[str], team: str | None
    ) -> None:
        """A shared listing's papers become shared; an upload's new or private papers become
        visible to its workspace (shared ones stay shared). In the listing's transaction."""
        listed = list(dict.fromkeys(ids))
        if team is None:
            gone = [pid for pid in listed if pid in private_ids]
            for start in range(0, len(gone), 500):
                chunk = gone[start : start + 500]
                db.execute(f"DELETE FROM paper_teams WHERE paper_id IN ({', '.join('?' for _ in chunk)})", chunk)
            return
        mine = [(team, pid) for pid in listed if pid not in stored or pid in private_ids]
        if mine:
            db.executemany("INSERT OR IGNORE INTO paper_teams (team_id, paper_id) VALUES (?, ?)", mine)

    @staticmethod
    def _add_feeds(db: sqlite3.Connection, paper_id: str, feeds: list[str], now: str) -> int:
        added = 0
        for feed in feeds:
            added += db.execute(
                "INSERT OR IGNORE INTO paper_feeds (paper_id, feed, first_seen) VALUES (?, ?, ?)", (paper_id, feed, now)
            ).rowcount
        return added

    def known_ids(self, ids: list[str]) -> set[str]:
        """Which of these paper ids are stored."""
        known: set[str] = set()
        for start in range(0, len(ids), 500):  # SQLite caps the number of bound variables
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            known.update(row[0] for row in self.read(f"SELECT id FROM papers WHERE id IN ({marks})", tuple(chunk)))
        return known

    def get(self, paper_id: str) -> Paper | None:
        papers = self.get_many([paper_id])
        return papers[0] if papers else None

    def get_many(self, ids: list[str]) -> list[Paper]:
        """Return the papers with these ids, in the order given (unknown ids are skipped)."""
        if not ids:
            return []
        rows = []
        for start in range(0, len(ids), 500):  # SQLite caps the number of bound variables
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            rows += self.read(f"SELECT * FROM papers WHERE id IN ({marks})", tuple(chunk))
        feeds = self._feeds_of([r["id"] for r in rows])
        records = self._arxiv_of([r["id"] for r in rows])
        by_id = {p.id: p for p in _from_rows(rows, feeds, records, self._teams_of([r["id"] for r in rows]))}
        return [by_id[i] for i in ids if i in by_id]

    def find_ids(self, prefix: str, limit: int = 2) -> list[str]:
        """Return ids starting with `prefix` (so people can type a short id)."""
        prefix = prefix.lower()
        if not prefix or any(c not in "0123456789abcdef" for c in prefix):
            return []
        return [
            r[0]
            for r in self.read(
                "SELECT id FROM papers WHERE id >= ? AND id < ? ORDER BY id LIMIT ?", (prefix, prefix + "g", limit)
            )
        ]

    def _feeds_of(self, ids: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            for row in self.read(
                f"SELECT paper_id, feed FROM paper_feeds WHERE paper_id IN ({marks}) ORDER BY first_seen, feed", tuple(chunk)
            ):
                out.setdefault(row[0], []).append(row[1])
        return out

    def _teams_of(self, ids: list[str]) -> dict[str, list[str]]:
        """The workspaces each of these papers is private to (shared papers are absent)."""
        out: dict[str, list[str]] = {}
        if not ids or not self.read("SELECT 1 FROM paper_teams LIMIT 1"):
            return out  # a library with no private uploads (most): one cheap query
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            for row in self.read(
                f"SELECT paper_id, team_id FROM paper_teams WHERE paper_id IN ({marks}) ORDER BY team_id", tuple(chunk)
            ):
                out.setdefault(row[0], []).append(row[1])
        return out

    def _arxiv_of(self, ids: list[str]) -> dict[str, ArxivRecord]:
        out: dict[str, ArxivRecord] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            for row in self.read(f"SELECT * FROM arxiv_records WHERE status = 'found' AND paper_id IN ({marks})", tuple(chunk)):
                data = {c: json.loads(row[c]) if c in _ARXIV_JSON else row[c] for c in _ARXIV}
                out[row["paper_id"]] = ArxivRecord(**data)
        return out

    # -- arXiv records -------------------------------------------------------------------

    def arxiv_due(self, recheck_before: str, limit: int | None = None) -> list[Paper]:
        """Papers to look up on arXiv: never looked up (newest first), then checked before
        `recheck_before` (oldest check first): "not on arXiv" may have changed, and a found
        record may have a new version."""
        cap = -1 if limit is None else limit
        fresh = self.read(
            "SELECT p.id FROM papers p LEFT JOIN arxiv_records a ON a.paper_id = p.id "
            "WHERE a.paper_id IS NULL ORDER BY p.seq DESC LIMIT ?",
            (cap,),
        )
        ids = [r[0] for r in fresh]
        if limit is None or len(ids) < limit:
            stale = self.read(
                "SELECT paper_id FROM arxiv_records WHERE checked_at < ? ORDER BY checked_at LIMIT ?",
                (recheck_before, -1 if limit is None else limit - len(ids)),
            )
            ids += [r[0] for r in stale]
        return self.get_many(ids)

    def save_arxiv(self, found: dict[str, ArxivRecord | None], now: str) -> int:
        """Keep what a lookup found (None: not on arXiv) in one transaction; return how many
        papers changed. A changed record takes the next `rev`, so the index re-reads the paper;
        a paper once found stays found when a later lookup misses it."""
        changed = 0
        with self.transaction(PAPERS) as db:
            counter = self._counter(db)
            for paper_id, record in found.items():
                if db.execute("SELECT 1 FROM papers WHERE id = ?", (paper_id,)).fetchone() is None:
                    continue
                row = db.execute("SELECT * FROM arxiv_records WHERE paper_id = ?", (paper_id,)).fetchone()
                if record is None:
                    if row is None:
                        db.execute(
                            "INSERT INTO arxiv_records (paper_id, status, checked_at) VALUES (?, 'missing', ?)", (paper_id, now)
                        )
                    else:
                        db.execute("UPDATE arxiv_records SET checked_at = ? WHERE paper_id = ?", (now, paper_id))
                    continue
                values = tuple(_arxiv_value(record, c) for c in _ARXIV)
                if row is not None and row["status"] == "found" and tuple(row[c] for c in _ARXIV) == values:
                    db.execute("UPDATE arxiv_records SET checked_at = ? WHERE paper_id = ?", (now, paper_id))
                    continue
                db.execute(
                    f"INSERT OR REPLACE INTO arxiv_records (paper_id, status, checked_at, {', '.join(_ARXIV)}) "
                    f"VALUES (?, 'found', ?, {', '.join('?' for _ in _ARXIV)})",
                    (paper_id, now, *values),
                )
                counter += 1
                db.execute("UPDATE papers SET rev = ?, updated_at = ? WHERE id = ?", (counter, now, paper_id))
                changed += 1
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('counter', ?)", (str(counter),))
        return changed

    def remove_papers(self, paper_ids: list[str]) -> list[tuple[str, int]]:
        """Delete these papers, their feeds and arXiv records in one transaction; return the
        (id, seq) of those that were stored, for the index to drop them too.

        The removal takes the next rev, and each removed paper leaves a tombstone at it
        (`removed_since`): an instance following the store deletes them from its index in
        place, where a count gone down at the same rev made it rebuild the whole index.
        (meta `removed_rev` is kept too, for an instance of the version before, which
        compares it.) Saves, cards and shares of a removed paper stay: nothing shows a
        paper that is not stored.
        """
        removed: list[tuple[str, int]] = []
        now = self.shared_now()  # the prune's clock (bot/services.py), whichever instance removes or prunes
        with self.transaction(PAPERS) as db:
            for start in range(0, len(paper_ids), 500):
                chunk = paper_ids[start : start + 500]
                marks = ", ".join("?" for _ in chunk)
                rows = db.execute(f"SELECT id, seq FROM papers WHERE id IN ({marks})", chunk).fetchall()
                if not rows:
                    continue
                removed.extend((row[0], row[1]) for row in rows)
                for table, column in (
                    ("arxiv_records", "paper_id"), ("paper_feeds", "paper_id"), ("paper_teams", "paper_id"), ("papers", "id"),
                ):  # fmt: skip
                    db.execute(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
            if removed:
                rev = self._counter(db) + 1
                db.executemany(
                    "INSERT OR REPLACE INTO paper_tombstones (paper_id, seq, rev, removed_at) VALUES (?, ?, ?, ?)",
                    [(paper_id, seq, rev, now) for paper_id, seq in removed],
                )
                for key in ("counter", "removed_rev"):
                    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, str(rev)))
                self._count_papers(db, -len(removed))
        return removed

    def prune_tombstones(self, before: str) -> int:
        """Delete the tombstones of removals made before `before` (a stored timestamp); return how many.

        A follower whose index is older than a pruned tombstone can't learn of that removal
        any more: `pruned_rev` (meta `tombstones_pruned_rev`, the highest rev pruned) tells it
        to rebuild from the store instead (Corpus.ensure_index). Tombstones above the newest
        paper's rev are kept whatever their age: an index holding every paper has that rev
        (its documents' highest), so a restarted up-to-date instance, which no longer knows
        it followed the removals after its last paper, is not behind the horizon. (If the
        newest papers are all removed after the prune, it is: Corpus._catch_up then tells an
        index that missed nothing by its count.)
        """
        with self.transaction(PAPERS) as db:
            newest = int(db.execute("SELECT COALESCE(MAX(rev), 0) FROM papers").fetchone()[0])
            row = db.execute(
                "SELECT COUNT(*), COALESCE(MAX(rev), 0) FROM paper_tombstones WHERE removed_at < ? AND rev < ?",
                (before, newest),
            ).fetchone()
            count, horizon = int(row[0]), int(row[1])
            if not count:
                return 0
            db.execute("DELETE FROM paper_tombstones WHERE removed_at < ? AND rev < ?", (before, newest))
            kept = db.execute("SELECT value FROM meta WHERE key = 'tombstones_pruned_rev'").fetchone()
            if kept is None or int(kept[0]) < horizon:
                db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('tombstones_pruned_rev', ?)", (str(horizon),))
        return count

    def pruned_rev(self) -> int:
        """The highest rev whose tombstones were pruned (0: none): an index behind it must be rebuilt."""
        rows = self.read("SELECT value FROM meta WHERE key = 'tombstones_pruned_rev'")
        return int(rows[0][0]) if rows else 0

    def removed_since(self, rev: int, upto_rev: int | None = None) -> list[tuple[str, int]]:
        """The (id, seq) of papers removed after `rev` (and at or before `upto_rev`): their tombstones."""
        upto = -1 if upto_rev is None else upto_rev
        rows = self.read(
            "SELECT paper_id, seq FROM paper_tombstones WHERE rev > ? AND (? < 0 OR rev <= ?) ORDER BY rev", (rev, upto, upto)
        )
        return [(row[0], row[1]) for row in rows]

    def add_feed(self, paper_ids: list[str], feed: str) -> int:
        """List stored papers under one more feed (an arXiv feed that saw them); new `rev` each.

        A feed is a shared source: a paper it lists that was private is shared from now on."""
        added = 0
        now = self._clock()
        with self.transaction(PAPERS) as db:
            counter = self._counter(db)
            private = self._private_of(db, paper_ids)
            for paper_id in paper_ids:
                shared_now = (
                    paper_id in private and db.execute("DELETE FROM paper_teams WHERE paper_id = ?", (paper_id,)).rowcount
                )
                if self._add_feeds(db, paper_id, [feed], now) or shared_now:
                    counter += 1
                    db.execute("UPDATE papers SET rev = ?, updated_at = ? WHERE id = ?", (counter, now, paper_id))
                    added += 1
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('counter', ?)", (str(counter),))
        return added

    def paper_id_for_doi(self, doi: str) -> str | None:
        """The paper whose arXiv record gives this DOI (DOIs are case-insensitive), if any."""
        rows = self.read("SELECT paper_id FROM arxiv_records WHERE lower(doi) = lower(?) AND status = 'found' LIMIT 1", (doi,))
        return rows[0][0] if rows else None

    def paper_id_for_arxiv(self, arxiv_id: str) -> str | None:
        """The paper whose arXiv record has this id (without version), if any."""
        rows = self.read("SELECT paper_id FROM arxiv_records WHERE arxiv_id = ? AND status = 'found' LIMIT 1", (arxiv_id,))
        return rows[0][0] if rows else None

    def arxiv_stats(self) -> dict:
        rows = self.read("SELECT status, COUNT(*) FROM arxiv_records GROUP BY status")
        counts = {r[0]: int(r[1]) for r in rows}
        return {"found": counts.get("found", 0), "missing": counts.get("missing", 0)}

    def iter_papers(self, *, since_rev: int = 0, upto_rev: int | None = None, batch: int = 1000) -> Iterator[Paper]:
        """Yield papers changed after `since_rev` (and at or before `upto_rev`), oldest change first, in batches."""
        last, upto = since_rev, (-1 if upto_rev is None else upto_rev)
        while True:
            rows = self.read(
                "SELECT * FROM papers WHERE rev > ? AND (? < 0 OR rev <= ?) ORDER BY rev LIMIT ?", (last, upto, upto, batch)
            )
            if not rows:
                return
            feeds = self._feeds_of([r["id"] for r in rows])
            records = self._arxiv_of([r["id"] for r in rows])
            yield from _from_rows(rows, feeds, records, self._teams_of([r["id"] for r in rows]))
            last = rows[-1]["rev"]

    def rev_ranges(self, *, since_rev: int, size: int) -> list[tuple[int, int]]:
        """Cut the papers changed after `since_rev` into (after_rev, upto_rev] ranges of
        `size` papers each (the last one smaller), oldest first: a bulk index write's
        shares, each read by a worker process of its own (`iter_papers`)."""
        ranges: list[tuple[int, int]] = []
        with self._lock:
            cursor = self._db.execute("SELECT rev FROM papers WHERE rev > ? ORDER BY rev", (since_rev,))
            start, count, rev = since_rev, 0, since_rev
            for (rev,) in cursor:
                count += 1
                if count == size:
                    ranges.append((start, rev))
                    start, count = rev, 0
            if count:
                ranges.append((start, rev))
        return ranges

    def count_since(self, rev: int) -> int:
        """How many papers changed after `rev`."""
        return int(self.read("SELECT COUNT(*) FROM papers WHERE rev > ?", (rev,))[0][0])

    def newest(self, limit: int = 5) -> list[Paper]:
        """Return the most recently first-seen papers (newest first)."""
        rows = self.read("SELECT id FROM papers ORDER BY seq DESC LIMIT ?", (limit,))
        return self.get_many([r[0] for r in rows])

    def papers_between(self, after_seq: int, upto_seq: int, limit: int | None = None) -> list[Paper]:
        """Return papers first stored with after_seq < seq <= upto_seq, oldest first."""
        rows = self.read(
            "SELECT id FROM papers WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
            (after_seq, upto_seq, -1 if limit is None else limit),
        )
        return self.get_many([r[0] for r in rows])

    def state(self) -> tuple[int, int]:
        """Return (paper count, latest rev) for comparing with the index.

        Both kept in `meta` by the transactions that change them (the counter every paper
        change takes, the count ingests and removals move), read in one statement, so from
        one snapshot: a follow tick and a /readyz probe cost one indexed read, where
        COUNT(*) is a scan on PostgreSQL (bench/RESULTS.md, "Following the store").
        """
        rows = self.read("SELECT key, value FROM meta WHERE key IN ('counter', 'papers')")
        kept = {row[0]: int(row[1]) for row in rows}
        return kept.get("papers", 0), kept.get("counter", 0)

    def last_seq(self) -> int:
        return int(self.read("SELECT COALESCE(MAX(seq), 0) FROM papers")[0][0])

    def stats(self) -> dict:
        """Count papers, feeds, venues and ingests for `stats` and the App Home."""
        papers, rev = self.state()
        feeds = {r[0]: r[1] for r in self.read("SELECT feed, COUNT(*) FROM paper_feeds GROUP BY feed ORDER BY 2 DESC")}
        venues = {r[0] or "": r[1] for r in self.read("SELECT venue, COUNT(*) FROM papers GROUP BY venue ORDER BY 2 DESC, 1")}
        ingests = self.read("SELECT COUNT(*), MAX(at) FROM ingests")[0]
        return {
            "papers": papers,
            "feeds": feeds,
            "venues": venues,
            "last_seq": self.last_seq(),
            "last_rev": rev,
            "ingests": int(ingests[0]),
            "last_ingest_at": ingests[1],
        }

    # -- readers -----------------------------------------------------------------------

    def team_or_home(self, team_id: str | None, db: sqlite3.Connection | None = None) -> str:
        """`team_id`, or the home workspace when none is named (bot/store/tenancy.py); read
        through `db` inside a transaction.

        For callers that predate workspaces (a single-workspace script, a test): in token
        mode the home workspace is the bot's own. Slack's listeners always name the team.
        """
        if team_id is not None:
            return team_id
        # Deferred: bot/store/tenancy.py imports this module (Store, apply_schema).
        from bot.store.tenancy import HOME_TEAM_KEY

        sql = "SELECT value FROM meta WHERE key = ?"
        rows = db.execute(sql, (HOME_TEAM_KEY,)).fetchall() if db is not None else self.read(sql, (HOME_TEAM_KEY,))
        return str(rows[0][0]) if rows else ""

    def get_user_lang(self, user_id: str, team_id: str | None = None) -> str | None:
        """The person's `/papers lang` in their workspace (None: the home workspace's)."""
        rows = self.read("SELECT lang FROM user_prefs WHERE team_id = ? AND user_id = ?", (self.team_or_home(team_id), user_id))
        return rows[0][0] if rows else None

    def set_user_lang(self, user_id: str, lang: str, team_id: str | None = None) -> None:
        with self.transaction() as db:
            team = self.team_or_home(team_id, db)
            db.execute("INSERT OR REPLACE INTO user_prefs (team_id, user_id, lang) VALUES (?, ?, ?)", (team, user_id, lang))

    # -- events (issue 13) ---------------------------------------------------------------

    def claim_event(self, event_id: str, *, team_id: str | None = None, keep: timedelta = EVENT_MEMORY) -> bool:
        """Record that `event_id` of workspace `team_id` is being handled; False if it was already (a retry).

        In the database, so the answer survives a restart and is the same for every
        process on this data folder. Ids older than `keep` are forgotten: Slack retries
        within minutes, so a day is ample.
        """
        now = self._clock()
        cutoff = (datetime.fromisoformat(now) - keep).isoformat(timespec="seconds")
        with self.transaction() as db:
            team = self.team_or_home(team_id, db)
            db.execute("DELETE FROM slack_events WHERE seen_at < ?", (cutoff,))
            return (
                db.execute(
                    "INSERT OR IGNORE INTO slack_events (team_id, event_id, seen_at) VALUES (?, ?, ?)", (team, event_id, now)
                ).rowcount
                == 1
            )


def _json_strings(items: list[str]) -> str:
    """`json.dumps(items, ensure_ascii=False)` for a list of strings, 3x faster."""
    return "[" + ", ".join(map(encode_basestring, items)) + "]" if items else "[]"


def _json_affiliations(items: list[Affiliation]) -> str:
    """`json.dumps([asdict(a) for a in items], ensure_ascii=False)`, 3x faster."""
    if not items:
        return "[]"
    return "[" + ", ".join(f'{{"en": {encode_basestring(a.en)}, "zh": {encode_basestring(a.zh)}}}' for a in items) + "]"


def _to_row(paper: Paper) -> tuple:
    """The paper's _CONTENT columns, in that order, as stored (lists as JSON).

    Built field by field: `Paper.to_dict()` and json.dumps cost 5x more, at bulk ingest
    most of the time storing took. tests/test_ingest_reference.py holds the two equal.
    """
    return (
        paper.title_en,
        paper.title_zh,
        _json_strings(paper.authors),
        _json_affiliations(paper.affiliations),
        paper.summary_zh,
        paper.comments,
        paper.journal_ref,
        paper.venue,
        paper.venue_name,
        paper.year,
        paper.track,
        _json_strings(paper.urls),
    )


_VENUE_FIELDS = ("venue", "venue_name", "year", "track")


def _merge(row: sqlite3.Row, paper: Paper) -> tuple:
    """Keep each stored value unless the new record has a non-empty one.

    The venue fields move together: "TMLR" from one feed must not keep 2026 from another.
    """
    new = dict(zip(_CONTENT, _to_row(paper), strict=True))
    old = {c: row[c] for c in _CONTENT}
    empty = ("", "[]", None)
    merged = {c: old[c] if new[c] in empty else new[c] for c in _CONTENT}
    venue_from = new if new["venue_name"] else old
    merged.update({c: venue_from[c] for c in _VENUE_FIELDS})
    return tuple(merged[c] for c in _CONTENT)


def _arxiv_value(record: ArxivRecord, column: str):
    value = getattr(record, column)
    return json.dumps(value, ensure_ascii=False) if column in _ARXIV_JSON else value


# The JSON columns hold only what _to_row wrote: no whitespace around the value to check for.
_loads = json.JSONDecoder().raw_decode


def read_papers(path: Path | str, after_rev: int, upto_rev: int) -> Iterator[Paper]:
    """The papers changed in (after_rev, upto_rev] of the store at `path`, read through a
    connection of their own: what a forked index worker reads its share with."""
    store = open_store(path, readonly=True)
    try:
        yield from store.iter_papers(since_rev=after_rev, upto_rev=upto_rev)
    finally:
        store.close()


def _from_rows(
    rows: list[sqlite3.Row], feeds: dict[str, list[str]], records: dict[str, ArxivRecord], teams: dict[str, list[str]]
) -> list[Paper]:
    """Papers from `SELECT * FROM papers` rows, with their feeds and arXiv records by id.

    Columns by position, found once per batch: looking each up by name costs more than the
    rest of building the paper.
    """
    if not rows:
        return []
    at = {name: i for i, name in enumerate(rows[0].keys())}
    id_, first_seen, seq, rev = at["id"], at["first_seen"], at["seq"], at["rev"]
    title_en, title_zh, authors, affiliations = at["title_en"], at["title_zh"], at["authors"], at["affiliations"]
    summary_zh, comments, journal_ref = at["summary_zh"], at["comments"], at["journal_ref"]
    venue, venue_name, year, track, urls = at["venue"], at["venue_name"], at["year"], at["track"], at["urls"]
    papers = []
    for row in rows:
        paper_id = row[id_]
        papers.append(
            Paper(
                id=paper_id,
                title_en=row[title_en],
                title_zh=row[title_zh],
                authors=_loads(row[authors])[0],
                affiliations=[Affiliation(a["en"], a["zh"]) for a in _loads(row[affiliations])[0]],
                summary_zh=row[summary_zh],
                comments=row[comments],
                journal_ref=row[journal_ref],
                venue=row[venue],
                venue_name=row[venue_name],
                year=row[year],
                track=row[track],
                urls=_loads(row[urls])[0],
                feeds=feeds.get(paper_id, []),
                first_seen=row[first_seen],
                seq=row[seq],
                rev=row[rev],
                arxiv=records.get(paper_id),
                teams=teams.get(paper_id, []),
            )
        )
    return papers
