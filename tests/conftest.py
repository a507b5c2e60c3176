"""Shared fixtures. Slack section: a seeded corpus, a fake Slack and paperbot on HTTP.

Built once per session (the seed corpus takes ~0.5 s, the servers a few ms); each test
gets a fresh record of calls and uses its own user ids, since languages are remembered.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.config import Settings

pytest_plugins = ["tests.postgres_support"]  # a PostgreSQL server for the store's tests (issue 24)

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _restore_root_logging():
    """Give back the root logger as it was: an in-process `cli.main()` points it at the
    test's captured stderr, which is closed once that test ends."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


# -- Slack -------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def seed_corpus(tmp_path_factory):
    """A real Corpus (SQLite + Whoosh) over seeds/, shared by the session's Slack tests."""
    from bot.corpus import Corpus

    data_dir = tmp_path_factory.mktemp("slack-data")
    # Made ready as `serve` makes it (prepare: the seeds, the dictionaries, the typo
    # vocabularies), so no test's first translated search pays for loading them in its
    # ack budget, whichever tests ran before it in this process.
    corpus = Corpus.load(Settings(data_dir=data_dir, seeds_dir=REPO / "seeds"))
    corpus.prepare()
    yield corpus
    corpus.close()


@pytest.fixture(scope="session")
def fake_slack_server():
    from fake_slack import FakeSlack

    fake = FakeSlack().start()
    yield fake
    fake.stop()


@pytest.fixture
def fake_slack(fake_slack_server):
    """The fake Slack Web API, with no calls recorded and no failures scheduled."""
    fake_slack_server.reset()
    yield fake_slack_server
    fake_slack_server.reset()


@pytest.fixture(scope="session")
def slack_settings(fake_slack_server, tmp_path_factory):
    from slack_helpers import BOT_TOKEN, SIGNING_SECRET

    return Settings(
        data_dir=tmp_path_factory.mktemp("unused"),
        slack_bot_token=BOT_TOKEN,
        slack_signing_secret=SIGNING_SECRET,
        slack_api_base_url=fake_slack_server.api_url.rstrip("/"),  # build_client adds the slash
        # Tests read most answers from the ack. Bolt waits 3 s for it; 2.5 s leaves a loaded
        # 2-core CI host room to answer there. The late-answer path is tests/test_slow_answer.py's.
        ack_budget_ms=2500,
    )


@pytest.fixture(scope="session")
def paperbot_server(slack_settings, seed_corpus):
    """paperbot's HTTP server on a free loopback port, talking to the fake Slack."""
    from bot.slack.server import start_app_server

    running = start_app_server(slack_settings, seed_corpus)
    yield running
    running.shutdown()


@pytest.fixture(scope="session")
def seed_services(paperbot_server):
    """The services paperbot's HTTP server answers from (its library, subscriptions, ...)."""
    return paperbot_server.services


@pytest.fixture
def slack(paperbot_server, fake_slack):
    """Sends signed Slack requests to paperbot; see tests/slack_helpers.py."""
    from slack_helpers import SlackSender

    sender = SlackSender(paperbot_server.url, fake_slack)
    yield sender
    sender.close()
