"""Several instances on one store (issue 24): following the store's revision, /readyz, work
claimed with leases and taken over when they expire, Slack's pace shared by every instance.

Two instances are two Corpus objects with data folders of their own on one PostgreSQL schema
(the session's server, tests/postgres_support.py); claims and the ledger also run on SQLite.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from digest_support import FakeClock, QuietDirectory, RecordingPoster, ingest, listing_text
from slack_bolt import App
from slack_helpers import BOT_TOKEN

from bot.config import Settings
from bot.corpus import Corpus
from bot.services import ARXIV_CLAIM, build_services, claimed
from bot.slack.client import PacedClient, Patience, build_client
from bot.slack.http import make_wsgi_app
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
