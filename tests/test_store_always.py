"""Always on, what a data review of issue 24 left open: the store on PostgreSQL robust to a
frozen instance, leases by one clock, the state a follow tick reads kept in `meta`, removals
followed in place.

- write domains: a transaction frozen mid-way (SIGSTOP on a real process) holds only its
  domain's writers, the server ends its session after `idle_in_transaction_session_timeout`
  and the writers queued behind it go on; with that timeout off, a queued writer fails with a
  clear error within `lock_timeout`; the session settings are merged with the URL's options;
- leases compare the database's clock, not each machine's, and work whose lease was lost is
  refused its next write (WorkClaimLost);
- state() reads the count and the counter from `meta` (backfilled once for an older store);
- a removal leaves tombstones at a new rev, and another instance deletes them in place.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from digest_support import FakeClock, QuietDirectory, RecordingPoster, ingest, listing_text
from fake_arxiv import FakeArxiv

from bot.clock import Clock, system_clock, to_iso
from bot.config import ALL_NETWORKS, Settings
from bot.corpus import Corpus
from bot.digests.scheduler import ManualScheduler
from bot.digests.subscriptions import SubscriptionStore
from bot.errors import WorkClaimLost
from bot.feeds.arxiv import ArxivClient
from bot.feeds.sources import SourceService
from bot.ingest.listing import parse_text
from bot.search.index import PaperIndex
from bot.services import PRUNE_CLAIM, PRUNE_JOB, build_services, prune_tombstones, start_services, stop_services
from bot.store.claims import ARXIV_PLACE, Leases, Ledger, shared_turns
from bot.store.database import PAPERS, WRITES, is_store_unavailable, open_store
from bot.store.postgres import PostgresStore, connection_info

ROOT = Path(__file__).resolve().parent.parent


def with_options(url: str, *settings: str) -> str:
    """`url` (the tests' URLs carry `options=-csearch_path=...`) with more `-c name=value` options."""
    return url + "".join(f"%20-c{setting.replace('=', '%3D')}" for setting in settings)


def instance(tmp_path: Path, location: str, name: str) -> Corpus:
    url = location if location.startswith("postgresql://") else ""
    settings = Settings(data_dir=tmp_path / name, seeds_dir=tmp_path / "no-seeds", database_url=url, follow_interval_seconds=1)
    return Corpus.open(settings)


# -- session settings ------------------------------------------------------------------------


def test_connection_info_adds_timeouts_and_keepalives_and_keeps_the_urls_options():
    info = connection_info("postgresql://u:pw@db:5432/paperbot?options=-csearch_path%3Dt_1%20-clock_timeout%3D2s&sslmode=require")
    assert "sslmode=require" in info and "password=pw" in info and "keepalives=1" in info and "connect_timeout=5" in info
    options = info.split("options='", 1)[1].split("'", 1)[0]
    # ours first, the URL's after: a later -c wins, so the URL's lock_timeout (2s) overrides ours
    assert options.index("-c lock_timeout=30s") < options.index("-csearch_path=t_1") < options.index("-clock_timeout=2s")
    assert "-c idle_in_transaction_session_timeout=10s" in options and "-c tcp_keepalives_idle=30" in options
    assert "options='-c idle_in_transaction_session_timeout" in connection_info("postgresql://db/paperbot")


def test_every_connection_has_the_timeouts_and_the_urls_own_options(postgres_url):
    store = open_store(with_options(postgres_url, "lock_timeout=7s"))
    try:
        with store.transaction(PAPERS) as db:  # a writer's connection
            shown = {name: db.execute(f"SHOW {name}").fetchone()[0] for name in ("lock_timeout", "search_path")}
        assert shown == {"lock_timeout": "7s", "search_path": postgres_url.rsplit("%3D", 1)[1]}  # the URL's win, and are kept
        read = {name: store.read(f"SHOW {name}")[0][0] for name in ("idle_in_transaction_session_timeout", "tcp_keepalives_idle")}
        assert read == {"idle_in_transaction_session_timeout": "10s", "tcp_keepalives_idle": "30"}
    finally:
        store.close()


def test_a_table_is_written_only_in_its_own_domain(postgres_url):
    """The split is safe only while it holds: papers' tables change only under the counter's lock."""
    store = open_store(postgres_url)
    try:
        with pytest.raises(sqlite3.ProgrammingError, match="papers transactions only"), store.transaction(WRITES) as db:
            db.execute("DELETE FROM papers WHERE id = ?", ("x",))
        with pytest.raises(sqlite3.ProgrammingError, match="writes transactions only"), store.transaction(PAPERS) as db:
            db.execute("INSERT OR REPLACE INTO user_prefs (user_id, lang) VALUES (?, ?)", ("U1", "zh"))
        store.set_user_lang("U1", "zh")  # and the store goes on
        assert store.get_user_lang("U1") == "zh"
    finally:
        store.close()


# -- a frozen instance -----------------------------------------------------------------------

FROZEN = """
import sys, time
from bot.store.database import open_store
store = open_store(sys.argv[1])
try:
    with store.transaction(sys.argv[2]) as db:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('frozen', 'written')")
        print("holding", flush=True)
        time.sleep(float(sys.argv[3]))
    print("committed", flush=True)
except Exception as exc:
    print(f"failed: {type(exc).__name__}: {exc}", flush=True)
    sys.exit(1)
"""


def hold_frozen(url: str, domain: str, sleep_s: float = 3.0) -> subprocess.Popen:
    """A real process inside a write transaction of `domain`, stopped (SIGSTOP) while it holds the lock."""
    proc = subprocess.Popen(
        [sys.executable, "-c", FROZEN, url, domain, str(sleep_s)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    os.kill(proc.pid, signal.SIGSTOP)
    return proc


def thaw(proc: subprocess.Popen) -> str:
    os.kill(proc.pid, signal.SIGCONT)
    out, _ = proc.communicate(timeout=60)
    return out.strip()


def test_a_frozen_transaction_holds_only_its_domain_and_the_server_ends_it(postgres_url):
    """SIGSTOP a process holding the papers' lock: other writes go on at once; an ingest waits
    until the server ends the frozen session (idle in a transaction, 2 s here), then lands;
    the frozen process, woken, finds its transaction gone and nothing of it stored."""
    store = open_store(postgres_url)
    frozen = hold_frozen(with_options(postgres_url, "idle_in_transaction_session_timeout=2s"), PAPERS)
    try:
        started = time.monotonic()
        store.set_user_lang("U1", "zh")  # WRITES: not behind the frozen PAPERS writer
        leases = Leases(store, lease=timedelta(seconds=30))
        assert leases.take("job")  # CLAIMS: nor a lease
        other_domains_s = time.monotonic() - started
        report = store.ingest_listing(parse_text(listing_text("Feed A", 0, 5), "a.txt"))
        ingest_s = time.monotonic() - started
        assert other_domains_s < 1.0, other_domains_s
        assert report.new == 5 and store.state() == (5, 5)
        assert 0.5 < ingest_s < 8, ingest_s  # waited for the server to end the frozen session, no longer
    finally:
        said = thaw(frozen)
        store.close()
    assert said.startswith("failed: OperationalError") and frozen.returncode == 1
    check = open_store(postgres_url)
    assert check.read("SELECT value FROM meta WHERE key = 'frozen'") == []  # none of it landed
    check.close()


def test_a_writer_behind_a_frozen_one_fails_clearly_within_the_lock_timeout(postgres_url):
    """With the server's idle timeout off for the frozen session, a writer queued behind it is not
    held for ever: `lock_timeout` (1 s here) fails it as the store unavailable; once the frozen
    process goes on, writes go on."""
    store = open_store(with_options(postgres_url, "lock_timeout=1s"))  # (opening writes the schema: before the freeze)
    frozen = hold_frozen(with_options(postgres_url, "idle_in_transaction_session_timeout=0"), WRITES, sleep_s=1.0)
    try:
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="lock timeout") as failed:
            store.set_user_lang("U1", "zh")
        waited = time.monotonic() - started
        assert 0.8 < waited < 5, waited and is_store_unavailable(failed.value)
        assert store.ingest_listing(parse_text(listing_text("Feed A", 0, 2), "a.txt")).new == 2  # PAPERS meanwhile
    finally:
        said = thaw(frozen)
    try:
        assert said == "committed"
        store.set_user_lang("U1", "zh")
        assert store.get_user_lang("U1") == "zh"
    finally:
        store.close()


# -- leases ------------------------------------------------------------------------------------


def test_leases_compare_the_databases_clock_not_the_machines(postgres_url):
    """An instance whose machine clock runs 10 minutes fast neither sees a live lease as
    expired nor writes expiries 10 minutes late: both read the database's clock."""
    fast = PostgresStore(postgres_url, machine_clock=lambda: system_clock() + timedelta(minutes=10))
    right = open_store(postgres_url)
    try:
        database = fast.database_time()
        lease_clock = fast.shared_clock(system_clock)
        assert abs(lease_clock() - database) < timedelta(seconds=2)
        assert fast.shared_clock(FakeClock(datetime(2026, 1, 1, tzinfo=UTC))) is not lease_clock  # a test's clock is kept
        ours, theirs = Leases(right, lease=timedelta(minutes=2)), Leases(fast, lease=timedelta(minutes=2))
        assert ours.take("arxiv") and not theirs.take("arxiv")  # by its own clock the lease ran out 8 minutes ago
        expires = right.read("SELECT expires_at FROM work_claims WHERE name = 'arxiv'")[0][0]
        assert abs(datetime.fromisoformat(expires) - (database + timedelta(minutes=2))) < timedelta(seconds=5)
    finally:
        fast.close()
        right.close()


def test_work_whose_lease_was_lost_is_refused_its_next_write(database_location):
    """A lease that ran out while its work went on (the instance frozen, its renewals late):
    another instance takes the work over, and the first one's next write is refused, so it
    stops instead of storing beside the new holder."""
    store = open_store(database_location)
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    first = Leases(store, holder="first", lease=timedelta(minutes=2), clock=clock)
    other = open_store(database_location)  # another instance's store
    second = Leases(other, holder="second", lease=timedelta(minutes=2), clock=clock)
    written: list[str] = []

    def work() -> str:
        store.ingest_listing(parse_text(listing_text("Feed A", 0, 2), "a.txt"))  # while the lease holds
        written.append("first file")
        clock.advance(minutes=3)  # frozen past the lease
        assert second.take("inbox")
        store.ingest_listing(parse_text(listing_text("Feed B", 10, 2), "b.txt"))
        written.append("second file")
        return "done"

    try:
        assert first.run("inbox", work) is None  # stopped, not done
        assert written == ["first file"] and store.state() == (2, 2)  # the second file was refused whole
        assert first.holder_of("inbox") == "second"  # and the claim stays the new holder's
        with first.held("other") as ours, pytest.raises(WorkClaimLost):
            assert ours
            clock.advance(minutes=3)  # ran out, nobody took it: still not ours to write under
            store.set_user_lang("U1", "zh")
        store.set_user_lang("U1", "en")  # outside the work, writes are as ever
    finally:
        store.close()
        other.close()


def skewed_instance(tmp_path: Path, url: str, name: str, skew: timedelta) -> tuple[Corpus, Clock]:
    """An instance on PostgreSQL whose machine's clock is `skew` off (its store's and its services')."""
    clock: Clock = lambda: system_clock() + skew  # noqa: E731
    settings = Settings(data_dir=tmp_path / name, seeds_dir=tmp_path / "no-seeds", database_url=url)
    corpus = Corpus(settings, PostgresStore(url, machine_clock=clock), PaperIndex(settings.index_dir))
    corpus.ensure_index()
    return corpus, clock


def feed_service(corpus: Corpus, clock: Clock, fake: FakeArxiv, lease: timedelta) -> SourceService:
    settings = Settings(data_dir=corpus.settings.data_dir, arxiv_api_url=fake.api_url, feeds_allow_private=ALL_NETWORKS)
    client = ArxivClient(fake.api_url, interval=0.0, retries=0, timeout=5)
    return SourceService(settings, corpus, clock=clock, arxiv_client=client, timeout=5, poll_lease=lease)


def test_a_feed_polls_lease_is_by_the_databases_clock_across_instances_whose_clocks_differ(postgres_url, tmp_path):
    """Two instances, one clock 5 minutes fast, the other 5 minutes slow: a poll held by an instance
    that died is taken over once its lease (2 s) has passed on the database's clock, by either
    (by its own clock the fast one would take it at once, the slow one only after 10 minutes);
    and a poll under way is never run a second time."""
    fake = FakeArxiv()
    fast, fast_clock = skewed_instance(tmp_path, postgres_url, "fast", timedelta(minutes=5))
    slow, slow_clock = skewed_instance(tmp_path, postgres_url, "slow", timedelta(minutes=-5))
    try:
        fake.pages["/feed.txt"] = (listing_text("Feed A", 0, 2), "")
        feeds = {"fast": feed_service(fast, fast_clock, fake, timedelta(seconds=2)),
                 "slow": feed_service(slow, slow_clock, fake, timedelta(seconds=2))}  # fmt: skip
        source = feeds["slow"].add(fake.url + "/feed.txt", added_by="U1")

        def taken_over(dead: str, other: str) -> float:
            """`dead` takes the poll's lease and dies; how long until `other` polls instead."""
            assert feeds[dead].sources.lease(source.id, feeds[dead].lease_clock(), timedelta(seconds=2))
            died = time.monotonic()
            assert feeds[other].poll(source).skipped == "busy"  # by the fast one's own clock, long expired
            while (result := feeds[other].poll(source)).skipped == "busy":
                assert time.monotonic() - died < 5, "the lease was not taken over"  # the slow one's: 10 minutes
                time.sleep(0.1)
            assert result.error == "" and result.skipped == ""
            return time.monotonic() - died

        fetches = lambda: len([r for r in fake.requests if r.path == "/feed.txt"])  # noqa: E731
        assert 0.9 < taken_over("slow", "fast") < 3.5 and fetches() == 1
        assert 0.9 < taken_over("fast", "slow") < 3.5 and fetches() == 2

        fake.delay["/feed.txt"] = 0.6
        running = threading.Thread(target=feeds["fast"].poll, args=(source,))
        running.start()
        time.sleep(0.2)
        assert feeds["slow"].poll(source).skipped == "busy"  # the fast one is polling it
        running.join()
        assert fetches() == 3
        assert slow.store.state()[0] == 2
    finally:
        fake.stop()
        fast.close()
        slow.close()


def test_arxivs_spacing_holds_across_instances_whose_clocks_differ(postgres_url, tmp_path):
    """arXiv's turns are taken in the ledger on the database's clock: an instance 5 minutes fast and
    one 5 minutes slow, asking in turn (as the claim moves between them), stay the interval
    apart, neither waiting minutes for the other's clock."""
    fake = FakeArxiv()
    clients = []
    stores = []
    try:
        for skew in (timedelta(minutes=5), timedelta(minutes=-5)):
            store = PostgresStore(postgres_url, machine_clock=lambda skew=skew: system_clock() + skew)
            stores.append(store)
            turn = shared_turns(Ledger(store), ARXIV_PLACE)
            clients.append(ArxivClient(fake.api_url, interval=0.4, retries=0, timeout=5, shared_turn=turn))
        fast_ledger, slow_ledger = Ledger(stores[0]), Ledger(stores[1])
        assert fast_ledger.reserve("api:test", 3.0) == 0.0
        assert 2.0 < slow_ledger.reserve("api:test", 3.0) <= 3.0  # the fast one's turn, 3 s from now by one clock
        started = time.monotonic()
        for client in clients + clients:
            client.query(search_query="cat:cs.CL")
        arrivals = [r.at for r in fake.api_requests()]
        assert len(arrivals) == 4 and time.monotonic() - started < 5
        assert min(b - a for a, b in zip(arrivals, arrivals[1:], strict=False)) > 0.35, arrivals
    finally:
        fake.stop()
        for store in stores:
            store.close()


# -- state() and removals --------------------------------------------------------------------


def test_state_is_the_count_and_counter_kept_in_meta_and_an_older_store_is_counted_once(database_location, tmp_path):
    store = open_store(database_location)
    store.ingest_listing(parse_text(listing_text("Feed A", 0, 6), "a.txt"))
    removed = store.remove_papers([p.id for p in store.newest(2)] + ["missing"])
    counted = store.read("SELECT COUNT(*), MAX(rev) FROM papers")[0]
    assert len(removed) == 2 and store.state() == (4, 7) and tuple(counted) == (4, 4)  # the removal took rev 7
    with store.transaction(PAPERS) as db:
        db.execute("DELETE FROM meta WHERE key = 'papers'")  # as a store written before the count was kept
    store.close()
    store = open_store(database_location)
    assert store.state() == (4, 7)
    store.close()


def test_a_removal_keeps_the_instance_that_made_it_ready_and_its_index_in_step(database_location, tmp_path, caplog):
    corpus = instance(tmp_path, database_location, "a")
    try:
        ingest(corpus, tmp_path, "a.txt", listing_text("Feed A", 0, 4, topic="Quantum Widgets"))
        assert corpus.remove_papers([p.id for p in corpus.store.newest(2)]) == 2
        assert corpus.search("quantum widgets").total == 2
        assert corpus.is_caught_up(grace_s=0) and corpus.follow() is None and corpus.ensure_index() is None
        assert "rebuild" not in caplog.text
    finally:
        corpus.close()
    reopened = instance(tmp_path, database_location, "a")  # a restart: the removal's rev is above the index's
    try:
        assert reopened.is_caught_up(grace_s=0) and reopened.search("quantum widgets").total == 2
        assert "rebuild" not in caplog.text
    finally:
        reopened.close()


def test_a_removal_on_one_instance_is_deleted_in_place_on_the_other(postgres_url, tmp_path, caplog):
    """No rebuild on the follower (it was one, and 503 for its length): the tombstones' rev tells it
    what to delete; a paper removed and then stored again is back on both."""
    first, second = instance(tmp_path, postgres_url, "a"), instance(tmp_path, postgres_url, "b")
    try:
        ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 4, topic="Quantum Widgets"))
        assert second.follow() is not None and second.search("quantum widgets").total == 4
        gone = first.store.newest(1)[0]
        assert first.remove_papers([gone.id]) == 1
        assert first.search("quantum widgets").total == 3 and first.is_caught_up(grace_s=0)
        assert not second.is_caught_up(grace_s=0)
        caplog.clear()
        assert "removed 1" in (second.follow() or "")
        assert "rebuild" not in caplog.text
        assert second.search("quantum widgets").total == 3 and second.is_caught_up(grace_s=0) and second.follow() is None
        ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 4, topic="Quantum Widgets"))  # stored again
        first.remove_papers([first.store.newest(2)[1].id])  # and another removed after
        assert second.follow() is not None and "rebuild" not in caplog.text
        assert second.search("quantum widgets").total == first.search("quantum widgets").total == 3
        assert gone.id in {h.paper.id for h in second.search("quantum widgets").hits}
        assert second.is_caught_up(grace_s=0) and first.is_caught_up(grace_s=0)
    finally:
        first.close()
        second.close()


