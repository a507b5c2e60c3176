"""The HTTP front as the internet meets it: slow, half-sent, oversized and malformed requests.

Raw sockets on 127.0.0.1, because http.client refuses to send most of these.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
from urllib.parse import urlencode

import pytest
from slack_helpers import signed_headers

from bot.config import Settings
from bot.errors import ConfigError
from bot.slack.http import HttpLimits, client_of
from bot.slack.server import http_limits, start_app_server


def raw_exchange(port: int, data: bytes, *, timeout: float = 5.0) -> tuple[int, bytes]:
    """Send `data` on a fresh connection; return the status and the raw response."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        # The server may answer and close before a big body is all sent.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(data)
        response = read_response(sock)
    return int(response.split(b" ", 2)[1]), response


def read_response(sock: socket.socket) -> bytes:
    """Read one response: headers, then Content-Length bytes (or until close)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), None
    )
    while length is not None and len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def post_bytes(body: bytes, headers: dict[str, str]) -> bytes:
    lines = ["POST /slack/events HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@pytest.fixture
def strict_server(slack_settings, seed_corpus, fake_slack):
    """paperbot with limits small enough to watch them act within a test's time."""
    running = start_app_server(slack_settings, seed_corpus, limits=HttpLimits(threads=2, read_timeout=1, cleanup_interval=1))
    yield running
    running.shutdown()


def health_status(port: int) -> int:
    return raw_exchange(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=2)[0]


# -- issue 12: what one client may cost ---------------------------------------------------------


def test_half_sent_requests_hold_no_thread_and_are_closed_after_the_read_timeout(strict_server):
    port = strict_server.port
    stalled = []
    for _ in range(4):  # twice the server's threads
        sock = socket.create_connection(("127.0.0.1", port), timeout=6)
        sock.sendall(
            b'POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"half'
        )
        stalled.append(sock)
    try:
        started = time.monotonic()
        assert health_status(port) == 200  # the stalled requests took no thread
        assert time.monotonic() - started < 1
        for sock in stalled:
            assert sock.recv(1024) == b""  # closed by the server, not by our timeout
        assert time.monotonic() - started < 5
    finally:
        for sock in stalled:
            sock.close()


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Content-Length": "-1"}, 400),
        ({"Content-Length": "+5000000"}, 400),
        ({"Content-Length": "5000000"}, 413),
        ({"Transfer-Encoding": "chunked"}, 413),
    ],
)
def test_a_5_mb_body_never_gets_past_the_1_mb_cap(strict_server, fake_slack, headers, status, caplog, capfd):
    payload = b"x" * 5_000_000
    body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(payload), payload) if "Transfer-Encoding" in headers else payload
    with caplog.at_level(logging.INFO):
        got, response = raw_exchange(strict_server.port, post_bytes(body, {"Content-Type": "application/json", **headers}))
    assert got == status, response[:300]
    assert fake_slack.calls == []
    assert "Traceback" not in caplog.text and "Traceback" not in capfd.readouterr().err
    assert len([r for r in caplog.records if r.name == "bot.slack.http"]) == 1


def test_200_idle_connections_cost_no_threads_and_keep_alive_reuses_one(slack_settings, seed_corpus, fake_slack):
    limits = HttpLimits(threads=2, connections_per_client=250)  # one address opens them all
    server = start_app_server(slack_settings, seed_corpus, limits=limits)
    before = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(200)]
    try:
        time.sleep(0.2)
        assert threading.active_count() - before < 5
        assert health_status(server.port) == 200  # and the server still answers
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            for _ in range(3):  # three requests, one connection
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                assert read_response(sock).startswith(b"HTTP/1.1 200")
    finally:
        for sock in idle:
            sock.close()
        server.shutdown()


# -- issue 29, point 3: slow clients ------------------------------------------------------------

DRIP_HEAD = b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"


