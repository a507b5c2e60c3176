"""The HTTP front: Slack's Request URL on waitress, each request checked before Bolt sees it.

HTTP mode runs on waitress (a production WSGI server, pure Python, one process) through
Bolt's WSGI adapter. waitress reads every connection with non-blocking I/O in one loop and
hands only complete requests to a small pool of threads, so a half-sent request or an idle
kept-alive connection costs a socket, not a thread; `HttpLimits` sets how long either may
sit (the read timeout), how many there may be, and how big a body may be (waitress answers
a bigger or malformed `Content-Length` with 413/400 before the app sees a byte).

Before Bolt sees a request, `check_request` verifies Slack's signature on the raw bytes
(401 for anything unsigned, stale or forged, before the body is parsed) and then the
body's shape (400 for a signed body Bolt would choke on). Each rejection is one log line
without the body: the body carries what the user typed and a live response_url.

GET /healthz answers 200 once the store and index are ready, 503 before (the process is
up and bound meanwhile). GET /readyz also answers 503 while the index is behind the store
(several instances on one PostgreSQL: until this one has caught up with what others stored).
"""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk.signature import SignatureVerifier
from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import ErrorTask

from bot.errors import PaperbotError

logger = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"


HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"


MAX_BODY_BYTES = 1_000_000  # Slack's payloads are a few KB; anything this big is not Slack


@dataclass(frozen=True)
class HttpLimits:
    """What one client may cost the HTTP server.

    `read_timeout`: seconds a connection may sit without sending a byte, idle between
    kept-alive requests or halfway through one, before it is closed (checked every
    `cleanup_interval` seconds; waitress takes whole seconds). `connection_limit`: open
    connections before accepting pauses (the rest wait in the listen backlog). `threads`:
    requests handled at once; a slow /papers moves to its response_url after
    PAPERBOT_ACK_BUDGET_MS, so a thread is never held for long.
    """

    threads: int = 8
    connection_limit: int = 500
    read_timeout: int = 30
    cleanup_interval: int = 5
    max_body_bytes: int = MAX_BODY_BYTES
    max_header_bytes: int = 64 * 1024


class _LoggedErrorTask(ErrorTask):
    """waitress's 400/413 for a request it could not parse, plus one log line."""

    def execute(self):
        error = self.request.error
        logger.info(
            "rejected a request from %s: %s (%s)", self.channel.addr[0] if self.channel.addr else "?", error.reason, error.body
        )
        super().execute()


class _Channel(HTTPChannel):
    error_task_class = _LoggedErrorTask


class _DropBody(logging.Filter):
    """Bolt's own rejection line carries the body (user text, a live response_url); keep
    the fact, drop the rest. `check_request` rejects first, so this is a second guard."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "Invalid request signature" in str(record.msg):
            record.msg, record.args = "Invalid request signature detected (body not logged)", None
        return True


BOLT_VERIFICATION_LOGGER = "slack_bolt.RequestVerification"


class Rejection(PaperbotError):
    """A request refused before Bolt: `status` and a reason for the log (never the body)."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


