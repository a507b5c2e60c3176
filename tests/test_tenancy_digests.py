"""Digests per workspace (issue 25): one workspace's subscriptions never reach another's.

Over real HTTP with Slack-signed requests (the fake Slack on 127.0.0.1): a second workspace
lists, changes, removes, restores and previews nothing of the first's, whether it types the
same channel id or is the same person (Enterprise Grid shares user ids); the CLI reads one
workspace's at a time. A workspace that uninstalled gets no digest and it is recorded why;
its reinstall resumes it without a flood. Background posts use each workspace's own token,
and each workspace's Slack quota is its own in the shared ledger. A store with pre-tenancy
subscriptions migrates in place on SQLite and PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from datetime import UTC, date, datetime, timedelta

import pytest
from digest_support import FakeClock, RecordingPoster, ingest, listing_text, open_corpus, service_for
from fake_slack import FakeSlack
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender, all_text, button_values
from slack_sdk.oauth.installation_store import Installation
from test_digest import run_cli

from bot.config import Settings
from bot.digests.scheduler import ManualScheduler
from bot.digests.service import BUSY_RETRY
from bot.digests.subscriptions import SubscriptionStore
from bot.i18n import t
from bot.services import start_services
from bot.slack.app import build_app, slack_services
from bot.slack.client import METHOD_PACES, Patience
from bot.slack.http import start_http_server
from bot.slack.oauth import StoreInstallationStore
from bot.slack.tokens import WorkspaceClients
from bot.slack.values import Action
from bot.store import tenancy
from bot.store.claims import Ledger
from bot.store.database import apply_schema, open_store
from bot.store.installs import Installations

FIRST, SECOND = "T0001", "T0002"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """paperbot in token mode over HTTP, its fake Slack, a corpus and a clock at 08:00 UTC."""
    tmp = tmp_path_factory.mktemp("tenancy-digests")
    fake = FakeSlack().start()
    corpus = open_corpus(tmp / "data")
    ingest(corpus, tmp, "seed.txt", listing_text("Seed Feed（种子）", 1000, 12, topic="Speculative Decoding"))
    settings = Settings(
        data_dir=tmp / "data", slack_bot_token=BOT_TOKEN, slack_signing_secret=SIGNING_SECRET,
        slack_api_base_url=fake.api_url.rstrip("/"), timezone="UTC", ack_budget_ms=10_000,
    )  # fmt: skip
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    services = slack_services(settings, corpus, clock=clock, scheduler=ManualScheduler(clock))
    start_services(services)
    server = start_http_server(build_app(settings, services), corpus.is_ready)
    world = dataclasses.make_dataclass("World", ["fake", "corpus", "services", "clock", "server", "tmp"])(
        fake, corpus, services, clock, server, tmp
    )
    yield world
    server.shutdown()
    services.scheduler.shutdown()
    corpus.close()
    fake.stop()


@pytest.fixture
def w(world):
    world.fake.reset()
    world.clock.set(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    for sub in world.services.subscriptions.all():
        world.services.subscriptions.delete(sub.id)
        world.services.scheduler.sync(sub.id)
    return world


@pytest.fixture
def slack(w):
    sender = SlackSender(w.server.url, w.fake)
    yield sender
    sender.close()


def ack(body) -> str:
    assert body["response_type"] == "ephemeral"
    return all_text(body["blocks"])


def test_a_second_workspace_sees_lists_changes_and_removes_nothing_of_the_firsts(w, slack):
    """The same channel id and the same person, typed from another workspace: nothing of the first's."""
    _, body = slack.command("subscribe zh 08:30 decoding", user_id="U1", channel_id="C_SAME", team_id=FIRST)
    assert "订阅" in ack(body) or "Subscribed" in ack(body)
    _, body = slack.command("subscribe", user_id="U1", channel_id="D_U1", team_id=FIRST)  # their own DM digest
    theirs = w.services.subscriptions.all(FIRST)
    assert sorted(s.kind for s in theirs) == ["channel", "user"] and all(s.team_id == FIRST for s in theirs)

    # The second workspace lists nothing, in the channel and in a DM.
    _, body = slack.command("subscriptions", user_id="U1", channel_id="C_SAME", team_id=SECOND)
    assert "08:30" not in ack(body) and "decoding" not in ack(body)
    _, body = slack.command("subscriptions", user_id="U1", channel_id="D_U1", team_id=SECOND)
    assert "C_SAME" not in ack(body) and "08:30" not in ack(body)
    # Removes nothing, previews nothing of it (the sample a place with no digest gets).
    _, body = slack.command("unsubscribe", user_id="U1", channel_id="C_SAME", team_id=SECOND)
    assert "decoding" not in ack(body) and len(w.services.subscriptions.all(FIRST)) == 2
    _, body = slack.command("digest", user_id="U1", channel_id="C_SAME", team_id=SECOND)
    assert t("digest.preview_no_subscription", "en") in ack(body)  # the sample a place with no digest gets
    # Subscribing there makes the second workspace's own digest; the first's is unchanged.
    _, body = slack.command("subscribe en 10:00", user_id="U1", channel_id="C_SAME", team_id=SECOND)
    (mine,) = w.services.subscriptions.all(SECOND)
    first_channel = w.services.subscriptions.for_place(FIRST, "channel", "C_SAME")
    assert (mine.hour, mine.lang, mine.filter_text) == (10, "en", "")
    assert (first_channel.hour, first_channel.minute, first_channel.lang, first_channel.filter_text) == (8, 30, "zh", "decoding")
    assert mine.id != first_channel.id

    # The first still sees exactly its own.
    _, body = slack.command("subscriptions", user_id="U1", channel_id="D_U1", team_id=FIRST)
    assert "08:30" in ack(body) and "10:00" not in ack(body)


