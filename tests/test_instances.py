"""Several instances on one store (issue 24): following the store's revision, /readyz, work
claimed with leases and taken over when they expire, Slack's pace shared by every instance.

Two instances are two Corpus objects with data folders of their own on one PostgreSQL schema
(the session's server, tests/postgres_support.py); claims and the ledger also run on SQLite.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from digest_support import FakeClock, QuietDirectory, RecordingPoster, ingest, listing_text, open_corpus
from slack_bolt import App
from slack_helpers import BOT_TOKEN, SlackSender

from bot.config import Settings
from bot.corpus import Corpus
from bot.digests.scheduler import DigestScheduler, ManualScheduler
from bot.digests.service import DigestService
from bot.digests.subscriptions import SubscriptionStore
from bot.services import ARXIV_CLAIM, build_services, claimed
from bot.slack.client import METHOD_PACES, PROMPT_MAX_WAIT_S, TIER_3, PacedClient, Patience, build_client
from bot.slack.http import make_wsgi_app
from bot.slack.server import start_app_server
from bot.store.claims import Leases, Ledger
from bot.store.database import open_store


def instance(tmp_path, url: str, name: str) -> Corpus:
    settings = Settings(
        data_dir=tmp_path / name, seeds_dir=tmp_path / "no-seeds", inbox_dir=tmp_path / name / "inbox",
        database_url=url, follow_interval_seconds=1,
    )  # fmt: skip
    return Corpus.open(settings)


def test_a_paper_stored_through_one_instance_is_found_on_the_other_once_it_follows(postgres_url, tmp_path):
    first, second = instance(tmp_path, postgres_url, "a"), instance(tmp_path, postgres_url, "b")
    ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 3, topic="Quantum Widgets"))
    assert first.search("quantum widgets").total == 3
    assert second.search("quantum widgets").total == 0  # its own index, not yet in step
    assert not second.is_caught_up(grace_s=0)  # /readyz: 503 until it has caught up
    assert second.follow() is not None
    assert second.search("quantum widgets").total == 3 and second.is_caught_up(grace_s=0)
    assert second.follow() is None  # nothing new: one query, no index work

    first.remove_papers([first.store.newest(1)[0].id])
    second.follow()
    assert second.search("quantum widgets").total == 2
    first.close()
    second.close()


def test_following_a_store_that_is_away_warns_and_catches_up_when_it_is_back(postgres_url, tmp_path, caplog):
    """PostgreSQL restarting: the follow job says so in a warning (it raised, and APScheduler
    logged a traceback, in the chaos test) and the next follow catches up."""
    first, second = instance(tmp_path, postgres_url, "a"), instance(tmp_path, postgres_url, "b")
    ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 3, topic="Quantum Widgets"))
    live = second.store.path
    second.store.close()
    second.store.path = "postgresql://postgres@127.0.0.1:9/postgres"  # nothing listens there: the store is away
    assert second.follow() is None
    assert "following the store: it is unavailable" in caplog.text
    second.store.path = live  # back
    assert second.follow() is not None and second.search("quantum widgets").total == 3
    first.close()
    second.close()


def test_a_new_instance_starts_from_an_index_snapshot(postgres_url, tmp_path):
    first = instance(tmp_path, postgres_url, "a")
    ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 5, topic="Quantum Widgets"))
    first.close()
    settings = Settings(
        data_dir=tmp_path / "b",
        seeds_dir=tmp_path / "no-seeds",
        database_url=postgres_url,
        index_snapshot_dir=tmp_path / "a" / "index",
    )
    second = Corpus.load(settings)
    assert settings.index_dir.is_dir()  # copied, not built
    assert second.ensure_index() is None  # in step with the store already: no rebuild
    second._ready = True
    assert second.search("quantum widgets").total == 5
    second.close()


def test_the_vectors_beside_a_snapshot_come_with_it_so_nothing_is_embedded_again(postgres_url, tmp_path):
    first = instance(tmp_path, postgres_url, "a")
    ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 4, topic="Quantum Widgets"))
    assert first.meaning is not None and first.meaning.builder.run() == 4
    first.close()
    (tmp_path / "a" / "vectors" / "chunk-1-1.npz.99.tmp").write_bytes(b"half a file")  # a write in flight
    settings = Settings(
        data_dir=tmp_path / "b", seeds_dir=tmp_path / "no-seeds", database_url=postgres_url,
        index_snapshot_dir=tmp_path / "a" / "index",
    )  # fmt: skip
    second = Corpus.load(settings)
    assert second.meaning is not None and second.meaning.builder.progress(count=True).missing == 0
    assert not list(settings.vectors_dir.glob("*.tmp"))
    assert not second.meaning.builder.pending()  # every paper already has its vector
    second.close()


def test_readyz_is_503_while_the_index_is_behind_and_healthz_stays_200():
    app = App(token=BOT_TOKEN, signing_secret="s" * 32, token_verification_enabled=False)
    caught_up = [False]
    wsgi = make_wsgi_app(app, lambda: True, "s" * 32, lambda: caught_up[0])

    def get(path: str) -> str:
        status = []
        wsgi({"REQUEST_METHOD": "GET", "PATH_INFO": path}, lambda s, h: status.append(s))
        return status[0]

    assert get("/readyz").startswith("503") and get("/healthz").startswith("200")
    caught_up[0] = True
    assert get("/readyz").startswith("200")


def test_a_lease_is_one_instances_until_it_expires_then_another_takes_it_over(database_location):
    store = open_store(database_location)
    clock = FakeClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    first = Leases(store, holder="a", lease=timedelta(seconds=60), clock=clock)
    second = Leases(store, holder="b", lease=timedelta(seconds=60), clock=clock)
    assert first.take("arxiv") and not second.take("arxiv") and first.take("arxiv")
    clock.advance(seconds=50)
    assert first.renew("arxiv")
    clock.advance(seconds=50)
    assert not second.take("arxiv")  # renewed 50 s ago: still a's
    clock.advance(seconds=11)  # a died: no renewal for 61 s
    assert second.take("arxiv") and second.holder_of("arxiv") == "b"
    assert not first.renew("arxiv")  # a, back from a stall, learns it lost the claim
    second.release("arxiv")
    assert first.take("arxiv")
    store.close()


def test_two_jobs_of_one_instance_never_both_hold_a_claim_so_the_first_cannot_free_it_under_the_other(database_location):
    """Feed polls and arXiv lookups share the 'arxiv' claim: while one runs, the other skips,
    and another instance can't take it until the one running here is done."""
    store = open_store(database_location)
    here = Leases(store, holder="a", lease=timedelta(seconds=60))
    there = Leases(store, holder="b", lease=timedelta(seconds=60))
    with here.held("arxiv") as poll:
        with here.held("arxiv") as lookups:  # the enrichment job, due at the same time
            assert poll and not lookups
        assert not there.take("arxiv")  # the skipped job released nothing: still a's
    assert there.take("arxiv")
    store.close()


