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
from bot.listing import parse_bytes, parse_path
from bot.models import IngestReport, Listing
from bot.store import Store

CHILD_BYTES = 256 * 1024  # ~380 records; a day's file of 1,100 is ~740 KB. Smaller ones cost less than a child's start
CHILD_TIMEOUT_S = 300.0  # a day's file takes well under a second; a busy store waits up to 30 s for its lock


def store_listing(store: Store, listing: Listing) -> IngestReport:
    """Store one parsed listing in one transaction; a listing with no feed stores nothing."""
    if not listing.feed:
        return IngestReport(path=listing.path, errors=list(listing.errors))
    return store.ingest_listing(listing)


def in_child(db_path: Path, *, now: str, path: Path | None = None, name: str = "", data: bytes | None = None) -> IngestReport:
    """Parse and store the listing at `path` (or `data`, named `name`) from a child process.

    `now` is the time it is stored at (the store's clock is this process's). Raises
    ChildFailed, or OSError (TimeoutError among them) if no child could do it: the
    listing may then be stored or not, and storing it again is harmless (a paper stored
    already comes out unchanged).
    """
    if path is not None:
        return run_in_child("bot.intake:store_file", (str(db_path), str(path), now), what=f"the listing {path}", timeout=CHILD_TIMEOUT_S)
    return run_in_child("bot.intake:store_bytes", (str(db_path), name, data, now), what=f"the listing {name}", timeout=CHILD_TIMEOUT_S)


def store_file(db_path: str, path: str, now: str) -> IngestReport:
    """(In the child.) Parse the listing file at `path` and store it."""
    return _store_in(db_path, parse_path(path), now)


def store_bytes(db_path: str, name: str, data: bytes, now: str) -> IngestReport:
    """(In the child.) Parse a listing that arrived as bytes, named `name`, and store it."""
    return _store_in(db_path, parse_bytes(name, data), now)


def _store_in(db_path: str, listing: Listing, now: str) -> IngestReport:
    store = Store(Path(db_path), clock=lambda: now)
    try:
        return store_listing(store, listing)
    finally:
        store.close()
