"""The composition root: every long-lived piece of paperbot, built once, in one place.

    build_services(settings, corpus, poster=..., directory=...)  ->  Services
    start_services(services, background=True)                      the scheduler runs
    stop_services(services)                                        it stops, promptly

A frontend opens the corpus, builds the services with its own `Poster` and `Directory`
(bot/digests/places.py: Slack's in bot/slack/posting.py, the console's in
bot/console.py, a test's lists), and hands `Services` to whatever answers people. Nothing
below this module builds a collaborator of its own; nothing above it probes for one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from apscheduler.schedulers.base import BaseScheduler

from bot.clock import Clock, system_clock, to_iso
from bot.config import Settings
from bot.corpus import Corpus
from bot.digests.places import Directory, Poster
from bot.digests.scheduler import DIGEST_WORKERS, DigestScheduler, background_scheduler
from bot.digests.service import DigestService
from bot.digests.subscriptions import SubscriptionStore
from bot.errors import IndexBusy
from bot.feeds.arxiv import Enricher, build_enricher
from bot.feeds.inbox import scan_inbox, scan_inbox_and_check_index
from bot.feeds.sources import Source, SourceService
from bot.library.readinglist import Library
from bot.store.claims import ARXIV_PLACE, Leases, Ledger, shared_turns
from bot.store.installs import Installations
from bot.store.workspaces import Workspaces

logger = logging.getLogger(__name__)

SOURCES_JOB = "sources-poll"
ENRICH_JOB = "arxiv-enrich"
ENRICH_INTERVAL = timedelta(minutes=2)  # each run works through up to Enricher.per_run papers
VECTORS_JOB = "vectors"
VECTORS_INTERVAL = timedelta(minutes=1)  # each run embeds for up to builder.RUN_SECONDS, newest papers first
FOLLOW_JOB = "follow-store"
# Claims (bot/store/claims.py) when several instances share the store. Feed polls and the
# arXiv lookups claim one name: both call arXiv, whose one request per 3 s then holds across
# every instance, not per process.
ARXIV_CLAIM = "arxiv"
INBOX_CLAIM = "inbox-scan"
PRUNE_JOB = PRUNE_CLAIM = "prune-tombstones"
PRUNE_INTERVAL = timedelta(hours=6)  # tombstones are kept for days: a few prunes a day keep the table small


@dataclass
class Services:
    """What the frontends share: the corpus and every domain service over it."""

    settings: Settings
    corpus: Corpus
    library: Library
    subscriptions: SubscriptionStore
    digests: DigestService
    sources: SourceService
    enricher: Enricher | None  # None when PAPERBOT_ARXIV=off
    directory: Directory
    scheduler: DigestScheduler
    clock: Clock
    workspaces: Workspaces  # each workspace's settings and admins (bot/store/workspaces.py)
    leases: Leases | None = None  # work claimed in the database: with a shared store (PostgreSQL)

    def admins_of(self, team_id: str) -> frozenset[str]:
        """Who administers workspace `team_id` (its own admins; PAPERBOT_ADMINS where they
        apply: bot/store/workspaces.py)."""
        return self.workspaces.admins_of(team_id)

    def is_admin(self, team_id: str, user_id: str) -> bool:
        return self.workspaces.is_admin(team_id, user_id)

    def reschedule(self, sub_id: int) -> None:
        """A subscription changed (made, edited, paused, removed): bring its job in step."""
        self.scheduler.sync(sub_id)


def build_services(
    settings: Settings,
    corpus: Corpus,
    *,
    poster: Poster,
    directory: Directory,
    clock: Clock = system_clock,
    scheduler: BaseScheduler | None = None,
    on_feed_failing: Callable[[Source], None] | None = None,
) -> Services:
    """Build every service over `corpus`; nothing starts (see `start_services`).

    `scheduler` is APScheduler's BackgroundScheduler unless a test passes a ManualScheduler
    that reads its fake clock. `on_feed_failing(source)` tells the admins a feed fails.
    """
    library = Library(corpus.store, clock=clock, alternatives=corpus.alternatives, corpus=corpus)
    # Claims and their heartbeats compare one clock on every instance: the database's on PostgreSQL.
    claims_clock = corpus.store.shared_clock(clock)
    subscriptions = SubscriptionStore(corpus.store, clock=claims_clock)
    digests = DigestService(
        corpus, subscriptions, poster, clock=claims_clock, stale_after=timedelta(seconds=settings.lease_seconds),
        order_digest=library.order_digest, on_message=library.record_digest_message,
        # Installs from a link: a workspace that uninstalled paperbot gets no digests until it reinstalls.
        team_paused=Installations(corpus.store).pause_reason if settings.oauth_enabled else None,
        # Several workspaces: none takes more than half the digest pool, so one's fan-out leaves threads for the others.
        team_share=DIGEST_WORKERS // 2 if settings.oauth_enabled else None,
    )  # fmt: skip
    inbox = settings.inbox_dir
    leases = (
        Leases(corpus.store, lease=timedelta(seconds=settings.lease_seconds), clock=clock) if settings.shared_database else None
    )
    # arXiv's one request per PAPERBOT_ARXIV_INTERVAL_SECONDS, from whichever instance holds its claim now.
    arxiv_turn = shared_turns(Ledger(corpus.store), ARXIV_PLACE) if settings.shared_database else None
    jobs = DigestScheduler(
        scheduler or background_scheduler(),
        digests,
        clock=clock,
        inbox_scan=(
            (lambda: scan_inbox_and_check_index(corpus, inbox, clock=clock))
            if leases is None
            else (lambda: claimed_inbox_scan(corpus, inbox, leases, clock=clock))
        ),
        inbox_interval=timedelta(minutes=settings.inbox_interval_minutes),
    )
    return Services(
        settings=settings,
        corpus=corpus,
        library=library,
        subscriptions=subscriptions,
        digests=digests,
        sources=SourceService(
            settings,
            corpus,
            clock=clock,
            on_failing=on_feed_failing,
            kept_by_people=library.kept_by_people,
            arxiv_turn=arxiv_turn,
        ),  # fmt: skip
        enricher=build_enricher(settings, corpus, clock=clock, shared_turn=arxiv_turn) if settings.arxiv_enabled else None,
        directory=directory,
        scheduler=jobs,
        clock=clock,
        workspaces=Workspaces(corpus.store, server_admins=settings.admins, token_mode=not settings.oauth_enabled),
        leases=leases,
    )


def claimed_inbox_scan(corpus: Corpus, inbox, leases: Leases, *, clock: Clock = system_clock) -> None:
    """One instance scans the (shared) inbox at a time; every instance checks its own index."""
    leases.run(INBOX_CLAIM, lambda: scan_inbox(corpus, inbox, clock=clock))
    try:
        corpus.ensure_index()
    except IndexBusy as exc:
        logger.warning("%s; trying again at the next scan", exc)


def prune_tombstones(corpus: Corpus, retention: timedelta, *, clock: Clock = system_clock) -> int:
    """Delete tombstones older than `retention` (PAPERBOT_TOMBSTONE_RETENTION_DAYS); return how many."""
    pruned = corpus.store.prune_tombstones(to_iso(corpus.store.shared_clock(clock)() - retention))
    if pruned:
        logger.info("pruned %d tombstones of removals older than %s", pruned, retention)
    return pruned


def claimed(leases: Leases | None, name: str, work: Callable[[], object]) -> Callable[[], object]:
    """`work` as a job that runs only on the instance that claims `name` (always, with no leases)."""
    if leases is None:
        return work
    return lambda: leases.run(name, work)


def warm_services(services: Services) -> None:
    """Load what a first request would otherwise pay for: the for-you model's libraries
    (numpy, scipy, scikit-learn: ~1.5 s of CPU), so the first `/papers foryou` answers within
    Slack's ack like every later one. Servers call it before they say they are ready."""
    services.library.recommender  # noqa: B018 (built, and its imports loaded, on first use)