def test_claimed_work_runs_on_one_instance_at_a_time(postgres_url):
    stores = [open_store(postgres_url), open_store(postgres_url)]
    leases = [Leases(s, lease=timedelta(seconds=30)) for s in stores]
    running, ran, overlap = [0], [], []
    lock = threading.Lock()
    start = threading.Barrier(2)

    def work(who: int) -> None:
        with lock:
            running[0] += 1
            overlap.append(running[0])
        time.sleep(0.3)
        ran.append(who)
        with lock:
            running[0] -= 1

    def instance_job(who: int) -> None:
        start.wait()
        claimed(leases[who], ARXIV_CLAIM, lambda: work(who))()

    threads = [threading.Thread(target=instance_job, args=(n,)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ran) == 1 and max(overlap) == 1  # the other found it claimed and skipped this round
    assert leases[0].holder_of(ARXIV_CLAIM) is None  # released when done
    for store in stores:
        store.close()


def test_the_ledger_spaces_one_channel_a_second_across_instances_and_holds_a_rate_limited_method(database_location):
    store = open_store(database_location)
    now, slept = [1000.0], []
    instances = [Ledger(store, now=lambda: now[0], sleep=slept.append) for _ in range(2)]
    assert instances[0].wait_turn("C1", "chat.postMessage") == 0
    assert instances[1].wait_turn("C1", "chat.postMessage") == pytest.approx(1.0)  # the other instance's slot
    assert instances[1].wait_turn("C2", "chat.postMessage") == 0  # another channel is not held up
    now[0] += 5
    instances[0].hold("method:chat.postMessage", 3)  # Slack said Retry-After: 3 to one instance
    assert instances[1].wait_turn("C3", "chat.postMessage") == pytest.approx(3.0)
    assert slept == [pytest.approx(1.0), pytest.approx(3.0)]
    store.close()


def test_a_paced_client_waits_for_the_channel_and_shares_slacks_retry_after(postgres_url, fake_slack, slack_settings):
    store = open_store(postgres_url)
    ledger = Ledger(store)
    clients = [build_client(slack_settings, Patience.BACKGROUND, ledger=ledger) for _ in range(2)]
    assert all(isinstance(c, PacedClient) for c in clients)
    started = time.monotonic()
    clients[0].chat_postMessage(channel="C_PACE", text="one")
    clients[1].chat_postMessage(channel="C_PACE", text="two")  # another instance, the same channel
    assert time.monotonic() - started >= 0.9
    fake_slack.fail("chat.postMessage", "ratelimited")  # 429, Retry-After: 1
    before = time.time()
    clients[0].chat_postMessage(channel="C_OTHER", text="three")  # waits it out, and records it
    [(held_until,)] = store.read("SELECT next_at FROM slack_ledger WHERE place = 'method:chat.postMessage'")
    assert held_until >= before + 0.9  # every instance waited for it too, not only the one told
    assert [c.args["text"] for c in fake_slack.calls_to("chat.postMessage")][-1] == "three"
    store.close()


def test_the_ledger_keeps_a_methods_tier_across_instances_with_a_burst_then_its_rate(database_location):
    store = open_store(database_location)
    now = [1000.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    instances = [Ledger(store, now=lambda: now[0], sleep=sleep) for _ in range(2)]
    pace = METHOD_PACES["conversations.open"]  # Slack's tier 3: 50 a minute
    assert pace is TIER_3
    calls = []
    for i in range(150):  # two instances taking turns, each calling as soon as its turn comes
        instances[i % 2].wait_turn("", "conversations.open", method_spacing_s=pace.spacing_s, method_burst_s=pace.burst_s)
        calls.append(now[0])
    assert calls[: pace.burst] == pytest.approx([1000.0] * pace.burst)  # a burst goes at once
    assert calls[pace.burst] == pytest.approx(1000.0 + pace.spacing_s)  # then the tier's rate
    in_any_minute = max(sum(1 for t in calls if start <= t < start + 60) for start in calls)
    assert in_any_minute <= 50  # inside the tier, whichever instance called
    assert calls[-1] - calls[0] < 150 * 60 / 50 * 1.2  # and not much slower than it allows
    # Another method and another channel are not held up by this one's quota.
    assert instances[0].wait_turn("C1", "chat.postMessage") == 0
    store.close()


def test_two_paced_clients_keep_a_methods_tier_together_against_the_fake_slack(postgres_url, fake_slack, slack_settings):
    store = open_store(postgres_url)
    ledger = Ledger(store)
    clients = [build_client(slack_settings, Patience.BACKGROUND, ledger=ledger) for _ in range(2)]
    pace = METHOD_PACES["views.publish"]  # Slack's tier 4: 100 a minute, bursts of 10
    started = time.monotonic()
    for i in range(pace.burst + 2):  # the burst, then two more at the tier's rate
        clients[i % 2].views_publish(user_id=f"U{i}", view={"type": "home", "blocks": []})
    elapsed = time.monotonic() - started
    assert len(fake_slack.calls_to("views.publish")) == pace.burst + 2
    assert elapsed >= 2 * pace.spacing_s * 0.95  # the last two waited for the tier, across both clients
    # A lookup (answering before Slack's 3 s ack) waits at most PROMPT_MAX_WAIT_S for its turn,
    # and its call counts for the others all the same.
    lookup = build_client(slack_settings, Patience.LOOKUP, ledger=ledger)
    started = time.monotonic()
    lookup.views_publish(user_id="U_LOOKUP", view={"type": "home", "blocks": []})
    assert time.monotonic() - started < pace.spacing_s + PROMPT_MAX_WAIT_S
    [(next_at,)] = store.read("SELECT next_at FROM slack_ledger WHERE place = 'rate:views.publish'")
    assert next_at > time.time() + pace.spacing_s  # the lookup's call took a turn too
    store.close()


def test_a_channels_next_post_waits_a_second_from_the_previous_answer(postgres_url, fake_slack, slack_settings):
    """A post slowed on its way must not reach Slack just before the channel's next one: the
    next waits a second from the answer, not only from the previous request's start."""
    store = open_store(postgres_url)
    ledger = Ledger(store)
    clients = [build_client(slack_settings, Patience.BACKGROUND, ledger=ledger) for _ in range(2)]
    fake_slack.slow("chat.postMessage", 0.6)
    clients[0].chat_postMessage(channel="C_SLOW", text="one")
    answered = time.monotonic()
    clients[1].chat_postMessage(channel="C_SLOW", text="two")  # the other instance
    assert time.monotonic() - answered >= 0.95 + 0.6  # a second after the answer, then the fake's 0.6 s
    store.close()


def test_a_paced_client_whose_ledger_is_away_still_calls_slack(tmp_path, fake_slack, slack_settings, caplog):
    """The store down (PostgreSQL restarting) must not fail a lookup or a post: unpaced, with a warning."""
    store = open_store(tmp_path / "ledger.sqlite3")
    ledger = Ledger(store)
    store.close()  # every statement on it now raises a sqlite3.Error, as a store that is away does
    lookup = build_client(slack_settings, Patience.LOOKUP, ledger=ledger)
    assert lookup.users_info(user="U_AWAY")["ok"]
    assert [c.args["user"] for c in fake_slack.calls_to("users.info")] == ["U_AWAY"]
    assert "calling users.info unpaced" in caplog.text


def test_listeners_on_two_instances_count_their_calls_in_the_shared_ledger(postgres_url, fake_slack, slack_settings, tmp_path):
    """Bolt's per-request clients are paced too: App Home opened on either instance counts
    against views.publish's tier for both (before, listeners' calls bypassed the ledger)."""
    servers, senders = [], []
    for name in ("a", "b"):
        settings = dataclasses.replace(
            slack_settings, data_dir=tmp_path / name, seeds_dir=tmp_path / "no-seeds", inbox_dir=tmp_path / name / "inbox",
            database_url=postgres_url,
        )  # fmt: skip
        corpus = Corpus.open(settings)
        servers.append((start_app_server(settings, corpus), corpus))
        senders.append(SlackSender(servers[-1][0].url, fake_slack))
    pace = METHOD_PACES["views.publish"]
    try:
        started = time.time()
        for i in range(12):
            senders[i % 2].event({"type": "app_home_opened", "user": f"U_TIER{i}", "channel": f"DT{i}", "tab": "home"})
        assert len(fake_slack.wait_for("views.publish", 12, timeout=15)) == 12
        [(next_at,)] = servers[0][1].store.read("SELECT next_at FROM slack_ledger WHERE place = 'rate:views.publish'")
        assert next_at >= started + 12 * pace.spacing_s * 0.95  # all twelve took a turn, from both instances
    finally:
        for sender in senders:
            sender.close()
        for running, corpus in servers:
            running.shutdown()
            corpus.close()


def test_services_on_a_shared_store_claim_their_background_work(postgres_url, tmp_path):
    corpus = instance(tmp_path, postgres_url, "a")
    clock = FakeClock(datetime.now(UTC))  # the inbox compares files' times with it
    services = build_services(corpus.settings, corpus, poster=RecordingPoster(), directory=QuietDirectory(), clock=clock)
    assert services.leases is not None
    other = Leases(corpus.store, holder="other", lease=timedelta(minutes=2), clock=clock)
    assert other.take("inbox-scan")
    inbox = corpus.settings.inbox_dir
    inbox.mkdir(parents=True, exist_ok=True)
    (inbox / "new.txt").write_text(listing_text("Feed A", 0, 2), encoding="utf-8")
    services.scheduler.inbox_scan()
    assert corpus.store.state()[0] == 0  # the other instance is scanning the inbox
    clock.advance(minutes=3)  # ...and died: its lease ran out (and the file has settled)
    services.scheduler.inbox_scan()
    assert corpus.store.state()[0] == 2
    corpus.close()


# -- a digest taken over when its instance dies (issue 24, point 3) ---------------------------


def digest_instances(database_location: str, tmp_path, clock: FakeClock, posters) -> list[DigestScheduler]:
    """Two instances' digest machinery: two stores on PostgreSQL, one shared file on SQLite."""
    if database_location.startswith("postgresql://"):
        corpora = [instance(tmp_path, database_location, name) for name in ("a", "b")]
    else:
        corpora = [open_corpus(tmp_path / "data")] * 2
    jobs = []
    for corpus, poster in zip(corpora, posters, strict=True):
        service = DigestService(corpus, SubscriptionStore(corpus.store, clock=clock), poster, clock=clock)
        jobs.append(DigestScheduler(ManualScheduler(clock), service, clock=clock))
    return jobs


def test_a_digest_whose_instance_died_mid_thread_is_finished_by_the_other(database_location, tmp_path):
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    first, second = digest_instances(
        database_location, tmp_path, clock, [RecordingPoster(crash_after_record_at=2), RecordingPoster()]
    )
    corpus = first.service.corpus
    sub, _ = first.subscriptions.save(
        team_id="", kind="channel", place_id="C1", user_id="U1", lang="en", hour=9, minute=0, timezone="UTC"
    )
    ingest(corpus, tmp_path, "a.txt", listing_text("Feed A", 0, 60))  # new since it subscribed
    second.service.corpus.follow()
    for jobs in (first, second):
        jobs.start()
    clock.set(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    first.scheduler.run_pending()  # killed after its second message
    second.scheduler.run_pending()  # finds it claimed (heartbeat fresh), looks again after the lease
    assert second.service.poster.posts == [] and second.scheduler.get_job(f"digest-retry:{sub.id}") is not None
    clock.advance(minutes=2, seconds=1)
    second.scheduler.run_pending()
    posted_first, posted_second = first.service.poster.papers_posted(), second.service.poster.papers_posted()
    assert 0 < len(posted_first) < 60 and not set(posted_first) & set(posted_second)  # resumed after what was recorded
    assert sorted(posted_first + posted_second) == sorted(p.id for p in corpus.newest(100))  # none twice
    assert {p.thread_ts for p in second.service.poster.posts} == {first.service.poster.posts[0].ts}
    delivery = second.subscriptions.delivery(sub.id, "2026-12-01")
    messages = len(first.service.poster.posts) + len(second.service.poster.posts)
    assert (delivery.status, delivery.holder, delivery.messages) == ("sent", second.subscriptions.holder, messages)
    assert first.subscriptions.get(sub.id).cursor_seq == corpus.store.last_seq()
    clock.advance(minutes=5)
    first.scheduler.run_pending()
    second.scheduler.run_pending()
    assert len(first.service.poster.posts) + len(second.service.poster.posts) == messages  # nobody posts that day again
    first.shutdown()
    second.shutdown()


class StallingPoster(RecordingPoster):
    """Posts, then stalls after its first message while `during_stall` runs (another instance's turn)."""

    def __init__(self, during_stall):
        super().__init__()
        self.during_stall = during_stall

    def post_digest(self, sub, digest, *, thread_ts, on_posted) -> None:
        def recorded(ids, channel_id, ts) -> None:
            on_posted(ids, channel_id, ts)
            if len(self.posts) == 1:
                self.during_stall()

        super().post_digest(sub, digest, thread_ts=thread_ts, on_posted=recorded)


def test_a_poster_that_stalled_past_its_lease_stops_once_another_took_the_digest_over(database_location, tmp_path):
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    jobs: list[DigestScheduler] = []

    def other_instance_takes_over() -> None:
        clock.advance(minutes=3)  # no heartbeat for longer than the lease (a long GC pause, a lost network)
        jobs[1].service.run(sub.id)

    jobs.extend(
        digest_instances(database_location, tmp_path, clock, [StallingPoster(other_instance_takes_over), RecordingPoster()])
    )
    first, second = jobs
    sub, _ = first.subscriptions.save(
        team_id="", kind="channel", place_id="C1", user_id="U1", lang="en", hour=9, minute=0, timezone="UTC"
    )
    ingest(first.service.corpus, tmp_path, "a.txt", listing_text("Feed A", 0, 60))
    second.service.corpus.follow()
    clock.set(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    outcome = first.service.run(sub.id)
    assert outcome.status == "claimed"  # it stopped after its stalled message, and did not mark the day failed
    assert len(first.service.poster.posts) == 2  # the one in flight when it stalled: the documented worst case
    delivery = second.subscriptions.delivery(sub.id, "2026-12-01")
    assert (delivery.status, delivery.holder) == ("sent", second.subscriptions.holder)
    everything = first.service.poster.papers_posted() + second.service.poster.papers_posted()
    assert set(everything) == {p.id for p in first.service.corpus.newest(100)}
