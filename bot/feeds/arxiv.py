"""arXiv: the Atom API client, title matching, and the enricher that keeps records current.

Client: feedparser over arXiv's Atom API (export.arxiv.org/api/query), with our own GET
(bot/feeds/fetch.py). feedparser is the well-kept parser for Atom (it reads arXiv's own
namespace: primary category, DOI, comment, journal ref), while the `arxiv` package
would bring requests and its own retry loop, which neither honours Retry-After nor lets
the tests shorten the 3 s spacing and measure it. Every request waits for `RateLimiter`
(arXiv asks for at most one request every 3 seconds) and is retried with backoff.

Matching: a listing paper and an arXiv entry are one paper when their titles are equal
once normalised (`normalize_title`: LaTeX, accents, Greek letters, punctuation, case and
line breaks) and their authors overlap (`authors_overlap`), so a similar title by other
people never matches. "Not on arXiv" is remembered and checked again after
`recheck_days`; found records are re-read by id after the same time (new versions).
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import time
import unicodedata
import xml.sax
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

import feedparser

from bot.clock import Clock, system_clock, to_iso
from bot.config import Settings
from bot.corpus import Corpus
from bot.errors import ArxivError, FetchError
from bot.feeds.fetch import EVERYWHERE, fetch
from bot.ingest.listing import FIELD_LIMITS
from bot.models import ArxivRecord, Paper, paper_links

logger = logging.getLogger(__name__)

DEFAULT_API_URL = "https://export.arxiv.org/api/query"
DEFAULT_INTERVAL = 3.0  # seconds between requests, as arXiv's API terms ask
TITLES_PER_REQUEST = 10
IDS_PER_REQUEST = 50
RESULTS_PER_TITLE = 3

_ID = re.compile(r"arxiv\.org/abs/([^\s?#]+?)(?:v(\d+))?$", re.IGNORECASE)
_MATH = re.compile(r"\$([^$]*)\$")
_COMMAND = re.compile(r"\\([A-Za-z]+)\s*")
_FORMATTING = {"emph", "textbf", "textit", "texttt", "textrm", "mathrm", "mathbf", "mathcal", "mathit", "text", "bf", "it"}
_ACCENT_COMMAND = re.compile(r"\\[`'^\"~=.uvHckbdrt]\s*\{?([A-Za-z])\}?")


# -- matching -----------------------------------------------------------------------------


def _greek(ch: str) -> str:
    name = unicodedata.name(ch, "")
    if name.startswith(("GREEK SMALL LETTER ", "GREEK CAPITAL LETTER ")):
        return f" {name.rsplit(' ', 1)[-1].lower()} "
    return ch


def normalize_title(title: str) -> str:
    """Reduce a title to lowercase words: LaTeX, accents, punctuation and breaks gone.

    `$\\alpha$-Divergence:` + a line break + `Theory of {G}raphs` and
    `α-divergence — Théory of Graphs` both give "alpha divergence theory of graphs".
    """
    text = _MATH.sub(lambda m: f" {m.group(1)} ", title or "")
    text = _ACCENT_COMMAND.sub(r"\1", text)
    text = _COMMAND.sub(lambda m: " " if m.group(1) in _FORMATTING else f" {m.group(1)} ", text)
    text = unicodedata.normalize("NFKC", text.replace("{", "").replace("}", ""))
    text = "".join(_greek(ch) for ch in text)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return " ".join(re.findall(r"[^\W_]+", text))


def plain_title(title: str) -> str:
    """A title for display and ids: LaTeX math kept readable, line breaks joined."""
    return " ".join(_MATH.sub(lambda m: _COMMAND.sub(r"\1", m.group(1)), title or "").split())


def _surname(name: str) -> str:
    words = normalize_title(name).split()
    return words[-1] if words else ""


def authors_overlap(ours: Iterable[str], theirs: Iterable[str]) -> bool:
    """Tell whether two author lists are the same people: half the shorter list's surnames."""
    a = {s for s in map(_surname, ours) if s}
    b = {s for s in map(_surname, theirs) if s}
    if not a or not b:
        return False
    return len(a & b) >= max(1, (min(len(a), len(b)) + 1) // 2)


def match_paper(paper: Paper, entries: Iterable[ArxivRecord], *, by_id: str = "") -> ArxivRecord | None:
    """The entry that is this paper: same normalised title and overlapping authors.

    `by_id`: the paper's Comments named this arXiv id, so the title may differ (a renamed
    version); the authors must still overlap.
    """
    title = normalize_title(paper.title_en)
    for entry in entries:
        same = entry.arxiv_id == by_id if by_id else normalize_title(entry.title) == title
        if same and authors_overlap(paper.authors, entry.authors):
            return entry
    return None


# -- the Atom API ---------------------------------------------------------------------------


@dataclass
class FeedPage:
    """One Atom answer: its entries and how many the query matched in all."""

    entries: list[ArxivRecord]
    total: int


def parse_feed(data: bytes) -> FeedPage:
    """Read an arXiv Atom document; raise ArxivError("format") when it is not one."""
    parsed = feedparser.parse(data)
    problem = parsed.get("bozo_exception")
    if isinstance(problem, xml.sax.SAXException):
        raise ArxivError("format", f"malformed Atom: {problem}")
    if not str(parsed.get("version", "")).startswith("atom"):
        raise ArxivError("format", "not an Atom feed (an HTML page or other text)")
    entries = []
    for entry in parsed.entries:
        raw_id = entry.get("id", "")
        if "/api/errors" in raw_id:  # arXiv reports a bad query as an entry titled Error
            raise ArxivError("api", " ".join(entry.get("summary", "").split()))
        record = _record(entry)
        if record is not None:
            entries.append(record)
    try:
        total = int(parsed.feed.get("opensearch_totalresults", len(entries)))
    except (TypeError, ValueError):
        total = len(entries)
    return FeedPage(entries, total)


def _record(entry) -> ArxivRecord | None:
    match = _ID.search(entry.get("id", "").strip())
    if not match:
        return None
    primary = (entry.get("arxiv_primary_category") or {}).get("term", "")
    categories = [t.get("term", "") for t in entry.get("tags", []) if t.get("term")]
    if primary and primary not in categories:
        categories.insert(0, primary)
    elif primary:
        categories.remove(primary)
        categories.insert(0, primary)
    # arXiv's own fields are short (an abstract is at most 1,920 characters); a mirror's may
    # not be, so they get the listing format's limits (bot.ingest.listing.FIELD_LIMITS), clipped.
    return ArxivRecord(
        arxiv_id=match.group(1),
        version=int(match.group(2) or 1),
        title=_clipped(entry.get("title", ""), FIELD_LIMITS["title_en"]),
        abstract=_clipped(entry.get("summary", ""), FIELD_LIMITS["summary"]),
        authors=[a.get("name", "").strip()[:200] for a in entry.get("authors", [])[:MAX_AUTHORS] if a.get("name", "").strip()],
        primary_category=primary,
        categories=categories,
        published=entry.get("published", ""),
        updated=entry.get("updated", ""),
        doi=entry.get("arxiv_doi", "") or "",
        comment=_clipped(entry.get("arxiv_comment", "") or "", FIELD_LIMITS["comments"]),
        journal_ref=_clipped(entry.get("arxiv_journal_ref", "") or "", FIELD_LIMITS["journal"]),
    )


MAX_AUTHORS = 2_000  # collaborations list a few thousand at most


def _clipped(text: str, limit: int) -> str:
    return " ".join(text[: limit * 2].split())[:limit]


class RateLimiter:
    """At most one request every `interval` seconds, across threads, and with `shared` across
    instances.

    `shared(interval)` takes the next turn in a ledger every instance shares and returns how
    long to wait for it (bot/store/claims.py's `shared_turns`, on the database's clock): the
    feed polls and arXiv lookups move between instances as their claim does, and a new holder
    must not ask arXiv within `interval` of the last holder's request. When the ledger can't
    be reached (the database away), this process's own spacing holds meanwhile.
    """

    def __init__(
        self,
        interval: float,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] = time.sleep,
        shared: Callable[[float], float] | None = None,
    ):
        self.interval = interval
        self._monotonic = monotonic
        self._sleep = sleep
        self._shared = shared
        self._lock = threading.Lock()
        self._last: float | None = None

    def wait(self) -> None:
        with self._lock:
            if self._shared is not None and self.interval > 0:
                try:
                    delay = self._shared(self.interval)
                except sqlite3.Error as exc:
                    logger.warning("could not take arXiv's turn in the shared ledger (%s); spacing this instance's requests", exc)
                else:
                    if delay > 0:
                        self._sleep(delay)
                    self._last = self._monotonic()
                    return
            if self._last is not None:
                delay = self._last + self.interval - self._monotonic()
                if delay > 0:
                    self._sleep(delay)
            self._last = self._monotonic()


