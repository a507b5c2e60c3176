"""Which workspace a record belongs to (issue 25): one workspace's data never reaches another's.

Every per-workspace table has a `team_id TEXT NOT NULL DEFAULT ''` column, first in its
key, and every read and write of it names the team. Its owner registers it here
(`register`), so one place knows every such table:

    LOCAL            ''  the workspace of the offline console and of a CLI run that names
                         none; also every row written before tenancy existed
    register(t)          `t` is per-workspace (its owner calls this beside its SCHEMA)
    rekey(db, schema, t) apply_schema for per-workspace tables: a table made before tenancy
                         (no team_id) is rebuilt with the schema's key, its rows kept ('' team)
    adopt(store, team)   rows from before tenancy ('' team) become `team`'s, once: the
                         migration in place of a single-workspace store, run when the bot
                         learns its own workspace (token mode: auth.test at start)
    home_team(store)     the team that adopted them ('' until then): the CLI's default

Enterprise Grid: an org-wide install serves several teams; records are keyed by the
team a person acts from, and the workspace's settings (bot/store/workspaces.py) hold its
enterprise id.
"""

from __future__ import annotations

import logging

from bot.store.database import Store, apply_schema

logger = logging.getLogger(__name__)

LOCAL = ""
HOME_TEAM_KEY = "tenancy.home_team"
TEAM_COLUMN = "TEXT NOT NULL DEFAULT ''"
"""The declaration of every per-workspace table's `team_id` (for `apply_schema`'s columns)."""

_TABLES: list[str] = []


def register(*tables: str) -> None:
    """Declare `tables` per-workspace: each has a `team_id` column (see TEAM_COLUMN)."""
    for table in tables:
        if table not in _TABLES:
            _TABLES.append(table)


def team_tables() -> tuple[str, ...]:
    """Every per-workspace table registered so far (their owners register on import)."""
    return tuple(_TABLES)


def home_team(store: Store) -> str:
    """The workspace that adopted the rows from before tenancy; LOCAL until one did."""
    rows = store.read("SELECT value FROM meta WHERE key = ?", (HOME_TEAM_KEY,))
    return str(rows[0][0]) if rows else LOCAL


def adopt(store: Store, team_id: str) -> dict[str, int]:
    """Give `team_id` every row that has no team yet, in one transaction, the first time only.

    A single-workspace store keeps working when it upgrades: its saves, votes and
    subscriptions become its workspace's. Once a team adopted them, later rows with no
    team (the console's) stay LOCAL: another workspace never inherits them.
    Returns {table: rows adopted}; {} when already done or `team_id` is LOCAL.
    """
    if not team_id or home_team(store):
        return {}
    moved: dict[str, int] = {}
    with store.transaction() as db:
        if db.execute("SELECT 1 FROM meta WHERE key = ?", (HOME_TEAM_KEY,)).fetchone():
            return {}  # another instance adopted them first
        present = _present_tables(db)
        for table in _TABLES:
            if table not in present:
                continue
            cursor = db.execute(f"UPDATE {table} SET team_id = ? WHERE team_id = ''", (team_id,))
            if cursor.rowcount:
                moved[table] = cursor.rowcount
        db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (HOME_TEAM_KEY, team_id))
    if moved:
        logger.info("tenancy: rows from before workspaces became workspace %s's: %s", team_id, moved)
    return moved


def rekey(db, schema: str, tables: tuple[str, ...], columns: dict[str, dict[str, str]] | None = None) -> None:
    """Open per-workspace `tables` as `schema` says (inside the owner's transaction).

    SQLite can't change a table's primary key in place, so a table from before tenancy
    (it has no `team_id`) is copied aside, made anew with the schema's key (team first),
    and its rows copied back with team '' — `adopt` gives them their workspace. An
    identity column (INTEGER PRIMARY KEY) continues after the highest id copied.
    """
    register(*tables)
    present = _present_tables(db)
    stashed: list[str] = []
    for table in tables:
        if table in present and "team_id" not in _columns(db, table):
            aside = f"{table}_pre_tenancy"
            db.execute(f"DROP TABLE IF EXISTS {aside}")
            db.execute(f"CREATE TABLE {aside} AS SELECT * FROM {table}")
            db.execute(f"DROP TABLE {table}")  # and its indexes, which the schema makes again
            stashed.append(table)
    if stashed and getattr(db, "dialect", "sqlite") == "postgresql":
        # Deferred: psycopg is imported only for a PostgreSQL store
        from bot.store.postgres import forget_tables

        forget_tables(stashed)
    apply_schema(db, schema, columns)
    for table in stashed:
        aside = f"{table}_pre_tenancy"
        new = _columns(db, table)
        listed = ", ".join(sorted(c for c in _columns(db, aside) if c in new))
        db.execute(f"INSERT INTO {table} ({listed}) SELECT {listed} FROM {aside}")
        db.execute(f"DROP TABLE {aside}")
        if getattr(db, "dialect", "sqlite") == "postgresql":
            identity = db.table(table).identity
            if identity:
                db.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{identity}'),"
                    f" GREATEST((SELECT MAX({identity}) FROM {table}), 1))"
                )
        logger.info("tenancy: %s rebuilt with its workspace in the key", table)


def _columns(db, table: str) -> set[str]:
    if getattr(db, "dialect", "sqlite") == "postgresql":
        return set(db.columns(table))
    return {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}


def _present_tables(db) -> set[str]:
    if getattr(db, "dialect", "sqlite") == "postgresql":
        rows = db.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
    else:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(row[0]) for row in rows}