def check_request(raw: bytes, headers: dict[str, str], verifier: SignatureVerifier) -> str:
    """Return the body as text if Slack signed it and Bolt can read it; else raise Rejection.

    The signature is checked on the raw bytes first, so nothing unsigned is ever parsed.
    Then the body must decode and parse the way Bolt parses it (JSON when it starts with
    `{` or says so, else form fields with an optional JSON `payload`), to an object, and an
    interaction payload must name its user: Bolt would otherwise fail deep inside with a
    500 and a traceback.
    """
    timestamp = headers.get("x-slack-request-timestamp", "")
    signature = headers.get("x-slack-signature", "")
    if not timestamp or not signature:
        raise Rejection(401, "no Slack signature headers")
    if not timestamp.isdigit():
        raise Rejection(401, "X-Slack-Request-Timestamp is not a number")
    if not verifier.is_valid(raw, timestamp, signature):
        raise Rejection(401, "invalid or stale Slack signature")
    try:
        body = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Rejection(400, "signed body is not UTF-8") from None
    if not body:
        return body
    content_type = headers.get("content-type", "")
    try:
        if content_type.startswith("application/json") or body.startswith("{"):
            data = json.loads(body)
            kind = "JSON body"
        else:
            fields = dict(parse_qsl(body, keep_blank_values=True))
            if "payload" not in fields:
                return body  # a slash command or ssl_check: plain form fields
            data = json.loads(fields["payload"])
            kind = "interaction payload"
            user = data.get("user") if isinstance(data, dict) else None
            if isinstance(data, dict) and not (isinstance(user, dict) and isinstance(user.get("id"), str) and user["id"]):
                raise Rejection(400, "interaction payload without a user id")
    except ValueError:
        raise Rejection(400, "signed body is not valid JSON") from None
    if not isinstance(data, dict):
        raise Rejection(400, f"signed {kind} is not a JSON object")
    return body


def _headers(environ: dict) -> dict[str, str]:
    headers = {k[5:].lower().replace("_", "-"): v for k, v in environ.items() if k.startswith("HTTP_")}
    if environ.get("CONTENT_TYPE"):
        headers["content-type"] = environ["CONTENT_TYPE"]
    return headers


def make_wsgi_app(
    app: App, is_ready: Callable[[], bool], signing_secret: str, is_caught_up: Callable[[], bool] | None = None
) -> Callable:
    """The WSGI application: /healthz, /readyz, and /slack/events checked then handed to Bolt."""
    bolt = SlackRequestHandler(app, path=EVENTS_PATH)
    verification_logger = logging.getLogger(BOLT_VERIFICATION_LOGGER)
    if not any(isinstance(f, _DropBody) for f in verification_logger.filters):
        verification_logger.addFilter(_DropBody())
    verifier = SignatureVerifier(signing_secret)

    def send(start_response, status: int, data: dict, extra: list | None = None) -> list[bytes]:
        payload = json.dumps(data).encode()
        reason = {
            200: "OK",
            400: "Bad Request",
            401: "Unauthorized",
            404: "Not Found",
            500: "Internal Server Error",
            503: "Service Unavailable",
        }
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))]
        start_response(f"{status} {reason.get(status, 'Error')}", headers + (extra or []))
        return [payload]

    def health(start_response, check: Callable[[], bool]) -> list[bytes]:
        ready = False
        try:
            ready = bool(check())
        except Exception:
            logger.exception("health check failed")
        if ready:
            return send(start_response, 200, {"ok": True, "status": "ready"})
        return send(start_response, 503, {"ok": False, "status": "starting"})

    def wsgi(environ, start_response):
        method, path = environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", "")
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            return health(start_response, is_ready)
        if path == READY_PATH and method in ("GET", "HEAD"):
            return health(start_response, is_caught_up or is_ready)
        if path != EVENTS_PATH or method != "POST":
            return send(start_response, 404, {"ok": False, "error": "not_found"})
        # waitress has already read the whole body (within max_body_bytes) and validated
        # Content-Length, so this read neither blocks nor overruns.
        raw = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        try:
            check_request(raw, _headers(environ), verifier)
        except Rejection as rejection:
            logger.info("rejected POST %s from %s: %s", path, environ.get("REMOTE_ADDR", "?"), rejection.reason)
            return send(start_response, rejection.status, {"ok": False, "error": rejection.reason})
        environ["wsgi.input"] = io.BytesIO(raw)
        try:
            return bolt(environ, start_response)
        except Exception:
            logger.exception("dispatching a Slack request failed")
            return send(start_response, 500, {"ok": False}, extra=[("Connection", "close")])

    return wsgi


