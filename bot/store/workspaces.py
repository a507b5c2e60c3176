"""Each workspace's own settings (issue 25 point 3), set by that workspace's admins.

    workspaces   one row per team: its enterprise id, the default digest language and time
                 zone, its admins, and whether the listings it uploads are shared with every
                 workspace (private by default)

A workspace with no row has the defaults (`WorkspaceSettings(team_id)`): the server's
language and zone, no admins of its own. Single-workspace token mode keeps
`PAPERBOT_ADMINS`: they are admins of the home workspace (bot/store/tenancy.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from bot.store.database import Store, apply_schema

SCHEMA = """
CREATE TABLE IF NOT EXISTS workspaces (
    team_id       TEXT PRIMARY KEY,
    enterprise_id TEXT NOT NULL DEFAULT '',
    lang          TEXT NOT NULL DEFAULT '',
    timezone      TEXT NOT NULL DEFAULT '',
    admins        TEXT NOT NULL DEFAULT '[]',
    share_uploads INTEGER NOT NULL DEFAULT 0,
    updated_by    TEXT NOT NULL DEFAULT '',
    updated_at    TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class WorkspaceSettings:
    team_id: str
    enterprise_id: str = ""
    lang: str = ""  # '' = the server's default (PAPERBOT_DEFAULT_LANG)
    timezone: str = ""  # '' = the server's default zone
    admins: tuple[str, ...] = field(default_factory=tuple)
    share_uploads: bool = False
    updated_by: str = ""
    updated_at: str = ""


class Workspaces:
    """Read and change each workspace's settings; every call names its team."""

    def __init__(self, store: Store):
        self.store = store
        with store.transaction() as db:
            apply_schema(db, SCHEMA)

    def get(self, team_id: str) -> WorkspaceSettings:
        rows = self.store.read(
            "SELECT team_id, enterprise_id, lang, timezone, admins, share_uploads, updated_by, updated_at"
            " FROM workspaces WHERE team_id = ?",
            (team_id,),
        )
        if not rows:
            return WorkspaceSettings(team_id)
        row = rows[0]
        return WorkspaceSettings(
            team_id=row[0], enterprise_id=row[1], lang=row[2], timezone=row[3],
            admins=tuple(json.loads(row[4] or "[]")), share_uploads=bool(row[5]), updated_by=row[6], updated_at=row[7],
        )  # fmt: skip

    def update(self, team_id: str, *, by: str, **changes: Any) -> WorkspaceSettings:
        """Change some of a workspace's settings (the fields of WorkspaceSettings); returns the result."""
        unknown = set(changes) - {"enterprise_id", "lang", "timezone", "admins", "share_uploads"}
        if unknown:
            raise ValueError(f"not a workspace setting: {', '.join(sorted(unknown))}")
        with self.store.transaction() as db:
            current = self.get(team_id)
            wanted = replace(current, **changes, updated_by=by, updated_at=self.store.now())
            db.execute(
                "INSERT OR REPLACE INTO workspaces"
                " (team_id, enterprise_id, lang, timezone, admins, share_uploads, updated_by, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    team_id, wanted.enterprise_id, wanted.lang, wanted.timezone,
                    json.dumps(sorted(set(wanted.admins))), int(wanted.share_uploads), by, wanted.updated_at,
                ),
            )  # fmt: skip
        return self.get(team_id)

    def sharing_teams(self) -> set[str]:
        """Teams whose uploads every workspace may see."""
        return {str(row[0]) for row in self.store.read("SELECT team_id FROM workspaces WHERE share_uploads = 1")}
