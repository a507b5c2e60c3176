"""Chaos with real processes (issue 24): two `python -m bot serve` instances in HTTP mode on
one PostgreSQL schema, the fake Slack Web API, Slack-signed requests.

- a paper stored through the CLI (`python -m bot ingest`) is found on both instances;
- the same signed Slack event delivered to both instances is acted on once;
- PostgreSQL restarted during searches: answers in the user's language, no traceback,
  both instances serve again without a restart;
- kill -9 the instance posting a digest: the other finishes that digest in its thread.

The seeds are stored before the instances start (so both build the same index at once),
and leases are 2 s long, so a takeover is seen within seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from digest_support import listing_text
from fake_slack import FakeSlack
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender, all_text, signed_headers

from bot.clock import to_iso
from bot.config import Settings
from bot.corpus import Corpus
from bot.digests.subscriptions import SubscriptionStore
from bot.i18n import t

ROOT = Path(__file__).resolve().parent.parent
LEASE_S = 2


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Instance:
    """One `python -m bot serve` process in HTTP mode, with a data folder (its index) of its own."""

    def __init__(self, name: str, folder: Path, database_url: str, fake: FakeSlack):
        self.name = name
        self.port = free_port()
        self.log = folder / f"{name}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
        env.update(
            SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET, SLACK_API_BASE_URL=fake.api_url,
            PORT=str(self.port), PAPERBOT_HOST="127.0.0.1", PAPERBOT_DATA_DIR=str(folder / name),
            PAPERBOT_SEEDS_DIR=str(folder / "no-seeds"), PAPERBOT_ARXIV="off", PAPERBOT_DATABASE_URL=database_url,
            PAPERBOT_FOLLOW_INTERVAL_SECONDS="1", PAPERBOT_LEASE_SECONDS=str(LEASE_S),
        )  # fmt: skip
        self._out = open(self.log, "w", encoding="utf-8")  # noqa: SIM115 (closed in stop/kill)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve"], cwd=folder, env=env, stdout=self._out, stderr=subprocess.STDOUT
        )
        self.sender = SlackSender(f"http://127.0.0.1:{self.port}", fake)

    @property
    def output(self) -> str:
        with contextlib.suppress(ValueError):  # closed: the process was killed
            self._out.flush()
        return self.log.read_text(encoding="utf-8")

    def readyz(self) -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=2) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code
        except (OSError, urllib.error.URLError):
            return 0

    def wait_ready(self, deadline: float) -> None:
        while self.readyz() != 200:
            assert self.proc.poll() is None, self.output
            assert time.monotonic() < deadline, f"{self.name} never became ready:\n{self.output}"
            time.sleep(0.05)

    def search(self, text: str, *, user_id: str = "U_CHAOS") -> str:
        """A signed `/papers <text>`; the text of what the user is shown."""
        code, answer = self.sender.command(text, user_id=user_id)
        assert code == 200, answer
        assert isinstance(answer, dict), answer
        return all_text(answer.get("blocks") or []) + " " + str(answer.get("text") or "")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.sender.close()
        self._out.close()

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.sender.close()
        with contextlib.suppress(ValueError):
            self._out.close()
        return self.log.read_text(encoding="utf-8")


def stored_seeds(folder: Path, database_url: str) -> Corpus:
    """The seeds stored in the schema before any instance starts (both then build the same index)."""
    settings = Settings(data_dir=folder / "loader", seeds_dir=ROOT / "seeds", database_url=database_url)
    corpus = Corpus.open(settings)
    corpus.ingest_paths([ROOT / "seeds"])
    (folder / "no-seeds").mkdir(exist_ok=True)
    return corpus


class Cluster:
    """Two instances on one schema, started together."""

    def __init__(self, folder: Path, database_url: str, fake: FakeSlack, corpus: Corpus):
        self.folder, self.url, self.fake, self.corpus = folder, database_url, fake, corpus
        self.subscriptions = SubscriptionStore(corpus.store)
        self.instances = [Instance(name, folder, database_url, fake) for name in ("a", "b")]

    def ready(self) -> list[Instance]:
        deadline = time.monotonic() + 60
        for instance in self.instances:
            instance.wait_ready(deadline)
        return list(self.instances)

    def stop(self) -> list[str]:
        return [instance.stop() for instance in self.instances]


@pytest.fixture(scope="module")
def chaos_fake() -> Iterator[FakeSlack]:
    fake = FakeSlack().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def cluster(postgres_server, tmp_path_factory, chaos_fake) -> Iterator[Cluster]:
    """Two instances, and a channel digest due as they start: its posts are held after the second
    (Slack slow to answer the third) until the last test kills the instance posting it."""
    folder = tmp_path_factory.mktemp("chaos")
    schema = postgres_server.new_schema()
    url = postgres_server.schema_url(schema)
    corpus = stored_seeds(folder, url)
    subscriptions = SubscriptionStore(corpus.store)
    now = datetime.now(UTC)
    sub, _ = subscriptions.save(
        team_id="",
        kind="channel",
        place_id=DIGEST_CHANNEL,
        user_id="U1",
        lang="en",
        hour=now.hour,
        minute=now.minute,
        timezone="UTC",
    )
    with corpus.store.transaction() as db:  # due now (the catch-up at start runs it), with every seed paper
        db.execute(
            "UPDATE subscriptions SET cursor_seq = 0, active_since = ? WHERE id = ?", (to_iso(now - timedelta(hours=1)), sub.id)
        )
    chaos_fake.reset()
    chaos_fake.hold_posts(DIGEST_CHANNEL, after=2)
    running = Cluster(folder, url, chaos_fake, corpus)
    running.digest = (sub.id, now.date())  # type: ignore[attr-defined]
    try:
        yield running
    finally:
        chaos_fake.release_posts()
        outputs = running.stop()
        corpus.close()
        postgres_server.drop_schema(schema)
    for output in outputs:
        assert "Traceback" not in output, output


DIGEST_CHANNEL = "C_DIGEST"


@pytest.fixture
def fake(cluster) -> FakeSlack:
    """The cluster's fake Slack, its calls kept (the held digest's posts are among them): filter by channel."""
    return cluster.fake


def test_a_paper_stored_through_the_cli_is_found_on_both_instances(cluster, fake, tmp_path):
    first, second = cluster.ready()
    listing = tmp_path / "new.txt"
    listing.write_text(listing_text("Chaos Feed", 0, 1, topic="Zeppelin Tomography"), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(PAPERBOT_DATA_DIR=str(tmp_path / "cli"), PAPERBOT_DATABASE_URL=cluster.url, PAPERBOT_SEEDS_DIR=str(tmp_path))
    assert "Zeppelin Tomography" not in first.search("zeppelin tomography")
    done = subprocess.run(
        [sys.executable, "-m", "bot", "ingest", str(listing)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    stored = time.monotonic()
    for instance in (first, second):
        while "Zeppelin Tomography" not in instance.search("zeppelin tomography"):
            assert time.monotonic() - stored < 10, f"{instance.name} never found the paper"
            time.sleep(0.2)


def test_the_same_signed_event_delivered_to_both_instances_is_acted_on_once(cluster, fake):
    first, second = cluster.ready()
    body = json.dumps(
        {
            "token": "legacy-verification-token", "team_id": "T0001", "api_app_id": "A0001", "type": "event_callback",
            "event_id": f"EvChaos{time.time_ns()}", "event_time": int(time.time()),
            "event": {"type": "message", "channel_type": "im", "channel": "DU_TWICE", "user": "U_TWICE",
                      "text": "speculative decoding", "ts": "1.1"},
            "authorizations": [{"team_id": "T0001", "user_id": "UBOT", "is_bot": True}],
        }
    )  # fmt: skip
    answers: list[int] = []

    def deliver(instance: Instance) -> None:
        answers.append(instance.sender.request("POST", "/slack/events", body, signed_headers(body, "application/json"))[0])

    threads = [threading.Thread(target=deliver, args=(i,)) for i in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [200, 200]  # both acked, as Slack needs
    deadline = time.monotonic() + 10
    while not [c for c in fake.calls_to("chat.postMessage") if c.args.get("channel") == "DU_TWICE"]:
        assert time.monotonic() < deadline, "the DM was never answered"
        time.sleep(0.05)
    time.sleep(1.0)  # long enough for the other instance to (wrongly) answer too
    assert [c.args.get("channel") for c in fake.calls_to("chat.postMessage") if c.args.get("channel") == "DU_TWICE"] == [
        "DU_TWICE"
    ]


def test_postgresql_restarted_during_searches_answers_clearly_and_both_recover(cluster, fake, postgres_server):
    first, second = cluster.ready()
    assert "MineDraft" in first.search("推测解码") and "MineDraft" in second.search("推测解码")
    postgres_server.stop("fast")
    try:
        during = {(lang, instance.name): instance.search(query, user_id=f"U_{lang}") for instance in (first, second)
                  for lang, query in (("zh", "推测解码"), ("en", "speculative decoding"))}  # fmt: skip
    finally:
        postgres_server.start()
    for (lang, name), shown in during.items():
        assert "Traceback" not in shown and "OperationalError" not in shown, (lang, name, shown)
        # Searching needs only the instance's own index: the results, or a clear sentence.
        assert "MineDraft" in shown or t("error.store_unavailable", lang) in shown, (lang, name, shown)
    deadline = time.monotonic() + 15
    for instance in (first, second):
        while "MineDraft" not in instance.search("推测解码") or instance.readyz() != 200:
            assert time.monotonic() < deadline, f"{instance.name} did not recover"
            time.sleep(0.2)
    for instance in (first, second):
        assert "Traceback" not in instance.output


def test_kill_9_the_instance_posting_a_digest_and_the_other_finishes_it(cluster):
    """Runs last: the digest went out as the instances started; its third message has been held in
    flight since (the searches, the event and PostgreSQL's restart above happened meanwhile)."""
    fake, subscriptions = cluster.fake, cluster.subscriptions
    sub_id, day = cluster.digest
    instances = cluster.ready()
    deadline = time.monotonic() + 20
    while fake.held < 1:  # two messages accepted, the third in flight: mid-digest
        assert time.monotonic() < deadline, [c.method for c in fake.calls]
        time.sleep(0.05)
    holder = subscriptions.delivery(sub_id, day).holder
    (poster,) = [i for i in instances if f":{i.proc.pid}:" in holder]
    (survivor,) = [i for i in instances if i is not poster]
    poster.kill()
    killed = time.monotonic()
    fake.release_posts()
    while (delivery := subscriptions.delivery(sub_id, day)).status != "sent":
        assert time.monotonic() - killed < 20, delivery
        time.sleep(0.1)
    assert f":{survivor.proc.pid}:" in delivery.holder and delivery.attempts >= 2
    posts = [c for c in fake.calls_to("chat.postMessage") if c.args.get("channel") == DIGEST_CHANNEL]
    first_ts = posts[0].response["ts"]
    assert all(c.args.get("thread_ts") == first_ts for c in posts[1:])  # one digest, finished in its thread
    assert delivery.messages <= len(posts) <= delivery.messages + 1  # at worst the one in flight twice
    seed_ids = {row[0] for row in cluster.corpus.store.read("SELECT id FROM papers")}
    assert sorted(delivery.posted_ids) == sorted(seed_ids)  # every paper recorded as posted, once
    assert subscriptions.get(sub_id).cursor_seq == cluster.corpus.store.last_seq()
    assert "Traceback" not in survivor.output
