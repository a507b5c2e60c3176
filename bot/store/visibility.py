"""Who sees which paper (issue 25): shared papers every workspace, a private upload only its own.

    paper_teams   (bot/store/database.py) a row (team, paper) per workspace a paper is
                  private to; a paper with no row is shared. Written with the listing
                  that brings it (Store.ingest_listing): an upload's new papers get its
                  workspace's row, a shared source's listing deletes every row

Why a table of the exceptions and not a column of every paper: nearly every paper is
shared (seeds, inbox, feeds), so a store from before workspaces needs nothing written to
keep everything it holds visible to all (its uploads were), and a search in a library with
no private uploads pays one indexed probe. Why not a field in the search index: whether a
workspace shares its uploads is a setting (bot/store/workspaces.py) that changes without
any paper changing, and here it applies at once, with no reindex, as does a feed that
makes a private paper shared; the index is told which ids to leave out (a mask), which is
what the lexical, semantic and digest paths all take.

A workspace that shares its uploads (`share_uploads`) keeps its rows: turned off again,
its papers are private again. The lexicon learns only from papers with no row at all
(bot/search/writers.py), so turning sharing on and off never leaves a private title in
another workspace's query expansion.
"""

from __future__ import annotations

import time

from bot.models import Paper
from bot.store.database import Store, apply_schema
from bot.store.workspaces import SCHEMA as WORKSPACES_SCHEMA

EVERYONE = None
"""The `team` of a caller that acts for no workspace and sees every paper: the CLI's admin
commands, the index's own upkeep. A frontend acting for a workspace passes its team id."""

_HIDDEN = (
    "SELECT DISTINCT p.paper_id FROM paper_teams p WHERE NOT EXISTS ("
    " SELECT 1 FROM paper_teams v LEFT JOIN workspaces w ON w.team_id = v.team_id"
    " WHERE v.paper_id = p.paper_id AND (v.team_id = ? OR w.share_uploads = 1))"
)


REMEMBER_S = 30.0
"""How often a workspace's store-away set is read again with the rev it holds for (`remembered`)."""

_NOT_OURS = (  # private to other workspaces, whether they share their uploads or not
    "SELECT DISTINCT p.paper_id FROM paper_teams p WHERE NOT EXISTS ("
    " SELECT 1 FROM paper_teams v WHERE v.paper_id = p.paper_id AND v.team_id = ?)"
)


class Visibility:
    """Which papers a workspace may not see; every call names the team (None: every paper)."""

    def __init__(self, store: Store):
        self.store = store
        self._remembered: dict[str, tuple[float, int, frozenset[str]]] = {}  # team -> (when, rev, not ours)
        with store.transaction() as db:
            apply_schema(db, WORKSPACES_SCHEMA)  # its share_uploads flags are read here

    def hidden(self, team: str | None) -> frozenset[str]:
        """Ids of the papers private to other workspaces, none of which shares its uploads."""
        if team is EVERYONE:
            return frozenset()
        kept = self._remembered.get(team)
        refresh = kept is None or time.monotonic() - kept[0] >= REMEMBER_S
        rev = self.store.state()[1] if refresh else 0  # before every read: a paper stored meanwhile is after it
        private = bool(self.store.read("SELECT 1 FROM paper_teams LIMIT 1"))
        hidden = frozenset(str(row[0]) for row in self.store.read(_HIDDEN, (team,))) if private else frozenset()
        if refresh:
            strict = frozenset(str(row[0]) for row in self.store.read(_NOT_OURS, (team,))) if private else frozenset()
            self._remembered[team] = (time.monotonic(), rev, strict)
        return hidden

    def remembered(self, team: str) -> tuple[int, frozenset[str]] | None:
        """What a search hides while the store is away (Corpus.search): every paper private to
        another workspace, whether it shares its uploads or not, read at most every REMEMBER_S
        with the store's rev read before it; None if it was never read here (fail closed).

        Sharing is ignored on purpose: a workspace that stops sharing changes no paper's rev,
        so a set that honoured it could be stale. This one only grows (a new private upload
        takes a rev after the one kept, and the index's papers past that rev are left out too:
        PaperIndex.ids_after), so however old it is, it hides at least what it must.
        """
        kept = self._remembered.get(team)
        return None if kept is None else (kept[1], kept[2])

    def private(self) -> frozenset[str]:
        """Ids of every paper private to some workspace, shared by its setting or not: what
        teaches no vocabulary (the lexicon's rule: only papers with no row at all)."""
        if not self.store.read("SELECT 1 FROM paper_teams LIMIT 1"):
            return frozenset()
        return frozenset(str(row[0]) for row in self.store.read("SELECT DISTINCT paper_id FROM paper_teams"))

    def sees(self, team: str | None, paper: Paper) -> bool:
        """Whether `team` may see `paper` (its `teams` read with it from the store)."""
        if team is EVERYONE or not paper.teams or team in paper.teams:
            return True
        return paper.id not in self.hidden(team)

    def visible(self, team: str | None, papers: list[Paper]) -> list[Paper]:
        """`papers` without those `team` may not see, in order."""
        if team is EVERYONE or not any(p.teams for p in papers):
            return papers
        hidden = self.hidden(team)
        return [p for p in papers if p.id not in hidden]