# -- tombstones pruned ----------------------------------------------------------------------


def test_prune_removes_old_tombstones_only_and_keeps_those_above_the_newest_paper(database_location):
    now = ["2026-11-01T08:00:00+00:00"]
    store = open_store(database_location, clock=lambda: now[0])
    try:
        store.ingest_listing(parse_text(listing_text("Feed A", 0, 6), "a.txt"))
        old = [p.id for p in store.newest(6)[3:5]]
        store.remove_papers(old)  # rev 7, on Nov 1
        old_rev = store.state()[1]
        now[0] = "2026-11-20T08:00:00+00:00"
        recent = store.newest(1)[0].id
        store.remove_papers([recent])  # rev 8, on Nov 20
        store.ingest_listing(parse_text(listing_text("Feed B", 20, 1), "b.txt"))  # rev 9: the newest paper
        assert store.pruned_rev() == 0
        assert store.prune_tombstones("2026-11-13T08:00:00+00:00") == 2
        assert {i for i, _ in store.removed_since(0)} == {recent} and store.pruned_rev() == old_rev
        assert store.prune_tombstones("2026-11-13T08:00:00+00:00") == 0 and store.pruned_rev() == old_rev
        now[0] = "2026-11-01T08:00:00+00:00"
        newest = store.newest(1)[0].id
        store.remove_papers([newest])  # the newest paper now one of Feed A's, below both tombstones left
        assert store.prune_tombstones("2026-11-30T08:00:00+00:00") == 0  # old enough, but kept
        assert {i for i, _ in store.removed_since(0)} == {recent, newest} and store.pruned_rev() == old_rev
    finally:
        store.close()


