"""APScheduler wiring for digests and the inbox: jobs from the subscriptions table.

Every active subscription has one job, `digest:<id>`, on a CronTrigger at its days
(every day, weekdays, chosen days), hour and minute in its own zone, with `replace_existing=True`, `coalesce=True` and a misfire
grace of GRACE. Jobs are (re)built at start-up, whenever a subscription changes here,
and every SYNC_INTERVAL (so a change made by another instance on the same database is
picked up too).

The job store is in memory: a job re-added at start-up computes its next run from now,
so a run missed while the process was down would never count as misfired. Start-up
therefore runs an explicit catch-up (`DigestService.catch_up`): any digest whose run time
passed less than GRACE ago and whose day nobody claimed goes out then. The claim in the
database, not the job store, is what makes delivery exactly-once, so a persistent job
store would add nothing but a second source of truth.

APScheduler 3 reads `datetime.now()` in `_process_jobs` and its executors and has no
public clock hook. For tests only, `ManualScheduler` (with `ClockMixin`) reads an injected
clock instead, so tests drive real APScheduler (triggers, coalescing, misfire grace) with a
fake clock and no sleeping. Production runs APScheduler's BackgroundScheduler unmodified
(`background_scheduler`).

No Slack imports here.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from threading import TIMEOUT_MAX
from traceback import format_tb

from apscheduler.events import (
    EVENT_JOB_ERROR,
    EVENT_JOB_EXECUTED,
    EVENT_JOB_MISSED,
    JobExecutionEvent,
)
from apscheduler.executors.base import BaseExecutor, MaxInstancesReachedError
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import STATE_PAUSED, STATE_STOPPED, BaseScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.clock import Clock, system_clock
from bot.digests.runs import GRACE, next_run
from bot.digests.service import DigestService
from bot.digests.subscriptions import Subscription, SubscriptionStore

logger = logging.getLogger(__name__)

SYNC_INTERVAL = timedelta(minutes=5)
DIGEST_EXECUTOR = "digests"
DIGEST_WORKERS = 32
"""Threads that run digests, apart from the 4 of the other jobs. A digest spends most of its
time waiting for its channel's next slot (one message a second, shared by every instance)
and holds its thread meanwhile, so 4 threads ran ~4 digests a second per instance at a
09:00 fan-out (500 channels: 66.7 s to the last, bench/RESULTS.md). A waiting thread costs
no connection (the store's two are shared) and little memory; more than this would mostly
wait on Slack's workspace-wide posting limit, which Retry-After then enforces. A due digest
waiting for a thread is not dropped: its misfire grace is GRACE (6 h), checked when a thread
picks it up, and each subscription's job coalesces its own missed runs only."""
CATCH_UP_JOB = "digest-catch-up"
SYNC_JOB = "digest-sync"
INBOX_JOB = "inbox-scan"


class ClockMixin(BaseScheduler):
    """Make an APScheduler 3 scheduler read time from `self.clock` instead of the system (tests).

    `_process_jobs` follows BaseScheduler._process_jobs (3.11) step for step, with
    `self.clock()` where it calls `datetime.now()`. Jobs are always added with an explicit
    `next_run_time`, so `_real_add_job` never reads the time either.
    """

    clock: Clock

    def _process_jobs(self):  # noqa: C901 (mirrors APScheduler's own loop)
        if self.state == STATE_PAUSED:
            return None
        now = self.clock().astimezone(self.timezone)
        next_wakeup_time = None
        events: list[JobExecutionEvent] = []
        with self._jobstores_lock:
            for jobstore_alias, jobstore in self._jobstores.items():
                try:
                    due_jobs = jobstore.get_due_jobs(now)
                except Exception as exc:
                    logger.warning("error getting due jobs from job store %r: %s", jobstore_alias, exc)
                    retry = now + timedelta(seconds=self.jobstore_retry_interval)
                    if not next_wakeup_time or next_wakeup_time > retry:
                        next_wakeup_time = retry
                    continue
                for job in due_jobs:
                    try:
                        executor = self._lookup_executor(job.executor)
                    except BaseException:
                        logger.error("executor lookup (%s) failed for job %s; removing it", job.executor, job)
                        self.remove_job(job.id, jobstore_alias)
                        continue
                    run_times = job._get_run_times(now)
                    run_times = run_times[-1:] if run_times and job.coalesce else run_times
                    if run_times:
                        try:
                            executor.submit_job(job, run_times)
                        except MaxInstancesReachedError:
                            logger.warning("job %s skipped: %d instance(s) already running", job, job.max_instances)
                        except BaseException:
                            logger.exception("error submitting job %s to executor %s", job, job.executor)
                        job_next_run = job.trigger.get_next_fire_time(run_times[-1], now)
                        # An inline executor (ClockExecutor) has already run the job, which may
                        # have removed or replaced itself (a retry re-adds its own id): then
                        # the job store's copy is not this object and is left alone.
                        if jobstore.lookup_job(job.id) is job:
                            if job_next_run:
                                job._modify(next_run_time=job_next_run)
                                jobstore.update_job(job)
                            else:
                                self.remove_job(job.id, jobstore_alias)
                jobstore_next = jobstore.get_next_run_time()
                if jobstore_next and (next_wakeup_time is None or jobstore_next < next_wakeup_time):
                    next_wakeup_time = jobstore_next.astimezone(self.timezone)
        for event in events:
            self._dispatch_event(event)
        if self.state == STATE_PAUSED or next_wakeup_time is None:
            return None
        wait = next_wakeup_time.timestamp() - self.clock().timestamp()
        return min(max(wait, 0), TIMEOUT_MAX)


class ClockExecutor(BaseExecutor):
    """Run jobs inline, judging misfires by an injected clock (apscheduler's run_job can't).

    Tests use it so that a job runs, and finishes, inside `ManualScheduler.run_pending()`.
    """

    def __init__(self, clock: Clock):
        super().__init__()
        self.clock = clock

    def _do_submit_job(self, job, run_times):
        events: list[JobExecutionEvent] = []
        for run_time in run_times:
            if job.misfire_grace_time is not None and self.clock() - run_time > timedelta(seconds=job.misfire_grace_time):
                events.append(JobExecutionEvent(EVENT_JOB_MISSED, job.id, job._jobstore_alias, run_time))
                logger.warning("run time of job %s was missed by %s", job, self.clock() - run_time)
                continue
            try:
                value = job.func(*job.args, **job.kwargs)
            except BaseException as exc:
                logger.exception("job %s raised", job)
                trace = "".join(format_tb(exc.__traceback__))
                events.append(
                    JobExecutionEvent(EVENT_JOB_ERROR, job.id, job._jobstore_alias, run_time, exception=exc, traceback=trace)
                )
            else:
                events.append(JobExecutionEvent(EVENT_JOB_EXECUTED, job.id, job._jobstore_alias, run_time, retval=value))
        self._run_job_success(job.id, events)


class ManualScheduler(ClockMixin, BaseScheduler):
    """A scheduler that runs only when told: `run_pending()` runs what is due at `clock()`."""

    def __init__(self, clock: Clock, **options):
        self.clock = clock
        options.setdefault("timezone", "UTC")
        options.setdefault("executors", {"default": ClockExecutor(clock), DIGEST_EXECUTOR: ClockExecutor(clock)})
        super().__init__(**options)

    def _create_default_executor(self):
        return ClockExecutor(self.clock)

    def shutdown(self, wait: bool = True):
        super().shutdown(wait)

    def wakeup(self):
        pass  # nothing waits: tests call run_pending()

    def run_pending(self) -> None:
        if self.state != STATE_STOPPED:
            self._process_jobs()


def background_scheduler() -> BackgroundScheduler:
    """Production: APScheduler's own BackgroundScheduler, untouched, on the system clock.

    Only `ManualScheduler` (tests) replaces APScheduler's loop, to read a fake clock; the
    scheduler that serves runs APScheduler's public API as shipped.
    """
    return BackgroundScheduler(
        timezone="UTC",
        executors={"default": ThreadPoolExecutor(max_workers=4), DIGEST_EXECUTOR: ThreadPoolExecutor(max_workers=DIGEST_WORKERS)},
    )


class DigestScheduler:
    """Keep one APScheduler job per active subscription, plus catch-up, sync and inbox jobs."""

    def __init__(
        self,
        scheduler: BaseScheduler,
        service: DigestService,
        *,
        clock: Clock = system_clock,
        grace: timedelta = GRACE,
        inbox_scan: Callable[[], object] | None = None,
        inbox_interval: timedelta | None = None,
    ):
        self.scheduler = scheduler
        self.service = service
        self.subscriptions: SubscriptionStore = service.subscriptions
        self.clock = clock
        self.grace = grace
        self.inbox_scan = inbox_scan
        self.inbox_interval = inbox_interval
        # (job id, function, interval): arXiv lookups and feed polls, first run at start.
        self.background_jobs: list[tuple[str, Callable[[], object], timedelta]] = []
        self.started = False  # before start() there are no jobs to keep in step (the console, the CLI)
        service.on_retry = self.retry_later
        service.on_paused = self.sync
        # Digest jobs run on an executor of their own (DIGEST_WORKERS); a scheduler made
        # elsewhere without one gets it here, as a job sent to a missing executor is dropped.
        own = ClockExecutor(scheduler.clock) if isinstance(scheduler, ManualScheduler) else ThreadPoolExecutor(DIGEST_WORKERS)
        with contextlib.suppress(ValueError):  # it has one already
            scheduler.add_executor(own, DIGEST_EXECUTOR)

    def add_background_job(self, job_id: str, func: Callable[[], object], interval: timedelta) -> None:
        """Run `func` every `interval` once started, the first time at start (feeds, arXiv)."""
        self.background_jobs.append((job_id, func, interval))

    def start(self) -> None:
        """Build jobs from the database, start the scheduler, and catch up right away."""
        now = self.clock()
        self.started = True
        self.sync_all()
        self._add(CATCH_UP_JOB, self.service.catch_up, DateTrigger(run_date=now), now, misfire_grace_time=None)
        self._add(
            SYNC_JOB,
            self.sync_all,
            IntervalTrigger(seconds=SYNC_INTERVAL.total_seconds(), start_date=now, timezone="UTC"),
            now + SYNC_INTERVAL,
        )
        if self.inbox_scan is not None and self.inbox_interval:
            trigger = IntervalTrigger(seconds=self.inbox_interval.total_seconds(), start_date=now, timezone="UTC")
            self._add(INBOX_JOB, self.inbox_scan, trigger, now, misfire_grace_time=None)
        for job_id, func, interval in self.background_jobs:
            trigger = IntervalTrigger(seconds=interval.total_seconds(), start_date=now, timezone="UTC")
            self._add(job_id, func, trigger, now, misfire_grace_time=None)
        self.scheduler.start()

    def shutdown(self) -> None:
        """Stop running jobs, letting a round of due jobs that has begun finish first.

        APScheduler marks itself stopped before it takes the lock its loop holds while it runs
        a round, so a date job of that round (the catch-up) could not remove itself and the
        loop's thread died with JobLookupError. Pausing, then asking for the jobs (which waits
        for that lock), lets the round end before the scheduler stops."""
        if not self.scheduler.running:
            return
        self.scheduler.pause()
        self.scheduler.get_jobs()
        # A stop (SIGTERM) that lands inside BackgroundScheduler.start, after it is marked
        # running and before its thread starts, leaves no thread to join: nothing runs.
        with contextlib.suppress(RuntimeError, AttributeError):
            self.scheduler.shutdown(wait=True)

    def sync(self, sub_id: int) -> None:
        """Add, replace or remove the job of one subscription to match the database.

        Before `start()` nothing is scheduled (the console, the CLI): start builds every job."""
        if not self.started:
            return
        sub = self.subscriptions.get(sub_id)
        if sub is None or not sub.is_active:
            self._remove(f"digest:{sub_id}")
            self._remove(f"digest-retry:{sub_id}")
            return
        trigger = digest_trigger(sub)
        if self._matches(sub.job_id, trigger):
            return
        next_time = trigger.get_next_fire_time(None, self.clock())
        self._add(sub.job_id, self.service.run, trigger, next_time, args=[sub.id], executor=DIGEST_EXECUTOR)

    def sync_all(self) -> None:
        """Make the jobs match the subscriptions table (another instance may have changed it)."""
        subs = self.subscriptions.all()
        wanted = {s.job_id for s in subs if s.is_active}
        for job in self.scheduler.get_jobs():
            if job.id.startswith("digest:") and job.id not in wanted:
                self._remove(job.id)
        for sub in subs:
            self.sync(sub.id)

    def retry_later(self, sub_id: int, delay: timedelta) -> None:
        run_at = self.clock() + delay
        trigger = DateTrigger(run_date=run_at)
        self._add(f"digest-retry:{sub_id}", self.service.run, trigger, run_at, args=[sub_id], executor=DIGEST_EXECUTOR)

    def next_run(self, sub: Subscription) -> datetime | None:
        """When the subscription's digest runs next (its zone), or None while paused."""
        return next_run(sub, self.clock()) if sub.is_active else None

    def _matches(self, job_id: str, trigger: CronTrigger) -> bool:
        job = self.scheduler.get_job(job_id)
        return job is not None and str(job.trigger) == str(trigger) and str(job.trigger.timezone) == str(trigger.timezone)

    def _add(
        self, job_id: str, func, trigger, next_run_time: datetime, *, args=(), misfire_grace_time: int | None = -1,
        executor: str = "default",
    ) -> None:  # fmt: skip
        grace = int(self.grace.total_seconds()) if misfire_grace_time == -1 else misfire_grace_time
        self.scheduler.add_job(
            func,
            executor=executor,
            trigger=trigger,
            args=list(args),
            id=job_id,
            name=job_id,
            replace_existing=True,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=grace,
            next_run_time=next_run_time,
        )

    def _remove(self, job_id: str) -> None:
        if self.scheduler.get_job(job_id) is not None:
            # JobLookupError: it ran (a date job) or was removed meanwhile.
            with contextlib.suppress(Exception):
                self.scheduler.remove_job(job_id)


def digest_trigger(sub: Subscription) -> CronTrigger:
    """The cron trigger of a subscription: its days, hour and minute, in its own zone."""
    return CronTrigger(day_of_week=sub.days or "*", hour=sub.hour, minute=sub.minute, timezone=sub.zone)