class Drippers:
    """Slowloris: connections that each send a byte every 0.3 s, well inside the read timeout."""

    def __init__(self, port: int, sources: list[str]):
        self.socks: list[socket.socket] = []
        for source in sources:
            sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
            sock.setblocking(False)
            self.socks.append(sock)
        self.closed_by_server: dict[int, bytes] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drip, daemon=True)
        self._thread.start()

    def _drip(self) -> None:
        at = 0
        while not self._stop.wait(0.3):
            for n, sock in enumerate(self.socks):
                if n in self.closed_by_server:
                    continue
                try:
                    answer = sock.recv(1024)
                except BlockingIOError:
                    answer = None
                except OSError:
                    answer = b""
                if answer is not None:  # the server answered or closed: it is cut off
                    self.closed_by_server[n] = answer
                    continue
                with contextlib.suppress(BlockingIOError, OSError):
                    sock.send(DRIP_HEAD[at % len(DRIP_HEAD) : at % len(DRIP_HEAD) + 1])
            at += 1

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.socks:
            sock.close()


def timed_command(port: int, text: str = "help") -> tuple[float, int]:
    """A signed /papers from 127.0.0.1, as Slack sends it: (seconds to the answer, status)."""
    from slack_helpers import slash_command_fields

    body = urlencode(slash_command_fields(text, "http://127.0.0.1:9/unused"))
    headers = signed_headers(body, FORM)
    headers["Content-Length"] = str(len(body))
    started = time.monotonic()
    status, _ = raw_exchange(port, post_bytes(body.encode(), headers), timeout=10)
    return time.monotonic() - started, status


def test_slow_drip_connections_are_cut_at_the_request_deadline_and_slack_gets_in(slack_settings, seed_corpus, fake_slack):
    """20 addresses (the per-client limit can't help) each trickle one request, holding every
    connection the server allows; the read timeout (30 s) never fires. The deadline cuts them."""
    limits = HttpLimits(connection_limit=20, read_timeout=30, request_deadline=1.0, cleanup_interval=1)
    server = start_app_server(slack_settings, seed_corpus, limits=limits)
    drippers = Drippers(server.port, [f"127.0.0.{n}" for n in range(2, 22)])
    try:
        time.sleep(0.3)  # all 20 accepted and dripping
        seconds, status = timed_command(server.port)
        assert status == 200
        assert seconds < 5  # 1 s deadline + a check + a loaded machine; before: never (all 20 held)
        # Those left in the backlog (waitress counts its listener and trigger against the
        # limit) are accepted as slots free, and cut a deadline later.
        cut_by = time.monotonic() + 6
        while len(drippers.closed_by_server) < 20 and time.monotonic() < cut_by:
            time.sleep(0.1)
        assert len(drippers.closed_by_server) == 20
        assert set(drippers.closed_by_server.values()) == {
            b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
        }
    finally:
        drippers.close()
        server.shutdown()


def test_when_every_connection_is_taken_slow_ones_make_way_within_slack_s_3_seconds(
    slack_settings, seed_corpus, fake_slack, caplog
):
    """The 10 s deadline alone would leave Slack waiting that long for a slot; while the
    server is full, a request not whole within 1 s (and an idle connection) makes way."""
    limits = HttpLimits(connection_limit=20, read_timeout=30, request_deadline=30, cleanup_interval=1)
    server = start_app_server(slack_settings, seed_corpus, limits=limits)
    with caplog.at_level(logging.INFO):
        drippers = Drippers(server.port, [f"127.0.0.{n}" for n in range(2, 22)])
        try:
            time.sleep(0.3)
            seconds, status = timed_command(server.port)
            assert status == 200 and seconds < 3  # before: no answer in 10 s (a 30 s deadline)
        finally:
            drippers.close()
            server.shutdown()
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("closed ")]
    assert lines and "within 1 s (every connection taken)" in lines[0]