def test_removals_are_dated_by_the_clock_the_prune_compares_on_instances_whose_clocks_differ(database_location, tmp_path):
    """Two instances, one clock 5 minutes fast, the other 5 minutes slow (on SQLite: one instance,
    its machine's clock): each one's removals are dated by the database's clock, the one the prune
    compares with, so either instance's prune keeps a tombstone made seconds ago (by the slow
    one's own clock it was made 5 minutes ago) and prunes both once past the horizon (the fast
    one's was made 5 minutes ahead). A removed subscription's undo copy is dated the same way."""
    postgres = database_location.startswith("postgresql://")
    if postgres:
        fast, fast_clock = skewed_instance(tmp_path, database_location, "fast", timedelta(minutes=5))
        slow, slow_clock = skewed_instance(tmp_path, database_location, "slow", timedelta(minutes=-5))
    else:
        fast = slow = instance(tmp_path, database_location, "a")
        fast_clock = slow_clock = system_clock
    try:
        fast.store.ingest_listing(parse_text(listing_text("Feed A", 0, 3), "a.txt"))
        newest = fast.store.newest(3)
        fast.store.remove_papers([newest[0].id])
        slow.store.remove_papers([newest[1].id])
        fast.store.ingest_listing(parse_text(listing_text("Feed B", 10, 1), "b.txt"))  # the newest paper, above both
        database = fast.store.shared_clock(fast_clock)()
        dated = [datetime.fromisoformat(row[0]) for row in fast.store.read("SELECT removed_at FROM paper_tombstones")]
        assert len(dated) == 2 and all(abs(at - database) < timedelta(seconds=5) for at in dated), (dated, database)
        assert prune_tombstones(slow, timedelta(minutes=2), clock=slow_clock) == 0  # removed seconds ago: kept
        assert prune_tombstones(fast, timedelta(minutes=2), clock=fast_clock) == 0
        assert len(slow.store.removed_since(0)) == 2
        ahead = timedelta(minutes=-1)  # a horizon a minute from now: as when the retention has passed
        assert prune_tombstones(slow, ahead, clock=slow_clock) == 2 and fast.store.removed_since(0) == []

        subscriptions = SubscriptionStore(fast.store, clock=fast_clock)  # what the fast instance's services build
        sub, _ = subscriptions.save(team_id="T1", kind="user", place_id="U1", user_id="U1", lang="en", hour=9, minute=0,
                                    timezone="UTC")  # fmt: skip
        assert subscriptions.delete(sub.id, removed_by="U1")
        removed_at = fast.store.read("SELECT removed_at FROM removed_subscriptions")[0][0]
        assert abs(datetime.fromisoformat(removed_at) - database) < timedelta(seconds=5), (removed_at, database)
    finally:
        fast.close()
        if slow is not fast:
            slow.close()


