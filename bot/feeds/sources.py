"""Feeds that bring papers by themselves: listing URLs and arXiv queries, polled on a schedule.

A source is one of

    https://example.org/icml.txt   a listing (the format of seeds/) fetched with conditional
                                   GETs (ETag / Last-Modified), a timeout and a size cap
    arxiv:cs.CL                    an arXiv category's newest papers
    arxiv:"speculative decoding"   an arXiv search's newest papers

Listing papers go through the listing parser and the store like an inbox file; arXiv
papers become English-only papers (with their arXiv record) and merge with papers
already stored by arXiv id, else by title and authors, so a paper seen in both is one
paper. Either way new papers take the next `seq`, so digests pick them up like any other.

Each poll is one lease in the database (`polling_until`, by the database's clock), so neither
two scheduler threads, nor two instances whose clocks differ, nor a CLI `sources poll` beside
`serve` ever poll one source at once. A failed poll keeps
its reason (an i18n key under `sources.error_`), changes nothing stored, and waits longer
before the next try (doubling up to MAX_BACKOFF, or the server's Retry-After); the first
failure of a run of failures is reported once through `on_failing` (admins' DMs).

A source is its workspaces' (issue 25): `source_teams` names each workspace whose admins
added it, and a workspace lists, polls and removes only its own. The same URL added by two
workspaces is one `sources` row, polled once (its state, ETag and backoff are the feed's,
not a workspace's); removed by one, it stays the other's, and it goes when nobody has it.
Its papers are shared, like every feed's: `remove-papers` is refused while another
workspace still has the source, since they are that workspace's papers too. A source with
no workspace (LOCAL: the CLI's before any workspace adopted the store, or from before
workspaces) is the home workspace's (bot/store/tenancy.py), or everyone's while there is none.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta

from bot.clock import Clock, system_clock, to_iso
from bot.config import Settings
from bot.corpus import Corpus
from bot.errors import ArxivError, FetchError, PaperbotError, SourceError
from bot.feeds.arxiv import ArxivClient, authors_overlap, normalize_title, plain_title
from bot.feeds.fetch import DEFAULT_MAX_BYTES, fetch
from bot.feeds.listings import SCHEMA as SOURCE_PAPERS
from bot.feeds.listings import record_source_papers, store_fetched
from bot.i18n import t
from bot.ingest.listing import find_urls, find_venue, paper_id, venue_label
from bot.models import ArxivRecord, Listing, Paper
from bot.store import tenancy
from bot.store.database import Store, apply_schema

logger = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
    id                INTEGER PRIMARY KEY,
    kind              TEXT NOT NULL,          -- 'listing' | 'arxiv'
    target            TEXT NOT NULL UNIQUE,   -- the URL, or arxiv:cs.CL / arxiv:"a query"
    added_at          TEXT NOT NULL,
    added_by          TEXT NOT NULL,
    etag              TEXT NOT NULL DEFAULT '',
    last_modified     TEXT NOT NULL DEFAULT '',
    last_poll         TEXT NOT NULL DEFAULT '',
    last_success      TEXT NOT NULL DEFAULT '',
    last_error        TEXT NOT NULL DEFAULT '',  -- an error kind (i18n sources.error_<kind>)
    last_error_detail TEXT NOT NULL DEFAULT '',
    failures          INTEGER NOT NULL DEFAULT 0,
    retry_at          TEXT NOT NULL DEFAULT '',
    notified          INTEGER NOT NULL DEFAULT 0,
    papers_added      INTEGER NOT NULL DEFAULT 0,
    polling_until     TEXT NOT NULL DEFAULT ''
);
"""

TEAMS_SCHEMA = """
CREATE TABLE IF NOT EXISTS source_teams (
    team_id   TEXT NOT NULL DEFAULT '',
    source_id INTEGER NOT NULL REFERENCES sources (id),
    added_at  TEXT NOT NULL,
    added_by  TEXT NOT NULL,
    PRIMARY KEY (team_id, source_id)
);
"""

COLUMNS: dict[str, dict[str, str]] = {
    "sources": {"held_back": "INTEGER NOT NULL DEFAULT 0"},  # new papers the last poll left for the next (the cap)
}
"""Columns added to `sources` after it first shipped (see bot.store.database.ensure_columns)."""

