"""The store on PostgreSQL (PAPERBOT_DATABASE_URL=postgresql://...): one dialect layer, no second schema.

Every room writes its SQL once, in the SQL SQLite and PostgreSQL share, with SQLite's few
shorthands (`?` placeholders, `INSERT OR IGNORE`, `INSERT OR REPLACE`, `LIMIT -1`, the
two-argument `MAX`, `INTEGER PRIMARY KEY`, `cursor.lastrowid`, `PRAGMA table_info`).
`translate` rewrites a statement into PostgreSQL's once per distinct text (cached), and
`PgConnection` gives the rooms the same calls sqlite3's connection does (`execute`,
`executemany`, cursors with `fetchone`/`fetchall`/`rowcount`/`lastrowid`, rows read by
position or name). `rowid` is refused: PostgreSQL's ctid is no insertion order. So the schema and its upgrades (`apply_schema`, `ensure_columns`) are one
path for both, the rooms keep their SQL as it is, and SQLite's path is untouched: no layer
sits between it and its driver (bench/run.py --code: search and ingest as before).

Why not SQLAlchemy Core: every room's SQL (store, subscriptions, library, feeds) would be
rewritten as expressions, and SQLite's hot paths (a bulk ingest's executemany, searches'
get_many) would go through its compiler and result objects; this layer costs SQLite nothing.

Writers take turns by domain (bot/store/database.py, WRITES): each write transaction first
takes its domain's transaction-level advisory lock, through a connection of the domain's own.
The counter every paper change takes (`meta` 'counter') is read and written by one PAPERS
writer at a time across every instance, so revs become visible in the order they were
taken, which an instance following the store (bot/corpus.py) relies on. Why not one lock
for all, nor none beside the counter's: with one, a stalled writer of any kind held every
instance's writes (an ingest held up lease renewals and digests); with none, the rooms'
read-then-write transactions (a lease taken, a delivery claimed, a Slack turn) would
interleave under READ COMMITTED and two instances would both win. A table written from
another domain's transaction is refused (ProgrammingError), so the split stays true.

A frozen instance (SIGSTOP, a VM paused, a swap storm) can't hold a lock for long: every
session sets `idle_in_transaction_session_timeout` (the server ends a session idle inside
a transaction, releasing its locks), `lock_timeout` (a writer waiting longer fails with a
clear error: the store unavailable, as in an outage), and TCP keepalives both ways (a lost
machine's connection is noticed). `SESSION_SETTINGS` and `KEEPALIVES` give the defaults; the
URL's own `options` come after them, so an operator's `-c lock_timeout=...` wins, and its
other options (a search_path) are kept.

Errors come out as the DB-API classes the rooms catch (sqlite3's: IntegrityError,
OperationalError, ...), PostgreSQL's own error chained; a connection lost (a restart of the
server, a session ended for idling) is opened again at the next call.
"""

from __future__ import annotations

import functools
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg.adapt import Loader
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.numeric import Int8Dumper

from bot.clock import Clock, system_clock, to_iso, utc_now_iso
from bot.store.database import DOMAIN_TABLES, SHARED_TABLES, WRITES, Store, open_schema

logger = logging.getLogger(__name__)

DOMAIN_LOCKS = {WRITES: 0x70617065, "papers": 0x70617066, "claims": 0x70617067}  # "pape", "papf", "papg"
"""The advisory lock each write domain's transactions hold (bot/store/database.py, WRITES)."""
WRITE_LOCK = DOMAIN_LOCKS[WRITES]
CONNECT_TIMEOUT_S = 5
SESSION_SETTINGS = {
    # No transaction of ours waits between statements: 10 s idle inside one is an instance
    # frozen (or lost) while holding its domain's lock; the server ends that session.
    "idle_in_transaction_session_timeout": "10s",
    # Longer than the above, so a writer queued behind a frozen one gets the lock once the
    # server has ended that session; and longer than an ingest of a large file holds it.
    "lock_timeout": "30s",
    # The server notices a client machine gone (no RST) within about a minute.
    "tcp_keepalives_idle": "30",
    "tcp_keepalives_interval": "10",
    "tcp_keepalives_count": "3",
}
KEEPALIVES = {"keepalives": "1", "keepalives_idle": "30", "keepalives_interval": "10", "keepalives_count": "3"}
"""The client's side: a server (or the path to it) gone silent fails a call instead of hanging."""

_WRITE = re.compile(r"^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", re.IGNORECASE)
_OWNER = {table: domain for domain, tables in DOMAIN_TABLES.items() for table in tables}


