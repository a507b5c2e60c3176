"""Each workspace's own settings (issue 25 point 3), set by that workspace's admins.

    workspaces   one row per team: its enterprise id, the default digest language and time
                 zone, its admins, and whether the listings it uploads are shared with every
                 workspace (private by default)

A workspace with no row has the defaults (`WorkspaceSettings(team_id)`): the server's
language and zone, no admins of its own.

Who administers a workspace (`admins_of`) is the admins stored for it, plus the server's
own (`PAPERBOT_ADMINS`) where those apply:

    token mode   the home workspace (tenancy.home_team), or any workspace while none is
                 known yet: a single-workspace install works as it always did
    OAuth mode   the home workspace only, when a store upgraded from token mode has one;
                 every other workspace starts with the person who installed paperbot there
                 (`welcome`, called with the installation)
    either       the console and a CLI (tenancy.LOCAL): the server's own people

The last admin can't leave a workspace without one (`change_admins`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from bot.errors import WorkspaceError
from bot.store import tenancy
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
    """Read and change each workspace's settings; every call names its team.

    `server_admins` are PAPERBOT_ADMINS; `token_mode` says whether they apply to any
    workspace while the home one is unknown (see the module docstring).
    """

    def __init__(self, store: Store, *, server_admins: frozenset[str] = frozenset(), token_mode: bool = True):
        self.store = store
        self.server_admins = frozenset(server_admins)
        self.token_mode = token_mode
        self._home = tenancy.LOCAL
        with store.transaction() as db:
            apply_schema(db, SCHEMA)

    def home_team(self) -> str:
        """The home workspace (tenancy.home_team); remembered once known, since it never changes."""
        if not self._home:
            self._home = tenancy.home_team(self.store)
        return self._home

    def server_admins_of(self, team_id: str) -> frozenset[str]:
        """The PAPERBOT_ADMINS who administer `team_id`: all of them where they apply, else none."""
        if not self.server_admins:
            return frozenset()
        if team_id == tenancy.LOCAL:
            return self.server_admins
        home = self.home_team()
        if home:
            return self.server_admins if team_id == home else frozenset()
        return self.server_admins if self.token_mode else frozenset()

    def admins_of(self, team_id: str) -> frozenset[str]:
        """Everyone who administers `team_id`: its own admins and the server's where they apply."""
        return frozenset(self.get(team_id).admins) | self.server_admins_of(team_id)

    def is_admin(self, team_id: str, user_id: str) -> bool:
        return bool(user_id) and user_id in self.admins_of(team_id)

    def welcome(self, team_id: str, *, enterprise_id: str = "", installer: str = "") -> WorkspaceSettings:
        """A workspace installed paperbot (OAuth): keep its enterprise id, and make the
        installer its first admin when it has none (a reinstall keeps the admins it has)."""
        current = self.get(team_id)
        changes: dict[str, Any] = {}
        if enterprise_id and enterprise_id != current.enterprise_id:
            changes["enterprise_id"] = enterprise_id
        if installer and not current.admins:
            changes["admins"] = (installer,)
        return self.update(team_id, by=installer, **changes) if changes else current

    def change_admins(
        self, team_id: str, *, by: str, add: tuple[str, ...] = (), remove: tuple[str, ...] = ()
    ) -> WorkspaceSettings:
        """Add and remove admins of `team_id` in one change; returns the settings after it.

        Raises WorkspaceError when it would leave the workspace with no admin at all (the
        last admin names another first), or when it removes a server admin (PAPERBOT_ADMINS
        is changed where the server is configured, not from Slack).
        """
        server = self.server_admins_of(team_id)
        fixed = sorted(set(remove) & server)
        if fixed:
            raise WorkspaceError("settings.admin_from_server", users=", ".join(f"<@{u}>" for u in fixed))
        with self.store.transaction() as db:  # read and write at once: two admins removing each other leave one
            current = self.get(team_id)
            wanted = (set(current.admins) | set(add)) - set(remove)
            if not wanted and not server:
                raise WorkspaceError("settings.last_admin")
            self._write(db, replace(current, admins=tuple(sorted(wanted))), by=by)
        return self.get(team_id)

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
            self._write(db, replace(self.get(team_id), **changes), by=by)
        return self.get(team_id)

    def _write(self, db, wanted: WorkspaceSettings, *, by: str) -> None:
        db.execute(
            "INSERT OR REPLACE INTO workspaces"
            " (team_id, enterprise_id, lang, timezone, admins, share_uploads, updated_by, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                wanted.team_id, wanted.enterprise_id, wanted.lang, wanted.timezone,
                json.dumps(sorted(set(wanted.admins))), int(wanted.share_uploads), by, self.store.now(),
            ),
        )  # fmt: skip

    def sharing_teams(self) -> set[str]:
        """Teams whose uploads every workspace may see."""
        return {str(row[0]) for row in self.store.read("SELECT team_id FROM workspaces WHERE share_uploads = 1")}