LISTING_TIMEOUT = 30.0
LISTING_MAX_BYTES = DEFAULT_MAX_BYTES
ARXIV_FEED_RESULTS = 50
MAX_BACKOFF = timedelta(hours=24)
LEASE = timedelta(minutes=15)
_CATEGORY = re.compile(r"^[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?$")
_HTML = re.compile(rb"^\s*(<!doctype html|<html|<head|<body)", re.IGNORECASE)


@dataclass
class Source:
    id: int
    kind: str
    target: str
    added_at: str
    added_by: str
    etag: str = ""
    last_modified: str = ""
    last_poll: str = ""
    last_success: str = ""
    last_error: str = ""
    last_error_detail: str = ""
    failures: int = 0
    retry_at: str = ""
    notified: bool = False
    papers_added: int = 0
    held_back: int = 0

    @property
    def feed_name(self) -> str:
        """The feed arXiv papers are listed under: `arXiv cs.CL`, `arXiv "a query"`."""
        return "arXiv " + self.target.removeprefix("arxiv:") if self.kind == "arxiv" else self.target

    @property
    def arxiv_query(self) -> str:
        """The API's search_query for an arXiv source: `cat:cs.CL` or `all:"a query"`."""
        spec = self.target.removeprefix("arxiv:")
        return f"cat:{spec}" if _CATEGORY.match(spec) else f'all:"{spec.strip(chr(34))}"'

    def error_text(self, lang: str, *, quote: Callable[[str], str] = str) -> str:
        """Why the last poll failed, in `lang` ("" when it succeeded).

        The detail is often the feed server's own text (its Content-Type, where it
        redirected, arXiv's error message): `quote` makes it safe where it is shown
        (Slack's renderers pass one that shows it as inert code).
        """
        if not self.last_error:
            return ""
        key = ERROR_TEXTS.get(self.last_error, "sources.error_internal")
        return t(key, lang, detail=quote(self.last_error_detail or "?"))

    def to_dict(self) -> dict:
        data = asdict(self)
        data["last_error_text"] = self.error_text("en")
        return data


ERROR_TEXTS = {
    "api": "sources.error_api",
    "arxiv_off": "sources.error_arxiv_off",
    "format": "sources.error_format",
    "html": "sources.error_html",
    "http": "sources.error_http",
    "internal": "sources.error_internal",
    "listing": "sources.error_listing",
    "network": "sources.error_network",
    "private": "sources.error_private",
    "rate_limited": "sources.error_rate_limited",
    "redirects": "sources.error_redirects",
    "scheme": "sources.error_scheme",
    "stopped": "sources.error_stopped",
    "timeout": "sources.error_timeout",
    "too_large": "sources.error_too_large",
    "unavailable": "sources.error_unavailable",
}
"""Why a poll failed, by its kind (a FetchError's or ArxivError's, or this module's own), as a message key."""
SKIPPED_TEXTS = {"busy": "sources.poll_skipped_busy", "waiting": "sources.poll_skipped_waiting"}
"""Why a poll did not run: another poll holds the source, or it is backing off."""


@dataclass
class PollResult:
    source: Source
    added: int = 0
    unchanged: bool = False
    skipped: str = ""  # "busy" (another poll holds it) or "waiting" (backing off)
    error: str = ""  # an error kind
    held_back: int = 0  # new papers over the per-poll cap, left for the next poll
    cap: int = 0  # that cap

    def line(self, lang: str) -> str:
        """One line for the CLI and Slack: what this poll did."""
        if self.skipped:
            return t(SKIPPED_TEXTS[self.skipped], lang, source=self.source.target, when=self.source.retry_at)
        if self.error:
            return t("sources.poll_failed", lang, source=self.source.target, reason=self.source.error_text(lang))
        if self.unchanged:
            return t("sources.poll_unchanged", lang, source=self.source.target)
        line = t("sources.poll_done", lang, source=self.source.target, count=self.added)
        if self.held_back:
            line += " " + t("sources.poll_held_back", lang, count=self.held_back, cap=f"{self.cap:,}")
        return line

    def to_dict(self) -> dict:
        return {"source": self.source.target, "added": self.added, "unchanged": self.unchanged, "skipped": self.skipped,
                "error": self.error, "error_text": self.source.error_text("en"), "held_back": self.held_back}  # fmt: skip