def test_a_follower_behind_the_pruned_tombstones_rebuilds_and_an_up_to_date_one_does_not(postgres_url, tmp_path, caplog):
    """b missed a removal whose tombstone was pruned since: it is not ready (no grace) until it has
    rebuilt, then holds exactly the store's papers, the removed one not found. c, up to date when
    the prune ran, follows the next change in place, restarted too."""
    first, behind, current = (instance(tmp_path, postgres_url, name) for name in ("a", "b", "c"))
    try:
        ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 5, topic="Quantum Widgets"))
        assert behind.follow() is not None and behind.search("quantum widgets").total == 5
        gone = first.store.newest(1)[0]
        first.remove_papers([gone.id])
        ingest(first, tmp_path, "b.txt", listing_text("Feed B", 10, 2, topic="Quantum Widgets"))
        assert current.follow() is not None and current.search("quantum widgets").total == 6
        pruned = first.store.prune_tombstones(to_iso(system_clock() + timedelta(days=1)))
        assert pruned == 1 and first.store.removed_since(0) == []
        assert not behind.is_caught_up()  # with the default grace: it must rebuild first
        assert current.is_caught_up(grace_s=0) and first.is_caught_up(grace_s=0)
        caplog.clear()
        assert "rebuilding" in (behind.follow() or "")
        stored = {p.id for p in first.store.iter_papers()}
        assert {h.paper.id for h in behind.search("quantum widgets", per_page=50).hits} == stored and len(stored) == 6
        assert gone.id not in stored and behind.is_caught_up(grace_s=0) and behind.follow() is None
        first.remove_papers([first.store.newest(1)[0].id])  # a later removal: followed in place
        caplog.clear()
        assert "removed 1" in (current.follow() or "") and "rebuild" not in caplog.text
        current.close()
        current = instance(tmp_path, postgres_url, "c")  # restarted: its index's rev is its newest paper's
        assert current.is_caught_up(grace_s=0) and "rebuild" not in caplog.text
        assert {h.paper.id for h in current.search("quantum widgets", per_page=50).hits} == {
            p.id for p in first.store.iter_papers()
        }
    finally:
        first.close()
        behind.close()
        current.close()


