"""The HTTP front: Slack's Request URL on waitress, each request checked before Bolt sees it.

HTTP mode runs on waitress (a production WSGI server, pure Python, one process) through
Bolt's WSGI adapter. waitress reads every connection with non-blocking I/O in one loop and
hands only complete requests to a small pool of threads, so a half-sent request or an idle
kept-alive connection costs a socket, not a thread; `HttpLimits` sets how long either may
sit (the read timeout), how many there may be, and how big a body may be (waitress answers
a bigger or malformed `Content-Length` with 413/400 before the app sees a byte).

waitress's read timeout measures silence, so a client that trickles one byte every few
seconds keeps its connection for ever: 510 of them held all 500 connections and Slack's own
requests waited (issue 29, point 3). Here each request also has a total deadline, from its
first byte (or the connection's opening) to its last, a much shorter one while every
connection is taken (so slow connections make way for Slack's, whatever addresses they
come from), and one client address (an IPv6 client's /64) may hold only so many
connections; waitress has none of these.

Before Bolt sees a request, `check_request` verifies Slack's signature on the raw bytes
(401 for anything unsigned, stale or forged, before the body is parsed) and then the
body's shape (400 for a signed body Bolt would choke on). Each rejection is one log line
without the body: the body carries what the user typed and a live response_url.

GET /healthz answers 200 once the store and index are ready, 503 before (the process is
up and bound meanwhile). GET /readyz also answers 503 while the index is behind the store
(several instances on one PostgreSQL: until this one has caught up with what others stored).
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import json
import logging
import threading
import time
from collections import Counter
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

    `request_deadline`: seconds a request may take to arrive whole, headers and body, from
    its first byte (a new connection's first request: from the connection's opening); past
    it the client gets 408 and the connection is closed. Slack sends a request in
    milliseconds and gives up on an answer after 3 s. While every connection is taken,
    `crowded_request_deadline` applies instead, to requests and to connections idle between
    them: slow connections make way for new ones, which wait in the backlog meanwhile,
    instead of holding the server until their deadline. `connections_per_client`: open
    connections from one address (IPv6: one /64); one more is answered 503 and closed.
    Behind a reverse proxy every request comes from the proxy's address
    (PAPERBOT_HTTP_CONNECTIONS_PER_CLIENT raises it).
    """

    threads: int = 8
    connection_limit: int = 500
    read_timeout: int = 30
    cleanup_interval: int = 5
    max_body_bytes: int = MAX_BODY_BYTES
    max_header_bytes: int = 64 * 1024
    request_deadline: float = 10.0
    crowded_request_deadline: float = 1.0
    connections_per_client: int = 50


class _LoggedErrorTask(ErrorTask):
    """waitress's 400/413 for a request it could not parse, plus one log line."""

    def execute(self):
        error = self.request.error
        logger.info(
            "rejected a request from %s: %s (%s)", self.channel.addr[0] if self.channel.addr else "?", error.reason, error.body
        )
        super().execute()


_REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
_TOO_MANY_CONNECTIONS = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\nContent-Length: 0\r\n\r\n"


def _busiest(clients: Counter[str]) -> str:
    """`10.0.0.7 x40, 10.0.0.9 x3` (the five busiest, then how many more)."""
    shown = ", ".join(f"{client} x{count}" for client, count in clients.most_common(5))
    return shown + (f" and {len(clients) - 5} more" if len(clients) > 5 else "")


def client_of(addr) -> str:
    """The client an address stands for: the IP, or an IPv6 address's /64 (one host's share)."""
    host = addr[0] if addr else "?"
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:  # ::ffff:1.2.3.4 on a dual-stack socket is 1.2.3.4
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network((ip, 64), strict=False))
    return str(ip)


