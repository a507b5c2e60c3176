"""Running a subscription's digest: claim the day, compose, post, move the cursor, exactly once.

The flow for one subscription and one local date (see `DigestService.run`):

    due?     the day's run time (hour:minute in the subscription's zone) has passed, less
             than GRACE ago, and after the subscription was (re)scheduled
    paused?  the subscription's workspace uninstalled paperbot (or revoked its token) and
             has not reinstalled: the day is recorded as skipped, with why, and nothing is
             posted; the cursor moves past that day's papers, so the run after a reinstall
             posts one day's digest, not the backlog (SubscriptionStore.skip)
    claim    a `deliveries` row under UNIQUE (subscription, local date), before posting
    compose  papers with cursor < seq <= covered, matching the filter, oldest first
    post     through a `Poster` (bot/digests/places.py; Slack's is bot/slack/posting.py); each accepted
             message records its papers in the claim row, and the claim's heartbeat is
             renewed meanwhile; a claim whose heartbeat stopped for STALE_AFTER (its
             poster died) is taken over by the next run on any instance, which resumes
             the digest in its thread without the papers recorded as posted
    finish   status `sent` and the cursor moves to the digest's `to_seq`, one transaction

Nothing here imports Slack or reads the wall clock: the clock, the corpus, the
subscriptions and the poster are passed in.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta

from bot.clock import Clock, system_clock
from bot.corpus import Corpus
from bot.digests.compose import MAX_PAPERS, Digest, compose_digest, subscription_team
from bot.digests.places import Poster
from bot.digests.runs import GRACE, due_date, next_run
from bot.digests.subscriptions import Delivery, Subscription, SubscriptionStore
from bot.errors import DeliveryFailed, DigestClaimLost
from bot.store.claims import renewing

logger = logging.getLogger(__name__)

STALE_AFTER = timedelta(minutes=2)
"""A claim with no heartbeat for this long belongs to a poster that died: the next run, on
any instance, takes it over. A live poster beats it every third of this (`PAPERBOT_LEASE_SECONDS`)."""
BUSY_RETRY = timedelta(seconds=5)
"""How soon a digest bounced by its workspace's share of the pool (`team_share`) tries again."""
RETRY_DELAYS = (timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=15), timedelta(minutes=30))
"""Waits before retrying a digest that failed for a passing reason (rate limit, network)."""


@dataclass
class Outcome:
    """What one run did, for logs and tests."""

    subscription_id: int
    status: str  # sent | empty | claimed | not_due | inactive | paused | skipped | failed | retry
    local_date: date | None = None
    papers: int = 0
    error: str = ""


# -- when ---------------------------------------------------------------------------------


# -- what -----------------------------------------------------------------------------------


# -- delivering -------------------------------------------------------------------------------


