"""Run paperbot: Socket Mode, the HTTP front (bot/slack/http.py), or the offline console.

`serve` picks the mode from the settings: no Slack settings at all opens the console,
some missing stops with their names, SLACK_APP_TOKEN means Socket Mode, else HTTP. The
port is bound before the corpus is prepared, so a host that waits for the bind never
waits for an index rebuild (/healthz says 503 meanwhile); the scheduler starts once the
corpus is ready.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler

from bot.config import Settings
from bot.corpus import Corpus, settle_heap
from bot.i18n import t
from bot.logs import install_secret_filter
from bot.services import Services, start_services, stop_services, warm_services
from bot.slack.app import build_app, learn_home_workspace, slack_services
from bot.slack.http import HttpLimits, RunningServer, make_http_server, start_http_server

logger = logging.getLogger(__name__)


@dataclass
class RunningApp(RunningServer):
    """The HTTP front serving the Slack app, and the services the app answers from."""

    services: Services | None = None


def start_app_server(
    settings: Settings, corpus: Corpus, host: str = "127.0.0.1", port: int = 0, *, services: Services | None = None, **kwargs
) -> RunningApp:
    """Build the services and the Bolt app as `serve` does, and serve them over HTTP in a
    background thread (nothing is scheduled); for tests and the benchmark."""
    services = services or slack_services(settings, corpus)
    warm_services(services)
    kwargs.setdefault("signing_secret", settings.slack_signing_secret)
    kwargs.setdefault("is_caught_up", corpus.is_caught_up)
    running = start_http_server(build_app(settings, services), corpus.is_ready, host, port, **kwargs)
    return RunningApp(server=running.server, thread=running.thread, app=running.app, services=services)


def serve(settings: Settings, corpus: Corpus, *, stdout: TextIO | None = None) -> int:
    """Serve Slack until interrupted (Socket Mode when SLACK_APP_TOKEN is set, else HTTP on
    settings.host:settings.port); return an exit code. bot/cli.py checks the settings first."""
    stdout = stdout or sys.stdout
    install_secret_filter(settings.secrets)
    # The scheduler (daily digests with a catch-up, inbox scans, feeds, arXiv) starts once the
    # corpus is ready; the app exists before that so HTTP can bind at once.
    services = slack_services(settings, corpus)
    try:
        return _run_app(settings, corpus, build_app(settings, services), stdout, on_bound=lambda: _start(services))
    finally:
        stop_services(services)


def _start(services: Services) -> None:
    """Load the for-you model, prepare the corpus (index check, seeds on first start), then
    start the scheduler; the server answers 503 until the corpus is ready. First the store's
    rows from before workspaces become the bot's workspace's (token mode: one auth.test)."""
    learn_home_workspace(services.settings, services.corpus.store)
    warm_services(services)
    services.corpus.prepare()
    settle_heap()
    start_services(services, background=True)


def http_limits(settings: Settings) -> HttpLimits:
    """The HTTP front's limits `serve` uses: the defaults, and what the operator set."""
    return HttpLimits(connections_per_client=settings.http_connections_per_client)


def _run_app(settings: Settings, corpus: Corpus, app: App, stdout: TextIO, on_bound: Callable[[], None]) -> int:
    """Serve `app` in Socket Mode or over HTTP until interrupted.

    `on_bound` prepares what the app serves. Over HTTP it runs once the port is bound
    (hosts such as Heroku stop a web process that does not bind within 60 s, and a large
    index may take longer to rebuild); in Socket Mode it runs before connecting.
    """
    if settings.socket_mode:
        on_bound()
        print(t("setup.serving_socket", "en"), file=stdout, flush=True)
        handler = SocketModeHandler(app, settings.slack_app_token)
        try:
            handler.start()
        except KeyboardInterrupt:
            pass
        finally:
            handler.close()
        return 0

    server = make_http_server(
        app,
        corpus.is_ready,
        settings.host,
        settings.port,
        signing_secret=settings.slack_signing_secret,
        limits=http_limits(settings),
        is_caught_up=corpus.is_caught_up,
    )
    print(t("setup.serving_http", "en", host=settings.host, port=server.port), file=stdout, flush=True)
    if settings.oauth_enabled:
        print(t("setup.install_link", "en", host=settings.host, port=server.port), file=stdout, flush=True)
    thread = threading.Thread(target=server.run, name="http", daemon=True)
    thread.start()
    try:
        on_bound()
        while thread.is_alive():
            thread.join(timeout=1.0)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop(thread)
    return 0
