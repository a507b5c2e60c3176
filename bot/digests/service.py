"""Daily digests: which papers are new for a subscription, and delivering them exactly once.

The flow for one subscription and one local date (see `DigestService.run`):

    due?     the day's run time (hour:minute in the subscription's zone) has passed, less
             than GRACE ago, and after the subscription was (re)scheduled
    claim    a `deliveries` row under UNIQUE (subscription, local date), before posting
    compose  papers with cursor < seq <= covered, matching the filter, oldest first
    post     through a `Poster` (Slack lives in bot/slack/digest.py); each accepted
             message records its papers in the claim row
    finish   status `sent` and the cursor moves to the digest's `to_seq`, one transaction

Nothing here imports Slack or reads the wall clock: the clock, the corpus, the
subscriptions and the poster are passed in.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.clock import Clock, parse_iso, system_clock
from bot.digests.subscriptions import Delivery, Subscription, SubscriptionStore
from bot.digests.times import WEEK
from bot.errors import DeliveryFailed
from bot.models import Paper

logger = logging.getLogger(__name__)

GRACE = timedelta(hours=6)
"""How late a digest may still go out: a restart or an outage shorter than this delays
the day's digest; a longer one skips the day (its papers come in the next digest)."""
STALE_AFTER = timedelta(minutes=10)
"""A claim with no heartbeat for this long belongs to a poster that died."""
RETRY_DELAYS = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=15), timedelta(minutes=30))
"""Waits before retrying a digest that failed for a passing reason (rate limit, network)."""
MAX_PAPERS = 500
"""At most this many papers in one digest (about 23 messages); more wait for the next."""


@dataclass
class Digest:
    """What one digest holds: papers oldest first, and the cursor once it is delivered."""

    lang: str
    local_date: date
    papers: list[Paper] = field(default_factory=list)
    filter_text: str = ""
    from_seq: int = 0
    to_seq: int = 0
    held_back: int = 0  # matching papers over MAX_PAPERS, left for the next digest
    resumed: bool = False  # continues a thread whose first message is already posted
    # Set by the subscription's order (bot.library.readinglist.Library.order_digest):
    order: str = "new"  # "new" keeps papers oldest first; otherwise they are ranked
    reasons: dict[str, Paper] = field(default_factory=dict)  # paper id -> the paper it is like
    reason_kind: str = ""  # "saved" (a person's saves) | "channel" (what the channel valued)
    popular: list[Paper] = field(default_factory=list)  # the channel's popular papers this week
    top: int = 10  # papers in the first message (the highlights); the rest go in its thread
    relevance: dict[str, float] = field(default_factory=dict)  # paper id -> filter score

    @property
    def count(self) -> int:
        return len(self.papers)

    def highlights(self) -> list[Paper]:
        """The papers of the first message: the `top` best by `rank_papers`.

        A digest the subscription's order ranked (bot.library.readinglist, `order:foryou|popular`)
        keeps that ranking after the filter's relevance.
        """
        keys = None
        if self.order != "new":
            position = {paper.id: i for i, paper in enumerate(self.papers)}
            keys = [lambda paper, _relevance: -position[paper.id], *RANK_KEYS]
        return rank_papers(self.papers, self.relevance, keys)[: self.top]

    def rest(self) -> list[Paper]:
        """The papers after the highlights, oldest first (the thread groups them by venue)."""
        chosen = {p.id for p in self.highlights()}
        return [p for p in self.papers if p.id not in chosen]


RankKey = Callable[[Paper], float]
"""A paper's score under one ordering, higher first (relevance, a reading-list signal, ...)."""

RANK_KEYS: list[Callable[[Paper, dict[str, float]], float]] = []
"""Extra orderings after filter relevance, in priority order: another feature (the reading
list's `order:`) appends `key(paper, relevance) -> float` here instead of re-sorting."""


def _venue_weight(paper: Paper) -> float:
    """Without a filter, papers with a main-track venue come first, then workshops."""
    return {"main": 2.0, "workshop": 1.0}.get(paper.track, 1.5 if paper.venue else 0.0)


def rank_papers(papers: list[Paper], relevance: dict[str, float], keys: list | None = None) -> list[Paper]:
    """Order a digest's papers for its highlights: the one place digests rank.

    By the filter's relevance score (BM25 from the index; all 0 without a filter), then
    each of `keys` (default RANK_KEYS), then venue (main track, workshop, none), then
    oldest first, so the order is total and stable.
    """
    keys = RANK_KEYS if keys is None else keys

    def sort_key(paper: Paper) -> tuple:
        extra = tuple(-key(paper, relevance) for key in keys)
        return (-relevance.get(paper.id, 0.0), *extra, -_venue_weight(paper), paper.seq)

    return sorted(papers, key=sort_key)


