"""Move a SQLite store into PostgreSQL: `python -m bot store copy-to-postgres`.

A team that outgrows one process points PAPERBOT_DATABASE_URL at PostgreSQL; without this its
papers, subscriptions, deliveries, saves, votes and settings would stay behind in
`data/paperbot.sqlite3` (the SQLite file is only read, so unsetting the URL goes back to it).
The target's tables are made first by the same schema path every instance runs (build the
services on it), then each table the two share is copied whole, in one transaction, with
PostgreSQL's COPY; identity columns continue after the highest id copied, so the next row
written on PostgreSQL gets a fresh one.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.errors import UserError
from bot.store.database import Store


@dataclass(frozen=True)
class Copied:
    table: str
    rows: int


def copy_sqlite_into(source: Path, target: Store) -> list[Copied]:
    """Copy every table `source` and `target` both have; refuse a target that holds papers."""
    if not source.is_file():
        raise UserError("migrate.no_source", path=str(source))
    with target.transaction() as db:
        if getattr(db, "dialect", "sqlite") != "postgresql":
            raise UserError("migrate.not_postgres")
        (papers,) = db.execute("SELECT COUNT(*) FROM papers").fetchone()
        if papers:
            raise UserError("migrate.target_not_empty", count=papers)
        reader = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            tables = [name for name in _tables(reader) if db.columns(name)]  # type: ignore[attr-defined]
            # The schema path may have written first rows (the counter): the copy replaces them.
            db.raw.execute(f"TRUNCATE {', '.join(tables)}")  # type: ignore[attr-defined]
            return [_copy_table(reader, db, name) for name in tables]
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
    count = 0
    with raw.copy(f"COPY {name} ({listed}) FROM STDIN") as copy:
        for row in reader.execute(f"SELECT {listed} FROM {name}"):
            copy.write_row(row)
            count += 1
    identity = db.table(name).identity
    if identity and identity in columns:
        raw.execute(
            f"SELECT setval(pg_get_serial_sequence(%s, %s), GREATEST((SELECT MAX({identity}) FROM {name}), 1))",
            (name, identity),
        )
    return Copied(name, count)