def test_an_undo_and_a_home_button_work_only_in_their_own_workspace(w, slack):
    _, body = slack.command("subscribe", user_id="U2", channel_id="C_UNDO", team_id=FIRST)
    (sub,) = w.services.subscriptions.all(FIRST)
    _, body = slack.command("unsubscribe", user_id="U2", channel_id="C_UNDO", team_id=FIRST)
    (undo,) = button_values(body["blocks"], Action.UNSUBSCRIBE_UNDO)
    # The same person id clicking the Undo from another workspace restores nothing.
    slack.click(Action.UNSUBSCRIBE_UNDO, undo, user_id="U2", channel_id="C_UNDO", team_id=SECOND)
    (told,) = w.fake.wait_for("response")
    assert w.services.subscriptions.all() == [] and "restored" not in told.args["text"].lower()
    assert w.services.subscriptions.removed_by(SECOND, sub.id) is None
    assert w.services.subscriptions.removed_by(FIRST, sub.id) == "U2"
    slack.click(Action.UNSUBSCRIBE_UNDO, undo, user_id="U2", channel_id="C_UNDO", team_id=FIRST)
    w.fake.wait_for("response", 2)
    (back,) = w.services.subscriptions.all()
    assert back.team_id == FIRST and back.place_id == "C_UNDO"

    # App Home: the second workspace's Home lists nothing of it, and its button (a forged
    # value with the first's id) removes nothing.
    w.fake.reset()
    slack.event({"type": "app_home_opened", "user": "U2", "channel": "D_HOME", "tab": "home"}, team_id=SECOND)
    (published,) = w.fake.wait_for("views.publish")
    assert f"home_sub:{back.id}" not in json.dumps(published.args["view"])
    value = json.dumps({"id": str(back.id)})
    slack.click(Action.HOME_UNSUBSCRIBE, value, user_id="U2", container="home", team_id=SECOND)
    w.fake.wait_for("views.publish", 2)
    assert [s.id for s in w.services.subscriptions.all()] == [back.id]
    slack.event({"type": "app_home_opened", "user": "U2", "channel": "D_HOME", "tab": "home"}, team_id=FIRST)
    published = w.fake.wait_for("views.publish", 3)[-1]
    assert f"home_sub:{back.id}" in json.dumps(published.args["view"])  # the first's Home lists it
    slack.click(Action.HOME_UNSUBSCRIBE, value, user_id="U2", container="home", team_id=FIRST)
    w.fake.wait_for("views.publish", 4)
    assert w.services.subscriptions.all() == []