@dataclass
class Removal:
    """What removing a source's papers takes away, and what it keeps and why."""

    target: str
    paper_ids: list[str]  # brought by this source alone: these go
    kept_listed: int = 0  # another source, another feed or a listing file also brought them
    kept_people: int = 0  # someone saved or shared them
    source_exists: bool = True  # the source itself is removed too, so its next poll can't bring them back
    removed: int = 0  # once done: how many went

    @property
    def count(self) -> int:
        return len(self.paper_ids)

    def line(self, lang: str, *, done: bool, code: Callable[[str], str] = str) -> str:
        """What it would do (`done` False: how to go ahead) or did, for the CLI and Slack."""
        if done:
            text = t("sources.papers_removed", lang, source=code(self.target), count=self.removed)
        elif self.count:
            text = t("sources.remove_papers_preview", lang, source=code(self.target), count=self.count)
        else:
            text = t("sources.remove_papers_nothing", lang, source=code(self.target))
        kept = []
        if self.kept_listed:
            kept.append(t("sources.remove_papers_kept_listed", lang, count=self.kept_listed))
        if self.kept_people:
            kept.append(t("sources.remove_papers_kept_people", lang, count=self.kept_people))
        if kept:
            text += " " + t("sources.remove_papers_kept", lang, kept=t("sources.remove_papers_and", lang).join(kept))
        if done and self.source_exists:
            text += " " + t("sources.remove_papers_source_gone", lang, source=code(self.target))
        return text

    def to_dict(self) -> dict:
        return {"source": self.target, "papers": self.count, "removed": self.removed, "kept_listed": self.kept_listed,
                "kept_people": self.kept_people, "source_removed": self.source_exists}  # fmt: skip


def feed_name_of(target: str) -> str:
    """The feed name a source's papers are listed under when it is arXiv's (Source.feed_name)."""
    return "arXiv " + target.removeprefix("arxiv:") if target.startswith("arxiv:") else ""


def parse_target(text: str) -> tuple[str, str]:
    """Read what someone typed as a source: (kind, canonical target); SourceError if neither."""
    text = " ".join((text or "").split()).strip("<>")  # Slack wraps links in <...>
    if "|" in text and text.startswith("http"):
        text = text.split("|", 1)[0]
    lowered = text.lower()
    if lowered.startswith(("http://", "https://")) and len(text) > len("https://") and " " not in text:
        return "listing", text
    if lowered.startswith("arxiv:"):
        spec = text[len("arxiv:") :].strip()
        spec = spec.replace("“", '"').replace("”", '"')
        if _CATEGORY.match(spec):
            return "arxiv", f"arxiv:{spec}"
        words = spec.strip('"').strip()
        if words and '"' not in words:
            return "arxiv", f'arxiv:"{words}"'
    raise SourceError("sources.bad_target", target=text[:200])