class ArxivClient:
    """arXiv's Atom API: spaced requests, retried with exponential backoff.

    `retries` more attempts follow a network error, a timeout, a 429/503 (after its
    Retry-After, capped at `max_wait`) or a 5xx; the wait doubles from `backoff` seconds.
    """

    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        *,
        interval: float = DEFAULT_INTERVAL,
        retries: int = 3,
        backoff: float = 5.0,
        max_wait: float = 120.0,
        timeout: float = 30.0,
        sleep: Callable[[float], None] | None = None,
        shared_turn: Callable[[float], float] | None = None,
    ):
        """`shared_turn`: arXiv's turns in a ledger every instance shares (see RateLimiter)."""
        self.api_url = api_url
        self.stopping = threading.Event()
        # Waits end early on stop(), so shutting `serve` down never waits out a backoff.
        wait: Callable[[float], object] = sleep or self.stopping.wait
        self.retries = retries
        self.backoff = backoff
        self.max_wait = max_wait
        self.timeout = timeout
        self._sleep = wait
        self.limiter = RateLimiter(interval, sleep=wait, shared=shared_turn)
        self.requests = 0

    def stop(self) -> None:
        """Make every wait return and every later request fail at once (shutdown)."""
        self.stopping.set()

    def query(self, *, search_query: str = "", id_list: list[str] | None = None, max_results: int = 10, start: int = 0,
              sort_by: str = "") -> FeedPage:  # fmt: skip
        """One API request (with retries): `search_query` and/or `id_list`."""
        params: dict[str, str | int] = {"start": start, "max_results": max_results}
        if search_query:
            params["search_query"] = search_query
        if id_list:
            params["id_list"] = ",".join(id_list)
        if sort_by:
            params["sortBy"], params["sortOrder"] = sort_by, "descending"
        url = f"{self.api_url}?{urlencode(params)}"
        attempt = 0
        while True:
            self.limiter.wait()
            if self.stopping.is_set():
                raise ArxivError("stopped", "paperbot is shutting down")
            self.requests += 1
            try:
                # The API URL is the operator's own setting (PAPERBOT_ARXIV_API_URL, maybe an
                # intranet mirror), not a feed anyone can add: any address it names is theirs.
                response = fetch(url, timeout=self.timeout, accept="application/atom+xml", allow_private=EVERYWHERE)
                return parse_feed(response.body)
            except FetchError as error:
                retryable = error.kind in ("network", "timeout", "rate_limited", "unavailable") or (
                    error.kind == "http" and error.status >= 500
                )
                if not retryable or attempt >= self.retries:
                    raise ArxivError(error.kind, error.detail, retry_after=error.retry_after) from error
                wait = self.backoff * (2**attempt)
                if error.retry_after is not None:
                    wait = max(wait, error.retry_after)
                wait = min(wait, self.max_wait)
                logger.debug("arXiv request failed (%s); retrying in %.1f s", error, wait)
                self._sleep(wait)
                attempt += 1

    def search_titles(self, titles: list[str]) -> FeedPage:
        """Entries whose titles match any of `titles`, in one request."""
        phrases = [normalize_title(t) for t in titles]
        clause = " OR ".join(f'ti:"{p}"' for p in phrases if p)
        return self.query(search_query=clause, max_results=max(1, len(phrases)) * RESULTS_PER_TITLE)

    def by_ids(self, ids: list[str]) -> FeedPage:
        return self.query(id_list=ids, max_results=len(ids))


