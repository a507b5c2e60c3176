"""The tenancy foundation (issue 25): each workspace's settings, and the migration in place.

On SQLite and on a real PostgreSQL (tests/postgres_support.py).
"""

from __future__ import annotations

import pytest

from bot.store import tenancy
from bot.store.database import apply_schema, open_store
from bot.store.workspaces import Workspaces


@pytest.fixture
def store(database_location):
    store = open_store(database_location)
    yield store
    store.close()


def test_a_workspace_reads_only_its_own_settings(store):
    workspaces = Workspaces(store)
    assert workspaces.get("T1").admins == () and not workspaces.get("T1").share_uploads
    workspaces.update("T1", by="U1", admins=("U2", "U1"), share_uploads=True, lang="zh")
    assert workspaces.get("T1").admins == ("U1", "U2") and workspaces.get("T1").lang == "zh"
    foreign = workspaces.get("T2")  # read as a foreign team: the defaults, nothing of T1's
    assert foreign.admins == () and foreign.lang == "" and not foreign.share_uploads
    assert workspaces.sharing_teams() == {"T1"}
    with pytest.raises(ValueError, match="not a workspace setting"):
        workspaces.update("T1", by="U1", colour="red")


def test_rows_from_before_tenancy_become_the_first_workspaces_once(store):
    with store.transaction() as db:
        apply_schema(db, "CREATE TABLE IF NOT EXISTS t_notes (team_id TEXT NOT NULL DEFAULT '', note TEXT NOT NULL)")
        db.execute("INSERT INTO t_notes (note) VALUES ('old')")
    tenancy.register("t_notes", "t_never_created")
    assert tenancy.home_team(store) == tenancy.LOCAL
    assert tenancy.adopt(store, "T1") == {"t_notes": 1}
    assert tenancy.home_team(store) == "T1"
    with store.transaction() as db:
        db.execute("INSERT INTO t_notes (note) VALUES ('console')")
    assert tenancy.adopt(store, "T2") == {}  # a second workspace inherits nothing
    rows = sorted((r[0], r[1]) for r in store.read("SELECT team_id, note FROM t_notes"))
    assert rows == [("", "console"), ("T1", "old")]


OLD = """
CREATE TABLE IF NOT EXISTS t_saves (
    id      INTEGER PRIMARY KEY,
    user_id TEXT NOT NULL,
    paper   TEXT NOT NULL,
    UNIQUE (user_id, paper)
);
CREATE INDEX IF NOT EXISTS t_saves_paper ON t_saves (paper);
"""
NEW = """
CREATE TABLE IF NOT EXISTS t_saves (
    id      INTEGER PRIMARY KEY,
    team_id TEXT NOT NULL DEFAULT '',
    user_id TEXT NOT NULL,
    paper   TEXT NOT NULL,
    UNIQUE (team_id, user_id, paper)
);
CREATE INDEX IF NOT EXISTS t_saves_paper ON t_saves (team_id, paper);
"""


def test_a_table_from_before_tenancy_is_rekeyed_with_its_rows_and_ids(store):
    with store.transaction() as db:
        apply_schema(db, OLD)
        db.execute("INSERT INTO t_saves (user_id, paper) VALUES ('U1', 'p1')")
        db.execute("INSERT INTO t_saves (user_id, paper) VALUES ('U1', 'p2')")
    with store.transaction() as db:
        tenancy.rekey(db, NEW, ("t_saves",))
    assert "t_saves" in tenancy.team_tables()
    assert sorted(tuple(r) for r in store.read("SELECT id, team_id, user_id, paper FROM t_saves")) == [
        (1, "", "U1", "p1"),
        (2, "", "U1", "p2"),
    ]
    tenancy.adopt(store, "T1")
    with store.transaction() as db:  # the same person and paper in another workspace: a row of its own
        db.execute("INSERT INTO t_saves (team_id, user_id, paper) VALUES ('T2', 'U1', 'p1')")
        fresh = db.execute("SELECT MAX(id) FROM t_saves").fetchone()[0]
        tenancy.rekey(db, NEW, ("t_saves",))  # a second open changes nothing
    assert fresh == 3
    assert store.read("SELECT COUNT(*) FROM t_saves WHERE team_id = 'T1'")[0][0] == 2
    assert store.read("SELECT user_id FROM t_saves WHERE team_id = 'T2'")[0][0] == "U1"
