"""Workspaces that installed paperbot from its link (Slack OAuth), in paperbot's own store.

Three tables beside the papers, on SQLite or PostgreSQL alike (plain SQL through the
store's one dialect layer, bot/store/postgres.py), so an instance sharing a PostgreSQL
store sees every install another instance took:

    slack_installations  one row per workspace (enterprise id, team id; '' when none):
                         the installation Slack gave, as JSON (bot token, refresh token,
                         scopes, who installed). Replaced by a reinstall or a token rotation.
    slack_oauth_states   install links handed out and not used yet: a state is good once,
                         until it expires (a replayed or forged one finds no row).
    paused_teams         workspaces that uninstalled or revoked the token, until a
                         reinstall resumes them (`pause_reason`: what a digest run for that
                         workspace checks, bot/digests/service.py).
    org_teams            the workspaces heard from inside an org-wide (Enterprise Grid)
                         install: its row is (enterprise id, '') and names no workspace, so
                         background work learns here which org's token serves a team.

An org-wide install is one row, (E, ''); every workspace of that org is served by it unless
the workspace has an install of its own, (E, T). Uninstalling the org pauses (E, ''), and
with it each of its workspaces that has no install of its own; reinstalling resumes them.

This room knows nothing of Slack's SDK: bot/slack/oauth.py turns these rows into Bolt's
Installation and Bot objects.
"""

from __future__ import annotations

import json
from datetime import timedelta

from bot.clock import parse_iso, to_iso
from bot.store.database import Store, apply_schema

SCHEMA = """
CREATE TABLE IF NOT EXISTS slack_installations (
    enterprise_id TEXT NOT NULL DEFAULT '',
    team_id       TEXT NOT NULL DEFAULT '',
    installed_at  TEXT NOT NULL,
    data          TEXT NOT NULL,
    PRIMARY KEY (enterprise_id, team_id)
);
CREATE TABLE IF NOT EXISTS slack_oauth_states (
    state      TEXT PRIMARY KEY,
    expires_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS paused_teams (
    enterprise_id TEXT NOT NULL DEFAULT '',
    team_id       TEXT NOT NULL DEFAULT '',
    paused_at     TEXT NOT NULL,
    reason        TEXT NOT NULL,
    PRIMARY KEY (enterprise_id, team_id)
);
CREATE TABLE IF NOT EXISTS org_teams (
    team_id       TEXT PRIMARY KEY,
    enterprise_id TEXT NOT NULL,
    seen_at       TEXT NOT NULL
);
"""


