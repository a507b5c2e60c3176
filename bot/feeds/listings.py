"""A listing fetched from a feed URL, stored capped and remembered by source; large ones by a child.

Parsing a feed's listing holds the interpreter (the parser's patterns run under it), and
the server answers searches from threads of that one interpreter: a large listing is
parsed and stored by a child process (bot/child.py) on the other core, as large uploads
are (bot/ingest/intake.py), and only its summary comes back. Smaller ones cost less than
a child's start and are stored here.

One poll of one feed adds at most `cap` new papers (PAPERBOT_FEEDS_MAX_NEW_PER_POLL):
the first `cap` new records in the listing's order, with every record of a paper the
store already has (an update adds nothing). The rest wait for the next poll, which
fetches the listing again in full (the caller keeps no ETag from a capped poll).

`source_papers` remembers which papers each source listed, and which it stored first
(`brought`): what `sources remove-papers` may take away (bot/feeds/sources.py).
Keyed by the source's target, so it outlives the source's own row.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.child import run_in_child
from bot.errors import ChildFailed
from bot.ingest.intake import CHILD_BYTES, store_listing
from bot.ingest.listing import decode_listing, parse_text
from bot.models import IngestReport, Listing
from bot.store.database import Store, open_store

if TYPE_CHECKING:  # the child process imports this module: not the index, Whoosh and the analysers
    from bot.corpus import Corpus

logger = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS source_papers (
    source   TEXT NOT NULL,              -- the source's target: a URL, arxiv:cs.CL
    paper_id TEXT NOT NULL,
    brought  INTEGER NOT NULL DEFAULT 0, -- 1: this source's poll stored it first
    PRIMARY KEY (source, paper_id)
);
CREATE INDEX IF NOT EXISTS source_papers_paper ON source_papers (paper_id);
"""

CHILD_TIMEOUT_S = 300.0  # a day's listing takes well under a second; a busy store waits up to 30 s for its lock


@dataclass
class FeedIntake:
    """What storing one fetched listing did: the ingest's report, what waits, or why nothing was read."""

    report: IngestReport
    held_back: int = 0  # new papers over the cap, left for the next poll
    problem: str = ""  # the listing could not be read (decode or parse): a reason for people
    brought: list[str] = field(default_factory=list)  # ids this poll stored first


def record_source_papers(store: Store, source: str, listed: Iterable[str], brought: Iterable[str]) -> None:
    """Remember that `source` listed these papers and stored `brought` first (one transaction)."""
    first = set(brought)
    rows = [(source, paper_id, int(paper_id in first)) for paper_id in dict.fromkeys([*listed, *first])]
    if not rows:
        return
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO source_papers (source, paper_id, brought) VALUES (?, ?, ?) "
            "ON CONFLICT (source, paper_id) DO UPDATE SET brought = max(brought, excluded.brought)",
            rows,
        )


def capped(listing: Listing, known: set[str], cap: int) -> tuple[Listing, int]:
    """The listing with at most `cap` new papers (first in its order), and how many more there were."""
    new: set[str] = set()
    over: set[str] = set()
    records = []
    for line, paper in listing.records:
        if paper.id not in known and paper.id not in new:
            if len(new) >= cap:
                over.add(paper.id)
                continue
            new.add(paper.id)
        elif paper.id in over:
            continue
        records.append((line, paper))
    return Listing(path=listing.path, feed=listing.feed, records=records, errors=listing.errors), len(over)


def store_capped(store: Store, source: str, body: bytes, cap: int, *, token: str | None = None) -> FeedIntake:
    """Decode, parse, cap and store a fetched listing; remember what the source listed."""
    text, problem = decode_listing(source, body)
    if text is None:
        return FeedIntake(IngestReport(path=source), problem=problem.reason if problem else "not text")
    listing = parse_text(text, source)
    if not listing.records:
        reason = listing.errors[0].reason if listing.errors else "no records"
        return FeedIntake(IngestReport(path=source, errors=list(listing.errors)), problem=reason)
    ids = list(dict.fromkeys(paper.id for _, paper in listing.records))
    known = store.known_ids(ids)
    listing, held_back = capped(listing, known, cap)
    report = store_listing(store, listing, token=token)
    listed = list(dict.fromkeys(paper.id for _, paper in listing.records))
    brought = [paper_id for paper_id in listed if paper_id not in known]
    record_source_papers(store, source, listed, brought)
    return FeedIntake(report, held_back=held_back, brought=brought)


def store_fetched(corpus: Corpus, source: str, body: bytes, cap: int) -> FeedIntake:
    """Store a listing fetched for `source` (a child parses a large one in the server), then index it."""
    intake = None
    if corpus.index.procs == 1 and len(body) >= CHILD_BYTES:
        token = uuid.uuid4().hex
        try:
            intake = run_in_child(
                f"{__name__}:store_in_child",
                (str(corpus.store.path), source, body, cap, corpus.store.now(), token),
                what=f"the listing of {source}",
                timeout=CHILD_TIMEOUT_S,
            )
        except (OSError, ChildFailed) as exc:  # (TimeoutError is an OSError) the child is gone by now
            counts = corpus.store.ingested(token)
            if counts is not None:  # stored, but the answer was lost: not again (see Corpus._in_child)
                new, updated, unchanged = counts
                intake = FeedIntake(IngestReport(path=source, feed="?", new=new, updated=updated, unchanged=unchanged))
            else:
                logger.warning("could not store %s in a child process (%s); storing it here", source, exc)
    if intake is None:
        intake = store_capped(corpus.store, source, body, cap)
    corpus.index_stored(intake.report)
    return intake


def store_in_child(db_path: str, source: str, body: bytes, cap: int, now: str, token: str) -> FeedIntake:
    """(In the child.) store_capped on a store of its own, at the server's time `now`."""
    store = open_store(db_path, clock=lambda: now)  # a SQLite file, or the PostgreSQL URL
    try:
        return store_capped(store, source, body, cap, token=token)
    finally:
        store.close()