def test_a_connection_that_sends_nothing_is_held_to_the_deadline_not_the_read_timeout(slack_settings, seed_corpus, fake_slack):
    limits = HttpLimits(read_timeout=30, request_deadline=0.5, cleanup_interval=1)
    server = start_app_server(slack_settings, seed_corpus, limits=limits)
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=8) as silent:
            started = time.monotonic()
            assert silent.recv(1024).startswith(b"HTTP/1.1 408")
            assert silent.recv(1024) == b""
            assert time.monotonic() - started < 5
        with socket.create_connection(("127.0.0.1", server.port), timeout=8) as kept:  # idle between requests: fine
            kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert read_response(kept).startswith(b"HTTP/1.1 200")
            time.sleep(1.0)  # twice the deadline
            kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert read_response(kept).startswith(b"HTTP/1.1 200")
    finally:
        server.shutdown()


def test_one_address_holds_at_most_its_share_of_connections(slack_settings, seed_corpus, fake_slack, caplog):
    """510 slow connections from one address locked everyone out; now it gets 10, and a
    signed /papers from another address answers at once (before: it waited for a slot)."""
    limits = HttpLimits(connection_limit=20, read_timeout=30, request_deadline=30, connections_per_client=10)
    server = start_app_server(slack_settings, seed_corpus, limits=limits)
    with caplog.at_level(logging.INFO):
        drippers = Drippers(server.port, ["127.0.0.2"] * 25)
        try:
            time.sleep(1.0)
            refused = [answer for answer in drippers.closed_by_server.values()]
            assert len(refused) == 15 and all(answer.startswith(b"HTTP/1.1 503") for answer in refused)
            seconds, status = timed_command(server.port)
            assert status == 200 and seconds < 2
        finally:
            drippers.close()
            server.shutdown()
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("refused ")]
    assert lines == ["refused 15 connections over the limit of 10 per client: 127.0.0.2 x15"]  # one line, not 15
    assert server.server.open_by_client == {}  # every connection closed is uncounted


def test_the_per_client_limit_is_an_operator_setting():
    assert http_limits(Settings()).connections_per_client == 50
    assert http_limits(Settings.from_env({"PAPERBOT_HTTP_CONNECTIONS_PER_CLIENT": "500"})).connections_per_client == 500
    with pytest.raises(ConfigError, match="PAPERBOT_HTTP_CONNECTIONS_PER_CLIENT must be at least 1"):
        Settings.from_env({"PAPERBOT_HTTP_CONNECTIONS_PER_CLIENT": "0"})


@pytest.mark.parametrize(
    ("addr", "client"),
    [
        (("10.1.2.3", 5), "10.1.2.3"),
        (("2001:db8:1:2:aaaa::1", 5, 0, 0), "2001:db8:1:2::/64"),
        (("2001:db8:1:2:bbbb::9", 5, 0, 0), "2001:db8:1:2::/64"),  # the same host's /64
        (("::ffff:10.1.2.3", 5, 0, 0), "10.1.2.3"),
    ],
)
def test_a_client_is_its_address_or_its_ipv6_64(addr, client):
    assert client_of(addr) == client


# -- issue 13: malformed requests get a clean 4xx and one log line ------------------------------

USER_TEXT = "my-private-query"


def signed(body: str, content_type: str) -> dict[str, str]:
    return signed_headers(body, content_type)


def _no_user_click(response_url: str) -> str:
    payload = {"type": "block_actions", "team": {"id": "T0001"}, "api_app_id": "A0001", "response_url": response_url,
               "actions": [{"action_id": "paper_details", "value": '{"id":"abc"}', "type": "button"}]}  # fmt: skip
    return urlencode({"payload": json.dumps(payload)})