class SourceStore:
    """The sources table, on the Store's connection."""

    def __init__(self, store: Store):
        self.store = store
        with store.transaction() as db:
            apply_schema(db, SCHEMA, COLUMNS)
            apply_schema(db, SOURCE_PAPERS)
            tenancy.rekey(db, TEAMS_SCHEMA, ("source_teams",))
            # A source from before workspaces is the LOCAL workspace's, which tenancy.adopt
            # gives to the home workspace: its admins keep managing it.
            db.execute(
                "INSERT INTO source_teams (team_id, source_id, added_at, added_by)"
                " SELECT '', s.id, s.added_at, s.added_by FROM sources s"
                " WHERE NOT EXISTS (SELECT 1 FROM source_teams t WHERE t.source_id = s.id)"
            )

    def all(self, team: str | None = None) -> list[Source]:
        """Every source (`team` None: the scheduler's, the CLI's), or the sources of one workspace."""
        if team is None:
            return [_source(r) for r in self.store.read("SELECT * FROM sources ORDER BY id")]
        teams = self.teams_for(team)
        marks = ", ".join("?" for _ in teams)
        return [
            _source(r)
            for r in self.store.read(
                f"SELECT * FROM sources WHERE id IN (SELECT source_id FROM source_teams WHERE team_id IN ({marks})) ORDER BY id",
                teams,
            )
        ]

    def teams_for(self, team: str) -> tuple[str, ...]:
        """The source_teams rows `team` acts on: its own, and LOCAL's when it is the home
        workspace or no workspace is yet (single-workspace mode keeps its sources)."""
        if team == tenancy.LOCAL or tenancy.home_team(self.store) not in (tenancy.LOCAL, team):
            return (team,)
        return (team, tenancy.LOCAL)

    def has(self, source: Source, team: str) -> bool:
        """Whether `source` is one of `team`'s."""
        return not set(self.teams_for(team)).isdisjoint(self.teams_of(source.id))

    def get(self, target: str) -> Source | None:
        rows = self.store.read("SELECT * FROM sources WHERE target = ?", (target,))
        return _source(rows[0]) if rows else None

    def teams_of(self, source_id: int) -> list[str]:
        """The workspaces that added this source."""
        rows = self.store.read("SELECT team_id FROM source_teams WHERE source_id = ? ORDER BY team_id", (source_id,))
        return [str(row[0]) for row in rows]

    def add(self, kind: str, target: str, added_by: str, now: str, *, team: str = tenancy.LOCAL) -> tuple[Source, bool]:
        """Add the source for `team` (one row per target, whoever else has it); True if `team` had not."""
        with self.store.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO sources (kind, target, added_at, added_by) VALUES (?, ?, ?, ?)",
                (kind, target, now, added_by),
            )
            source_id = db.execute("SELECT id FROM sources WHERE target = ?", (target,)).fetchone()[0]
            created = db.execute(
                "INSERT OR IGNORE INTO source_teams (team_id, source_id, added_at, added_by) VALUES (?, ?, ?, ?)",
                (team, source_id, now, added_by),
            ).rowcount
        return self.get(target), bool(created)  # type: ignore[return-value]

    def remove(self, target: str, *, team: str | None = None) -> bool:
        """Take the source from `team` (None: from every workspace); it goes when nobody has it."""
        with self.store.transaction() as db:
            row = db.execute("SELECT id FROM sources WHERE target = ?", (target,)).fetchone()
            if row is None:
                return False
            source_id = row[0]
            if team is None:
                db.execute("DELETE FROM source_teams WHERE source_id = ?", (source_id,))
            else:
                teams = self.teams_for(team)
                marks = ", ".join("?" for _ in teams)
                cursor = db.execute(f"DELETE FROM source_teams WHERE source_id = ? AND team_id IN ({marks})", (source_id, *teams))
                if not cursor.rowcount:
                    return False
            if db.execute("SELECT 1 FROM source_teams WHERE source_id = ? LIMIT 1", (source_id,)).fetchone() is None:
                db.execute("DELETE FROM sources WHERE id = ?", (source_id,))
            return True

    def lease(self, source_id: int, now: datetime, lease: timedelta = LEASE) -> bool:
        """Take the right to poll this source for `lease`; False when another poll holds it.

        `now` is the database's clock (SourceService.lease_clock): the expiry is written by
        one instance and compared by another."""
        with self.store.transaction() as db:
            return bool(
                db.execute(
                    "UPDATE sources SET polling_until = ? WHERE id = ? AND polling_until <= ?",
                    (to_iso(now + lease), source_id, to_iso(now)),
                ).rowcount
            )

    def finish(self, source_id: int, **values: object) -> None:
        """Record a poll's outcome and give the lease back."""
        values["polling_until"] = ""
        columns = ", ".join(f"{k} = ?" for k in values)
        with self.store.transaction() as db:
            db.execute(f"UPDATE sources SET {columns} WHERE id = ?", (*values.values(), source_id))


def _source(row) -> Source:
    names = row.keys()  # a sqlite3.Row iterates over its values, not its names
    data = {k: row[k] for k in names if k != "polling_until"}
    data["notified"] = bool(data["notified"])
    data["held_back"] = int(data.get("held_back") or 0)
    return Source(**data)


