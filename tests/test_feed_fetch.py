"""The feed fetcher reaches only public addresses, follows only http(s), and keeps one deadline.

Real servers on 127.0.0.1 (and 127.0.0.2, another loopback address, standing for an
internal host): the fetcher must refuse them unless the operator's
PAPERBOT_FEEDS_ALLOW_PRIVATE covers them, in every spelling of the address, on every hop.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from datetime import UTC, datetime

import pytest
from digest_support import FakeClock, listing_text, open_corpus
from fake_arxiv import FakeArxiv

from bot.config import ALL_NETWORKS, Settings
from bot.errors import ConfigError, FetchError
from bot.feeds.fetch import fetch, is_public_address
from bot.feeds.sources import SourceService

LOOPBACK_ONLY = (ipaddress.ip_network("127.0.0.1/32"),)


@pytest.fixture(scope="module")
def server():
    fake = FakeArxiv()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def inside():
    """An "internal" server on 127.0.0.2: what a redirect or a rebinding DNS answer points at."""
    fake = FakeArxiv(host="127.0.0.2")
    yield fake
    fake.stop()


@pytest.fixture
def fake(server, inside):
    inside.reset().pages["/secret.txt"] = (listing_text("Internal（内部）", 1, 2), "")
    return server.reset()


class Listener:
    """A raw TCP port that records connections: what a redirect to ftp:// would have talked to."""

    def __init__(self, answer=None):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.answer = answer
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            if self.answer:
                threading.Thread(target=self.answer, args=(conn,), daemon=True).start()
            else:
                conn.close()

    def close(self):
        self.sock.close()


def drip(conn, *, headers_first: bool = True, seconds: float = 6.0):
    """A server that sends a byte every 0.1 s: inactivity timeouts never fire."""
    try:
        conn.recv(65536)
        if headers_first:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
            data = b"x" * 1000
        else:
            data = b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"y" * 1000
        end = time.monotonic() + seconds
        for byte in data:
            if time.monotonic() > end:
                break
            conn.sendall(bytes([byte]))
            time.sleep(0.1)
    except OSError:
        pass
    finally:
        conn.close()


def spellings(port: int) -> list[str]:
    return [
        f"http://127.0.0.1:{port}/feed.txt",
        f"http://[::1]:{port}/feed.txt",
        f"http://2130706433:{port}/feed.txt",
        f"http://0x7f000001:{port}/feed.txt",
        f"http://017700000001:{port}/feed.txt",
        f"http://127.1:{port}/feed.txt",
        f"http://0.0.0.0:{port}/feed.txt",
        f"http://localhost:{port}/feed.txt",
        f"http://[::ffff:127.0.0.1]:{port}/feed.txt",
        f"http://[::ffff:7f00:1]:{port}/feed.txt",
        f"https://127.0.0.1:{port}/feed.txt",
    ]


@pytest.mark.parametrize("index", range(11))
def test_every_spelling_of_loopback_is_refused_before_connecting(fake, index):
    fake.pages["/feed.txt"] = (listing_text("Loop（回环）", 1, 1), "")
    url = spellings(fake.port)[index]
    with pytest.raises(FetchError) as error:
        fetch(url, timeout=2)
    assert error.value.kind == "private"
    assert not fake.requests  # nothing reached the server


@pytest.mark.parametrize(
    "address",
    ["10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "224.0.0.1", "240.0.0.1", "0.0.0.0",
     "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fec0::1", "::ffff:10.0.0.1", "64:ff9b::a00:1",
     "2002:a00:1::1", "ff02::1"],
)  # fmt: skip
def test_internal_addresses_are_not_public(address):
    assert not is_public_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "2a00:1450:4001::200e"])
def test_public_addresses_are(address):
    assert is_public_address(ipaddress.ip_address(address))


def test_the_operator_setting_allows_private_networks(fake):
    fake.pages["/feed.txt"] = (listing_text("Intranet（内网）", 1, 1), '"e"')
    assert fetch(fake.url + "/feed.txt", timeout=2, allow_private=ALL_NETWORKS).status == 200
    assert fetch(fake.url + "/feed.txt", timeout=2, allow_private=LOOPBACK_ONLY).status == 200
    with pytest.raises(FetchError, match="private"):  # 127.0.0.2 is not in 127.0.0.1/32
        fetch(f"http://127.0.0.2:{fake.port}/feed.txt", timeout=2, allow_private=LOOPBACK_ONLY)


@pytest.mark.parametrize(
    "value, expected",
    [("", ()), ("off", ()), ("on", ALL_NETWORKS), ("10.1.0.0/16, fd00::/8", ("10.1.0.0/16", "fd00::/8"))],
)
def test_the_setting_reads_on_off_and_networks(value, expected):
    got = Settings.from_env({"PAPERBOT_FEEDS_ALLOW_PRIVATE": value}).feeds_allow_private
    assert tuple(str(n) for n in got) == tuple(str(n) for n in expected)


def test_a_bad_setting_says_what_to_write():
    with pytest.raises(ConfigError, match="PAPERBOT_FEEDS_ALLOW_PRIVATE.*10.1.0.0/16"):
        Settings.from_env({"PAPERBOT_FEEDS_ALLOW_PRIVATE": "intranet"})


