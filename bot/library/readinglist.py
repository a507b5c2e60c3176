"""The team's reading list: saves, channel votes, popularity, and ranking new papers for you.

Everything here is domain logic over the store's SQLite file; Slack only renders and
wires it (bot/slack/answers/library.py, render/library.py). Four tables, each keyed by
the workspace first (bot/store/tenancy.py), so two workspaces sharing one bot never
read each other's rows, even for the same user id (Enterprise Grid):

    saves      one row per (team, person, paper); `channel_id` is the channel whose
               public card (a share or a digest) it was saved from, '' otherwise
    cards      which papers each message the bot posted in a channel carries
    shares     every share of a paper into a channel (popularity counts the people who
               shared it, not the shares: sharing a paper ten times is one vote)
    reactions  the latest state of each (message, person, emoji), newest event wins

A person's saves are private: every read of `saves` is keyed by the (team, user) Slack
signed for, never by a button's value. Channels only ever see counts.

What a workspace may see (bot/store/visibility.py) is applied here, once, for every
caller: a save, a share or a vote of a paper the workspace can't see (another
workspace's upload it saved while that workspace shared its uploads, and stopped) is
kept, but no list, count, ranking or popular line shows it: `/papers saved`, App Home,
export, top, a digest's popular line and the for-you pool read as the workspace sees the
library. Shared again, it is back where it was. Every method takes
`team_id`; None (a caller from before workspaces: a script, a test) means the home
workspace (`Store.team_or_home`); Slack's listeners always name it.

A reaction on a card is a vote for the papers it carries. A share card carries one
paper; a digest message carries several, so a reaction there is 1/n of a vote for each
of its n papers (we can't know which one the person meant). A person counts once per
paper and kind (a share, a save, a reaction), however many times, emoji or cards.

Ranking ("for you") is bot/library/ranking.py.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from bot.clock import Clock, system_clock, to_iso
from bot.digests.requests import ORDERS
from bot.library.ranking import TermCache
from bot.models import Paged, Paper, Reason
from bot.search.analysis import analyze
from bot.store import tenancy
from bot.store.database import Store
from bot.store.feedback import FeedbackStore
from bot.store.visibility import Visibility

if TYPE_CHECKING:
    from bot.corpus import Corpus
    from bot.library.recommend import Recommended, Recommender

SCHEMA = """
CREATE TABLE IF NOT EXISTS saves (
    team_id    TEXT NOT NULL DEFAULT '',
    user_id    TEXT NOT NULL,
    paper_id   TEXT NOT NULL,
    saved_at   TEXT NOT NULL,
    channel_id TEXT NOT NULL DEFAULT '',
    position   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (team_id, user_id, paper_id)
);
CREATE INDEX IF NOT EXISTS saves_channel ON saves (team_id, channel_id, saved_at);
CREATE TABLE IF NOT EXISTS cards (
    team_id    TEXT NOT NULL DEFAULT '',
    channel_id TEXT NOT NULL,
    message_ts TEXT NOT NULL,
    paper_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,
    papers     INTEGER NOT NULL DEFAULT 1,
    posted_at  TEXT NOT NULL,
    PRIMARY KEY (team_id, channel_id, message_ts, paper_id)
);
CREATE TABLE IF NOT EXISTS shares (
    id         INTEGER PRIMARY KEY,
    team_id    TEXT NOT NULL DEFAULT '',
    channel_id TEXT NOT NULL,
    paper_id   TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    message_ts TEXT NOT NULL DEFAULT '',
    shared_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS shares_channel ON shares (team_id, channel_id, shared_at);
CREATE TABLE IF NOT EXISTS reactions (
    team_id    TEXT NOT NULL DEFAULT '',
    channel_id TEXT NOT NULL,
    message_ts TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    reaction   TEXT NOT NULL,
    present    INTEGER NOT NULL,
    event_ts   TEXT NOT NULL,
    at         TEXT NOT NULL,
    PRIMARY KEY (team_id, channel_id, message_ts, user_id, reaction)
);
"""
TABLES = ("saves", "cards", "shares", "reactions")
COLUMNS = {"saves": {"position": "INTEGER NOT NULL DEFAULT 0"}}
"""Columns newer than a table's first version: a store made before `position` existed."""

PERIODS = {"week": timedelta(days=7), "month": timedelta(days=30)}
SAVED_PER_PAGE = 5
FORYOU_POOL = 300  # `/papers foryou` ranks the newest this many papers you haven't saved
PROFILE_MAX = 500  # the most recent saves that make up a profile


@dataclass
class SavedPage(Paged):
    """One page of a person's saved papers, newest save first."""

    papers: list[Paper]
    total: int
    page: int = 1
    per_page: int = SAVED_PER_PAGE
    query: str = ""


@dataclass
class Popular:
    """A paper's standing in one channel over a period."""

    paper: Paper
    shares: int = 0  # people who shared it into the channel
    saves: int = 0  # people who saved it from the channel's cards
    votes: float = 0.0  # people who reacted; a digest message's reaction is 1/n per paper
    voters: int = 0  # people who reacted to a card carrying it

    @property
    def score(self) -> float:
        return self.shares + self.saves + self.votes


@dataclass
class Ordering:
    """What `order_papers` decided: the papers in order, and why each is where it is."""

    papers: list[Paper]
    order: str = "new"
    reasons: dict[str, Reason] = field(default_factory=dict)  # paper id -> why it is where it is
    why: str = ""  # "saved" | "channel": whose papers the reasons refer to


# -- term vectors ---------------------------------------------------------------------------


# -- the library ------------------------------------------------------------------------------


class Library:
    """Saves, votes and rankings, in the corpus's SQLite file."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock = system_clock,
        alternatives: Callable[[str], Sequence[str]] | None = None,
        corpus: Corpus | None = None,
    ):
        self.store = store
        # Which papers a workspace may not see: the corpus's, or one over the same store.
        self.visibility = corpus.visibility if corpus is not None else Visibility(store)
        self.clock = clock
        self.alternatives = alternatives  # Corpus.alternatives: interests match as a search would
        # The corpus over the same store, for its duplicates (each shown once, as its canonical
        # paper: Corpus.shown_once) and its vectors by meaning (the for-you's likenesses).
        self.corpus = corpus
        self.terms = TermCache()
        self.feedback = FeedbackStore(store)  # 👍 / 👎, opens, interests (issue 27)
        self._recommender: Recommender | None = None
        with self.store.transaction() as db:
            # position: save order within one second (saved_at's resolution), on both backends.
            tenancy.rekey(db, SCHEMA, TABLES, COLUMNS)

    def _now(self) -> str:
        return to_iso(self.clock())

    def _team(self, team_id: str | None) -> str:
        return self.store.team_or_home(team_id)

    @property
    def recommender(self) -> Recommender:
        """The for-you's model (bot/library/recommend.py), built on first use."""
        if self._recommender is None:
            # Deferred: the model brings numpy, scipy and scikit-learn; a CLI digest of order:new never ranks.
            from bot.library.learning import HashedTerms

            # Deferred: as above (recommend.py imports the model).
            from bot.library.recommend import Recommender

            self._recommender = Recommender(
                self.feedback,
                HashedTerms(self.terms),
                saved_papers=self.saved_papers,
                get_many=lambda ids, team: self._shown(self.store.get_many(ids), team),
                alternatives=self.alternatives,
                dense=self._dense,
                canonical=self._canonical,
            )
        return self._recommender

    def _shown(self, papers: list[Paper], team_id: str | None) -> list[Paper]:
        """Papers as a person sees them: a duplicate as its canonical paper, once (Corpus.shown_once)."""
        if self.corpus is None:
            return papers
        return self.corpus.shown_once(papers, team=self._team(team_id))

    def _canonical(self, paper_id: str, team_id: str | None) -> str:
        """The id `paper_id` is shown under in the workspace (Corpus.canonical_ids)."""
        return paper_id if self.corpus is None else self.corpus.canonical_id(paper_id, team=self._team(team_id))

    def _canonicals(self, paper_ids, team_id: str | None) -> dict[str, str]:
        ids = list(paper_ids)
        return {pid: pid for pid in ids} if self.corpus is None else self.corpus.canonical_ids(ids, team=self._team(team_id))

    def _dense(self):
        """The papers' vectors by meaning (bot/semantic/), None with PAPERBOT_SEMANTIC=off or none yet."""
        meaning = self.corpus.meaning if self.corpus is not None else None
        return meaning if meaning is not None and meaning.has_vectors() else None

    # -- saves ------------------------------------------------------------------------------

    def save(self, user_id: str, paper_id: str, *, channel_id: str = "", team_id: str | None = None) -> bool:
        """Save a paper for `user_id` of `team_id`; return False when it was already saved."""
        with self.store.transaction() as db:
            team = self.store.team_or_home(team_id, db)
            return (
                db.execute(
                    "INSERT OR IGNORE INTO saves (team_id, user_id, paper_id, saved_at, channel_id, position)"
                    " SELECT ?, ?, ?, ?, ?, COALESCE(MAX(position), 0) + 1 FROM saves WHERE team_id = ? AND user_id = ?",
                    (team, user_id, paper_id, self._now(), channel_id, team, user_id),
                ).rowcount
                > 0
            )

    def unsave(self, user_id: str, paper_id: str, *, team_id: str | None = None) -> bool:
        """Remove a save (of the paper under any of its ids: a duplicate's too); return False when there was none."""
        ids = self._same_paper(paper_id, team_id)
        marks = ", ".join("?" for _ in ids)
        with self.store.transaction() as db:
            team = self.store.team_or_home(team_id, db)
            return (
                db.execute(
                    f"DELETE FROM saves WHERE team_id = ? AND user_id = ? AND paper_id IN ({marks})", (team, user_id, *ids)
                ).rowcount
                > 0
            )

    def _same_paper(self, paper_id: str, team_id: str | None) -> list[str]:
        """`paper_id`, its canonical paper's and its duplicates' ids (bot/semantic/dupes.py),
        but none the workspace may not see: a save of a hidden one is kept, not counted here
        (it is back if that paper is shared again)."""
        meaning = self.corpus.meaning if self.corpus is not None else None
        if meaning is None or not meaning.duplicates.count():
            return [paper_id]
        canonical = meaning.duplicates.canonical(paper_id)
        ids = list(dict.fromkeys([paper_id, canonical, *meaning.duplicates.members(canonical)]))
        hidden = self.visibility.hidden(self._team(team_id)) if len(ids) > 1 else frozenset()
        return [pid for pid in ids if pid == paper_id or pid not in hidden]

    def toggle(self, user_id: str, paper_id: str, *, channel_id: str = "", team_id: str | None = None) -> bool:
        """Save the paper, or unsave it when it is saved; return whether it is saved now."""
        team = self._team(team_id)
        if self.unsave(user_id, paper_id, team_id=team):
            return False
        self.save(user_id, paper_id, channel_id=channel_id, team_id=team)
        return True

    def is_saved(self, user_id: str, paper_id: str, *, team_id: str | None = None) -> bool:
        ids = self._same_paper(paper_id, team_id)
        marks = ", ".join("?" for _ in ids)
        return bool(
            self.store.read(
                f"SELECT 1 FROM saves WHERE team_id = ? AND user_id = ? AND paper_id IN ({marks})",
                (self._team(team_id), user_id, *ids),
            )
        )

    def saved_ids(self, user_id: str, *, team_id: str | None = None) -> set[str]:
        rows = self.store.read("SELECT paper_id FROM saves WHERE team_id = ? AND user_id = ?", (self._team(team_id), user_id))
        ids = {r[0] for r in rows}
        return ids | set(self._canonicals(ids, team_id).values())  # a save of a duplicate is a save of its paper

    def saved_count(self, user_id: str, *, team_id: str | None = None) -> int:
        """How many saved papers the person's workspace may see (as `saved_papers` lists them)."""
        team = self._team(team_id)
        hidden = self.visibility.hidden(team)
        rows = self.store.read("SELECT paper_id FROM saves WHERE team_id = ? AND user_id = ?", (team, user_id))
        # A paper saved under both its ids counts once.
        shown = self._canonicals([r[0] for r in rows if r[0] not in hidden], team)
        return len(set(shown.values()))

    def saved_papers(self, user_id: str, limit: int | None = None, *, team_id: str | None = None) -> list[Paper]:
        """The person's saved papers their workspace may see, newest save first."""
        team = self._team(team_id)
        hidden = self.visibility.hidden(team)
        rows = self.store.read(
            "SELECT paper_id FROM saves WHERE team_id = ? AND user_id = ? ORDER BY saved_at DESC, position DESC LIMIT ?",
            # Twice as many: a paper saved under its own id and its duplicate's is one.
            (team, user_id, -1 if limit is None else (2 * limit if self.corpus is not None else limit) + len(hidden)),
        )
        ids = [r[0] for r in rows if r[0] not in hidden]
        return self._shown(self.store.get_many(ids), team)[:limit]

    def saved(
        self, user_id: str, query: str = "", *, page: int = 1, per_page: int = SAVED_PER_PAGE, team_id: str | None = None
    ) -> SavedPage:
        """A page of the person's saves, newest first; `query` keeps those it matches.

        A query matches a paper when every analysed term of it is among the paper's
        terms (titles, authors, affiliations, venue, summary, comments), in either
        language, the way search reads words: `kv cach` finds "KV-Cache Retrieval".
        """
        papers = self.saved_papers(user_id, team_id=team_id)
        query = " ".join(query.split())
        if query:
            wanted = set(analyze(query))
            papers = [p for p in papers if wanted and wanted <= _searchable_terms(p)]
        per_page = max(1, per_page)
        pages = max(1, -(-len(papers) // per_page))
        page = min(max(1, page), pages)
        shown = papers[(page - 1) * per_page : page * per_page]
        return SavedPage(shown, len(papers), page, per_page, query)

    def kept_by_people(self, paper_ids: list[str]) -> set[str]:
        """Which of these papers someone saved or shared, in any workspace: removing a feed's
        papers keeps them (bot/feeds/sources.py plan_removal), so nobody's reading list loses one."""
        kept: set[str] = set()
        for start in range(0, len(paper_ids), 500):
            chunk = paper_ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            for table in ("saves", "shares"):
                kept.update(
                    r[0]
                    for r in self.store.read(f"SELECT DISTINCT paper_id FROM {table} WHERE paper_id IN ({marks})", tuple(chunk))
                )
        return kept

    # -- what the bot posted, and reactions to it ---------------------------------------------

    def record_card(
        self, channel_id: str, message_ts: str, paper_ids: Iterable[str], *, kind: str, team_id: str | None = None
    ) -> None:
        """Remember which papers a message the bot posted in a workspace's channel carries."""
        ids = list(dict.fromkeys(paper_ids))
        if not (channel_id and message_ts and ids):
            return
        team, now = self._team(team_id), self._now()
        with self.store.transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO cards (team_id, channel_id, message_ts, paper_id, kind, papers, posted_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(team, channel_id, message_ts, paper_id, kind, len(ids), now) for paper_id in ids],
            )

    def record_share(
        self, channel_id: str, paper_id: str, user_id: str, message_ts: str = "", *, team_id: str | None = None
    ) -> None:
        """Count a share into a channel (and remember its card when Slack gave its ts)."""
        team = self._team(team_id)
        with self.store.transaction() as db:
            db.execute(
                "INSERT INTO shares (team_id, channel_id, paper_id, user_id, message_ts, shared_at) VALUES (?, ?, ?, ?, ?, ?)",
                (team, channel_id, paper_id, user_id, message_ts, self._now()),
            )
        if message_ts:
            self.record_card(channel_id, message_ts, [paper_id], kind="share", team_id=team)

    def papers_on(self, channel_id: str, message_ts: str, *, team_id: str | None = None) -> list[str]:
        rows = self.store.read(
            "SELECT paper_id FROM cards WHERE team_id = ? AND channel_id = ? AND message_ts = ?",
            (self._team(team_id), channel_id, message_ts),
        )
        return [r[0] for r in rows]

    def react(
        self,
        *,
        channel_id: str,
        message_ts: str,
        user_id: str,
        reaction: str,
        added: bool,
        event_ts: str,
        team_id: str | None = None,
    ) -> bool:
        """Apply a reaction_added / reaction_removed event; return whether it changed a vote.

        Only reactions on the bot's paper cards in the same workspace count. Each
        (message, person, emoji) keeps its latest state: a repeated event (Slack retries)
        changes nothing, and an event older than the one already applied (a late retry)
        is ignored.
        """
        if not (channel_id and message_ts and user_id and reaction):
            return False
        team = self._team(team_id)
        event_ts = event_ts or self._now()
        key = (team, channel_id, message_ts, user_id, reaction)
        with self.store.transaction() as db:
            # Checked in the transaction: a card being recorded meanwhile (behind a day's
            # file) is seen once it is, instead of the vote being lost.
            card = "SELECT 1 FROM cards WHERE team_id = ? AND channel_id = ? AND message_ts = ? LIMIT 1"
            if db.execute(card, (team, channel_id, message_ts)).fetchone() is None:
                return False
            row = db.execute(
                "SELECT present, event_ts FROM reactions"
                " WHERE team_id = ? AND channel_id = ? AND message_ts = ? AND user_id = ? AND reaction = ?",
                key,
            ).fetchone()
            if row is not None:
                if _ts_key(row[1]) >= _ts_key(event_ts):  # the same event again, or an older one
                    return False
                if bool(row[0]) == added:
                    db.execute(
                        "UPDATE reactions SET event_ts = ?"
                        " WHERE team_id = ? AND channel_id = ? AND message_ts = ? AND user_id = ? AND reaction = ?",
                        (event_ts, *key),
                    )
                    return False
            elif not added:
                return False
            db.execute(
                "INSERT OR REPLACE INTO reactions (team_id, channel_id, message_ts, user_id, reaction, present, event_ts, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (*key, int(added), event_ts, self._now()),
            )
        return True

    # -- what a channel values ----------------------------------------------------------------

    def votes(self, channel_id: str, since: str = "", *, team_id: str | None = None) -> dict[str, tuple[float, int]]:
        """Per paper: (votes, people) from reactions on the channel's cards since `since`.

        A person counts once per paper: the largest share of a vote they gave it (on its
        cards or its duplicate's, counted for the canonical paper).
        """
        rows = self.store.read(
            "SELECT c.paper_id, r.user_id, MAX(1.0 / c.papers) FROM reactions r"
            " JOIN cards c ON c.team_id = r.team_id AND c.channel_id = r.channel_id AND c.message_ts = r.message_ts"
            " WHERE r.team_id = ? AND r.channel_id = ? AND r.present = 1 AND r.at >= ? GROUP BY c.paper_id, r.user_id",
            (self._team(team_id), channel_id, since),
        )
        largest: dict[tuple[str, str], float] = {}
        shown = self._canonicals([r[0] for r in rows], team_id)
        for paper_id, user, share in rows:
            key = (shown[paper_id], user)
            largest[key] = max(largest.get(key, 0.0), share)
        out: dict[str, tuple[float, int]] = {}
        for (paper_id, _user), share in largest.items():
            votes, people = out.get(paper_id, (0.0, 0))
            out[paper_id] = (votes + share, people + 1)
        return out

    def top(self, channel_id: str, period: str = "week", *, limit: int = 10, team_id: str | None = None) -> list[Popular]:
        """The channel's most shared, saved-from and reacted papers of the period, best first
        (of those the channel's workspace may see)."""
        team = self._team(team_id)
        since = to_iso(self.clock() - PERIODS[period])
        found: dict[str, Popular] = {}

        def entry(paper_id: str) -> Popular:
            return found.setdefault(paper_id, Popular(Paper(id=paper_id, title_en="", title_zh="")))

        for paper_id, count in self.store.read(
            "SELECT paper_id, COUNT(DISTINCT user_id) FROM shares"
            " WHERE team_id = ? AND channel_id = ? AND shared_at >= ? GROUP BY paper_id",
            (team, channel_id, since),
        ):
            entry(paper_id).shares = int(count)
        for paper_id, count in self.store.read(
            "SELECT paper_id, COUNT(*) FROM saves WHERE team_id = ? AND channel_id = ? AND saved_at >= ? GROUP BY paper_id",
            (team, channel_id, since),
        ):
            entry(paper_id).saves = int(count)
        for paper_id, (votes, people) in self.votes(channel_id, since, team_id=team).items():
            entry(paper_id).votes, entry(paper_id).voters = votes, people
        hidden = self.visibility.hidden(team)
        papers = {p.id: p for p in self.store.get_many([pid for pid in found if pid not in hidden])}
        ranked: list[Popular] = []
        by_paper: dict[str, Popular] = {}
        # A duplicate's shares and votes count for its paper: each shown once, looked up once.
        shown_as = self._canonicals(papers, team)
        shown_papers = {p.id: p for p in self._shown(list(papers.values()), team)}
        for paper_id, item in found.items():
            if paper_id not in papers:
                continue
            shown = shown_papers.get(shown_as[paper_id])
            if shown is None:
                continue
            if shown.id in by_paper:
                into = by_paper[shown.id]
                into.shares, into.saves = into.shares + item.shares, into.saves + item.saves
                into.votes, into.voters = into.votes + item.votes, into.voters + item.voters
                continue
            item.paper = shown  # the stand-in becomes the stored paper
            by_paper[shown.id] = item
            ranked.append(item)
        ranked.sort(key=lambda p: (-p.score, -p.voters, -p.shares, p.paper.seq))
        return ranked[:limit]

    def channel_profile(self, channel_id: str, *, team_id: str | None = None) -> tuple[list[Paper], dict[str, float]]:
        """Papers the channel shared, saved from its cards or reacted to, with their weight
        (of those the channel's workspace may see)."""
        team = self._team(team_id)
        weights: defaultdict[str, float] = defaultdict(float)
        for paper_id, count in self.store.read(
            "SELECT paper_id, COUNT(DISTINCT user_id) FROM shares WHERE team_id = ? AND channel_id = ? GROUP BY paper_id",
            (team, channel_id),
        ):
            weights[paper_id] += count
        for paper_id, count in self.store.read(
            "SELECT paper_id, COUNT(*) FROM saves WHERE team_id = ? AND channel_id = ? GROUP BY paper_id", (team, channel_id)
        ):
            weights[paper_id] += count
        for paper_id, (votes, _people) in self.votes(channel_id, team_id=team).items():
            weights[paper_id] += votes
        hidden = self.visibility.hidden(team)
        for paper_id in hidden & weights.keys():
            del weights[paper_id]
        if self.corpus is not None:  # a duplicate's shares, saves and votes count for its paper
            merged_weights: defaultdict[str, float] = defaultdict(float)
            shown = self._canonicals(weights, team)
            for paper_id, weight in weights.items():
                merged_weights[shown[paper_id]] += weight
            weights = merged_weights
        ids = sorted(weights, key=weights.__getitem__, reverse=True)[:PROFILE_MAX]  # Counter.most_common's order
        return self._shown(self.store.get_many(ids), team), {pid: float(w) for pid, w in weights.items()}

    # -- ordering -------------------------------------------------------------------------------

    def foryou(
        self,
        user_id: str,
        *,
        team_id: str | None = None,
        limit: int = 5,
        pool: int = FORYOU_POOL,
    ) -> list[Recommended]:
        """The newest papers the person hasn't saved or 👎'd, ranked by their model, each with a
        reason; never one their workspace may not see."""
        team = self._team(team_id)
        signals = self.recommender.person_signals(team, user_id)
        hidden = self.visibility.hidden(team)
        skip = signals.excluded | hidden if hidden else signals.excluded
        newest = [p for p in self.store.newest(pool + len(skip)) if p.id not in skip]
        # A duplicate and its paper once, as the canonical paper (which may itself be saved or 👎'd).
        newest = [p for p in self._shown(newest, team_id) if p.id not in skip][:pool]
        return self.recommender.rank(newest, signals)[:limit]

    def order_papers(self, papers: list[Paper], *, order: str, kind: str, place_id: str, team_id: str | None = None) -> Ordering:
        """Order a digest's papers as its subscription asks (`order:new|foryou|popular`).

        A personal digest (`kind="user"`) ranks by the person's model (bot/library/
        recommend.py: saves, 👍 / 👎, interests) and leaves out what they 👎'd; a channel
        digest by the channel's (what it shared, saved from it and reacted to, and its
        members' 👍 / 👎 on its cards), a paper most voters 👎'd going last, out of the
        highlights. `popular` then orders by the channel's votes. With nothing to go on,
        or `new`, the papers keep their order (oldest first). Papers the signals are
        about (saved, shared, 👍'd) open the list, as before. Every ranked paper has a reason.
        `team_id` is the subscription's workspace; None (a subscription that names none yet)
        guesses it from the latest signal there, else the home workspace.
        """
        if order not in ("foryou", "popular") or not papers:
            return Ordering(list(papers), "new")
        if team_id is None:
            guessed = self.feedback.team_of(**({"user_id": place_id} if kind == "user" else {"place_id": place_id}))
            team_id = guessed or self._team(None)
        votes: dict[str, int] = {}
        if kind == "user":
            signals = self.recommender.person_signals(team_id, place_id)
            disliked = set(self._canonicals(self.feedback.disliked(team_id, place_id), team_id).values())
            papers = [p for p in papers if p.id not in disliked]  # never again, in their digest too
            why, own = "saved", Reason("own")
        else:
            profile, weights = self.channel_profile(place_id, team_id=team_id)
            signals = self.recommender.channel_signals(team_id, place_id, profile, weights)
            disliked = set(signals.excluded)
            votes = {pid: v.up for pid, v in self.recommender.place_votes(team_id, place_id).items() if v.up > v.down}
            why, own = "channel", Reason("channel_own")
        if not signals.has_any:  # nothing saved, rated or valued yet: exactly today's digest
            return Ordering(list(papers), "new")
        ranked = self.recommender.rank(papers, signals, channel_id=place_id, channel_votes=votes)
        if order == "popular" and kind != "user":
            ranked = self._by_votes(place_id, ranked, team_id)
        placed = {r.paper.id for r in ranked}
        first = [p for p in papers if p.id not in placed and p.id not in disliked]
        last = [p for p in papers if p.id not in placed and p.id in disliked]  # a channel's 👎 majority
        reasons = {p.id: Reason("channel", count=votes[p.id], channel_id=place_id) if p.id in votes else own for p in first}
        reasons |= {r.paper.id: r.reason for r in ranked}
        ordered = first + [r.paper for r in ranked] + last
        return Ordering(ordered, order, reasons, why)

    def order_digest(self, sub, digest) -> None:
        """Order a composed digest for its subscription, in place (DigestService.order_digest).

        Also gives a channel digest the channel's popular papers of the week to open with.
        """
        team = subscription_team(sub)
        ordering = self.order_papers(digest.papers, order=digest_order(sub), kind=sub.kind, place_id=sub.place_id, team_id=team)
        digest.papers, digest.order = ordering.papers, ordering.order
        digest.reasons, digest.reason_kind = ordering.reasons, ordering.why
        if sub.kind == "channel" and not digest.resumed:
            digest.popular = [item.paper for item in self.top(sub.place_id, "week", limit=3, team_id=team)]

    def record_digest_message(self, sub, paper_ids: list[str], channel_id: str, message_ts: str) -> None:
        """A channel digest's message was posted: reactions to it are votes for its papers."""
        if sub.kind == "channel":
            self.record_card(channel_id, message_ts, paper_ids, kind="digest", team_id=subscription_team(sub))

    def _by_votes(self, channel_id: str, ranked: list[Recommended], team_id: str) -> list[Recommended]:
        votes = self.votes(channel_id, team_id=team_id)
        order = sorted(range(len(ranked)), key=lambda i: (-votes.get(ranked[i].paper.id, (0.0, 0))[0], i))
        return [ranked[i] for i in order]


def subscription_team(sub) -> str | None:
    """The workspace a subscription belongs to: its `team_id` once subscriptions carry one
    (bot/digests/subscriptions.py), else None, the home workspace."""
    team = getattr(sub, "team_id", None)
    return team if isinstance(team, str) else None


def digest_order(sub) -> str:
    """The order a subscription asked for; by default a person's digest is ranked by their
    saves (which keeps today's order until they save something) and a channel's is not."""
    ranking = getattr(sub, "ranking", "") or ""
    if ranking in ORDERS:
        return ranking
    return "foryou" if sub.kind == "user" else "new"


def _ts_key(ts: str) -> tuple:
    """Slack's event_ts ("1700000000.000200") as a comparable number; ISO times sort as text."""
    try:
        return (0, float(ts), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(ts))


def _searchable_terms(paper: Paper) -> set[str]:
    text = "\n".join(
        [paper.title_en, paper.title_zh, ", ".join(paper.authors), paper.summary_zh, paper.comments, paper.journal_ref,
         paper.venue, *(a.en for a in paper.affiliations), *(a.zh for a in paper.affiliations)]
    )  # fmt: skip
    return set(analyze(text))
