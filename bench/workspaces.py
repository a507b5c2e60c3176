"""One busy workspace and another's digest (issue 25, point 4): the time to B's post.

    .venv/bin/python bench/workspaces.py [--busy 20] [--runs 3]

Installs from a link, two workspaces on one store with the shared Slack ledger (as several
instances have it; here on SQLite, the same rows): workspace A has `--busy` personal (DM)
digests due at 09:00, B has one. Each DM digest opens its DM first (conversations.open,
Slack's tier 3: a burst of 5, then one every 1.33 s). All of them run at once, one thread
each, as the scheduler's digest pool runs them, against the fake Slack (tests/fake_slack.py).

Two ways of keying the ledger, same code otherwise:

    one quota       every workspace's calls under one name per method (before issue 25's point 4)
    per workspace   each workspace's calls under its own names (bot/store/claims.py ledger_place)

B's thread starts `--b-after` seconds after A's (due the same minute, it reaches the ledger
just after A's took their turns). Prints, per mode, the seconds from B's start until its digest
is posted (p50 over runs) and from A's start until A's last one is.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from digest_support import FakeClock, ingest, listing_text, open_corpus  # noqa: E402
from fake_slack import FakeSlack  # noqa: E402
from slack_helpers import SIGNING_SECRET  # noqa: E402
from slack_sdk import WebClient  # noqa: E402
from slack_sdk.oauth.installation_store import Installation  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.digests.scheduler import ManualScheduler  # noqa: E402
from bot.slack.app import slack_services  # noqa: E402
from bot.slack.client import Patience, build_client  # noqa: E402
from bot.slack.oauth import StoreInstallationStore  # noqa: E402
from bot.slack.tokens import WorkspaceClients  # noqa: E402
from bot.store.claims import Ledger  # noqa: E402
from bot.store.installs import Installations  # noqa: E402


class OneQuotaClients(WorkspaceClients):
    """Each workspace's token, but every call counted under the one quota (the ledger before)."""

    def _client(self, team_id: str, token: str) -> WebClient:
        with self._lock:
            key = (team_id, token)
            if key not in self._clients:
                self._clients[key] = build_client(self.settings, self.patience, ledger=self.ledger, token=token, team_id="")
            return self._clients[key]


def run_once(fake: FakeSlack, busy: int, mode: str, b_after: float) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        corpus = open_corpus(data)
        ingest(corpus, Path(tmp), "seed.txt", listing_text("Seed（种子）", 1, 3))
        settings = Settings(
            data_dir=data, slack_signing_secret=SIGNING_SECRET, slack_client_id="1234.5678",
            slack_client_secret="bench-secret", slack_api_base_url=fake.api_url.rstrip("/"), timezone="UTC",
        )  # fmt: skip
        installations = Installations(corpus.store)
        for team in ("TA", "TB"):
            StoreInstallationStore(installations).save(
                Installation(app_id="A0001", team_id=team, user_id="U_INSTALLER", bot_token=f"xoxb-{team.lower()}",
                             bot_id=f"B{team}", bot_user_id=f"UBOT{team}", bot_scopes="chat:write")
            )  # fmt: skip
        clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
        services = slack_services(settings, corpus, clock=clock, scheduler=ManualScheduler(clock))
        kind = OneQuotaClients if mode == "one quota" else WorkspaceClients
        services.digests.poster.clients = kind(
            settings, Patience.BACKGROUND, ledger=Ledger(corpus.store), installations=installations
        )  # type: ignore[attr-defined]
        subs = []
        for team, count in (("TA", busy), ("TB", 1)):
            for i in range(count):
                sub, _ = services.subscriptions.save(
                    team_id=team, kind="user", place_id=f"U_{team}{i:03d}", user_id="U1", lang="en", hour=9, minute=0,
                    timezone="UTC",
                )  # fmt: skip
                subs.append(sub)
        with corpus.store.transaction() as db:
            db.execute("UPDATE subscriptions SET cursor_seq = 0")
        clock.set(datetime(2026, 12, 1, 9, 0, 30, tzinfo=UTC))
        done: dict[int, float] = {}
        started = time.monotonic()

        def deliver(sub_id: int) -> None:
            services.digests.run(sub_id)
            done[sub_id] = time.monotonic() - started - (b_after if sub_id == subs[-1].id else 0.0)

        threads = [threading.Thread(target=deliver, args=(s.id,)) for s in subs]
        for thread in threads[:-1]:  # A's
            thread.start()
        time.sleep(b_after)  # B's is due at the same minute, and reaches its turn just after A's took theirs
        threads[-1].start()
        for thread in threads:
            thread.join()
        corpus.close()
        b = next(s.id for s in subs if s.team_id == "TB")
        return done[b], max(done[s.id] for s in subs if s.team_id == "TA")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", type=int, default=20, help="workspace A's DM digests due at once")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--b-after", type=float, default=0.5, help="seconds after A's threads that B's starts")
    args = parser.parse_args()
    fake = FakeSlack().start()
    try:
        for mode in ("one quota", "per workspace"):
            results = [run_once(fake, args.busy, mode, args.b_after) for _ in range(args.runs)]
            b = statistics.median(r[0] for r in results)
            a = statistics.median(r[1] for r in results)
            print(
                f"{mode:>14}: B's digest posted after {b:5.2f} s (runs: {', '.join(f'{r[0]:.2f}' for r in results)}); A's last after {a:5.2f} s"
            )
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