@pytest.mark.parametrize("location", ["http://127.0.0.2:{inside}/secret.txt", "http://169.254.169.254/latest/meta-data/"])
def test_a_redirect_to_an_internal_host_is_refused(fake, inside, location):
    fake.script("/feed.txt", (302, {"Location": location.format(inside=inside.port)}, ""))
    with pytest.raises(FetchError) as error:
        fetch(fake.url + "/feed.txt", timeout=2, allow_private=LOOPBACK_ONLY)
    assert error.value.kind == "private"
    assert [r.path for r in fake.requests] == ["/feed.txt"] and not inside.requests


def test_a_redirect_to_another_scheme_is_refused_without_talking_to_it(fake):
    listener = Listener()
    try:
        for location in (f"ftp://127.0.0.1:{listener.port}/x", "file:///etc/passwd", f"gopher://127.0.0.1:{listener.port}/"):
            fake.script("/feed.txt", (301, {"Location": location}, ""))
            with pytest.raises(FetchError) as error:
                fetch(fake.url + "/feed.txt", timeout=2, allow_private=ALL_NETWORKS)
            assert error.value.kind == "scheme" and location.split(":")[0] in error.value.detail
        assert listener.accepted == 0
    finally:
        listener.close()


def test_a_redirect_within_the_rules_is_followed(fake):
    fake.pages["/moved.txt"] = (listing_text("Moved（迁移）", 1, 1), "")
    fake.script("/feed.txt", (307, {"Location": "/moved.txt"}, ""))
    answer = fetch(fake.url + "/feed.txt", timeout=2, allow_private=LOOPBACK_ONLY)
    assert answer.status == 200 and answer.url.endswith("/moved.txt") and b"Moved" in answer.body


def test_the_address_checked_is_the_address_connected_to(fake, inside):
    """DNS rebinding: a name that answers 127.0.0.1 (allowed) first and 127.0.0.2 after."""
    fake.pages["/secret.txt"] = (listing_text("Allowed（允许）", 1, 1), "")
    asked = []

    def rebinding(host, port, **kwargs):
        asked.append(host)
        address = "127.0.0.1" if len(asked) == 1 else "127.0.0.2"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, inside.port if len(asked) > 1 else fake.port))]

    answer = fetch(f"http://feeds.example:{fake.port}/secret.txt", timeout=2, allow_private=LOOPBACK_ONLY, resolve=rebinding)
    assert b"Allowed" in answer.body and asked == ["feeds.example"]
    assert fake.requests[0].headers.get("Host") == f"feeds.example:{fake.port}" and not inside.requests


@pytest.mark.parametrize("headers_first", [True, False], ids=["dripping-body", "dripping-headers"])
def test_a_dripping_server_is_cut_at_the_deadline(headers_first):
    listener = Listener(answer=lambda conn: drip(conn, headers_first=headers_first))
    try:
        started = time.monotonic()
        with pytest.raises(FetchError) as error:
            fetch(f"http://127.0.0.1:{listener.port}/drip.txt", timeout=1.0, allow_private=ALL_NETWORKS)
        elapsed = time.monotonic() - started
        assert error.value.kind == "timeout" and elapsed < 2.5  # the old per-read timeout waited out all 6 s
    finally:
        listener.close()


def service(tmp_path, fake, clock, allow_private=()):
    corpus = open_corpus(tmp_path / "data")
    settings = Settings(data_dir=tmp_path / "data", arxiv_enabled=False, feeds_allow_private=allow_private)
    return corpus, SourceService(settings, corpus, clock=clock, timeout=1.0)


def test_a_loopback_feed_fails_with_a_reason_saying_how_to_allow_it(tmp_path, fake):
    fake.pages["/feed.txt"] = (listing_text("Internal（内部）", 1, 3), "")
    corpus, feeds = service(tmp_path, fake, FakeClock(datetime(2026, 12, 1, tzinfo=UTC)))
    try:
        feeds.add(f"http://2130706433:{fake.port}/feed.txt", added_by="U1")
        (result,) = feeds.poll_all()
        assert result.error == "private" and corpus.store.state()[0] == 0 and not fake.requests
        (source,) = feeds.list_sources()
        assert "2130706433 (127.0.0.1)" in source.error_text("en") and "PAPERBOT_FEEDS_ALLOW_PRIVATE" in source.error_text("en")
        assert "不是公网地址" in source.error_text("zh") and "PAPERBOT_FEEDS_ALLOW_PRIVATE" in source.error_text("zh")
    finally:
        corpus.close()


def test_a_dripping_feed_does_not_hold_up_the_next_one(tmp_path, fake):
    fake.pages["/next.txt"] = (listing_text("Next（下一个）", 1, 2), "")
    listener = Listener(answer=drip)
    corpus, feeds = service(tmp_path, fake, FakeClock(datetime(2026, 12, 1, tzinfo=UTC)), allow_private=ALL_NETWORKS)
    try:
        feeds.add(f"http://127.0.0.1:{listener.port}/drip.txt", added_by="U1")
        feeds.add(fake.url + "/next.txt", added_by="U1")
        started = time.monotonic()
        slow, quick = feeds.poll_all()
        assert time.monotonic() - started < 3.0  # the drip alone lasts 6 s
        assert slow.error == "timeout" and (quick.error, quick.added) == ("", 2)
    finally:
        listener.close()
        corpus.close()