class _Channel(HTTPChannel):
    """waitress's connection, which also times the request it is reading and counts its client's
    connections. `limits` is set on a subclass per server (HttpServer)."""

    error_task_class = _LoggedErrorTask
    limits: HttpLimits
    refused: Counter[str]  # clients refused since the server last logged them
    open_by_client: Counter[str]  # the server's open connections by client, kept as they open and close

    def __init__(self, server, sock, addr, adj, map=None):
        self.client = client_of(addr)
        self._counted = False
        super().__init__(server, sock, addr, adj, map)
        # The first request's clock starts at the connection: a connection that never sends
        # a byte is held to the deadline too, not only to the (longer) read timeout.
        self.request_started: float | None = time.monotonic()
        self._timed_request = None
        # Counted, not found by walking every connection: a flood of connections would
        # make each accept cost the whole table.
        self.open_by_client[self.client] += 1
        self._counted = True
        if self.open_by_client[self.client] > self.limits.connections_per_client:
            self.refused[self.client] += 1
            self.refuse(_TOO_MANY_CONNECTIONS)

    def del_channel(self, map=None):
        """Forget the connection, as waitress does, and uncount it (once, however often called)."""
        if self._counted:
            self._counted = False
            self.open_by_client[self.client] -= 1
            if self.open_by_client[self.client] <= 0:
                del self.open_by_client[self.client]
        super().del_channel(map)

    def received(self, data):
        """Read as waitress does; a request that began arriving in `data` starts its clock."""
        result = super().received(data)
        if self.request is None:
            self.request_started = self._timed_request = None
        elif self.request is not self._timed_request:
            self._timed_request, self.request_started = self.request, time.monotonic()
        return result

    def is_late(self, now: float, deadline: float, *, crowded: bool) -> bool:
        """Has the request being read had longer than `deadline`? When the server is full
        (`crowded`), a connection idle between requests for that long is late too."""
        if self.requests or self.will_close or self.total_outbufs_len:  # an answer in hand
            return False
        if self.request_started is not None:
            return now - self.request_started > deadline
        return crowded and time.time() - self.last_activity > deadline  # waitress keeps wall time

    def refuse(self, response: bytes) -> None:
        """Send a short answer the socket takes at once (nothing is queued before it) and close."""
        with contextlib.suppress(OSError):
            self.socket.send(response)
        self.will_close = True  # the loop closes it on its next pass; nothing more is read


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
    """The WSGI application: /healthz, /readyz, /slack/events checked then handed to Bolt, and
    with installs from a link Bolt's /slack/install and /slack/oauth_redirect."""
    bolt = SlackRequestHandler(app, path=EVENTS_PATH)
    verification_logger = logging.getLogger(BOLT_VERIFICATION_LOGGER)
    if not any(isinstance(f, _DropBody) for f in verification_logger.filters):
        verification_logger.addFilter(_DropBody())
    verifier = SignatureVerifier(signing_secret)
    # Installs from a link (bot/slack/oauth.py): the installer's browser GETs these, unsigned;
    # Bolt checks the state (cookie and store) before anything is trusted.
    oauth_paths = {app.oauth_flow.install_path, app.oauth_flow.redirect_uri_path} if app.oauth_flow is not None else set()

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
        if path in oauth_paths and method in ("GET", "HEAD"):
            try:
                return bolt(environ, start_response)
            except Exception:
                logger.exception("an install request (%s) failed", path)  # the query (a code, a state) is not logged
                return send(start_response, 500, {"ok": False}, extra=[("Connection", "close")])
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
        self.limits = limits
        self._refused: Counter[str] = Counter()
        self.open_by_client: Counter[str] = Counter()
        self.waitress.channel_class = type(
            "PaperbotChannel", (_Channel,), {"limits": limits, "refused": self._refused, "open_by_client": self.open_by_client}
        )

    def run(self) -> None:
        adj = self.waitress.adj
        next_check = 0.0
        try:
            while not self._closing and self._map:
                if self._draining:
                    self.waitress.accepting = False  # new connections wait in the backlog
                wasyncore.loop(timeout=adj.asyncore_loop_timeout, map=self._map, use_poll=adj.asyncore_use_poll, count=1)
                now = time.monotonic()
                if now >= next_check:
                    next_check = now + min(1.0, self.limits.request_deadline / 4, self.limits.crowded_request_deadline / 4)
                    self._close_late_requests(now)
        finally:
            with self._lock:
                wasyncore.close_all(self._map)  # the listener, every connection, the trigger

    def _close_late_requests(self, now: float) -> None:
        """Answer 408 to every request that has not arrived whole within the deadline, and close.

        On the loop's own thread, between passes, as waitress's own idle check runs. One
        log line for all it closed, and one for the connections refused since the last
        check, each naming the busiest clients: an attack is hundreds a second.
        """
        crowded = len(self._map) >= self.waitress.adj.connection_limit  # waitress counts its listener and trigger too
        deadline = (
            min(self.limits.request_deadline, self.limits.crowded_request_deadline) if crowded else self.limits.request_deadline
        )
        closed: Counter[str] = Counter()
        for channel in list(self.waitress.active_channels.values()):
            if isinstance(channel, _Channel) and channel.is_late(now, deadline, crowded=crowded):
                closed[channel.client] += 1
                channel.refuse(_REQUEST_TIMEOUT)
        if closed:
            logger.info(
                "closed %d connections with no whole request within %s s%s: %s",
                closed.total(),
                f"{deadline:g}",
                " (every connection taken)" if crowded else "",
                _busiest(closed),
            )
        if self._refused:
            logger.info(
                "refused %d connections over the limit of %d per client: %s",
                self._refused.total(),
                self.limits.connections_per_client,
                _busiest(self._refused),
            )
            self._refused.clear()

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