def test_the_bot_joining_a_channel_resumes_only_that_workspaces_digest(w, slack):
    w.fake.channels["C_JOIN"] = {"is_private": True, "is_member": False}
    try:
        for team in (FIRST, SECOND):
            slack.command("subscribe", user_id="U3", channel_id="C_JOIN", team_id=team)
        assert [s.is_active for s in w.services.subscriptions.all()] == [False, False]
        slack.event({"type": "member_joined_channel", "user": "UBOT", "channel": "C_JOIN"}, team_id=SECOND)
        deadline = time.monotonic() + 5
        while not w.services.subscriptions.for_place(SECOND, "channel", "C_JOIN").is_active and time.monotonic() < deadline:
            time.sleep(0.05)
        assert w.services.subscriptions.for_place(SECOND, "channel", "C_JOIN").is_active
        assert not w.services.subscriptions.for_place(FIRST, "channel", "C_JOIN").is_active
    finally:
        del w.fake.channels["C_JOIN"]


def test_the_cli_reads_one_workspaces_subscriptions(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "a.txt", listing_text("Feed（订阅）", 1, 5))
    subs = SubscriptionStore(corpus.store)
    options = {"user_id": "U1", "lang": "zh", "hour": 9, "minute": 0, "timezone": "UTC"}
    first, _ = subs.save(team_id=FIRST, kind="channel", place_id="C1", filter_text="Study", **options)
    with corpus.store.transaction() as db:  # its papers are new to it
        db.execute("UPDATE subscriptions SET cursor_seq = 0 WHERE id = ?", (first.id,))
    tenancy.adopt(corpus.store, FIRST)  # the home workspace: the CLI's default
    corpus.close()

    listed = json.loads(run_cli(tmp_path / "data", "digest", "--subscriptions", "--json").stdout)
    assert listed["team"] == FIRST and [r["place_id"] for r in listed["subscriptions"]] == ["C1"]
    listed = json.loads(run_cli(tmp_path / "data", "digest", "--subscriptions", "--team", SECOND, "--json").stdout)
    assert listed == {"team": SECOND, "subscriptions": []}

    proc = run_cli(tmp_path / "data", "digest", "--channel", "C1", "--json")
    assert proc.returncode == 0, proc.stderr
    preview = json.loads(proc.stdout)
    assert preview["subscription"] == first.id and preview["papers"] == 5 and "研究" in json.dumps(preview, ensure_ascii=False)
    proc = run_cli(tmp_path / "data", "digest", "--channel", "C1", "--team", SECOND, "--json")
    assert proc.returncode == 1 and f"no digest for channel C1 in workspace {SECOND}" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


# -- installs from a link: paused workspaces, each workspace's token ---------------------------------------


@pytest.fixture
def oauth_world(tmp_path, fake_slack):
    """OAuth mode (a client id and secret, no bot token): two installed workspaces, A and B."""
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "seed.txt", listing_text("Seed（种子）", 1, 6))
    settings = Settings(
        data_dir=tmp_path / "data", slack_signing_secret=SIGNING_SECRET, slack_client_id="1234.5678",
        slack_client_secret="test-client-secret", slack_api_base_url=fake_slack.api_url.rstrip("/"), timezone="UTC",
    )  # fmt: skip
    installations = Installations(corpus.store)
    for team in ("TA", "TB"):
        install(installations, team)
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    services = slack_services(settings, corpus, clock=clock, scheduler=ManualScheduler(clock))
    world = dataclasses.make_dataclass("OAuthWorld", ["fake", "corpus", "services", "clock", "installations", "tmp"])(
        fake_slack, corpus, services, clock, installations, tmp_path
    )
    yield world
    corpus.close()


def install(installations: Installations, team: str, token: str | None = None, **rotation) -> None:
    """Save `team`'s installation as Bolt does after the OAuth flow (tests/test_oauth.py runs the flow itself)."""
    StoreInstallationStore(installations).save(
        Installation(app_id="A0001", team_id=team, team_name=f"Lab {team}", user_id="U_INSTALLER",
                     bot_token=token or f"xoxb-{team.lower()}", bot_id=f"B{team}", bot_user_id=f"UBOT{team}",
                     bot_scopes="chat:write", **rotation)
    )  # fmt: skip


def subscribe(world, team: str, kind: str, place_id: str, **kwargs):
    sub, _ = world.services.subscriptions.save(
        team_id=team, kind=kind, place_id=place_id, user_id="U1", lang="en", hour=9, minute=0, timezone="UTC", **kwargs
    )
    with world.corpus.store.transaction() as db:  # every seed paper is new to it
        db.execute("UPDATE subscriptions SET cursor_seq = 0 WHERE id = ?", (sub.id,))
    return sub