FORM = "application/x-www-form-urlencoded"
MALFORMED = {
    "content-length-abc": lambda url: (b"{}", {"Content-Length": "abc", "Content-Type": "application/json"}, 400),
    "unsigned-bad-json-payload": lambda url: (f"payload=%7Bnot+js+{USER_TEXT}".encode(), {"Content-Type": FORM}, 401),
    "unsigned-brace": lambda url: (b"{", {"Content-Type": "application/json"}, 401),
    "forged-json": lambda url: (
        json.dumps({"text": USER_TEXT, "response_url": url}).encode(),
        {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": str(int(time.time())),
            "X-Slack-Signature": "v0=" + "0" * 64,
        },
        401,
    ),
    "timestamp-abc": lambda url: (
        b"text=" + USER_TEXT.encode(),
        {"Content-Type": FORM, "X-Slack-Request-Timestamp": "abc", "X-Slack-Signature": "v0=00"},
        401,
    ),
    "signed-list-payload": lambda url: (b"payload=%5B%5D", signed("payload=%5B%5D", FORM), 400),
    "signed-list-json": lambda url: (b"[]", signed("[]", "application/json"), 400),
    "signed-bad-json": lambda url: (b'{"a":', signed('{"a":', "application/json"), 400),
    "signed-click-without-user": lambda url: (_no_user_click(url).encode(), signed(_no_user_click(url), FORM), 400),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_request_gets_a_clean_4xx_and_one_log_line_without_its_body(paperbot_server, fake_slack, caplog, capfd, case):
    response_url = fake_slack.response_url("secret-hook")
    body, headers, expected = MALFORMED[case](response_url)
    headers.setdefault("Content-Length", str(len(body)))
    with caplog.at_level(logging.DEBUG):
        status, response = raw_exchange(paperbot_server.port, post_bytes(body, headers))
        time.sleep(0.05)
    assert status == expected, response[:300]
    mine = [r for r in caplog.records if r.name == "bot.slack.http"]
    assert len(mine) == 1 and mine[0].levelno <= logging.WARNING, [r.getMessage() for r in mine]
    assert not any(r.exc_info or r.exc_text for r in caplog.records)
    assert "Traceback" not in caplog.text and "Traceback" not in capfd.readouterr().err  # nothing raw on stderr
    assert USER_TEXT not in caplog.text and "secret-hook" not in caplog.text
    assert "Invalid request signature" not in caplog.text
    assert fake_slack.calls == []  # no handler ran


# -- the container's health check --------------------------------------------------------------


def test_the_healthcheck_command_follows_healthz(paperbot_server, slack_settings):
    from bot.config import Settings
    from bot.healthcheck import check
    from bot.slack.http import start_http_server

    assert check(Settings(port=paperbot_server.port)) == (True, f"http://127.0.0.1:{paperbot_server.port}/healthz: 200")
    starting = start_http_server(paperbot_server.app, lambda: False)  # the same app, its corpus still preparing
    try:
        assert check(Settings(port=starting.port))[0] is False  # 503 while preparing
    finally:
        starting.shutdown()
    assert check(Settings(port=starting.port), timeout=1)[0] is False  # nothing listening
    assert check(Settings(slack_app_token="xapp-1", port=1))[0] is True  # Socket Mode: no HTTP


def test_stopping_while_requests_are_in_flight_is_clean(paperbot_server, caplog):
    """The loop's trigger is closed only after the worker threads are done (it once raced: EBADF)."""
    import urllib.request

    from bot.slack.http import start_http_server

    for _ in range(15):
        running = start_http_server(paperbot_server.app, lambda: True)

        def hit(url=running.url):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(url + "/healthz", timeout=2).read()

        clients = [threading.Thread(target=hit) for _ in range(3)]
        for client in clients:
            client.start()
        running.shutdown()
        for client in clients:
            client.join()
        assert not running.thread.is_alive()
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_bolt_s_own_rejection_line_never_carries_the_body(paperbot_server, fake_slack, caplog):
    """Second guard: a request reaching Bolt's verification unsigned is logged without its body."""
    from slack_bolt.request import BoltRequest

    body = f"text={USER_TEXT}&response_url=http%3A%2F%2F127.0.0.1%2Fsecret-hook"
    headers = {"content-type": FORM, "x-slack-request-timestamp": str(int(time.time())), "x-slack-signature": "v0=00"}
    with caplog.at_level(logging.INFO):
        response = paperbot_server.app.dispatch(BoltRequest(body=body, headers=headers))
    assert response.status == 401
    assert "Invalid request signature detected (body not logged)" in caplog.text
    assert USER_TEXT not in caplog.text and "secret-hook" not in caplog.text