def connection_info(url: str) -> str:
    """`url` with the session settings and keepalives added: the URL's own options after
    ours (a later `-c` wins, so the URL's override), anything else it says kept as it is."""
    params = conninfo_to_dict(url)
    ours = " ".join(f"-c {name}={value}" for name, value in SESSION_SETTINGS.items())
    params["options"] = f"{ours} {params['options']}" if params.get("options") else ours
    for name, value in KEEPALIVES.items():
        params.setdefault(name, value)
    params.setdefault("connect_timeout", str(CONNECT_TIMEOUT_S))
    return make_conninfo("", **params)


def check_domain(sql: str, domain: str) -> None:
    """Refuse a write to a table another domain owns (bot/store/database.py, WRITES)."""
    found = _WRITE.match(sql)
    if found is None:
        return
    table = found[1].lower()
    owner = _OWNER.get(table, WRITES)
    if owner != domain and table not in SHARED_TABLES:
        raise ValueError(f"{table} is written in {owner} transactions only (this one is {domain}): {sql[:80]}")


_TOKENS = re.compile(r"'(?:[^']|'')*'|\?|%|\browid\b|[^'?%r]+|r", re.IGNORECASE)
_INSERT_OR = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.IGNORECASE)
_INSERT = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)", re.IGNORECASE)
_INSERT_COLUMNS = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.IGNORECASE)
_UPSERT = re.compile(r"\bDO\s+UPDATE\s+SET\b", re.IGNORECASE)
_PAIR = re.compile(r"\b(MAX|MIN)\(\s*([\w.]+|%s)\s*,\s*([\w.]+|%s)\s*\)", re.IGNORECASE)
_LIMIT = re.compile(r"\bLIMIT\s+%s", re.IGNORECASE)
_CREATE = re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)
_ALTER_ADD = re.compile(r"^\s*ALTER\s+TABLE\s+\w+\s+ADD\s+COLUMN\s+", re.IGNORECASE)
_TYPES = (
    (re.compile(r"\bINTEGER\s+PRIMARY\s+KEY\b", re.IGNORECASE), "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b", re.IGNORECASE), "BIGINT"),
    (re.compile(r"\bREAL\b", re.IGNORECASE), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b", re.IGNORECASE), "BYTEA"),
)


def _placeholders(sql: str) -> str:
    """`?` -> `%s`, a literal `%` -> `%%`, never inside a quoted string; `rowid` is refused."""
    out = []
    for token in _TOKENS.findall(sql):
        if token == "?":
            out.append("%s")
        elif token == "%":
            out.append("%%")
        elif token.lower() == "rowid":  # ctid is not insertion order once a row is updated or vacuumed
            raise ValueError(f"rowid has no PostgreSQL equivalent; order by a column instead: {sql}")
        else:
            out.append(token)
    return "".join(out)


def translate_schema(sql: str) -> str:
    """A CREATE TABLE (or ADD COLUMN) in SQLite's types, in PostgreSQL's."""
    for pattern, replacement in _TYPES:
        sql = pattern.sub(replacement, sql)
    return sql


class TableInfo:
    """What a statement's rewrite needs to know of a table: its key, and its generated id."""

    def __init__(self, key: tuple[str, ...], identity: str | None):
        self.key = key
        self.identity = identity


def translate(sql: str, table: Callable[[str], TableInfo]) -> tuple[str, str | None]:
    """SQLite's statement in PostgreSQL's; and the column a `RETURNING` adds (for `lastrowid`)."""
    if _CREATE.match(sql) or _ALTER_ADD.match(sql):
        return translate_schema(sql), None
    returning: str | None = None
    text = _placeholders(sql)
    text = _PAIR.sub(lambda m: f"{'GREATEST' if m[1].upper() == 'MAX' else 'LEAST'}({m[2]}, {m[3]})", text)
    text = _LIMIT.sub("LIMIT NULLIF(%s::bigint, -1)", text)  # SQLite's LIMIT -1 is "no limit"; PostgreSQL's is LIMIT NULL
    conflict = _INSERT_OR.match(text)
    if conflict:
        kind, name, columns = conflict[1].upper(), conflict[2], [c.strip() for c in conflict[3].split(",")]
        text = re.sub(r"^\s*INSERT\s+OR\s+\w+\s+INTO", "INSERT INTO", text, count=1, flags=re.IGNORECASE)
        key = table(name).key
        others = [c for c in columns if c not in key]
        if kind == "IGNORE" or not others:
            text += " ON CONFLICT DO NOTHING"
        else:
            text += f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in others)
    upsert = _UPSERT.search(text)
    if upsert and (columns_of := _INSERT_COLUMNS.match(text)):
        # In DO UPDATE, PostgreSQL reads a bare column as ambiguous (the row, or EXCLUDED's): name the table's.
        table_name, head, tail = columns_of[1], text[: upsert.end()], text[upsert.end() :]
        for column in (c.strip() for c in columns_of[2].split(",")):
            tail = re.sub(rf"(?<![\w.]){column}\b(?!\s*=[^=])", f"{table_name}.{column}", tail)
        text = head + tail
    insert = _INSERT.match(text)
    if insert and "RETURNING" not in text.upper():
        returning = table(insert[1]).identity
        if returning:
            text += f" RETURNING {returning}"
    return text, returning