def tokens_by_channel(fake) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for call in fake.calls_to("chat.postMessage"):
        seen.setdefault(call.args["channel"], set()).add(call.headers["Authorization"])
    return seen


def test_each_workspaces_digest_goes_out_with_its_own_token(oauth_world):
    w = oauth_world
    channel_a, dm_b = subscribe(w, "TA", "channel", "C_A"), subscribe(w, "TB", "user", "U_B")
    nobody = subscribe(w, "T_GONE", "channel", "C_GONE")  # a workspace with no installation at all
    w.clock.set(datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    assert [w.services.digests.run(s.id).status for s in (channel_a, dm_b, nobody)] == ["sent", "sent", "failed"]
    assert tokens_by_channel(w.fake) == {"C_A": {"Bearer xoxb-ta"}, "DU_B": {"Bearer xoxb-tb"}}
    (opened,) = w.fake.calls_to("conversations.open")  # B's DM was opened with B's token too
    assert opened.headers["Authorization"] == "Bearer xoxb-tb" and opened.args["users"] == "U_B"
    assert w.services.subscriptions.delivery(nobody.id, "2026-12-01").error == "not_installed"
    assert not [c for c in w.fake.calls if c.args.get("channel") == "C_GONE"]  # nothing sent with another's token
    # Lookups outside a request (the directory) ask with the workspace's token as well.
    w.services.directory.profile("U_B", team_id="TB")
    assert w.fake.calls_to("users.info")[-1].headers["Authorization"] == "Bearer xoxb-tb"
    assert w.services.directory.cannot_post("C_A", team_id="TA") == ""
    assert w.fake.calls_to("conversations.info")[-1].headers["Authorization"] == "Bearer xoxb-ta"


def test_the_home_workspace_keeps_its_bot_token_when_links_are_added(oauth_world):
    """Token mode plus installs from a link: SLACK_BOT_TOKEN still posts its own workspace's
    digests (the rows adopted by its team), never another uninstalled workspace's."""
    w = oauth_world
    tenancy.adopt(w.corpus.store, "THOME")
    w.services.digests.poster.clients.settings = dataclasses.replace(w.services.settings, slack_bot_token=BOT_TOKEN)
    home, stranger = subscribe(w, "THOME", "channel", "C_HOME"), subscribe(w, "TX", "channel", "C_X")
    w.clock.set(datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    assert [w.services.digests.run(s.id).status for s in (home, stranger)] == ["sent", "failed"]
    assert tokens_by_channel(w.fake) == {"C_HOME": {f"Bearer {BOT_TOKEN}"}}


def test_a_rotated_token_is_refreshed_before_a_background_post(oauth_world):
    w = oauth_world
    # A rotating token that expires within the rotation window (120 minutes).
    install(w.installations, "TA", "xoxe.xoxb-old", bot_refresh_token="xoxe-1-refresh", bot_token_expires_in=60)
    w.fake.add_refresh("xoxe-1-refresh", "TA", "xoxe.xoxb-new", next_refresh="xoxe-1-next", expires_in=43200)
    sub = subscribe(w, "TA", "channel", "C_ROT")
    w.clock.set(datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    assert w.services.digests.run(sub.id).status == "sent"
    assert tokens_by_channel(w.fake) == {"C_ROT": {"Bearer xoxe.xoxb-new"}}
    assert w.installations.find(None, "TA")["bot_token"] == "xoxe.xoxb-new"  # kept for the requests too


def test_a_paused_workspace_posts_nothing_says_why_and_resumes_without_a_flood(oauth_world):
    w = oauth_world
    a, b = subscribe(w, "TA", "channel", "C_A"), subscribe(w, "TB", "channel", "C_B")
    w.installations.remove(None, "TB", reason="app_uninstalled")  # as the app_uninstalled event does
    w.clock.set(datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    assert w.services.digests.run(a.id).status == "sent"
    outcome = w.services.digests.run(b.id)
    assert (outcome.status, outcome.error) == ("skipped", "workspace paused: app_uninstalled")
    assert set(tokens_by_channel(w.fake)) == {"C_A"}  # nothing for B, with any token
    skipped = w.services.subscriptions.delivery(b.id, "2026-12-01")
    assert (skipped.status, skipped.error, skipped.team_id) == ("skipped", "workspace paused: app_uninstalled", "TB")
    assert w.services.digests.run(b.id).status == "skipped"  # a second run records nothing new
    assert len(w.services.subscriptions.deliveries(b.id)) == 1

    # Three more days uninstalled, with papers arriving each day.
    for day, start in ((2, 100), (3, 200), (4, 300)):
        ingest(w.corpus, w.tmp, f"day{day}.txt", listing_text("Seed（种子）", start, 3))
        w.clock.set(datetime(2026, 12, day, 9, 1, tzinfo=UTC))
        assert w.services.digests.run(b.id).status == "skipped"
    # The reinstall (Bolt saves the installation) resumes it; papers of one day arrive.
    install(w.installations, "TB", "xoxb-tb-again")
    ingest(w.corpus, w.tmp, "day5.txt", listing_text("Seed（种子）", 500, 2))
    w.fake.reset()
    w.clock.set(datetime(2026, 12, 5, 9, 1, tzinfo=UTC))
    outcome = w.services.digests.run(b.id)
    assert (outcome.status, outcome.papers) == ("sent", 2)  # the day's papers, not the 9 missed plus 6 older
    assert tokens_by_channel(w.fake) == {"C_B": {"Bearer xoxb-tb-again"}}
    statuses = [d.status for d in w.services.subscriptions.deliveries(b.id)]
    assert statuses == ["skipped"] * 4 + ["sent"]


# -- Slack's limits per workspace ---------------------------------------------------------------------------


def test_one_workspaces_fan_out_does_not_hold_back_anothers_turns(tmp_path):
    """A's forty conversations.open (a DM digest each) take A's turns only: B's first goes at once."""
    store = open_store(tmp_path / "ledger.sqlite3")
    now = [1000.0]
    ledger = Ledger(store, now=lambda: now[0], sleep=lambda s: None)
    pace = METHOD_PACES["conversations.open"]
    waits_a = [ledger.wait_turn("", "conversations.open", method_spacing_s=pace.spacing_s, method_burst_s=pace.burst_s,
                                team_id="TA") for _ in range(40)]  # fmt: skip
    assert waits_a[-1] > 40 * pace.spacing_s * 0.8  # A is paced within its own tier
    b = ledger.wait_turn("", "conversations.open", method_spacing_s=pace.spacing_s, method_burst_s=pace.burst_s, team_id="TB")
    assert b == 0  # B's first call is not queued behind A's forty
    # A Retry-After told to A holds A's method, not B's; a channel's slot is per workspace too.
    ledger.hold("method:TA:chat.postMessage", 30)
    assert ledger.wait_turn("C1", "chat.postMessage", team_id="TB") == 0
    assert ledger.wait_turn("C1", "chat.postMessage", team_id="TA") == pytest.approx(30)
    # Token mode keeps the plain names: one workspace, one quota, as before.
    assert ledger.wait_turn("C9", "chat.postMessage") == 0
    assert {r[0] for r in store.read("SELECT place FROM slack_ledger")} >= {"channel:C9", "rate:TA:conversations.open"}
    store.close()


def post_dm_digests(world, subs, *, last_after: float = 0.5) -> dict[int, float]:
    """Run `subs`' digests at once, one thread each (as the scheduler's pool does), the last one
    `last_after` seconds later (it reaches the ledger after the others took their turns); how
    long each took from its own start until it was posted."""
    done: dict[int, float] = {}

    def run(sub) -> None:
        started = time.monotonic()
        assert world.services.digests.run(sub.id).status == "sent"
        done[sub.id] = time.monotonic() - started

    threads = [threading.Thread(target=run, args=(s,)) for s in subs]
    for thread in threads[:-1]:
        thread.start()
    time.sleep(last_after)
    threads[-1].start()
    for thread in threads:
        thread.join(timeout=120)
    return done


def test_a_busy_workspaces_digests_do_not_delay_anothers(tmp_path, fake_slack):
    """Workspace A has 14 DM digests due at 09:00 (each a conversations.open, Slack's tier 3:
    a burst of 5, then one every 1.33 s); B has one. With the shared ledger keyed by
    workspace, B's digest goes out at once instead of after A's queue (~12 s before)."""
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "seed.txt", listing_text("Seed（种子）", 1, 3))
    settings = Settings(
        data_dir=tmp_path / "data", slack_signing_secret=SIGNING_SECRET, slack_client_id="1234.5678",
        slack_client_secret="test-client-secret", slack_api_base_url=fake_slack.api_url.rstrip("/"), timezone="UTC",
    )  # fmt: skip
    installations = Installations(corpus.store)
    for team in ("TA", "TB"):
        install(installations, team)
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    services = slack_services(settings, corpus, clock=clock, scheduler=ManualScheduler(clock))
    # The shared ledger, as several instances have it (on this SQLite store: the same rows).
    ledger = Ledger(corpus.store)
    services.digests.poster.clients = WorkspaceClients(settings, Patience.BACKGROUND, ledger=ledger, installations=installations)
    world = dataclasses.make_dataclass("W", ["corpus", "services"])(corpus, services)
    busy = [subscribe(world, "TA", "user", f"U_A{i:02d}") for i in range(14)]
    other = subscribe(world, "TB", "user", "U_B00")
    clock.set(datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    try:
        done = post_dm_digests(world, [*busy, other])
    finally:
        corpus.close()
    assert len(done) == 15
    pace = METHOD_PACES["conversations.open"]
    assert max(done[s.id] for s in busy) >= (14 - pace.burst) * pace.spacing_s * 0.9  # A kept its tier
    # B did not wait behind A (keyed by method alone, B's turn came after A's: >= 12 s). On a
    # loaded 2-core host the fifteen threads' store writes take a few seconds of their own.
    assert done[other.id] < max(done[s.id] for s in busy) / 2


# -- the migration in place ---------------------------------------------------------------------------------

PRE_TENANCY = """
CREATE TABLE IF NOT EXISTS subscriptions (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN ('channel', 'user')),
    place_id      TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    lang          TEXT NOT NULL,
    hour          INTEGER NOT NULL,
    minute        INTEGER NOT NULL,
    timezone      TEXT NOT NULL,
    filter_text   TEXT NOT NULL,
    notify_empty  INTEGER NOT NULL DEFAULT 0,
    cursor_seq    INTEGER NOT NULL,
    status        TEXT NOT NULL DEFAULT 'active',
    paused_reason TEXT NOT NULL DEFAULT '',
    active_since  TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    days          TEXT NOT NULL DEFAULT '*',
    top           INTEGER NOT NULL DEFAULT 10,
    ranking       TEXT NOT NULL DEFAULT '',
    UNIQUE (kind, place_id)
);
CREATE INDEX IF NOT EXISTS subscriptions_created_by ON subscriptions (created_by);
CREATE TABLE IF NOT EXISTS deliveries (
    id              INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL,
    local_date      TEXT NOT NULL,
    status          TEXT NOT NULL,
    from_seq        INTEGER NOT NULL,
    to_seq          INTEGER,
    papers          INTEGER NOT NULL DEFAULT 0,
    posted_ids      TEXT NOT NULL DEFAULT '[]',
    messages        INTEGER NOT NULL DEFAULT 0,
    channel_id      TEXT NOT NULL DEFAULT '',
    message_ts      TEXT NOT NULL DEFAULT '',
    attempts        INTEGER NOT NULL DEFAULT 1,
    error           TEXT NOT NULL DEFAULT '',
    claimed_at      TEXT NOT NULL,
    heartbeat_at    TEXT NOT NULL,
    finished_at     TEXT,
    holder          TEXT NOT NULL DEFAULT '',
    UNIQUE (subscription_id, local_date)
);
CREATE TABLE IF NOT EXISTS removed_subscriptions (
    subscription_id INTEGER PRIMARY KEY,
    removed_by      TEXT NOT NULL,
    removed_at      TEXT NOT NULL,
    data            TEXT NOT NULL
);
"""
"""The three tables as they shipped before tenancy (bot/digests/subscriptions.py at 7625f3a)."""

NOW = "2026-12-01T08:00:00Z"


def test_a_store_with_pre_tenancy_subscriptions_migrates_in_place(database_location):
    store = open_store(database_location)
    removed = {"subscription": {"id": 7, "kind": "user", "place_id": "U9", "created_by": "U9", "lang": "en", "hour": 9,
               "minute": 0, "timezone": "UTC", "filter_text": "", "notify_empty": 0, "cursor_seq": 0, "status": "active",
               "paused_reason": "", "active_since": NOW, "created_at": NOW, "updated_at": NOW, "days": "*", "top": 10,
               "ranking": ""}, "deliveries": []}  # fmt: skip
    with store.transaction() as db:
        apply_schema(db, PRE_TENANCY)
        for sub_id, kind, place in ((3, "channel", "C1"), (5, "user", "U1")):
            db.execute(
                "INSERT INTO subscriptions (id, kind, place_id, created_by, lang, hour, minute, timezone, filter_text,"
                " cursor_seq, active_since, created_at, updated_at) VALUES (?, ?, ?, 'U1', 'zh', 9, 0, 'UTC', 'kv', 4, ?, ?, ?)",
                (sub_id, kind, place, NOW, NOW, NOW),
            )
        db.execute(
            "INSERT INTO deliveries (subscription_id, local_date, status, from_seq, to_seq, claimed_at, heartbeat_at)"
            " VALUES (3, '2026-11-30', 'sent', 0, 4, ?, ?)",
            (NOW, NOW),
        )
        db.execute(
            "INSERT INTO removed_subscriptions (subscription_id, removed_by, removed_at, data) VALUES (7, 'U9', ?, ?)",
            ("2099-01-01T00:00:00Z", json.dumps(removed)),
        )
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    subs = SubscriptionStore(store, clock=clock)  # the new code opens the old tables

    kept = {s.id: (s.team_id, s.kind, s.place_id, s.lang, s.filter_text, s.cursor_seq) for s in subs.all()}
    assert kept == {3: ("", "channel", "C1", "zh", "kv", 4), 5: ("", "user", "U1", "zh", "kv", 4)}
    (sent,) = subs.deliveries(3)
    assert (sent.team_id, sent.local_date, sent.status, sent.to_seq) == ("", "2026-11-30", "sent", 4)
    # The first workspace adopts them (a token-mode start); a second sees none of them.
    assert tenancy.adopt(store, FIRST) == {"subscriptions": 2, "deliveries": 1, "removed_subscriptions": 1}
    assert subs.for_place(FIRST, "channel", "C1").id == 3 and subs.for_place(SECOND, "channel", "C1") is None
    assert [s.id for s in subs.for_user(FIRST, "U1")] == [5, 3] and subs.for_user(SECOND, "U1") == []
    assert subs.delivery(3, "2026-11-30").team_id == FIRST  # the day already posted stays posted
    assert subs.claim(3, date(2026, 11, 30)) is None
    # The old undo is the first workspace's to use, and only its.
    assert subs.restore(SECOND, 7, "U9") is None
    restored = subs.restore(FIRST, 7, "U9")
    assert restored is not None and (restored.id, restored.team_id) == (7, FIRST)
    # The same place in another workspace is another subscription now, and ids continue.
    other, created = subs.save(team_id=SECOND, kind="channel", place_id="C1", user_id="U1", lang="en", hour=9, minute=0,
                               timezone="UTC")  # fmt: skip
    assert created and other.id > 7 and subs.for_place(FIRST, "channel", "C1").lang == "zh"
    again, created = subs.save(team_id=FIRST, kind="channel", place_id="C1", user_id="U1", lang="en", hour=9, minute=0,
                               timezone="UTC")  # fmt: skip
    assert not created and again.id == 3
    store.close()


def test_reopening_a_migrated_store_changes_nothing(tmp_path):
    store = open_store(tmp_path / "s.sqlite3")
    subs = SubscriptionStore(store)
    sub, _ = subs.save(team_id=FIRST, kind="channel", place_id="C1", user_id="U1", lang="en", hour=9, minute=0, timezone="UTC")
    subs.claim(sub.id, date(2026, 12, 1))
    again = SubscriptionStore(store)  # another instance, or a restart
    assert [(s.id, s.team_id) for s in again.all()] == [(sub.id, FIRST)]
    assert [d.team_id for d in again.deliveries()] == [FIRST]
    store.close()


class GatedPoster(RecordingPoster):
    """Holds workspace A's digests mid-post (waiting for a Slack turn, as it were) until opened."""

    def __init__(self):
        super().__init__()
        self.gate, self.entered = threading.Event(), threading.Semaphore(0)

    def post_digest(self, sub, digest, *, thread_ts, on_posted) -> None:
        if sub.team_id == "TA":
            self.entered.release()
            assert self.gate.wait(10)
        super().post_digest(sub, digest, thread_ts=thread_ts, on_posted=on_posted)


def test_one_workspace_takes_at_most_its_share_of_the_digest_pool(tmp_path):
    """A digest waiting for its Slack turn holds a thread: over its workspace's share a run is
    put off (nothing claimed), so another workspace's digest always finds a thread."""
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "seed.txt", listing_text("Seed（种子）", 1, 3))
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    poster = GatedPoster()
    service = service_for(corpus, poster, clock, team_share=2)
    retries: list[tuple[int, timedelta]] = []
    service.on_retry = lambda sub_id, delay: retries.append((sub_id, delay))
    world = dataclasses.make_dataclass("W", ["corpus", "services"])(
        corpus, dataclasses.make_dataclass("S", ["subscriptions"])(service.subscriptions)
    )
    a = [subscribe(world, "TA", "channel", f"C_A{i}") for i in range(3)]
    b = subscribe(world, "TB", "channel", "C_B")
    clock.set(datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    outcomes: dict[int, str] = {}
    threads = [threading.Thread(target=lambda s=s: outcomes.__setitem__(s.id, service.run(s.id).status)) for s in a[:2]]
    try:
        for thread in threads:
            thread.start()
        for _ in range(2):
            assert poster.entered.acquire(timeout=10)  # both of A's share are mid-post
        third = service.run(a[2].id)
        assert (third.status, third.error) == ("retry", "workspace_busy")
        assert retries == [(a[2].id, BUSY_RETRY)] and service.subscriptions.delivery(a[2].id, "2026-12-01") is None
        assert service.run(b.id).status == "sent"  # B is not held back by A's full share
    finally:
        poster.gate.set()
        for thread in threads:
            thread.join()
    assert outcomes == {a[0].id: "sent", a[1].id: "sent"}
    assert service.run(a[2].id).status == "sent"  # the retry, once A has room again
    corpus.close()


def test_an_org_wide_install_posts_its_workspaces_digests_and_its_uninstall_pauses_them(oauth_world):
    """Enterprise Grid: one installation for the org, (E, no team), serves each workspace heard
    from inside it; removing it pauses all of them, and the org's reinstall resumes them."""
    w = oauth_world
    StoreInstallationStore(w.installations).save(
        Installation(app_id="A0001", enterprise_id="EGRID", enterprise_name="Grid", team_id=None, user_id="WADMIN",
                     bot_token="xoxb-grid", bot_id="BGRID", bot_user_id="UBOTGRID", is_enterprise_install=True)
    )  # fmt: skip
    for team in ("TG1", "TG2"):
        w.installations.join_org("EGRID", team)  # as the first request from each workspace does
    g1, g2, a = (
        subscribe(w, "TG1", "channel", "C_G1"),
        subscribe(w, "TG2", "channel", "C_G2"),
        subscribe(w, "TA", "channel", "C_A"),
    )
    w.clock.set(datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    assert [w.services.digests.run(s.id).status for s in (g1, g2, a)] == ["sent", "sent", "sent"]
    assert tokens_by_channel(w.fake) == {"C_G1": {"Bearer xoxb-grid"}, "C_G2": {"Bearer xoxb-grid"}, "C_A": {"Bearer xoxb-ta"}}

    w.installations.remove("EGRID", None, reason="app_uninstalled")  # as the org's app_uninstalled event does
    w.fake.reset()
    w.clock.set(datetime(2026, 12, 2, 9, 1, tzinfo=UTC))
    ingest(w.corpus, w.tmp, "day2.txt", listing_text("Seed（种子）", 100, 2))
    outcomes = [w.services.digests.run(s.id) for s in (g1, g2, a)]
    assert [(o.status, o.error) for o in outcomes[:2]] == [("skipped", "workspace paused: app_uninstalled")] * 2
    assert outcomes[2].status == "sent" and set(tokens_by_channel(w.fake)) == {"C_A"}  # another workspace goes on

    StoreInstallationStore(w.installations).save(
        Installation(app_id="A0001", enterprise_id="EGRID", team_id=None, user_id="WADMIN", bot_token="xoxb-grid-2",
                     bot_id="BGRID", is_enterprise_install=True)
    )  # fmt: skip
    ingest(w.corpus, w.tmp, "day3.txt", listing_text("Seed（种子）", 200, 2))
    w.fake.reset()
    w.clock.set(datetime(2026, 12, 3, 9, 1, tzinfo=UTC))
    assert [w.services.digests.run(s.id).status for s in (g1, g2)] == ["sent", "sent"]
    assert tokens_by_channel(w.fake) == {"C_G1": {"Bearer xoxb-grid-2"}, "C_G2": {"Bearer xoxb-grid-2"}}