def start_services(services: Services, *, background: bool = False) -> None:
    """Start the scheduler: digests (with a catch-up run), inbox scans and, with
    `background` (serve), feed polls, arXiv lookups and the papers' vectors, all on the scheduler's threads,
    never a request's."""
    services.settings.inbox_dir.mkdir(parents=True, exist_ok=True)
    if background:
        leases = services.leases
        interval = timedelta(minutes=services.settings.sources_interval_minutes)
        services.scheduler.add_background_job(SOURCES_JOB, claimed(leases, ARXIV_CLAIM, services.sources.poll_due), interval)
        if services.enricher is not None:
            enrich = claimed(leases, ARXIV_CLAIM, services.enricher.run_background)
            services.scheduler.add_background_job(ENRICH_JOB, enrich, ENRICH_INTERVAL)
        meaning = services.corpus.meaning
        if meaning is not None:  # vectors for search by meaning, never in a request or an ingest
            services.scheduler.add_background_job(VECTORS_JOB, meaning.builder.run_background, VECTORS_INTERVAL)
        retention = timedelta(days=services.settings.tombstone_retention_days)
        prune = claimed(leases, PRUNE_CLAIM, lambda: prune_tombstones(services.corpus, retention, clock=services.clock))
        services.scheduler.add_background_job(PRUNE_JOB, prune, PRUNE_INTERVAL)
        if services.settings.shared_database:  # papers stored through other instances become searchable here
            follow = timedelta(seconds=services.settings.follow_interval_seconds)
            services.scheduler.add_background_job(FOLLOW_JOB, services.corpus.follow, follow)
    services.scheduler.start()


def stop_services(services: Services) -> None:
    """Stop the scheduler; background jobs waiting out a backoff are woken first, so this is prompt."""
    services.sources.arxiv.stop()
    if services.corpus.meaning is not None:
        services.corpus.meaning.builder.stop()
    if services.enricher is not None:
        services.enricher.client.stop()
    services.scheduler.shutdown()
