"""What people told paperbot about papers: 👍 / 👎, opens, and interests, per team.

Two tables in the corpus's SQLite file, every row keyed by the Slack team first, so two
workspaces sharing one bot never read each other's signals:

    feedback   one row per (team, person, paper, place, kind). `kind` is 'vote' (value
               +1 for 👍, -1 for 👎: a new vote replaces the old one) or 'open' (a weak
               positive: Details or More like this). `place_id` is the channel whose
               public card (a digest row) was rated, '' for a private list: a channel's
               feedback is its members' votes on its own cards.
    interests  what a person said they read (`/papers interests add KV cache`), a cold
               start for their for-you before they rate or save anything.

Writing a row is an upsert on its key, so a click that Slack delivers twice (a retry)
counts once. Every read is keyed by the (team, person) Slack signed for; a channel is
only ever read as counts. Both tables are per-workspace (bot/store/tenancy.py): the
console's rows ('' team) from before the bot knew its workspace are adopted with the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.store import tenancy
from bot.store.database import Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    team_id    TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    paper_id   TEXT NOT NULL,
    place_id   TEXT NOT NULL DEFAULT '',
    kind       TEXT NOT NULL,
    value      INTEGER NOT NULL,
    at         TEXT NOT NULL,
    PRIMARY KEY (team_id, user_id, paper_id, place_id, kind)
);
CREATE INDEX IF NOT EXISTS feedback_place ON feedback (team_id, place_id, kind);
CREATE TABLE IF NOT EXISTS interests (
    team_id    TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    interest   TEXT NOT NULL,
    added_at   TEXT NOT NULL,
    PRIMARY KEY (team_id, user_id, interest)
);
"""

UP, DOWN = 1, -1
VOTE, OPEN = "vote", "open"


@dataclass(frozen=True)
class Signal:
    """One paper's signal from one person: +1 (👍, a save), -1 (👎); `weak` for an open."""

    paper_id: str
    value: int
    weak: bool = False
    at: str = ""


@dataclass(frozen=True)
class PlaceVotes:
    """A channel's votes on one paper: how many members gave 👍 and how many 👎."""

    paper_id: str
    up: int = 0
    down: int = 0


