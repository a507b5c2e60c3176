"""Run paperbot: Socket Mode, an HTTP server for Slack's Request URL, or the offline console.

HTTP mode uses a stdlib ThreadingHTTPServer (one thread per connection) that turns each
POST /slack/events into a BoltRequest and calls `app.dispatch()`; Bolt verifies the
signature. GET /healthz answers 200 once the store and index are ready, 503 before.
Bolt's own dev server (`app.start()`) is single-threaded, so it isn't used.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TextIO
from urllib.parse import urlsplit

from slack_bolt import App
from slack_bolt.request import BoltRequest

from bot.config import Settings
from bot.i18n import t
from bot.logs import install_secret_filter

logger = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
MAX_BODY_BYTES = 1_000_000  # Slack's payloads are a few KB; anything this big is not Slack


def _make_handler(app: App, corpus) -> type[BaseHTTPRequestHandler]:
    class SlackRequestHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: Slack and the benchmark reuse connections
        # Headers and body go out in two writes; with Nagle on, a kept-alive client's
        # delayed ACK adds ~40 ms to every response.
        disable_nagle_algorithm = True
        server_version = "paperbot"

        def do_GET(self):  # noqa: N802 (http.server's naming)
            path = urlsplit(self.path).path
            if path != HEALTH_PATH:
                self._send(404, {"ok": False, "error": "not_found"})
                return
            ready = False
            try:
                ready = bool(corpus.is_ready())
            except Exception:
                logger.exception("health check failed")
            if ready:
                self._send(200, {"ok": True, "status": "ready"})
            else:
                self._send(503, {"ok": False, "status": "starting"})

        def do_POST(self):  # noqa: N802
            parts = urlsplit(self.path)
            if parts.path != EVENTS_PATH:
                self._send(404, {"ok": False, "error": "not_found"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                self._send(413, {"ok": False, "error": "too_large"})
                self.close_connection = True
                return
            body = self.rfile.read(length).decode("utf-8", errors="replace")
            request = BoltRequest(body=body, query=parts.query, headers={k: v for k, v in self.headers.items()})
            try:
                response = app.dispatch(request)
            except Exception:
                logger.exception("dispatching a Slack request failed")
                self._send(500, {"ok": False})
                return
            payload = (response.body or "").encode("utf-8")
            self.send_response(response.status)
            for name, values in response.headers.items():
                if name.lower() in ("content-length", "connection"):
                    continue
                for value in values if isinstance(values, list | tuple) else [values]:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _send(self, status: int, data: dict) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format, *args):  # noqa: A002 (http.server's signature)
            logger.debug("%s %s", self.address_string(), format % args)

    return SlackRequestHandler


class SlackHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


@dataclass
class RunningServer:
    """An HTTP server running in a background thread; `shutdown()` stops and joins it."""

    server: SlackHTTPServer
    thread: threading.Thread
    app: App

    @property
    def host(self) -> str:
        return self.server.server_address[0]

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def shutdown(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def make_http_server(app: App, corpus, host: str = "127.0.0.1", port: int = 0) -> SlackHTTPServer:
    """Bind (port 0 picks a free one) without serving yet."""
    return SlackHTTPServer((host, port), _make_handler(app, corpus))


def start_http_server(app: App, corpus, host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    """Serve `app` in a background thread; for tests and the benchmark."""
    server = make_http_server(app, corpus, host, port)
    thread = threading.Thread(target=server.serve_forever, name="paperbot-http", daemon=True)
    thread.start()
    return RunningServer(server=server, thread=thread, app=app)


def start_app_server(settings: Settings, corpus, host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    """Build the Bolt app from `settings` and serve it in a background thread."""
    from bot.slack.app import build_app

    return start_http_server(build_app(settings, corpus), corpus, host, port)


def _has_no_slack_settings(settings: Settings) -> bool:
    return not (settings.slack_bot_token or settings.slack_signing_secret or settings.slack_app_token)


def serve(settings: Settings, corpus, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Run until interrupted; return an exit code.

    No Slack settings at all: explain how to create the app, then open the offline
    console. Some missing: name them and stop (exit 2). Otherwise Socket Mode when
    SLACK_APP_TOKEN is set, else HTTP on settings.host:settings.port.
    """
    stdout = stdout or sys.stdout
    if _has_no_slack_settings(settings):
        names = "SLACK_BOT_TOKEN, SLACK_APP_TOKEN / SLACK_SIGNING_SECRET"
        print(t("setup.missing_all", "en", names=names), file=stdout, flush=True)
        from bot.console import run_console

        corpus.prepare()
        return run_console(corpus, stdin=stdin or sys.stdin, stdout=stdout)
    missing = settings.missing_slack_settings()
    if missing:
        print(t("setup.missing_some", "en", names=" and ".join(missing)), file=sys.stderr, flush=True)
        return 2

    install_secret_filter(settings.secrets)
    from bot.slack.app import build_app
    from bot.slack.digest import start_digests

    # The scheduler (daily digests with a catch-up, inbox scans) starts once the corpus is
    # ready; the app exists before that so HTTP can bind at once (/healthz says 503 meanwhile).
    digests = start_digests(settings, corpus, start=False, background=True)
    try:
        return _run_app(settings, corpus, build_app(settings, corpus, digests), stdout, on_bound=lambda: _start(corpus, digests))
    finally:
        digests.shutdown()


def _start(corpus, digests) -> None:
    """Prepare the corpus (index check, seeds on first start), then start the scheduler."""
    corpus.prepare()
    digests.start()


def _run_app(settings: Settings, corpus, app: App, stdout: TextIO, on_bound: Callable[[], None]) -> int:
    """Serve `app` in Socket Mode or over HTTP until interrupted.

    `on_bound` prepares what the app serves. Over HTTP it runs once the port is bound
    (hosts such as Heroku stop a web process that does not bind within 60 s, and a large
    index may take longer to rebuild); in Socket Mode it runs before connecting.
    """
    if settings.socket_mode:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

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

    server = make_http_server(app, corpus, settings.host, settings.port)
    print(t("setup.serving_http", "en", host=settings.host, port=server.server_address[1]), file=stdout, flush=True)
    thread = threading.Thread(target=server.serve_forever, name="http", daemon=True)
    thread.start()
    try:
        on_bound()
        while thread.is_alive():
            thread.join(timeout=1.0)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0