def test_after_the_newest_papers_are_removed_past_a_prune_a_restart_follows_an_up_to_date_index_in_place(
    database_location, tmp_path, caplog
):
    """The newest papers all removed after a prune: the newest paper's rev (what a rebuilt or
    restarted index knows as its own) is below the pruned horizon. An index that is up to date
    is followed in place at every restart, not rebuilt; one that missed the pruned removal
    (it still holds the removed paper) is rebuilt, and then holds the store's papers."""
    first = instance(tmp_path, database_location, "a")
    location = first.settings.database_location
    behind = None
    try:
        ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 5, topic="Quantum Widgets"))  # revs 1-5
        if location.startswith("postgresql://"):
            behind = instance(tmp_path, location, "b")  # up to date now, then stopped
            behind.close()
        by_rev = sorted(first.store.iter_papers(), key=lambda p: p.rev)
        first.remove_papers([by_rev[3].id])  # rev 6: b misses it
        ingest(first, tmp_path, "b.txt", listing_text("Feed B", 10, 1, topic="Quantum Widgets"))  # rev 7
        assert first.store.prune_tombstones(to_iso(system_clock() + timedelta(days=1))) == 1
        assert first.store.pruned_rev() == 6
        first.remove_papers([first.store.newest(1)[0].id])  # rev 8: the newest paper is rev 5 again
        first.reindex()  # (a rebuilt index: its rev is its newest paper's, 5, below the horizon)
        stored = {p.id for p in first.store.iter_papers()}
        assert len(stored) == 4 and first.index.state() == (4, 5)
        for _ in range(2):  # restarted, twice: each time in place
            first.close()
            caplog.clear()
            first = instance(tmp_path, database_location, "a")
            assert "rebuil" not in caplog.text, caplog.text
            assert first.is_caught_up(grace_s=0) and first.follow() is None
            assert {h.paper.id for h in first.search("quantum widgets", per_page=50).hits} == stored
        if behind is not None:
            caplog.clear()
            behind = instance(tmp_path, location, "b")  # its index holds the paper removed at rev 6
            assert "older than the tombstones pruned up to rev 6; rebuilding" in caplog.text and behind.index.state() == (4, 5)
            assert {h.paper.id for h in behind.search("quantum widgets", per_page=50).hits} == stored
            assert behind.is_caught_up(grace_s=0)
    finally:
        first.close()
        if behind is not None:
            behind.close()


