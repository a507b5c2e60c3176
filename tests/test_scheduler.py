"""Real APScheduler, an injected clock, no sleeping: digests go out once, on time, and survive
restarts, a second instance, daylight-saving days and a crash mid-post."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger
from digest_support import (
    FakeClock,
    RecordingPoster,
    ingest,
    listing_text,
    open_corpus,
    service_for,
)

from bot.digests.scheduler import DigestScheduler, ManualScheduler
from bot.digests.subscriptions import SubscriptionStore
from bot.errors import DeliveryFailed
from bot.store.database import Store


class Instance:
    """One running paperbot process: its own Store connection, scheduler and poster."""

    def __init__(self, corpus, clock: FakeClock, poster: RecordingPoster | None = None, **service_options):
        self.corpus = corpus
        self.clock = clock
        self.poster = poster or RecordingPoster()
        self.service = service_for(corpus, self.poster, clock, **service_options)
        self.subs: SubscriptionStore = self.service.subscriptions
        self.jobs = DigestScheduler(ManualScheduler(clock), self.service, clock=clock)

    def start(self) -> Instance:
        self.jobs.start()
        self.tick()  # the catch-up job runs right away
        return self

    def tick(self) -> None:
        self.jobs.scheduler.run_pending()

    def run_until(self, end: datetime, step: timedelta = timedelta(minutes=10)) -> None:
        """Move the clock forward step by step, letting due jobs run at each step."""
        while self.clock() < end:
            self.clock.set(min(self.clock() + step, end))
            self.tick()

    def stop(self) -> None:
        self.jobs.shutdown()

    def subscribe(self, hour=9, minute=0, zone="UTC", **kwargs):
        sub, _ = self.subs.save(team_id="", kind="channel", place_id=kwargs.pop("place_id", "C1"), user_id="U1", lang="en",
                                hour=hour, minute=minute, timezone=zone, **kwargs)  # fmt: skip
        self.jobs.sync(sub.id)
        return sub


@pytest.fixture
def corpus(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    yield corpus
    corpus.close()


def add_papers(corpus, tmp_path, start, count, name=None):
    ingest(corpus, tmp_path, name or f"feed-{start}.txt", listing_text("Feed", start, count))


def at(*args, zone="UTC") -> datetime:
    return datetime(*args, tzinfo=ZoneInfo(zone))


def test_job_per_subscription_with_stable_id_zone_and_grace(corpus):
    clock = FakeClock(at(2026, 12, 1, 8))
    bot = Instance(corpus, clock).start()
    sub = bot.subscribe(8, 30, "Asia/Shanghai")
    job = bot.jobs.scheduler.get_job(f"digest:{sub.id}")
    assert str(job.trigger.timezone) == "Asia/Shanghai" and job.coalesce and job.misfire_grace_time == 6 * 3600
    assert job.next_run_time == at(2026, 12, 2, 8, 30, zone="Asia/Shanghai")
    bot.subscribe(10, 0, "Asia/Shanghai")  # same place: the job is replaced, not doubled
    assert [j.id for j in bot.jobs.scheduler.get_jobs() if j.id.startswith("digest:")] == [f"digest:{sub.id}"]
    assert bot.jobs.scheduler.get_job(f"digest:{sub.id}").next_run_time.hour == 10


def test_digest_goes_out_on_time_with_the_papers_since_subscribing(corpus, tmp_path):
    add_papers(corpus, tmp_path, 1, 5)  # before subscribing: not in the digest
    clock = FakeClock(at(2026, 12, 1, 8))
    bot = Instance(corpus, clock).start()
    sub = bot.subscribe()
    add_papers(corpus, tmp_path, 100, 3)
    bot.run_until(at(2026, 12, 1, 8, 50))
    assert bot.poster.posts == []
    bot.run_until(at(2026, 12, 1, 9, 0))
    assert bot.poster.digests() == ["2026-12-01"]
    assert len(bot.poster.papers_posted()) == 3
    assert bot.subs.get(sub.id).cursor_seq == corpus.store.last_seq()
    assert bot.subs.delivery(sub.id, "2026-12-01").status == "sent"


def test_a_run_missed_while_down_is_sent_once_at_start_up(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 1, 8))
    first = Instance(corpus, clock).start()
    sub = first.subscribe()
    first.stop()  # down from 08:00 ...
    add_papers(corpus, tmp_path, 1, 4)
    clock.set(at(2026, 12, 1, 11, 15))  # ... until 11:15
    second = Instance(corpus, clock).start()
    assert second.poster.digests() == ["2026-12-01"] and len(second.poster.papers_posted()) == 4
    second.run_until(at(2026, 12, 1, 23, 0))
    assert second.poster.digests() == ["2026-12-01"]
    add_papers(corpus, tmp_path, 10, 2)
    second.run_until(at(2026, 12, 2, 9, 0))
    assert second.poster.digests() == ["2026-12-01", "2026-12-02"]
    assert len(second.poster.papers_posted(sub.id)) == 6


def test_a_run_missed_for_longer_than_the_grace_waits_for_the_next_day(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 1, 8))
    first = Instance(corpus, clock).start()
    first.subscribe()
    first.stop()
    add_papers(corpus, tmp_path, 1, 4)
    clock.set(at(2026, 12, 1, 16, 0))  # 7 hours late
    second = Instance(corpus, clock).start()
    assert second.poster.posts == []
    second.run_until(at(2026, 12, 2, 9, 0))
    assert second.poster.digests() == ["2026-12-02"] and len(second.poster.papers_posted()) == 4  # nothing lost


def test_restarting_after_a_delivery_does_not_send_it_again(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 1, 8))
    first = Instance(corpus, clock).start()
    first.subscribe(notify_empty=True)  # so a second run would post something even without papers
    add_papers(corpus, tmp_path, 1, 4)
    first.run_until(at(2026, 12, 1, 9, 5))
    first.stop()
    assert first.poster.digests() == ["2026-12-01"]
    clock.set(at(2026, 12, 1, 9, 30))
    second = Instance(corpus, clock).start()
    second.run_until(at(2026, 12, 1, 12, 0))
    assert second.poster.posts == []


def test_two_instances_on_one_database_post_once(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 1, 8))
    other_store = Store(corpus.store.path)  # a second process: its own connection to the same file
    try:
        from bot.corpus import Corpus

        other_corpus = Corpus(corpus.settings, other_store, corpus.index)
        one, two = Instance(corpus, clock).start(), Instance(other_corpus, clock).start()
        one.subscribe(notify_empty=True)  # so a second run would post something even without papers
        two.jobs.sync_all()  # what its periodic sync job does
        add_papers(corpus, tmp_path, 1, 4)
        clock.set(at(2026, 12, 1, 9, 0))
        one.tick()
        two.tick()
        one.run_until(at(2026, 12, 1, 12, 0))
        two.run_until(at(2026, 12, 1, 12, 0))
        assert len(one.poster.digests() + two.poster.digests()) == 1
        assert sorted(one.poster.papers_posted() + two.poster.papers_posted()) == sorted(p.id for p in corpus.newest(10))
    finally:
        other_store.close()


@pytest.mark.parametrize(
    ("hour", "minute", "start", "end", "day"),
    [
        (2, 30, (2026, 3, 7, 0), (2026, 3, 10, 0), "2026-03-08"),  # spring forward: 02:30 does not exist
        (1, 30, (2026, 10, 31, 0), (2026, 11, 3, 0), "2026-11-01"),  # fall back: 01:30 happens twice
    ],
)
def test_exactly_one_digest_a_day_across_daylight_saving_changes(corpus, hour, minute, start, end, day):
    clock = FakeClock(at(*start, zone="America/New_York"))
    bot = Instance(corpus, clock).start()
    sub = bot.subscribe(hour, minute, "America/New_York", notify_empty=True)  # a note every day
    bot.run_until(at(*end, zone="America/New_York"), step=timedelta(minutes=5))
    days = bot.poster.digests()
    assert len(days) == len(set(days)) == 3
    assert day in days
    delivered_at = {d.local_date: d.claimed_at for d in bot.subs.deliveries(sub.id)}
    assert len(delivered_at) == 3


def test_papers_arriving_between_digests_show_up_exactly_once(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 1, 8))
    bot = Instance(corpus, clock).start()
    bot.subscribe()
    add_papers(corpus, tmp_path, 1, 3, "a.txt")
    bot.run_until(at(2026, 12, 1, 12))
    add_papers(corpus, tmp_path, 10, 2, "b.txt")
    add_papers(corpus, tmp_path, 1, 3, "a-again.txt")  # the same papers again: updates, not new
    bot.run_until(at(2026, 12, 2, 12))
    bot.run_until(at(2026, 12, 3, 12))  # nothing new: no post
    posted = bot.poster.papers_posted()
    assert len(posted) == len(set(posted)) == 5
    assert bot.poster.digests() == ["2026-12-01", "2026-12-02"]


def test_passing_failures_are_retried_and_nothing_is_lost(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 1, 8))
    poster = RecordingPoster(
        fail_at={1: DeliveryFailed("ratelimited", retryable=True), 2: DeliveryFailed("network: URLError", retryable=True)}
    )
    bot = Instance(corpus, clock, poster).start()
    sub = bot.subscribe()
    add_papers(corpus, tmp_path, 1, 4)
    bot.run_until(at(2026, 12, 1, 9, 0))
    assert poster.posts == [] and bot.subs.delivery(sub.id, "2026-12-01").status == "failed"
    assert bot.jobs.scheduler.get_job(f"digest-retry:{sub.id}") is not None
    bot.run_until(at(2026, 12, 1, 9, 10), step=timedelta(minutes=1))  # retries after 1 and 5 minutes
    assert poster.digests() == ["2026-12-01"] and len(poster.papers_posted()) == 4
    delivery = bot.subs.delivery(sub.id, "2026-12-01")
    assert (delivery.status, delivery.attempts) == ("sent", 3)


def test_a_failure_mid_thread_resumes_in_the_same_thread_without_repeats(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 1, 8))
    poster = RecordingPoster(fail_at={2: DeliveryFailed("ratelimited", retryable=True)})
    bot = Instance(corpus, clock, poster).start()
    sub = bot.subscribe()
    add_papers(corpus, tmp_path, 1, 60)  # three messages
    bot.run_until(at(2026, 12, 1, 9, 5), step=timedelta(minutes=1))
    posted = poster.papers_posted()
    assert sorted(posted) == sorted(p.id for p in corpus.newest(100)) and len(posted) == 60
    first_ts = poster.posts[0].ts
    assert [p.thread_ts for p in poster.posts[1:]] == [first_ts] * (len(poster.posts) - 1)
    assert bot.subs.delivery(sub.id, "2026-12-01").status == "sent"


@pytest.mark.parametrize("code", ["not_in_channel", "channel_not_found", "is_archived"])
def test_a_channel_that_refuses_posts_pauses_the_subscription(corpus, tmp_path, code):
    clock = FakeClock(at(2026, 12, 1, 8))
    poster = RecordingPoster(fail_at={1: DeliveryFailed(code, gone=True)})
    bot = Instance(corpus, clock, poster).start()
    sub = bot.subscribe()
    add_papers(corpus, tmp_path, 1, 2)
    bot.run_until(at(2026, 12, 3, 12))
    assert poster.paused == [(sub.id, code)] and poster.posts == []
    assert bot.subs.get(sub.id).status == "paused" and bot.jobs.scheduler.get_job(sub.job_id) is None
    clock.set(at(2026, 12, 3, 13))
    bot.subscribe()  # `/papers subscribe` again: resumes, and the papers were kept
    bot.run_until(at(2026, 12, 4, 9, 0))
    assert poster.digests() == ["2026-12-04"] and len(poster.papers_posted()) == 2


def test_crash_mid_thread_is_finished_in_its_thread_after_the_lease_without_repeating(corpus, tmp_path):
    """The process dies after message 2 of 3 was accepted and recorded; its restart takes the claim over."""
    clock = FakeClock(at(2026, 12, 1, 8))
    first = Instance(corpus, clock, RecordingPoster(crash_after_record_at=2)).start()
    sub = first.subscribe()
    add_papers(corpus, tmp_path, 1, 60)
    clock.set(at(2026, 12, 1, 9, 0))
    first.tick()  # Crash escapes the job; the scheduler logs it
    sent_before = first.poster.papers_posted()
    assert len(sent_before) < 60 and first.subs.delivery(sub.id, "2026-12-01").status == "posting"

    clock.set(at(2026, 12, 1, 9, 1))  # restarted within the lease: the claim may still be alive
    second = Instance(corpus, clock).start()
    assert second.poster.posts == []
    clock.set(at(2026, 12, 1, 9, 3))  # the lease ran out: the next look takes it over
    second.tick()
    rest = second.poster.papers_posted()
    assert sorted(sent_before + rest) == sorted(p.id for p in corpus.newest(100))  # all delivered, none twice
    first_ts = first.poster.posts[0].ts
    assert {p.thread_ts for p in second.poster.posts} == {first_ts}  # in the day's thread, no second digest
    delivery = second.subs.delivery(sub.id, "2026-12-01")
    assert (delivery.status, delivery.attempts, delivery.holder) == ("sent", 2, second.subs.holder)
    assert second.subs.get(sub.id).cursor_seq == corpus.store.last_seq()
    second.run_until(at(2026, 12, 2, 9, 0))
    assert second.poster.digests() == []  # nothing new by the next morning: no empty digest either


def test_crash_between_slack_accepting_and_recording_repeats_that_message_once(corpus, tmp_path):
    """The documented worst case: the one message in flight goes out a second time, when the day is finished."""
    clock = FakeClock(at(2026, 12, 1, 8))
    first = Instance(corpus, clock, RecordingPoster(crash_before_record_at=1)).start()
    sub = first.subscribe()
    add_papers(corpus, tmp_path, 1, 5)
    clock.set(at(2026, 12, 1, 9, 0))
    first.tick()
    assert len(first.poster.papers_posted()) == 5
    clock.set(at(2026, 12, 1, 9, 30))
    second = Instance(corpus, clock).start()
    second.run_until(at(2026, 12, 3, 9, 0))
    assert second.poster.digests() == ["2026-12-01"]  # that day's digest, again from its first message
    assert sorted(second.poster.papers_posted()) == sorted(first.poster.papers_posted())  # once more, then never
    assert second.subs.get(sub.id).cursor_seq == corpus.store.last_seq()


def test_a_claim_with_no_heartbeat_past_the_grace_is_interrupted_not_taken_over(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 1, 8))
    first = Instance(corpus, clock, RecordingPoster(crash_after_record_at=1)).start()
    sub = first.subscribe()
    add_papers(corpus, tmp_path, 1, 60)
    clock.set(at(2026, 12, 1, 9, 0))
    first.tick()
    clock.set(at(2026, 12, 1, 15, 30))  # down longer than a digest may be late
    second = Instance(corpus, clock).start()
    assert second.poster.posts == [] and second.subs.delivery(sub.id, "2026-12-01").status == "interrupted"
    second.run_until(at(2026, 12, 2, 9, 0))
    assert sorted(first.poster.papers_posted() + second.poster.papers_posted()) == sorted(p.id for p in corpus.newest(100))
    assert second.poster.digests() == ["2026-12-02"]


# -- days of the week (issue 11) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("days", "zone", "expected"),
    [
        ("mon,tue,wed,thu,fri", "America/New_York", ["2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06",
                                                     "2026-03-09", "2026-03-10"]),  # weekdays, across spring forward (Sun 8 Mar)
        ("mon", "America/New_York", ["2026-03-02", "2026-03-09"]),  # weekly, the Monday after the clocks moved too
        ("mon,wed,fri", "Asia/Shanghai", ["2026-03-02", "2026-03-04", "2026-03-06", "2026-03-09"]),
        ("*", "Asia/Shanghai", [f"2026-03-{d:02d}" for d in range(1, 11)]),
    ],
)  # fmt: skip
def test_a_digest_posts_on_its_days_only_once_each_across_a_week_and_dst(corpus, days, zone, expected):
    clock = FakeClock(at(2026, 3, 1, 0, zone=zone))  # a Sunday
    bot = Instance(corpus, clock).start()
    sub = bot.subscribe(9, 0, zone, notify_empty=True, days=days)  # a note every run day, so each run shows
    job = bot.jobs.scheduler.get_job(f"digest:{sub.id}")
    assert str(job.trigger.timezone) == zone and "day_of_week" in str(job.trigger)
    bot.run_until(at(2026, 3, 10, 23, zone=zone), step=timedelta(minutes=30))
    assert bot.poster.digests() == expected
    # each at 09:00 local time, whatever the offset that day
    for delivery in bot.subs.deliveries(sub.id):
        claimed = datetime.fromisoformat(delivery.claimed_at).astimezone(ZoneInfo(zone))
        assert (claimed.hour, claimed.minute) == (9, 0)


def test_a_weekday_digest_holds_the_weekends_papers_on_monday(corpus, tmp_path):
    clock = FakeClock(at(2026, 12, 4, 10))  # Friday, after the run
    bot = Instance(corpus, clock).start()
    bot.subscribe(9, 0, "UTC", days="mon,tue,wed,thu,fri")
    add_papers(corpus, tmp_path, 1, 2, "sat.txt")
    bot.run_until(at(2026, 12, 6, 12))  # Sat, Sun: nothing posted
    assert bot.poster.digests() == []
    bot.run_until(at(2026, 12, 7, 12))
    assert bot.poster.digests() == ["2026-12-07"] and len(bot.poster.papers_posted()) == 2


class SlowRoundStore(MemoryJobStore):
    """A job store whose due jobs take a moment to read: a round of the scheduler's loop is
    under way (holding its lock) when the test asks the scheduler to stop."""

    def __init__(self):
        super().__init__()
        self.in_round = threading.Event()

    def get_due_jobs(self, now):
        due = super().get_due_jobs(now)
        if due:
            self.in_round.set()
            time.sleep(0.3)
        return due


def test_stopping_during_a_round_of_due_jobs_lets_the_round_finish(corpus):
    """serve stopped (SIGTERM) just as the start-up catch-up ran: APScheduler's loop thread died
    with JobLookupError, a traceback in the log. Now the round ends, the job runs once."""
    store = SlowRoundStore()
    scheduler = BackgroundScheduler(timezone="UTC", jobstores={"default": store})
    service = service_for(corpus, RecordingPoster(), FakeClock(at(2026, 3, 2, 8, 0)))
    jobs = DigestScheduler(scheduler, service)
    ran, died = [], []
    previous, threading.excepthook = threading.excepthook, died.append
    try:
        scheduler.start()
        scheduler.add_job(lambda: ran.append(1), DateTrigger(run_date=datetime.now(ZoneInfo("UTC"))), id="once")
        assert store.in_round.wait(5)
        jobs.shutdown()
    finally:
        threading.excepthook = previous
    assert died == [] and ran == [1] and not scheduler.running


def test_a_stop_that_lands_inside_the_scheduler_s_start_still_shuts_it_down(corpus, monkeypatch):
    """SIGTERM between BackgroundScheduler marking itself running and starting its thread left
    a scheduler with no thread to join: shutting down raised, and `serve` printed a traceback."""

    class InterruptedThread(threading.Thread):
        def start(self):
            raise KeyboardInterrupt  # the SIGTERM handler raises here, in the main thread

    monkeypatch.setattr("apscheduler.schedulers.background.Thread", InterruptedThread)
    scheduler = BackgroundScheduler(timezone="UTC")
    jobs = DigestScheduler(scheduler, service_for(corpus, RecordingPoster(), FakeClock(at(2026, 3, 2, 8, 0))))
    with pytest.raises(KeyboardInterrupt):
        scheduler.start()
    assert scheduler.running
    jobs.shutdown()
    assert not scheduler.running