class Row:
    """A row read by position or by column name, with `keys()`: what sqlite3.Row offers the rooms."""

    __slots__ = ("_names", "_values")

    def __init__(self, names: dict[str, int], values: Sequence[Any]):
        self._names = names
        self._values = values

    def __getitem__(self, key: int | str) -> Any:
        return self._values[key if isinstance(key, int) else self._names[key]]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._names)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Row) and tuple(self) == tuple(other) and self.keys() == other.keys()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Row({dict(zip(self._names, self._values, strict=True))!r})"


def _rows(cursor: psycopg.Cursor) -> Callable[[Sequence[Any]], Row]:
    names = {column.name: i for i, column in enumerate(cursor.description or ())}
    return functools.partial(Row, names)


class _Numeric(Loader):
    """numeric (what SUM and AVG of integers give) as int or float, as SQLite gives it, not Decimal."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode()
        try:
            return int(text)
        except ValueError:
            return float(text)


class _BoolAsInt(Int8Dumper):
    """A Python bool binds as 0 or 1: the rooms' flag columns are INTEGER, as in SQLite."""

    def dump(self, obj: Any) -> bytes:
        return b"1" if obj else b"0"


def _as_dbapi(error: psycopg.Error) -> sqlite3.Error:
    """The DB-API class the rooms catch (they name sqlite3's), with PostgreSQL's message."""
    if isinstance(error, psycopg.IntegrityError):
        return sqlite3.IntegrityError(str(error))
    if isinstance(
        error,
        psycopg.OperationalError
        | psycopg.errors.AdminShutdown
        | psycopg.InterfaceError
        | psycopg.errors.IdleInTransactionSessionTimeout,  # (an InternalError) the server ended a stalled session
    ):
        return sqlite3.OperationalError(f"PostgreSQL: {error}")
    if isinstance(error, psycopg.ProgrammingError):
        return sqlite3.ProgrammingError(str(error))
    if isinstance(error, psycopg.DataError):
        return sqlite3.DataError(str(error))
    return sqlite3.DatabaseError(str(error))


@contextmanager
def dbapi_errors() -> Iterator[None]:
    try:
        yield
    except psycopg.Error as exc:
        raise _as_dbapi(exc) from exc


class PgCursor:
    """The answer to one statement: rows, how many it changed, the id it generated."""

    def __init__(self, cursor: psycopg.Cursor[Any], returning: str | None):
        self._cursor = cursor
        self.rowcount = cursor.rowcount
        self.lastrowid: int | None = None
        if returning is not None:
            row = cursor.fetchone()
            self.lastrowid = row[0] if row is not None else None

    def fetchone(self) -> Row | None:
        with dbapi_errors():
            return self._cursor.fetchone()

    def fetchall(self) -> list[Row]:
        with dbapi_errors():
            return self._cursor.fetchall()

    def __iter__(self) -> Iterator[Row]:
        return iter(self.fetchall())