# -- enrichment ---------------------------------------------------------------------------------


@dataclass
class EnrichReport:
    """What one enrichment run did: papers looked up, found, not found, records updated."""

    checked: int = 0
    found: int = 0
    missing: int = 0
    updated: int = 0
    requests: int = 0
    error: str = ""

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("checked", "found", "missing", "updated", "requests", "error")}


def _chunks(items: list, size: int) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _arxiv_id_in(paper: Paper) -> str:
    link = next((x for x in paper_links(paper) if x.kind == "arxiv"), None)
    return link.url.rsplit("/abs/", 1)[-1] if link else ""


class Enricher:
    """Finds papers' arXiv records and keeps them in the store (which re-indexes them).

    `run_background()` is the scheduler's job: it works through what is due (new papers
    first, then the backlog), and when arXiv can't be reached it logs once and waits
    longer each time (up to `max_pause`), changing nothing.
    """

    def __init__(
        self,
        corpus: Corpus,
        client: ArxivClient,
        *,
        recheck_days: int = 30,
        batch: int = TITLES_PER_REQUEST,
        per_run: int = 200,
        clock: Clock = system_clock,
        max_pause: timedelta = timedelta(hours=6),
    ):
        self.corpus = corpus
        self.client = client
        self.recheck = timedelta(days=recheck_days)
        self.batch = max(1, batch)
        self.per_run = per_run
        self.clock = clock
        self.max_pause = max_pause
        self.pause = timedelta(0)
        self.resume_at: datetime | None = None
        self.failing = False
        self._lock = threading.Lock()

    def enrich(self, limit: int | None = None) -> EnrichReport:
        """Look up the papers that are due (at most `limit`), saving after every request.

        Raises ArxivError when arXiv can't be asked; what earlier requests found is kept.
        """
        with self._lock:
            report = EnrichReport()
            before = self.client.requests
            try:
                now = self.clock()
                due = self.corpus.store.arxiv_due(to_iso(now - self.recheck), limit)
                known = [(p, p.arxiv.arxiv_id if p.arxiv else _arxiv_id_in(p)) for p in due]
                by_id = [(p, i) for p, i in known if i]
                by_title = [p for p, i in known if not i]
                for chunk in _chunks(by_id, IDS_PER_REQUEST):
                    page = self.client.by_ids([i for _, i in chunk])
                    self._save(report, {p.id: match_paper(p, page.entries, by_id=i) for p, i in chunk})
                for chunk in _chunks(by_title, self.batch):
                    page = self.client.search_titles([p.title_en for p in chunk])
                    found = {p.id: match_paper(p, page.entries) for p in chunk}
                    if len(page.entries) < page.total:
                        # The answer was cut short: ask again one by one rather than call the rest missing.
                        for paper in [p for p in chunk if found[p.id] is None]:
                            found[paper.id] = match_paper(paper, self.client.search_titles([paper.title_en]).entries)
                    self._save(report, found)
            finally:
                report.requests = self.client.requests - before
                if report.updated:  # one catch-up for the run, not one per request
                    try:
                        self.corpus.ensure_index()
                    except Exception:  # a busy or broken index: the next inbox scan catches up
                        logger.exception("could not catch the index up after arXiv enrichment")
            return report

    def _save(self, report: EnrichReport, found: dict[str, ArxivRecord | None]) -> None:
        report.checked += len(found)
        report.found += sum(1 for r in found.values() if r)
        report.missing += sum(1 for r in found.values() if r is None)
        report.updated += self.corpus.save_arxiv(found, to_iso(self.clock()), sync=False)

    def run_background(self) -> EnrichReport | None:
        """One scheduled run: skip while paused after a failure; log a failure once."""
        now = self.clock()
        if self.resume_at and now < self.resume_at:
            return None
        try:
            report = self.enrich(self.per_run)
        except ArxivError as error:
            if error.kind == "stopped":
                return None
            self.pause = min(self.max_pause, max(timedelta(minutes=5), self.pause * 2))
            self.resume_at = self.clock() + self.pause
            if not self.failing:
                logger.warning("arXiv is unreachable (%s); enrichment paused, next try in %s", error, self.pause)
            else:
                logger.debug("arXiv still unreachable (%s); next try in %s", error, self.pause)
            self.failing = True
            return None
        if self.failing:
            logger.info("arXiv is reachable again; enrichment resumed")
        self.failing, self.pause, self.resume_at = False, timedelta(0), None
        if report.checked:
            logger.info(
                "arXiv: %d checked, %d found, %d not on arXiv, %d updated",
                report.checked,
                report.found,
                report.missing,
                report.updated,
            )
        return report


def build_enricher(
    settings: Settings, corpus: Corpus, *, clock: Clock | None = None, shared_turn: Callable[[float], float] | None = None
) -> Enricher:
    """The enricher `serve` and `enrich` use, from settings (PAPERBOT_ARXIV_*); `shared_turn`: see RateLimiter."""
    client = ArxivClient(settings.arxiv_api_url, interval=settings.arxiv_interval_seconds,
                         backoff=settings.arxiv_backoff_seconds, shared_turn=shared_turn)  # fmt: skip
    return Enricher(corpus, client, recheck_days=settings.arxiv_recheck_days, clock=clock or system_clock)