PostedCallback = Callable[[list[str], str, str], None]
"""on_posted(paper_ids, channel_id, message_ts) after Slack accepts each message."""


class Poster(Protocol):
    def post_digest(self, sub: Subscription, digest: Digest, *, thread_ts: str, on_posted: PostedCallback) -> None:
        """Post every message of `digest` (in `thread_ts` when resuming); raise DeliveryFailed."""

    def notify_paused(self, sub: Subscription, code: str) -> None:
        """Tell the subscription's creator why it was paused and how to resume it."""


@dataclass
class Outcome:
    """What one run did, for logs and tests."""

    subscription_id: int
    status: str  # sent | empty | claimed | not_due | inactive | paused | failed | retry
    local_date: date | None = None
    papers: int = 0
    error: str = ""


# -- when ---------------------------------------------------------------------------------


def run_time(day: date, hour: int, minute: int, zone: ZoneInfo) -> datetime:
    """The moment (UTC) of `hour:minute` on `day` in `zone`.

    On a spring-forward day a time in the gap (02:30 in New York) means the instant it
    would have been before the clocks moved (03:30 new time); on a fall-back day an
    ambiguous time means its first occurrence. APScheduler's CronTrigger fires at the same
    instants, and fires the repeated hour a second time, which the daily claim absorbs.
    """
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone).astimezone(UTC)


def is_run_day(sub: Subscription, day: date) -> bool:
    """Whether the subscription posts on `day` (its local date): daily, weekdays, chosen days."""
    return WEEK[day.weekday()] in sub.day_set


def due_date(sub: Subscription, now: datetime, grace: timedelta = GRACE) -> date | None:
    """The local date whose digest is due at `now`: a run day, run time passed less than `grace` ago."""
    zone = sub.zone
    today = now.astimezone(zone).date()
    since = parse_iso(sub.active_since) if sub.active_since else None
    for day in (today, today - timedelta(days=1)):
        if not is_run_day(sub, day):
            continue
        at = run_time(day, sub.hour, sub.minute, zone)
        if at <= now and now - at <= grace and (since is None or at >= since):
            return day
    return None


def next_run(sub: Subscription, now: datetime) -> datetime:
    """The next run time after `now` on one of its days, in the subscription's zone."""
    zone = sub.zone
    today = now.astimezone(zone).date()
    for offset in range(9):
        day = today + timedelta(days=offset)
        if not is_run_day(sub, day):
            continue
        at = run_time(day, sub.hour, sub.minute, zone)
        if at > now:
            return at.astimezone(zone)
    raise AssertionError("unreachable: a weekly time recurs within nine days")


# -- what -----------------------------------------------------------------------------------


def covered_seq(corpus, filter_text: str) -> int:
    """The highest seq a digest may cover now: every paper up to it is visible to the query.

    Without a filter papers come from the store, whose seqs are committed in order. With
    one they come from the index, which catches up after the store commits; its rev says
    how far it got (a paper's first rev is its seq, and the index syncs in rev order).
    """
    last = corpus.store.last_seq()
    if not filter_text.strip():
        return last
    _, indexed_rev = corpus.index.state()
    return min(last, indexed_rev)


def compose_digest(
    corpus,
    *,
    after_seq: int,
    filter_text: str = "",
    lang: str = "en",
    local_date: date,
    exclude_ids: Iterable[str] = (),
    max_papers: int = MAX_PAPERS,
    top: int = 10,
) -> Digest:
    """Collect the papers first stored after `after_seq` that match `filter_text`.

    Covers seqs up to `covered_seq`; papers in `exclude_ids` (already posted by a digest
    that was cut short) are left out. When more than `max_papers` match, the oldest go
    now and `to_seq` stops after them, so the rest lead the next digest.
    """
    upto = covered_seq(corpus, filter_text)
    digest = Digest(lang=lang, local_date=local_date, filter_text=filter_text, from_seq=after_seq, to_seq=max(after_seq, upto), top=top)
    if upto <= after_seq:
        return digest
    papers = corpus.new_papers(after_seq=after_seq, upto_seq=upto, filter_text=filter_text)
    skip = set(exclude_ids)
    papers = [p for p in papers if p.id not in skip]
    if len(papers) > max_papers:
        digest.held_back = len(papers) - max_papers
        papers = papers[:max_papers]
        digest.to_seq = papers[-1].seq
    digest.papers = papers
    if filter_text.strip() and papers:
        digest.relevance = relevance_scores(corpus, filter_text, after_seq, {p.id for p in papers})
    return digest