def test_the_prune_job_runs_on_the_instance_that_claims_it_with_the_retention_setting(postgres_url, tmp_path):
    """The scheduled prune is claimed like other work: while another instance holds its claim it
    does nothing here; then it prunes what is older than PAPERBOT_TOMBSTONE_RETENTION_DAYS."""
    first, other = instance(tmp_path, postgres_url, "a"), instance(tmp_path, postgres_url, "b")
    clock = FakeClock(system_clock())
    started = []
    try:
        ingest(first, tmp_path, "a.txt", listing_text("Feed A", 0, 3))
        first.remove_papers([first.store.newest(1)[0].id])
        ingest(first, tmp_path, "b.txt", listing_text("Feed B", 10, 1))
        for corpus in (first, other):
            settings = replace(corpus.settings, arxiv_enabled=False, tombstone_retention_days=2)
            services = build_services(settings, corpus, poster=RecordingPoster(), directory=QuietDirectory(),
                                      clock=clock, scheduler=ManualScheduler(clock))  # fmt: skip
            start_services(services, background=True)
            started.append(services)
        prune = [dict((job_id, job) for job_id, job, _ in s.scheduler.background_jobs)[PRUNE_JOB] for s in started]
        clock.advance(days=1)
        assert prune[0]() == 0 and len(first.store.removed_since(0)) == 1  # kept 2 days
        clock.advance(days=2)
        assert started[1].leases is not None
        with started[1].leases.held(PRUNE_CLAIM) as ours:
            assert ours and prune[0]() is None  # the other instance is pruning
        assert len(first.store.removed_since(0)) == 1
        assert prune[0]() == 1 and first.store.removed_since(0) == [] and first.store.pruned_rev() == 4
    finally:
        for services in started:
            stop_services(services)
        first.close()
        other.close()


def test_digest_claims_and_heartbeats_use_the_databases_clock_on_postgresql(postgres_url, tmp_path):
    """Deliveries' heartbeats (written by one instance, judged stale by another) and the digest
    service's staleness cut-off read one clock: the database's; a test's fake clock is kept."""
    corpus = instance(tmp_path, postgres_url, "a")
    try:
        live = build_services(corpus.settings, corpus, poster=RecordingPoster(), directory=QuietDirectory())
        database = corpus.store.shared_clock(system_clock)
        assert live.subscriptions._clock == database and live.digests.clock == database
        assert live.leases is not None and live.leases._clock == database
        fake = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
        tested = build_services(corpus.settings, corpus, poster=RecordingPoster(), directory=QuietDirectory(), clock=fake)
        assert tested.subscriptions._clock is fake and tested.digests.clock is fake
    finally:
        corpus.close()
