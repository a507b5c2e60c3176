"""Move a SQLite store into PostgreSQL: `python -m bot store copy-to-postgres`.

A team that outgrows one process points PAPERBOT_DATABASE_URL at PostgreSQL; without this its
papers, subscriptions, deliveries, saves, votes, installations and settings would stay behind in
`data/paperbot.sqlite3` (the SQLite file is only read, so unsetting the URL goes back to it).
The target's tables are made first by the same schema path every instance runs (the CLI builds
the services on it); a table only the SQLite file has (a room this process did not open) is
made from the file's own CREATE TABLE, translated. Then every table is copied whole, from one
read snapshot of the file, in one PostgreSQL transaction, by COPY, in foreign-key order;
identity columns continue after the highest id copied, so the next row written gets a fresh one.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.errors import UserError
from bot.store.database import Store

KEPT_ON_CREATE = {"meta"}
"""Tables the schema path fills when it creates them (the counter): the copy replaces their rows."""


@dataclass(frozen=True)
class Copied:
    table: str
    rows: int


def copy_sqlite_into(source: Path, target: Store) -> list[Copied]:
    """Copy every table of `source` into `target`; refuse a target that holds anything."""
    if not source.is_file():
        raise UserError("migrate.no_source", path=str(source))
    reader = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        reader.execute("BEGIN")  # one snapshot: every table as of the same moment
        with target.transaction() as db:
            if getattr(db, "dialect", "sqlite") != "postgresql":
                raise UserError("migrate.not_postgres")
            tables = _tables(reader)
            for name in tables:
                if not db.columns(name):  # type: ignore[attr-defined]
                    (create,) = reader.execute(
                        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
                    ).fetchone()
                    db.execute(create)
            occupied = [
                name for name in tables if name not in KEPT_ON_CREATE and db.execute(f"SELECT 1 FROM {name} LIMIT 1").fetchone()
            ]
            if occupied:
                raise UserError("migrate.target_not_empty", tables=", ".join(occupied))
            return [_copy_table(reader, db, name) for name in tables]
    except (UserError, sqlite3.Error):
        raise
    except Exception as exc:  # psycopg's, from COPY (imported only with PostgreSQL): say which table, keep no half copy
        raise UserError("migrate.failed", error=" ".join(str(exc).split())[:300]) from exc
    finally:
        reader.close()


def _tables(reader: sqlite3.Connection) -> list[str]:
    """The SQLite file's tables, each after the tables its foreign keys point at."""
    rows = reader.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    names = [row[0] for row in rows]
    needs = {name: {fk[2] for fk in reader.execute(f"PRAGMA foreign_key_list({name})")} - {name} for name in names}
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and needs[n] <= set(ordered) | (needs[n] - set(names))]
        ordered += ready or [n for n in names if n not in ordered]  # a cycle: copy the rest as they come
    return ordered


def _copy_table(reader: sqlite3.Connection, db, name: str) -> Copied:
    present = db.columns(name)
    columns = [row[1] for row in reader.execute(f"PRAGMA table_info({name})") if row[1] in present]
    listed = ", ".join(columns)
    raw = db.raw.cursor()
    raw.execute(f"DELETE FROM {name}")  # the first rows the schema path wrote (KEPT_ON_CREATE)
    count = 0
    try:
        with raw.copy(f"COPY {name} ({listed}) FROM STDIN") as copy:
            for row in reader.execute(f"SELECT {listed} FROM {name}"):
                copy.write_row(row)
                count += 1
    except Exception as exc:
        raise UserError("migrate.failed", error=f"{name}: " + " ".join(str(exc).split())[:300]) from exc
    identity = db.table(name).identity
    if identity and identity in columns:
        raw.execute(
            f"SELECT setval(pg_get_serial_sequence(%s, %s), GREATEST((SELECT MAX({identity}) FROM {name}), 1))",
            (name, identity),
        )
    return Copied(name, count)