class PgConnection:
    """sqlite3.Connection's calls over one psycopg connection (see the module's docstring)."""

    dialect = "postgresql"

    def __init__(self, url: str, *, autocommit: bool, domain: str = WRITES):
        with dbapi_errors():
            self.raw = psycopg.connect(connection_info(url), autocommit=autocommit, row_factory=_rows)
        self.raw.adapters.register_loader("numeric", _Numeric)
        self.raw.adapters.register_dumper(bool, _BoolAsInt)
        self.in_transaction = False
        self.domain = domain

    @property
    def usable(self) -> bool:
        return not self.raw.closed and not self.raw.broken

    def close(self) -> None:
        self.raw.close()

    def table(self, name: str) -> TableInfo:
        """The table's primary key and identity column, from PostgreSQL's catalog (once per table)."""
        info = _tables.get(name)
        if info is None:
            cursor = self.raw.execute(
                "SELECT a.attname, a.attidentity FROM pg_index i JOIN pg_attribute a"
                " ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)"
                " WHERE i.indrelid = to_regclass(%s) AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)",
                (name,),
            )
            key = cursor.fetchall()
            identity = [row[0] for row in key if row[1] in ("a", "d")]
            info = TableInfo(tuple(row[0] for row in key), identity[0] if identity else None)
            if key:  # a table not made yet is looked up again once it is
                _tables[name] = info
        return info

    def execute(self, sql: str, args: Sequence[Any] = ()) -> PgCursor:
        if self.in_transaction:
            _checked(sql, self.domain)
        with dbapi_errors():
            text, returning = _translate_cached(sql, self)
            if self.in_transaction and text.lstrip()[:6].upper() == "INSERT" and "ON CONFLICT" not in text:
                # A plain INSERT may break a UNIQUE and be caught (SubscriptionStore.claim): PostgreSQL
                # then fails the whole transaction, SQLite only the statement. A savepoint keeps SQLite's way.
                with self.raw.transaction():
                    return PgCursor(self.raw.execute(text, list(args)), returning)
            return PgCursor(self.raw.execute(text, list(args)), returning)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if self.in_transaction:
            _checked(sql, self.domain)
        with dbapi_errors():
            text, _ = _translate_cached(sql, self)
            with self.raw.cursor() as cursor:
                cursor.executemany(text, [list(r) for r in rows])

    def columns(self, table: str) -> set[str]:
        """The columns `table` has (ensure_columns), in the schema the connection works in."""
        with dbapi_errors():
            cursor = self.raw.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = %s",
                (table,),
            )
            return {row[0] for row in cursor.fetchall()}


_tables: dict[str, TableInfo] = {}  # every database this process opens holds the same schema
_translated: dict[str, tuple[str, str | None]] = {}
_domain_checked: set[tuple[str, str]] = set()


def _checked(sql: str, domain: str) -> None:
    """check_domain, once per statement's text and domain."""
    if (sql, domain) not in _domain_checked:
        try:
            check_domain(sql, domain)
        except ValueError as exc:
            raise sqlite3.ProgrammingError(str(exc)) from None
        _domain_checked.add((sql, domain))


def forget_tables(names: list[str]) -> None:
    """`names` were made anew with another key (bot/store/tenancy.py's rekey): look them up again."""
    for name in names:
        _tables.pop(name, None)
    _translated.clear()


def _translate_cached(sql: str, connection: PgConnection) -> tuple[str, str | None]:
    """`translate`, once per statement's text; an INSERT's once its table's key is known."""
    found = _translated.get(sql)
    if found is None:
        found = translate(sql, connection.table)
        insert = _INSERT.match(found[0])
        if insert is None or insert[1] in _tables:
            _translated[sql] = found
    return found