class HttpServer:
    """A bound waitress server: `run()` serves until `stop()` is called from another thread.

    waitress's own `run()` loops until its socket map is empty and offers no graceful stop.
    Here `stop()` first stops accepting and lets the worker threads finish the requests in
    hand while the loop still flushes their responses, then closes every connection and
    waitress's trigger from the loop's own thread (the loop is not thread-safe). Worker
    threads wake the loop through that trigger, so it is closed only once they are gone;
    the lock keeps `stop()` from pulling it while the loop closes it.
    """

    def __init__(self, wsgi_app: Callable, host: str, port: int, limits: HttpLimits):
        self._map: dict = {}
        self._draining = False
        self._closing = False
        self._lock = threading.Lock()
        self.waitress = create_server(
            wsgi_app,
            map=self._map,
            host=host,
            port=port,
            ident="paperbot",
            threads=limits.threads,
            connection_limit=limits.connection_limit,
            channel_timeout=limits.read_timeout,
            cleanup_interval=limits.cleanup_interval,
            max_request_body_size=limits.max_body_bytes,
            max_request_header_size=limits.max_header_bytes,
            inbuf_overflow=limits.max_body_bytes + 1,  # bodies stay in memory, never a temp file
            expose_tracebacks=False,
        )
        self.waitress.channel_class = _Channel

    def run(self) -> None:
        adj = self.waitress.adj
        try:
            while not self._closing and self._map:
                if self._draining:
                    self.waitress.accepting = False  # new connections wait in the backlog
                wasyncore.loop(timeout=adj.asyncore_loop_timeout, map=self._map, use_poll=adj.asyncore_use_poll, count=1)
        finally:
            with self._lock:
                wasyncore.close_all(self._map)  # the listener, every connection, the trigger

    def _wake(self) -> None:
        with self._lock:
            if self._map:  # else the loop has already closed the trigger
                self.waitress.pull_trigger()

    def stop(self, thread: threading.Thread | None = None, timeout: float = 5.0) -> None:
        """Stop accepting, finish the requests in hand (up to `timeout`), close, join."""
        self._draining = True
        self._wake()
        dispatcher = self.waitress.task_dispatcher
        deadline = time.monotonic() + timeout
        while dispatcher.queue and time.monotonic() < deadline:  # requests already read
            time.sleep(0.01)
        dispatcher.shutdown(cancel_pending=True, timeout=max(0.1, deadline - time.monotonic()))
        self._closing = True
        self._wake()
        if thread is not None:
            thread.join(timeout=timeout)

    @property
    def host(self) -> str:
        return self.waitress.effective_host

    @property
    def port(self) -> int:
        return self.waitress.effective_port


@dataclass
class RunningServer:
    """An HTTP server running in a background thread; `shutdown()` stops and joins it."""

    server: HttpServer
    thread: threading.Thread
    app: App

    @property
    def host(self) -> str:
        return self.server.host

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def shutdown(self) -> None:
        self.server.stop(self.thread)


def make_http_server(
    app: App,
    is_ready: Callable[[], bool],
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    signing_secret: str | None = None,
    limits: HttpLimits = HttpLimits(),  # noqa: B008 (frozen)
    is_caught_up: Callable[[], bool] | None = None,
) -> HttpServer:
    """Bind (port 0 picks a free one) without serving yet; `server.run()` serves.

    `signing_secret` defaults to the one the Bolt app verifies with, so there is one.
    """
    secret = signing_secret if signing_secret is not None else app._signing_secret
    return HttpServer(make_wsgi_app(app, is_ready, secret, is_caught_up), host, port, limits)


def start_http_server(app: App, is_ready: Callable[[], bool], host: str = "127.0.0.1", port: int = 0, **kwargs) -> RunningServer:
    """Serve `app` in a background thread; for tests and the benchmark."""
    server = make_http_server(app, is_ready, host, port, **kwargs)
    thread = threading.Thread(target=server.run, name="paperbot-http", daemon=True)
    thread.start()
    return RunningServer(server=server, thread=thread, app=app)