class Installations:
    """Installations, install states and paused workspaces, keyed by (enterprise, team)."""

    def __init__(self, store: Store):
        self.store = store
        with store.transaction() as db:
            apply_schema(db, SCHEMA)

    # -- installations ---------------------------------------------------------------

    def save(self, enterprise_id: str | None, team_id: str | None, data: dict, *, installed_at: str) -> None:
        """Keep `data` as the workspace's installation (a reinstall or a rotation replaces it),
        and resume the workspace's digests if an uninstall had paused them."""
        key = (enterprise_id or "", team_id or "")
        with self.store.transaction() as db:
            db.execute("DELETE FROM slack_installations WHERE enterprise_id = ? AND team_id = ?", key)
            db.execute(
                "INSERT INTO slack_installations (enterprise_id, team_id, installed_at, data) VALUES (?, ?, ?, ?)",
                (*key, installed_at, json.dumps(data, sort_keys=True)),
            )
            db.execute("DELETE FROM paused_teams WHERE enterprise_id = ? AND team_id = ?", key)

    def find(self, enterprise_id: str | None, team_id: str | None) -> dict | None:
        rows = self.store.read(
            "SELECT data FROM slack_installations WHERE enterprise_id = ? AND team_id = ?", (enterprise_id or "", team_id or "")
        )
        return json.loads(rows[0][0]) if rows else None

    def remove(self, enterprise_id: str | None, team_id: str | None, *, reason: str) -> bool:
        """Forget the workspace's installation (its tokens) and pause its digests; True if one was stored."""
        key = (enterprise_id or "", team_id or "")
        with self.store.transaction() as db:
            removed = db.execute("DELETE FROM slack_installations WHERE enterprise_id = ? AND team_id = ?", key).rowcount
            db.execute("DELETE FROM paused_teams WHERE enterprise_id = ? AND team_id = ?", key)
            db.execute(
                "INSERT INTO paused_teams (enterprise_id, team_id, paused_at, reason) VALUES (?, ?, ?, ?)",
                (*key, self.store.now(), reason),
            )
        return removed > 0

    def is_paused(self, enterprise_id: str | None, team_id: str | None) -> bool:
        """Did this workspace uninstall paperbot (or revoke its token) and not reinstall since?"""
        rows = self.store.read(
            "SELECT 1 FROM paused_teams WHERE enterprise_id = ? AND team_id = ?", (enterprise_id or "", team_id or "")
        )
        return bool(rows)

    def paused_teams(self) -> set[str]:
        return {row[0] for row in self.store.read("SELECT team_id FROM paused_teams")}

    def pause_reason(self, team_id: str) -> str:
        """Why `team_id` is paused (app_uninstalled, tokens_revoked), under any enterprise, or
        because its org's install was removed; "" if it isn't (an installation serves it).

        A subscription knows its team, not its enterprise: a digest run asks this."""
        if self.serving(team_id) is not None:
            return ""
        rows = self.store.read(
            "SELECT reason, paused_at FROM paused_teams WHERE team_id = ?"
            " UNION ALL SELECT p.reason, p.paused_at FROM paused_teams p"
            " JOIN org_teams o ON p.enterprise_id = o.enterprise_id AND p.team_id = ''"
            " WHERE o.team_id = ? ORDER BY paused_at DESC",
            (team_id, team_id),
        )
        return str(rows[0][0]) if rows else ""

    def serving(self, team_id: str) -> tuple[str, str] | None:
        """The key (enterprise id, team id) of the installation that answers for `team_id`: its
        own, else its org's (enterprise id, '') when an org-wide install serves it; None if none."""
        if not team_id:
            return None
        rows = self.store.read(
            "SELECT enterprise_id, team_id FROM slack_installations WHERE team_id = ?"
            " UNION ALL SELECT i.enterprise_id, i.team_id FROM slack_installations i"
            " JOIN org_teams o ON i.enterprise_id = o.enterprise_id AND i.team_id = ''"
            " WHERE o.team_id = ?",
            (team_id, team_id),
        )
        if not rows:
            return None
        row = next((row for row in rows if row[1]), rows[0])  # its own install first
        return str(row[0]), str(row[1])

    def enterprise_of(self, team_id: str) -> str | None:
        """The enterprise id of the installation serving `team_id` ('' outside Enterprise Grid);
        None when no installation serves the workspace. Background work looks its token up this way."""
        serving = self.serving(team_id)
        return serving[0] if serving is not None else None

    # -- workspaces of an org-wide install -------------------------------------------------

    def join_org(self, enterprise_id: str, team_id: str) -> bool:
        """Remember that `team_id` is a workspace of `enterprise_id`'s org; True the first time."""
        with self.store.transaction() as db:
            rows = db.execute("SELECT enterprise_id FROM org_teams WHERE team_id = ?", (team_id,)).fetchall()
            if rows and rows[0][0] == enterprise_id:
                return False
            db.execute(
                "INSERT OR REPLACE INTO org_teams (team_id, enterprise_id, seen_at) VALUES (?, ?, ?)",
                (team_id, enterprise_id, self.store.now()),
            )
        return True

    def org_teams(self, enterprise_id: str) -> set[str]:
        """The workspaces heard from inside `enterprise_id`'s org-wide install."""
        rows = self.store.read("SELECT team_id FROM org_teams WHERE enterprise_id = ?", (enterprise_id,))
        return {str(row[0]) for row in rows}

    # -- install states ----------------------------------------------------------------

    def issue_state(self, state: str, *, lasts_seconds: int) -> None:
        """Remember a state handed out with an install link (and forget the expired ones)."""
        expires_at = to_iso(parse_iso(self.store.now()) + timedelta(seconds=lasts_seconds))
        with self.store.transaction() as db:
            db.execute("DELETE FROM slack_oauth_states WHERE expires_at < ?", (self.store.now(),))
            db.execute("INSERT INTO slack_oauth_states (state, expires_at) VALUES (?, ?)", (state, expires_at))

    def consume_state(self, state: str) -> bool:
        """True once for a state this store issued and that has not expired; False after."""
        with self.store.transaction() as db:
            rows = db.execute("SELECT expires_at FROM slack_oauth_states WHERE state = ?", (state,)).fetchall()
            db.execute("DELETE FROM slack_oauth_states WHERE state = ?", (state,))
        return bool(rows) and rows[0][0] >= self.store.now()