class FeedbackStore:
    """Votes, opens and interests, team-keyed, in the store's SQLite file."""

    def __init__(self, store: Store):
        self.store = store
        with self.store.transaction() as db:
            # position: the order interests were added in (timestamps tie within one command).
            tenancy.rekey(db, SCHEMA, ("feedback", "interests"), {"interests": {"position": "INTEGER NOT NULL DEFAULT 0"}})

    # -- votes ------------------------------------------------------------------------------

    def vote(self, team_id: str, user_id: str, paper_id: str, value: int, *, place_id: str = "") -> bool:
        """Record 👍 (+1) or 👎 (-1); return False when it was already so (a retry, a second click)."""
        if value not in (UP, DOWN):
            raise ValueError(f"a vote is +1 or -1, not {value!r}")
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT value FROM feedback WHERE team_id = ? AND user_id = ? AND paper_id = ? AND place_id = ? AND kind = ?",
                (team_id, user_id, paper_id, place_id, VOTE),
            ).fetchone()
            if row is not None and int(row[0]) == value:
                return False
            db.execute(
                "INSERT OR REPLACE INTO feedback (team_id, user_id, paper_id, place_id, kind, value, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (team_id, user_id, paper_id, place_id, VOTE, value, self.store.now()),
            )
        return True

    def clear_vote(self, team_id: str, user_id: str, paper_id: str) -> bool:
        """Undo the person's 👍 / 👎 on a paper, wherever they gave it; False when there was none."""
        with self.store.transaction() as db:
            return (
                db.execute(
                    "DELETE FROM feedback WHERE team_id = ? AND user_id = ? AND paper_id = ? AND kind = ?",
                    (team_id, user_id, paper_id, VOTE),
                ).rowcount
                > 0
            )

    def opened(self, team_id: str, user_id: str, paper_id: str) -> None:
        """A weak positive: the person opened Details or More like this for the paper."""
        with self.store.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO feedback (team_id, user_id, paper_id, place_id, kind, value, at) VALUES (?, ?, ?, '', ?, 1, ?)",
                (team_id, user_id, paper_id, OPEN, self.store.now()),
            )

    def vote_of(self, team_id: str, user_id: str, paper_id: str) -> int:
        """The person's current vote on a paper (their latest, wherever given): +1, -1 or 0."""
        rows = self.store.read(
            "SELECT value FROM feedback WHERE team_id = ? AND user_id = ? AND paper_id = ? AND kind = ? ORDER BY at DESC LIMIT 1",
            (team_id, user_id, paper_id, VOTE),
        )
        return int(rows[0][0]) if rows else 0

    def signals(self, team_id: str, user_id: str) -> list[Signal]:
        """The person's own signals, one per paper: a vote wins over an open; newest vote first."""
        rows = self.store.read(
            "SELECT paper_id, kind, value, at FROM feedback WHERE team_id = ? AND user_id = ? ORDER BY at DESC",
            (team_id, user_id),
        )
        found: dict[str, Signal] = {}
        for paper_id, kind, value, at in rows:
            current = found.get(paper_id)
            if current is None or (current.weak and kind == VOTE):
                found[paper_id] = Signal(paper_id, int(value), weak=kind == OPEN, at=at)
        return list(found.values())

    def disliked(self, team_id: str, user_id: str) -> set[str]:
        """The papers the person marked 👎 (anywhere): they never come back in their for-you."""
        return {s.paper_id for s in self.signals(team_id, user_id) if s.value < 0}

    def place_votes(self, team_id: str, place_id: str) -> dict[str, PlaceVotes]:
        """Per paper, how many members of the channel gave 👍 / 👎 on its cards: counts only."""
        rows = self.store.read(
            "SELECT paper_id, SUM(CASE WHEN value > 0 THEN 1 ELSE 0 END), SUM(CASE WHEN value < 0 THEN 1 ELSE 0 END) FROM feedback"
            " WHERE team_id = ? AND place_id = ? AND kind = ? GROUP BY paper_id",
            (team_id, place_id, VOTE),
        )
        return {r[0]: PlaceVotes(r[0], int(r[1] or 0), int(r[2] or 0)) for r in rows}

    def team_of(self, *, user_id: str = "", place_id: str = "") -> str:
        """The team a person's (or a channel's) latest signal came from, '' with none.

        Only for a digest whose subscription names no workspace (bot/library/readinglist.py
        `subscription_team`): everything a person does in Slack names its team.
        """
        if place_id:
            rows = self.store.read("SELECT team_id FROM feedback WHERE place_id = ? ORDER BY at DESC LIMIT 1", (place_id,))
        else:
            rows = self.store.read(
                "SELECT team_id, at FROM feedback WHERE user_id = ?"
                " UNION ALL SELECT team_id, added_at FROM interests WHERE user_id = ? ORDER BY 2 DESC LIMIT 1",
                (user_id, user_id),
            )
        return str(rows[0][0]) if rows else ""

    # -- interests -------------------------------------------------------------------------

    def add_interests(self, team_id: str, user_id: str, interests: list[str]) -> list[str]:
        """Add interests (already cleaned); return those that were new."""
        added: list[str] = []
        with self.store.transaction() as db:
            (last,) = db.execute(
                "SELECT COALESCE(MAX(position), 0) FROM interests WHERE team_id = ? AND user_id = ?", (team_id, user_id)
            ).fetchone()
            for interest in interests:
                if db.execute(
                    "INSERT OR IGNORE INTO interests (team_id, user_id, interest, added_at, position) VALUES (?, ?, ?, ?, ?)",
                    (team_id, user_id, interest, self.store.now(), last + len(added) + 1),
                ).rowcount:
                    added.append(interest)
        return added

    def remove_interests(self, team_id: str, user_id: str, interests: list[str]) -> list[str]:
        """Remove interests, compared without case; return those that were there."""
        present = {i.casefold(): i for i in self.interests(team_id, user_id)}
        removed = [present[i.casefold()] for i in interests if i.casefold() in present]
        with self.store.transaction() as db:
            db.executemany(
                "DELETE FROM interests WHERE team_id = ? AND user_id = ? AND interest = ?",
                [(team_id, user_id, interest) for interest in removed],
            )
        return removed

    def interests(self, team_id: str, user_id: str) -> list[str]:
        """The person's interests, in the order they added them."""
        rows = self.store.read(
            "SELECT interest FROM interests WHERE team_id = ? AND user_id = ? ORDER BY added_at, position", (team_id, user_id)
        )
        return [r[0] for r in rows]
