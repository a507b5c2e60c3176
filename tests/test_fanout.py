"""A 09:00 fan-out on APScheduler's real thread pools: digests due together run side by side
(a digest waiting for its channel's slot holds its thread, so a pool of 4 ran 4 at a time),
and none is dropped while it waits for a thread."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

from digest_support import FakeClock, ingest, listing_text, open_corpus, service_for

from bot.digests.scheduler import DIGEST_EXECUTOR, DIGEST_WORKERS, DigestScheduler, background_scheduler
from bot.slack.render.digest import render_digest

SLOT_WAIT_S = 0.25  # what a digest's reply waits for its channel's next slot, scaled down


class SlotWaitingPoster:
    """Posts a digest as one message after waiting for the channel's slot; counts digests at once."""

    def __init__(self):
        self.lock = threading.Lock()
        self.active = 0
        self.most_at_once = 0
        self.posted: list[int] = []

    def post_digest(self, sub, digest, *, thread_ts: str, on_posted) -> None:
        with self.lock:
            self.active += 1
            self.most_at_once = max(self.most_at_once, self.active)
        try:
            time.sleep(SLOT_WAIT_S)
            ids = [paper_id for message in render_digest(digest) for paper_id in message.paper_ids]
            on_posted(ids, sub.place_id, f"{sub.id}.000100")
            with self.lock:
                self.posted.append(sub.id)
        finally:
            with self.lock:
                self.active -= 1

    def notify_paused(self, sub, code: str) -> None:
        raise AssertionError(f"digest {sub.id} paused: {code}")


def test_a_fanout_runs_digests_side_by_side_and_drops_none(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    clock = FakeClock(datetime(2026, 12, 1, 8, tzinfo=UTC))  # the service's clock: subscribed at 08:00
    poster = SlotWaitingPoster()
    service = service_for(corpus, poster, clock)
    subs = [
        service.subscriptions.save(team_id="", kind="channel", place_id=f"C{i:03d}", user_id="U1", lang="en", hour=9, minute=0,
                                   timezone="UTC")[0]
        for i in range(40)
    ]  # fmt: skip
    ingest(corpus, tmp_path, "feed.txt", listing_text("Feed", 1, 3))
    clock.set(datetime(2026, 12, 1, 9, 0, 30, tzinfo=UTC))  # all 40 due now
    scheduler = background_scheduler()
    jobs = DigestScheduler(scheduler, service)  # its own clock is the system's: jobs run now
    jobs.started = True  # the 09:00 jobs, not start()'s catch-up (which runs them one by one)
    scheduler.start()
    try:
        for sub in subs:
            jobs.sync(sub.id)
        assert {scheduler.get_job(sub.job_id).executor for sub in subs} == {DIGEST_EXECUTOR}
        started = time.monotonic()
        for sub in subs:  # due together, as the 09:00 jobs are: submitted to the pool at once
            jobs.retry_later(sub.id, timedelta(0))
        deadline = started + 20
        while len(poster.posted) < len(subs) and time.monotonic() < deadline:
            time.sleep(0.02)
        elapsed = time.monotonic() - started
    finally:
        scheduler.shutdown(wait=True)
    assert sorted(poster.posted) == sorted(sub.id for sub in subs)  # every digest once: none dropped, none twice
    assert all(service.subscriptions.delivery(sub.id, "2026-12-01").status == "sent" for sub in subs)
    assert poster.most_at_once > 4  # not 4 at a time, as on the shared pool of 4
    assert poster.most_at_once <= DIGEST_WORKERS
    assert elapsed < len(subs) * SLOT_WAIT_S / 4  # faster than 4 at a time could be
    corpus.close()