def feed_paper(record: ArxivRecord, feed: str) -> Paper:
    """An arXiv entry as a paper of its own: English fields only, listed by `feed`."""
    title = plain_title(record.title)
    extra = f"{record.comment} {record.journal_ref}"
    venue_name, year, track = find_venue(extra)
    return Paper(
        id=paper_id(title),
        title_en=title,
        title_zh="",
        authors=list(record.authors),
        comments=record.comment,
        journal_ref=record.journal_ref,
        venue=venue_label(venue_name, year, track),
        venue_name=venue_name,
        year=year,
        track=track,
        urls=find_urls(extra),
        feeds=[feed],
        arxiv=record,
    )


class SourceService:
    """Add, remove, list and poll sources; the CLI, Slack and the scheduler share it."""

    def __init__(
        self,
        settings: Settings,
        corpus: Corpus,
        *,
        clock: Clock = system_clock,
        arxiv_client: ArxivClient | None = None,
        on_failing: Callable[[Source], None] | None = None,
        kept_by_people: Callable[[list[str]], set[str]] | None = None,
        timeout: float = LISTING_TIMEOUT,
        max_bytes: int = LISTING_MAX_BYTES,
        poll_lease: timedelta = LEASE,
        arxiv_turn: Callable[[float], float] | None = None,
    ):
        """`arxiv_turn`: arXiv's turns shared by every instance (bot/feeds/arxiv.py's RateLimiter)."""
        self.settings = settings
        self.corpus = corpus
        self.sources = SourceStore(corpus.store)
        self.clock = clock
        # A poll's lease and a failed feed's backoff are written by one instance and read by
        # another: both by the database's clock on PostgreSQL, not by each instance's own.
        self.lease_clock = corpus.store.shared_clock(clock)
        self.poll_lease = poll_lease
        self.arxiv = arxiv_client or ArxivClient(
            settings.arxiv_api_url, interval=settings.arxiv_interval_seconds, backoff=settings.arxiv_backoff_seconds, retries=1,
            shared_turn=arxiv_turn,
        )  # fmt: skip
        self.on_failing = on_failing
        # Which papers someone saved or shared (the library's; bot/services.py wires it): never removed.
        self.kept_by_people = kept_by_people or (lambda ids: set())
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.interval = timedelta(minutes=settings.sources_interval_minutes)
        self.cap = settings.feeds_max_new_per_poll
        self._lock = threading.Lock()

    def list_sources(self, team: str | None = None) -> list[Source]:
        """Every source, or (`team`) the sources that workspace's admins added."""
        return self.sources.all(team)

    def add(self, text: str, *, added_by: str, team: str | None = None) -> Source:
        """Add a source for `team` (None: the home workspace, the CLI's); one another workspace
        has already is shared with it, not fetched twice."""
        kind, target = parse_target(text)
        if kind == "arxiv" and not self.settings.arxiv_enabled:
            raise SourceError("sources.arxiv_off")
        owner = tenancy.home_team(self.corpus.store) if team is None else team
        existing = self.sources.get(target)
        if existing is not None and self.sources.has(existing, owner):
            raise SourceError("sources.exists", source=target)
        source, created = self.sources.add(kind, target, added_by, to_iso(self.clock()), team=owner)
        if not created:
            raise SourceError("sources.exists", source=target)
        return source

    def remove(self, text: str, *, team: str | None = None) -> Source:
        """Remove a source from `team` (None: from every workspace); its papers stay."""
        target = text.strip()
        source = self._own(target, team)
        if source is None:
            try:
                source = self._own(parse_target(text)[1], team)
            except SourceError:
                source = None
        if source is None:
            raise SourceError("sources.unknown", source=target[:200])
        self.sources.remove(source.target, team=team)
        return source

    def _own(self, target: str, team: str | None) -> Source | None:
        """The source `target` if it exists and (given `team`) is that workspace's."""
        source = self.sources.get(target)
        if source is None or team is None or self.sources.has(source, team):
            return source
        return None

    def _known_target(self, text: str) -> str:
        """A source's target as typed or as parse_target reads it: one that exists, or one whose papers are remembered."""
        candidates = [text.strip()]
        with contextlib.suppress(SourceError):  # not a target as typed: maybe an exact one still
            candidates.append(parse_target(text)[1])
        for target in candidates:
            if self.sources.get(target) is not None or self.corpus.store.read(
                "SELECT 1 FROM source_papers WHERE source = ? LIMIT 1", (target,)
            ):
                return target
        raise SourceError("sources.unknown", source=text.strip()[:200])

    def plan_removal(self, text: str, *, team: str | None = None) -> Removal:
        """What `remove_papers(text)` would remove: the papers this source alone brought.

        A paper stays when another source listed it, when it has a feed this source never
        used, when a listing file (inbox, upload, CLI) with one of this source's feed names
        was stored since the paper arrived (it may have listed it too), or when someone
        saved or shared it. Only papers this source stored first are candidates at all.

        `team`: the workspace asking; a source another workspace has is not its to empty
        (its papers are the other's too), and another workspace's source is unknown to it.
        """
        target = self._known_target(text)
        self._check_removal(target, team)
        store = self.corpus.store
        rows = store.read(
            "SELECT p.id, p.first_seen FROM source_papers s JOIN papers p ON p.id = s.paper_id WHERE s.source = ? AND s.brought = 1",
            (target,),
        )
        first_seen = {row[0]: row[1] for row in rows}  # paper id -> when it was first stored
        others = {
            row[0]
            for row in store.read(
                "SELECT DISTINCT o.paper_id FROM source_papers o JOIN source_papers s ON s.paper_id = o.paper_id "
                "WHERE s.source = ? AND s.brought = 1 AND o.source != ?",
                (target, target),
            )
        }
        own_feeds = {row[0] for row in store.read("SELECT DISTINCT feed FROM ingests WHERE path = ?", (target,))}
        own_feeds.discard("")
        if feed_name_of(target):
            own_feeds.add(feed_name_of(target))
        feeds: dict[str, set[str]] = {}
        for pid, feed in store.read(
            "SELECT f.paper_id, f.feed FROM paper_feeds f JOIN source_papers s ON s.paper_id = f.paper_id "
            "WHERE s.source = ? AND s.brought = 1",
            (target,),
        ):
            feeds.setdefault(pid, set()).add(feed)
        # Listing files that used one of this source's feed names: their latest time, by feed.
        source_paths = {row[0] for row in store.read("SELECT DISTINCT source FROM source_papers")}
        source_paths |= {s.target for s in self.sources.all()}
        source_paths |= {feed_name_of(path) for path in source_paths if feed_name_of(path)}
        listed_at: dict[str, str] = {}
        for feed in own_feeds:
            for path, at in store.read("SELECT path, MAX(at) FROM ingests WHERE feed = ? GROUP BY path", (feed,)):
                if path not in source_paths and at > listed_at.get(feed, ""):
                    listed_at[feed] = at
        alone, listed = [], 0
        for pid, seen in first_seen.items():
            paper_feeds = feeds.get(pid, set())
            if pid in others or not paper_feeds <= own_feeds or any(listed_at.get(feed, "") >= seen for feed in paper_feeds):
                listed += 1
            else:
                alone.append(pid)
        people = self.kept_by_people(alone)
        return Removal(
            target=target,
            paper_ids=[pid for pid in alone if pid not in people],
            kept_listed=listed,
            kept_people=len(people),
            source_exists=self.sources.get(target) is not None,
        )

    def _check_removal(self, target: str, team: str | None) -> None:
        source = self.sources.get(target)
        if team is None or source is None:
            return
        if not self.sources.has(source, team):
            raise SourceError("sources.unknown", source=target[:200])
        if set(self.sources.teams_of(source.id)) - set(self.sources.teams_for(team)):
            raise SourceError("sources.shared_elsewhere", source=target[:200])

    def remove_papers(self, text: str, *, team: str | None = None) -> Removal:
        """Remove the papers this source alone brought (plan_removal), and the source itself."""
        removal = self.plan_removal(text, team=team)
        if removal.source_exists:
            self.sources.remove(removal.target)  # first: a poll now can't bring them back
        removal.removed = self.corpus.remove_papers(removal.paper_ids)
        with self.corpus.store.transaction() as db:  # what is remembered of papers no longer stored
            for start in range(0, removal.count, 500):
                chunk = removal.paper_ids[start : start + 500]
                db.execute(f"DELETE FROM source_papers WHERE paper_id IN ({', '.join('?' for _ in chunk)})", chunk)
        logger.warning("removed %d papers that only %s brought (kept %d listed elsewhere, %d saved or shared)",
                       removal.removed, removal.target, removal.kept_listed, removal.kept_people)  # fmt: skip
        return removal

    def poll_all(self, targets: list[str] | None = None, *, force: bool = False, team: str | None = None) -> list[PollResult]:
        """Poll every source (or those named; `team`: of that workspace); `force` ignores a backoff's waiting time."""
        chosen = self.list_sources(team)
        if targets:
            wanted = set(targets)
            chosen = [s for s in chosen if s.target in wanted]
            missing = wanted - {s.target for s in chosen}
            if missing:
                raise SourceError("sources.unknown", source=sorted(missing)[0][:200])
        return [self.poll(s, force=force) for s in chosen]

    def poll_due(self) -> list[PollResult]:
        """The scheduler's job: poll the sources that are not backing off."""
        results = [r for r in self.poll_all() if r.skipped != "waiting"]
        for result in results:
            if result.error or result.added:
                logger.info("source %s: %s", result.source.target, result.line("en"))
        return results

    def poll(self, source: Source, *, force: bool = False) -> PollResult:
        now = self.lease_clock()
        if not force and source.retry_at and source.retry_at > to_iso(now):
            return PollResult(source, skipped="waiting")
        if not self.sources.lease(source.id, now, self.poll_lease):
            return PollResult(source, skipped="busy")
        held_back = 0
        try:
            if source.kind == "arxiv":
                added, unchanged, etag, modified = self._poll_arxiv(source), False, "", ""
            else:
                added, unchanged, etag, modified, held_back = self._poll_listing(source)
        except _PollFailed as failure:
            return self._failed(source, failure, now)
        except Exception as error:  # a bug must not leave the lease held or kill the scheduler
            logger.exception("polling %s failed", source.target)
            return self._failed(source, _PollFailed("internal", type(error).__name__), now)
        done = to_iso(self.clock())
        self.sources.finish(
            source.id, last_poll=done, last_success=done, last_error="", last_error_detail="", failures=0, retry_at="",
            notified=0, papers_added=source.papers_added + added, etag=etag, last_modified=modified, held_back=held_back,
        )  # fmt: skip
        fresh = self.sources.get(source.target) or source
        if held_back:
            logger.warning("source %s: %d new papers added, %d more wait for the next poll (PAPERBOT_FEEDS_MAX_NEW_PER_POLL=%d)",
                           source.target, added, held_back, self.cap)  # fmt: skip
        return PollResult(fresh, added=added, unchanged=unchanged, held_back=held_back, cap=self.cap)

    def _failed(self, source: Source, failure: _PollFailed, now: datetime) -> PollResult:
        failures = source.failures + 1
        wait = min(MAX_BACKOFF, self.interval * (2 ** (failures - 1)))
        if failure.retry_after:
            wait = max(wait, timedelta(seconds=failure.retry_after))
        logger.warning("source %s failed (%s: %s); next try after %s", source.target, failure.kind, failure.detail, wait)
        tell = not source.notified
        self.sources.finish(
            source.id, last_poll=to_iso(now), last_error=failure.kind, last_error_detail=failure.detail[:300],
            failures=failures, retry_at=to_iso(now + wait), notified=1,
        )  # fmt: skip
        fresh = self.sources.get(source.target) or source
        if tell and self.on_failing is not None:
            try:
                self.on_failing(fresh)
            except Exception:
                logger.exception("telling admins that %s fails failed", source.target)
        return PollResult(fresh, error=failure.kind)

    # -- the two kinds --------------------------------------------------------------------

    def _poll_listing(self, source: Source) -> tuple[int, bool, str, str, int]:
        """Fetch and store a listing: (added, unchanged, ETag, Last-Modified, held back).

        A poll that hit the cap keeps no ETag or Last-Modified: the next one must get the
        whole listing again (a 304 would leave the rest waiting for good).
        """
        try:
            response = fetch(source.target, etag=source.etag, last_modified=source.last_modified, timeout=self.timeout,
                             max_bytes=self.max_bytes, accept="text/plain",
                             allow_private=self.settings.feeds_allow_private)  # fmt: skip
        except FetchError as error:
            raise _PollFailed(error.kind, error.detail, error.retry_after) from None
        if response.status == 304:
            return 0, True, response.etag, response.last_modified, source.held_back
        if "html" in response.content_type.lower() or _HTML.match(response.body[:1024]):
            raise _PollFailed("html", response.content_type or "text/html")
        intake = store_fetched(self.corpus, source.target, response.body, self.cap)
        if intake.problem:
            raise _PollFailed("listing", intake.problem)
        report = intake.report
        if report.errors:
            logger.warning("source %s: %d record(s) rejected, first: %s", source.target, report.rejected, report.errors[0])
        if intake.held_back:
            return report.new, False, "", "", intake.held_back
        return report.new, False, response.etag, response.last_modified, 0

    def _poll_arxiv(self, source: Source) -> int:
        if not self.settings.arxiv_enabled:
            raise _PollFailed("arxiv_off", "PAPERBOT_ARXIV=off")
        try:
            page = self.arxiv.query(search_query=source.arxiv_query, max_results=ARXIV_FEED_RESULTS, sort_by="submittedDate")
        except ArxivError as error:
            raise _PollFailed(error.kind, error.detail, error.retry_after) from None
        return self.store_arxiv_papers(page.entries, source.feed_name, source=source.target)

    def store_arxiv_papers(self, records: list[ArxivRecord], feed: str, *, source: str = "") -> int:
        """Store arXiv entries as papers of `feed`, merged with the papers already stored;
        remembered as listed by `source` (its target), when given."""
        store = self.corpus.store
        now = to_iso(self.clock())
        new_papers: list[Paper] = []
        known: dict[str, ArxivRecord] = {}
        for record in records:
            existing = store.paper_id_for_arxiv(record.arxiv_id) or self._same_paper(record)
            if existing:
                known[existing] = record
                continue
            paper = feed_paper(record, feed)
            if store.get(paper.id) is not None:
                # The title's id belongs to a stored paper that _same_paper found to be
                # another one (other authors): merging into it would overwrite its authors.
                paper = replace(paper, id=paper_id(f"{paper.title_en} arXiv:{record.arxiv_id}"))
            new_papers.append(paper)
        added = 0
        if new_papers:
            report = self.corpus.ingest_listing(Listing(path=feed, feed=feed, records=[(0, p) for p in new_papers]), sync=False)
            added = report.new
        if known:
            store.add_feed(list(known), feed)
        if source:
            record_source_papers(store, source, [*known, *(p.id for p in new_papers)], [p.id for p in new_papers])
        self.corpus.save_arxiv({**{p.id: p.arxiv for p in new_papers}, **known}, now)
        self.corpus.ensure_index()
        return added

    def _same_paper(self, record: ArxivRecord) -> str | None:
        """A stored paper with this entry's title and authors (listed before arXiv had it)."""
        title = normalize_title(record.title)
        candidate = self.corpus.store.get(paper_id(plain_title(record.title)))
        hits = [candidate] if candidate else [h.paper for h in self.corpus.search(plain_title(record.title), per_page=3).hits]
        for paper in hits:
            if normalize_title(paper.title_en) == title and authors_overlap(paper.authors, record.authors):
                return paper.id
        return None


class _PollFailed(PaperbotError):
    def __init__(self, kind: str, detail: str = "", retry_after: float | None = None):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.retry_after = retry_after


def format_source_line(source: Source, lang: str, *, code: Callable[[str], str] = str, quote: Callable[[str], str] = str) -> str:
    """One source for `sources list` and App Home: target, last poll/success/error, papers added.

    `code` makes the target safe inside the row's backticks, `quote` the server's text in
    the error (see Source.error_text); plain text for the CLI by default.
    """
    return t(
        "sources.row", lang,
        source=code(source.target),
        poll=source.last_poll or t("sources.never", lang),
        success=source.last_success or t("sources.never", lang),
        count=source.papers_added,
        error=source.error_text(lang, quote=quote) or t("sources.no_error", lang),
    ) + (" · " + t("sources.row_held_back", lang, count=source.held_back) if source.held_back else "")  # fmt: skip
