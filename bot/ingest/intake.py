"""A listing stored whole: parsed, then written in one transaction; in the server, by a child.

The server answers searches from threads of one interpreter. Parsing a day's file and
storing it hold that interpreter for a quarter of a second (1,100 records at 1M papers),
and each search running meanwhile took 2-3 times as long. A listing of `CHILD_BYTES` or
more is therefore parsed and stored by a child process (bot/child.py) on the other core:
it opens the store itself (SQLite serialises its transaction with this process's
writers) and answers with the IngestReport, as storing it here would.
"""

from __future__ import annotations

from pathlib import Path

from bot.child import run_in_child
from bot.ingest.listing import parse_bytes, parse_path
from bot.models import IngestReport, Listing
from bot.store.database import Store, open_store

CHILD_BYTES = 256 * 1024  # ~380 records; a day's file of 1,100 is ~740 KB. Smaller ones cost less than a child's start
CHILD_TIMEOUT_S = 300.0  # a day's file takes well under a second; a busy store waits up to 30 s for its lock


def store_listing(store: Store, listing: Listing, *, token: str | None = None, team: str | None = None) -> IngestReport:
    """Store one parsed listing in one transaction (recorded under `token`); a listing
    with no feed stores nothing. `team`: the workspace that uploaded it in Slack, to which
    its new papers are private; None (the seeds, the inbox, the CLI, a feed): shared."""
    if not listing.feed:
        return IngestReport(path=listing.path, errors=list(listing.errors))
    return store.ingest_listing(listing, token=token, team=team)


def in_child(
    db_path: Path | str,
    *,
    now: str,
    token: str,
    path: Path | None = None,
    name: str = "",
    data: bytes | None = None,
    team: str | None = None,
) -> IngestReport:
    """Parse and store the listing at `path` (or `data`, named `name`) from a child process.

    `now` is the time it is stored at (the store's clock is this process's); `token` is
    recorded with the ingest. Raises ChildFailed, or OSError (TimeoutError among them)
    if the child did not answer: it is gone by then, and the store's ingested(token)
    says whether it committed before it went. Storing it again would not be harmless: a
    paper another feed listed first would then count as this feed's, its record
    replaced whole (fields this file leaves empty cleared).
    """
    args: tuple[object, ...]
    if path is not None:
        args, target, what = (str(db_path), str(path), now, token), "store_file", str(path)
    else:
        args, target, what = (str(db_path), name, data, now, token, team), "store_bytes", name
    return run_in_child(f"{__name__}:{target}", args, what=f"the listing {what}", timeout=CHILD_TIMEOUT_S)


def store_file(db_path: str, path: str, now: str, token: str) -> IngestReport:
    """(In the child.) Parse the listing file at `path` and store it."""
    return _store_in(db_path, parse_path(path), now, token)


def store_bytes(db_path: str, name: str, data: bytes, now: str, token: str, team: str | None = None) -> IngestReport:
    """(In the child.) Parse a listing that arrived as bytes, named `name`, and store it
    (private to `team`, the workspace that uploaded it, when given)."""
    return _store_in(db_path, parse_bytes(name, data), now, token, team)


def _store_in(db_path: str, listing: Listing, now: str, token: str, team: str | None = None) -> IngestReport:
    store = open_store(db_path, clock=lambda: now)  # a SQLite file, or the PostgreSQL URL
    try:
        return store_listing(store, listing, token=token, team=team)
    finally:
        store.close()