class DigestService:
    """Run subscriptions' digests: claim, compose, post, move the cursor.

    `on_retry(sub_id, delay)` is how the scheduler hears that a passing failure wants
    another try; `on_paused(sub_id)` that a subscription stopped (its job can go).
    `team_paused(team_id)` says why a workspace takes no digests now ("" when it does):
    Slack's installations (bot/store/installs.py) in OAuth mode; never, by default.
    `team_share`: at most this many of one workspace's digests run at once on this instance
    (None: no limit, one workspace). A digest waiting for its Slack turn holds its thread, so
    a workspace with a hundred DM digests due at 09:00 would otherwise fill the whole pool and
    another workspace's digest would wait for a thread; over its share a run is put off by
    BUSY_RETRY, before anything is claimed.
    """

    def __init__(
        self,
        corpus: Corpus,
        subscriptions: SubscriptionStore,
        poster: Poster,
        *,
        clock: Clock = system_clock,
        grace: timedelta = GRACE,
        stale_after: timedelta = STALE_AFTER,
        retry_delays: tuple[timedelta, ...] = RETRY_DELAYS,
        max_papers: int = MAX_PAPERS,
        order_digest: Callable[[Subscription, Digest], None] | None = None,
        on_message: Callable[[Subscription, list[str], str, str], None] | None = None,
        team_paused: Callable[[str], str] | None = None,
        team_share: int | None = None,
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
        # The reading list's hooks (bot/library/): order a composed digest for its place, and
        # hear which papers each accepted message carries (reactions to it are votes).
        self.order_digest = order_digest
        self.on_message = on_message
        self.team_paused = team_paused
        self.team_share = team_share
        self._running: Counter[str] = Counter()  # digests running here now, by workspace
        self._running_lock = threading.Lock()

    def run(self, sub_id: int) -> Outcome:
        """Deliver the subscription's digest if one is due and nobody has claimed it.

        Safe to call at any time and any number of times, from any instance: the job at
        the run time, the catch-up at start-up and retries all come through here.
        """
        if self.team_share is None:
            return self._run(sub_id)
        try:
            sub = self.subscriptions.get(sub_id)
        except sqlite3.OperationalError:
            return self._run(sub_id)  # which says the database is busy, and retries
        team_id = sub.team_id if sub is not None else ""
        with self._running_lock:
            if self._running[team_id] >= self.team_share:
                busy = True
            else:
                busy = False
                self._running[team_id] += 1
        if busy:
            logger.info("digest %s: workspace %s has %d digests running here; trying again shortly", sub_id, team_id,
                        self.team_share)  # fmt: skip
            if self.on_retry:
                self.on_retry(sub_id, BUSY_RETRY)
            return Outcome(sub_id, "retry", error="workspace_busy")
        try:
            return self._run(sub_id)
        finally:
            with self._running_lock:
                self._running[team_id] -= 1

    def _run(self, sub_id: int) -> Outcome:
        now = self.clock()
        try:
            sub = self.subscriptions.get(sub_id)
            if sub is None or not sub.is_active:
                return Outcome(sub_id, "inactive")
            self.subscriptions.recover_stale(now - self.grace, sub_id)
            day = due_date(sub, now, self.grace)
            if day is None:
                return Outcome(sub_id, "not_due")
            paused = self.team_paused(sub.team_id) if self.team_paused is not None else ""
            if paused:
                reason = f"workspace paused: {paused}"
                if self.subscriptions.skip(sub_id, day, reason) is not None:
                    logger.info("digest %s for %s not posted: workspace %s is paused (%s)", sub_id, day, sub.team_id, paused)
                return Outcome(sub_id, "skipped", day, error=reason)
            delivery = self.subscriptions.claim(sub_id, day, stale_before=now - self.stale_after)
            if delivery is None:
                held = self.subscriptions.delivery(sub_id, day)
                if held is not None and held.status == "posting" and self.on_retry:
                    # Someone is posting it: look again once its lease could have run out,
                    # so that if that instance dies, this one finishes the digest.
                    self.on_retry(sub_id, self.stale_after)
        except sqlite3.OperationalError as exc:
            # The database stayed locked past its timeout (a long ingest in another
            # process): nothing was claimed, so try again shortly rather than lose the day.
            logger.warning("digest %s: database busy (%s); retrying", sub_id, exc)
            if self.on_retry:  # within a lease: another instance's dead claim is still ours to take over
                self.on_retry(sub_id, min(self.retry_delays[0], self.stale_after))
            return Outcome(sub_id, "retry", error="database_busy")
        if delivery is None:
            return Outcome(sub_id, "claimed", day)
        return self._deliver(sub, delivery, day)

    def catch_up(self) -> list[Outcome]:
        """Run every active subscription once: digests due while the bot was down go out now."""
        self.subscriptions.recover_stale(self.clock() - self.grace)
        outcomes = []
        for sub in self.subscriptions.all():
            if sub.is_active:
                try:
                    outcomes.append(self.run(sub.id))
                except Exception:
                    logger.exception("catching up digest %s failed", sub.id)
        return outcomes

    def preview(self, sub: Subscription, lang: str | None = None, *, team: str | None = None) -> Digest:
        """What the subscription's next digest would hold if it ran now (nothing is claimed);
        `team`: the workspace asking (else the subscription's own)."""
        day = next_run(sub, self.clock()).date() if sub.day_set else self.clock().date()
        exclude = self.subscriptions.posted_since(sub.id, sub.cursor_seq)
        digest = compose_digest(
            self.corpus, after_seq=sub.cursor_seq, filter_text=sub.filter_text, lang=lang or sub.lang,
            local_date=day, exclude_ids=exclude, max_papers=self.max_papers, top=sub.top,
            team=team if team is not None else subscription_team(sub),
        )  # fmt: skip
        digest.days = sub.days
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
                team=subscription_team(sub),
            )  # fmt: skip
            digest.resumed = bool(delivery.message_ts)
            digest.days = sub.days
            digest = self._ordered(sub, digest)
            self.subscriptions.plan(delivery.id, to_seq=digest.to_seq, papers=digest.count)
            if not digest.papers and (delivery.message_ts or not sub.notify_empty):
                status = "sent" if delivery.message_ts else "empty"
                self.subscriptions.finish(delivery.id, status=status, to_seq=digest.to_seq)
                logger.info("digest %s for %s: no new papers", sub.id, day)
                return Outcome(sub.id, status, day)

            def on_posted(paper_ids: list[str], channel_id: str, message_ts: str) -> None:
                ours = self.subscriptions.record_posted(delivery.id, paper_ids, channel_id=channel_id, message_ts=message_ts)
                if self.on_message is not None:
                    try:
                        self.on_message(sub, paper_ids, channel_id, message_ts)
                    except Exception:  # votes are a nicety; the digest itself must go on
                        logger.exception("recording digest %s's message %s failed", sub.id, message_ts)
                if not ours or lost.is_set():
                    raise DigestClaimLost(f"digest {sub.id} for {day}")

            with self._heartbeat(delivery.id) as lost:
                self.poster.post_digest(sub, digest, thread_ts=delivery.message_ts, on_posted=on_posted)
            self.subscriptions.finish(delivery.id, status="sent", to_seq=digest.to_seq)
            logger.info(
                "digest %s for %s: posted %d papers (cursor %d -> %d)", sub.id, day, digest.count, sub.cursor_seq, digest.to_seq
            )
            return Outcome(sub.id, "sent", day, digest.count)
        except DigestClaimLost:
            logger.warning("digest %s for %s: another instance took it over; stopping here", sub.id, day)
            if self.on_retry:  # and look again after a lease, in case that one dies too
                self.on_retry(sub.id, self.stale_after)
            return Outcome(sub.id, "claimed", day)
        except DeliveryFailed as failure:
            return self._failed(sub, delivery, day, failure)
        except sqlite3.OperationalError as exc:
            logger.warning("digest %s for %s: database busy (%s)", sub.id, day, exc)
            return self._failed(sub, delivery, day, DeliveryFailed("database_busy", retryable=True))
        except Exception as exc:
            logger.exception("digest %s for %s failed", sub.id, day)
            self.subscriptions.release(delivery.id, f"{type(exc).__name__}: {exc}")
            return Outcome(sub.id, "failed", day, error=type(exc).__name__)

    @contextmanager
    def _heartbeat(self, delivery_id: int) -> Iterator[threading.Event]:
        """Renew the claim every third of its lease while the block posts; the event says it was lost.

        A slow post (Slack's Retry-After, a channel's one-a-second pace) must not look
        like a dead poster; a lost claim (the database away past the lease) is seen by the
        next message, which then stops (`DigestClaimLost`)."""
        every = max(0.2, self.stale_after.total_seconds() / 3)
        with renewing(lambda: self.subscriptions.renew(delivery_id), every, f"digest claim {delivery_id}") as lost:
            yield lost

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