class PostgresStore(Store):
    """The same store on a PostgreSQL database that every instance shares (PAPERBOT_DATABASE_URL).

    One connection per write domain writes, behind a lock of its own, each write transaction
    first taking its domain's advisory lock (writers take turns across instances within a
    domain: bot/store/postgres.py says why). Another reads, in autocommit: each read sees
    what was last committed. A connection found broken (the server restarted, a session
    ended) is opened again; a read is tried once more on the new one, so searches come back
    by themselves.
    """

    def __init__(
        self, url: str, *, clock: Callable[[], str] = utc_now_iso, readonly: bool = False, machine_clock: Clock = system_clock
    ):
        """`machine_clock` is this machine's (a test gives one that runs fast): the leases'
        clock is it plus its offset from the database's (shared_clock), and without a `clock`
        of its own the store records times by it."""
        self.path = url
        self._by_machine = clock is utc_now_iso  # else a test's clock, kept (as shared_clock keeps a test's)
        self._clock = (lambda: to_iso(machine_clock())) if self._by_machine else clock
        self._lock = threading.RLock()  # (Store's: guards nothing here but what a subclass may take)
        self._locks = {domain: threading.RLock() for domain in DOMAIN_LOCKS}
        self._read_lock = threading.Lock()
        self._writing = None
        self._in_transaction: dict[int, PgConnection] = {}  # thread -> the connection of its transaction
        self._checkpointer = None
        self._reader = None
        self._guards = threading.local()
        self._writers: dict[str, PgConnection] = {}
        self._reader_pg: PgConnection | None = None
        self._offset = _ClockOffset(self, machine_clock)
        if not readonly:
            with self.transaction() as db:
                open_schema(db)
            self._count_once()
        else:
            self._reading()

    def _connection(self, domain: str = WRITES) -> PgConnection:
        writer = self._writers.get(domain)
        if writer is None or not writer.usable:
            writer = self._writers[domain] = PgConnection(str(self.path), autocommit=True, domain=domain)
        return writer

    def _reading(self) -> PgConnection:
        if self._reader_pg is None or not self._reader_pg.usable:
            self._reader_pg = PgConnection(str(self.path), autocommit=True)
        return self._reader_pg

    def close(self) -> None:
        for domain, lock in self._locks.items():
            with lock:
                writer = self._writers.pop(domain, None)
                if writer is not None:
                    writer.close()
        with self._read_lock:
            if self._reader_pg is not None:
                self._reader_pg.close()

    @contextmanager
    def transaction(self, domain: str = WRITES) -> Iterator[sqlite3.Connection]:
        """Run a block as one transaction, the domain's writers taking turns: all of it lands, or none of it."""
        lock_id = DOMAIN_LOCKS[domain]
        thread = threading.get_ident()
        with self._locks[domain]:
            db = self._connection(domain)
            self._in_transaction[thread] = db
            try:
                with dbapi_errors(), db.raw.transaction():
                    db.in_transaction = True
                    try:
                        db.raw.execute("SELECT pg_advisory_xact_lock(%s)", (lock_id,))
                        self.run_guards(db)  # type: ignore[arg-type]
                        yield db  # type: ignore[misc]
                    finally:
                        db.in_transaction = False
            finally:
                self._in_transaction.pop(thread, None)

    def read(self, sql: str, args: tuple = ()) -> list:
        """Run one SELECT on what was last committed (inside a transaction: through it)."""
        inside = self._in_transaction.get(threading.get_ident())
        if inside is not None:
            return inside.execute(sql, args).fetchall()
        with self._read_lock:
            try:
                return self._reading().execute(sql, args).fetchall()
            except sqlite3.OperationalError:
                if self._reader_pg is not None and self._reader_pg.usable:
                    raise
                logger.warning("the connection to PostgreSQL was lost; reading again on a new one")
                return self._reading().execute(sql, args).fetchall()

    def rev_ranges(self, *, since_rev: int, size: int) -> list[tuple[int, int]]:
        revs = [row[0] for row in self.read("SELECT rev FROM papers WHERE rev > ? ORDER BY rev", (since_rev,))]
        return [(since_rev if i == 0 else revs[i - 1], revs[min(i + size, len(revs)) - 1]) for i in range(0, len(revs), size)]

    def shared_clock(self, clock: Clock) -> Clock:
        """The database's clock for the machine's: every instance then compares leases and
        heartbeats by one clock, not each by its own. The machine's clock is the system's or
        the one this store was opened with (a test's clock that runs fast or slow); any other
        clock (a test's fake clock, which the test moves by hand) is kept as it is."""
        return self._offset.now if clock is system_clock or clock is self._offset.machine else clock

    def shared_now(self) -> str:
        """The database's clock, as the store records times (a store opened with a test's clock: that clock)."""
        return to_iso(self._offset.now()) if self._by_machine else self._clock()

    def database_time(self) -> datetime:
        """The database server's clock, now (one round trip)."""
        row = self.read("SELECT clock_timestamp()")[0]
        return row[0]


class _ClockOffset:
    """The database's clock as this machine's plus an offset, measured at most every REFRESH_S.

    A lease's clock is read often (each claim, renewal and digest step) and must answer
    during an outage too: asking the server every time would cost a round trip, and a
    connect timeout when it is away. The offset is measured from a round trip's midpoint
    (error at most half the round trip); while the server can't be asked, the last
    offset holds.
    """

    REFRESH_S = 10.0

    def __init__(self, store: PostgresStore, machine_clock: Clock):
        self._store = store
        self.machine = machine_clock
        self._offset: timedelta | None = None
        self._measured = -float("inf")
        self._lock = threading.Lock()

    def now(self) -> datetime:
        if time.monotonic() - self._measured >= self.REFRESH_S:
            self._measure()
        return self.machine() + (self._offset or timedelta(0))

    def _measure(self) -> None:
        with self._lock:
            if time.monotonic() - self._measured < self.REFRESH_S:
                return
            self._measured = time.monotonic()
            try:
                before = self.machine()
                server = self._store.database_time()
                after = self.machine()
            except sqlite3.Error as exc:
                logger.warning("could not read the database's clock (%s); leases keep the last offset", exc)
                return
            offset = server - (before + (after - before) / 2)
            if self._offset is not None and abs(offset - self._offset) > timedelta(seconds=1):
                logger.warning("this machine's clock and the database's moved apart by %s", offset - self._offset)
            self._offset = offset