def relevance_scores(corpus, filter_text: str, after_seq: int, ids: set[str]) -> dict[str, float]:
    """Each paper's relevance to the filter (the index's score), for ranking highlights.

    The scores a search for the filter gives the papers after `after_seq` (its best
    len(ids) + 50), read from the new papers' segments only (PaperIndex.score_new). Only
    when some of `ids` do not match the filter's words with short names resolved (北大
    typed as such) does the full search run, which ranks those through its fallbacks.
    """
    window = max(len(ids), 1) + 50
    found = corpus.index.score_new(filter_text, after_seq=after_seq, aliases=True)
    scores = {paper_id: score for paper_id, score in found[:window] if paper_id in ids}
    if len(found) <= window and len(scores) < len(ids):
        page = corpus.index.search(filter_text, min_seq=after_seq, limit=window)
        return {h.id: float(h.score or 0.0) for h in page.hits if h.id in ids}
    return scores


# -- delivering -------------------------------------------------------------------------------


class DigestService:
    """Run subscriptions' digests: claim, compose, post, move the cursor.

    `on_retry(sub_id, delay)` is how the scheduler hears that a passing failure wants
    another try; `on_paused(sub_id)` that a subscription stopped (its job can go).
    """

    def __init__(
        self,
        corpus,
        subscriptions: SubscriptionStore,
        poster: Poster,
        *,
        clock: Clock = system_clock,
        grace: timedelta = GRACE,
        stale_after: timedelta = STALE_AFTER,
        retry_delays: tuple[timedelta, ...] = RETRY_DELAYS,
        max_papers: int = MAX_PAPERS,
    ):
        self.corpus = corpus
        self.subscriptions = subscriptions
        self.poster = poster
        self.clock = clock
        self.grace = grace
        self.stale_after = stale_after
        self.retry_delays = retry_delays
        self.max_papers = max_papers
        self.on_retry: Callable[[int, timedelta], None] | None = None
        self.on_paused: Callable[[int], None] | None = None
        # The reading list's hooks (bot.library.readinglist): order a composed digest for its place, and
        # hear which papers each accepted message carries (reactions to it are votes).
        self.order_digest: Callable[[Subscription, Digest], None] | None = None
        self.on_message: Callable[[Subscription, list[str], str, str], None] | None = None

    def run(self, sub_id: int) -> Outcome:
        """Deliver the subscription's digest if one is due and nobody has claimed it.

        Safe to call at any time and any number of times, from any instance: the job at
        the run time, the catch-up at start-up and retries all come through here.
        """
        now = self.clock()
        try:
            sub = self.subscriptions.get(sub_id)
            if sub is None or not sub.is_active:
                return Outcome(sub_id, "inactive")
            self.subscriptions.recover_stale(now - self.stale_after, sub_id)
            day = due_date(sub, now, self.grace)
            if day is None:
                return Outcome(sub_id, "not_due")
            delivery = self.subscriptions.claim(sub_id, day)
        except sqlite3.OperationalError as exc:
            # The database stayed locked past its timeout (a long ingest in another
            # process): nothing was claimed, so try again shortly rather than lose the day.
            logger.warning("digest %s: database busy (%s); retrying", sub_id, exc)
            if self.on_retry:
                self.on_retry(sub_id, self.retry_delays[0])
            return Outcome(sub_id, "retry", error="database_busy")
        if delivery is None:
            return Outcome(sub_id, "claimed", day)
        return self._deliver(sub, delivery, day)

    def catch_up(self) -> list[Outcome]:
        """Run every active subscription once: digests due while the bot was down go out now."""
        self.subscriptions.recover_stale(self.clock() - self.stale_after)
        outcomes = []
        for sub in self.subscriptions.all():
            if sub.is_active:
                try:
                    outcomes.append(self.run(sub.id))
                except Exception:
                    logger.exception("catching up digest %s failed", sub.id)
        return outcomes

    def preview(self, sub: Subscription, lang: str | None = None) -> Digest:
        """What the subscription's next digest would hold if it ran now (nothing is claimed)."""
        day = next_run(sub, self.clock()).date() if sub.day_set else self.clock().date()
        exclude = self.subscriptions.posted_since(sub.id, sub.cursor_seq)
        digest = compose_digest(
            self.corpus, after_seq=sub.cursor_seq, filter_text=sub.filter_text, lang=lang or sub.lang,
            local_date=day, exclude_ids=exclude, max_papers=self.max_papers, top=sub.top,
        )  # fmt: skip
        return self._ordered(sub, digest)

    def _ordered(self, sub: Subscription, digest: Digest) -> Digest:
        """Apply the subscription's order; a failure there leaves the digest as composed."""
        if self.order_digest is not None and digest.papers:
            try:
                self.order_digest(sub, digest)
            except Exception:
                logger.exception("ordering digest %s failed; keeping the arrival order", sub.id)
        return digest

    def _deliver(self, sub: Subscription, delivery: Delivery, day: date) -> Outcome:
        sub = self.subscriptions.get(sub.id) or sub  # the cursor as of the claim
        try:
            exclude = self.subscriptions.posted_since(sub.id, sub.cursor_seq)
            digest = compose_digest(
                self.corpus, after_seq=sub.cursor_seq, filter_text=sub.filter_text, lang=sub.lang,
                local_date=day, exclude_ids=exclude, max_papers=self.max_papers, top=sub.top,
            )  # fmt: skip
            digest.resumed = bool(delivery.message_ts)
            digest = self._ordered(sub, digest)
            self.subscriptions.plan(delivery.id, to_seq=digest.to_seq, papers=digest.count)
            if not digest.papers and (delivery.message_ts or not sub.notify_empty):
                status = "sent" if delivery.message_ts else "empty"
                self.subscriptions.finish(delivery.id, status=status, to_seq=digest.to_seq)
                logger.info("digest %s for %s: no new papers", sub.id, day)
                return Outcome(sub.id, status, day)

            def on_posted(paper_ids: list[str], channel_id: str, message_ts: str) -> None:
                self.subscriptions.record_posted(delivery.id, paper_ids, channel_id=channel_id, message_ts=message_ts)
                if self.on_message is not None:
                    try:
                        self.on_message(sub, paper_ids, channel_id, message_ts)
                    except Exception:  # votes are a nicety; the digest itself must go on
                        logger.exception("recording digest %s's message %s failed", sub.id, message_ts)

            self.poster.post_digest(sub, digest, thread_ts=delivery.message_ts, on_posted=on_posted)
            self.subscriptions.finish(delivery.id, status="sent", to_seq=digest.to_seq)
            logger.info("digest %s for %s: posted %d papers (cursor %d -> %d)", sub.id, day, digest.count, sub.cursor_seq, digest.to_seq)
            return Outcome(sub.id, "sent", day, digest.count)
        except DeliveryFailed as failure:
            return self._failed(sub, delivery, day, failure)
        except sqlite3.OperationalError as exc:
            logger.warning("digest %s for %s: database busy (%s)", sub.id, day, exc)
            return self._failed(sub, delivery, day, DeliveryFailed("database_busy", retryable=True))
        except Exception as exc:
            logger.exception("digest %s for %s failed", sub.id, day)
            self.subscriptions.release(delivery.id, f"{type(exc).__name__}: {exc}")
            return Outcome(sub.id, "failed", day, error=type(exc).__name__)

    def _failed(self, sub: Subscription, delivery: Delivery, day: date, failure: DeliveryFailed) -> Outcome:
        attempts = self.subscriptions.release(delivery.id, failure.code)
        if failure.gone:
            logger.warning("digest %s paused: Slack said %s", sub.id, failure.code)
            self.subscriptions.pause(sub.id, failure.code)
            if self.on_paused:
                self.on_paused(sub.id)
            try:
                self.poster.notify_paused(sub, failure.code)
            except Exception:
                logger.exception("telling %s that digest %s paused failed", sub.created_by, sub.id)
            return Outcome(sub.id, "paused", day, error=failure.code)
        if failure.retryable and attempts <= len(self.retry_delays) and self.on_retry:
            delay = self.retry_delays[attempts - 1]
            logger.warning("digest %s for %s failed (%s); retrying in %s", sub.id, day, failure.code, delay)
            self.on_retry(sub.id, delay)
            return Outcome(sub.id, "retry", day, error=failure.code)
        logger.error("digest %s for %s failed: %s; its papers wait for the next digest", sub.id, day, failure.code)
        return Outcome(sub.id, "failed", day, error=failure.code)
