"""HTTP GET for feeds and arXiv: public addresses only, conditional, size-capped, one deadline.

Every failure is one `FetchError` with a `kind` the caller turns into a sentence:

    network       the host can't be reached (DNS, refused, reset)
    timeout       the whole fetch (DNS, connect, headers, body, every redirect) took over `timeout` s
    too_large     the body is over `max_bytes` (checked on Content-Length and while reading)
    redirects     a redirect loop, or more than MAX_REDIRECTS redirects
    rate_limited  429; `retry_after` is the server's Retry-After in seconds, when given
    unavailable   503 (same `retry_after`)
    http          any other status >= 400 (`status` says which)
    private       the host's address is not a public one (loopback, private, link-local,
                  unspecified, multicast, reserved, shared 100.64/10, or an IPv6 form of
                  one of those) and `allow_private` does not cover it
    scheme        a redirect to anything but http:// or https:// (ftp://, file://, ...)

Why not urllib: it resolves the host again when it connects, so a check made before could
be answered by one DNS reply and the connection by another (DNS rebinding), and it
follows redirects (to ftp:// too) before the caller can look. Here each hop parses the
URL, resolves the host once, checks every address it got, and connects to a checked
address (TLS still verifies the certificate for the host's name). The addresses are
classified by the stdlib's `ipaddress`; the libraries made for this (advocate, for
requests, unmaintained since 2020; a few months-old httpx wrappers) would bring a new
HTTP stack for what is ~150 lines on http.client.

The deadline is total: a timer shuts the socket down when the fetch's time is up, so a
server dripping a byte a second can't stretch one read into minutes, and every blocking
step also gets the time left as its socket timeout.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

from bot.errors import FetchError

USER_AGENT = "paperbot/0.1 (a Slack paper bot)"
MAX_REDIRECTS = 5
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
CHUNK = 64 * 1024
SCHEMES = {"http": 80, "https": 443}
REDIRECT_STATUSES = {301, 302, 303, 307, 308}

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[..., list]
"""socket.getaddrinfo's signature: (host, port, type=...) -> [(family, type, proto, name, sockaddr)]."""

EVERYWHERE: tuple[Network, ...] = (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))
"""`allow_private` for URLs the operator configured (the arXiv API): any address."""

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_TLS: ssl.SSLContext | None = None


@dataclass
class Response:
    """What a GET returned; `status` 304 means not modified (and `body` is empty)."""

    status: int
    body: bytes = b""
    etag: str = ""
    last_modified: str = ""
    content_type: str = ""
    url: str = ""


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: a number of seconds or an HTTP date."""
    value = (value or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def is_public_address(address: Address) -> bool:
    """Tell whether `address` is one on the public internet (so not inside this network).

    `is_global` alone lets multicast (224/4) through, and IPv6 forms of an IPv4 address
    (::ffff:127.0.0.1, 64:ff9b::7f00:1, 2002:7f00:1::) are judged by the IPv4 address.
    """
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            return is_public_address(inner)
        if address.is_site_local:
            return False
    return address.is_global and not (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_unspecified
        or address.is_multicast
        or address.is_reserved
    )


def is_allowed_address(address: Address, allow_private: Iterable[Network] = ()) -> bool:
    """Public, or inside one of the networks the operator allowed (PAPERBOT_FEEDS_ALLOW_PRIVATE)."""
    if is_public_address(address):
        return True
    forms = [address]
    if isinstance(address, ipaddress.IPv6Address) and (inner := embedded_ipv4(address)) is not None:
        forms.append(inner)
    return any(form.version == network.version and form in network for form in forms for network in allow_private)


class _Deadline:
    """The fetch's total time: what is left, and a timer that cuts the socket when it is up."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.expired = False
        self._timer: threading.Timer | None = None

    def left(self) -> float:
        left = self.at - time.monotonic()
        if left <= 0:
            self.expired = True
            raise self.error()
        return left

    def error(self) -> FetchError:
        return FetchError("timeout", f"no answer in {self.seconds:g} s")

    def guard(self, sock: socket.socket) -> None:
        """Shut `sock` down when the time is up: a blocked read then returns at once."""
        self.release()
        self._timer = threading.Timer(max(0.0, self.at - time.monotonic()), self._cut, (sock,))
        self._timer.daemon = True
        self._timer.start()

    def _cut(self, sock: socket.socket) -> None:
        self.expired = True
        # The plain socket's shutdown, also for TLS: ssl's own would unwrap the connection
        # under the reading thread's feet instead of ending its read. (Closed already: fine.)
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def release(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _resolve(host: str, port: int, deadline: _Deadline, resolve: Resolver) -> list:
    """The host's addresses, asked once, within the deadline (a DNS lookup can't be interrupted,
    so it runs on a thread of its own that is left behind if it hangs)."""
    found: dict[str, object] = {}

    def lookup() -> None:
        try:
            found["infos"] = resolve(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            found["error"] = exc

    worker = threading.Thread(target=lookup, name=f"resolve {host[:40]}", daemon=True)
    worker.start()
    worker.join(deadline.left())
    if worker.is_alive():
        deadline.expired = True
        raise deadline.error()
    if "error" in found:
        raise FetchError("network", f"cannot resolve {host}: {found['error']}")
    infos = found.get("infos") or []
    if not infos:
        raise FetchError("network", f"cannot resolve {host}")
    return list(infos)  # type: ignore[call-overload]


def _checked(host: str, infos: list, allow_private: Iterable[Network]) -> list:
    """`infos` if every address is allowed; else FetchError("private") naming the first that is not.

    Every address, not just the first: a host that resolves to a public address and a
    private one could be reached at either.
    """
    allowed = tuple(allow_private)
    for info in infos:
        text = str(info[4][0]).split("%", 1)[0]  # an IPv6 zone (fe80::1%eth0) is not part of the address
        address = ipaddress.ip_address(text)
        if not is_allowed_address(address, allowed):
            shown = host if host == text else f"{host} ({text})"
            raise FetchError("private", shown)
    return infos


def _connect(infos: list, deadline: _Deadline) -> socket.socket:
    """A socket connected to one of the checked addresses, tried in the resolver's order."""
    last: OSError | None = None
    for family, kind, proto, _, sockaddr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(deadline.left())
            sock.connect(sockaddr)
            return sock
        except FetchError:
            sock.close()
            raise
        except OSError as exc:
            sock.close()
            last = exc
    raise last or OSError("no address to connect to")


def _tls() -> ssl.SSLContext:
    global _TLS
    if _TLS is None:
        _TLS = ssl.create_default_context()
    return _TLS


def fetch(
    url: str,
    *,
    etag: str = "",
    last_modified: str = "",
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    accept: str = "*/*",
    allow_private: Iterable[Network] = (),
    resolve: Resolver = socket.getaddrinfo,
) -> Response:
    """GET `url`; send ETag/Last-Modified back so an unchanged resource costs a 304.

    Redirects are followed here, each hop checked like the first. `allow_private`: the
    networks a non-public address may be in (the operator's intranet; EVERYWHERE for the
    arXiv API URL they configured). `resolve` is socket.getaddrinfo unless a test's.
    """
    headers = {"User-Agent": USER_AGENT, "Accept": accept, "Connection": "close"}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    allowed = tuple(allow_private)
    deadline = _Deadline(timeout)
    seen: list[str] = []
    current = url
    while True:
        seen.append(current)
        answer = _hop(current, headers, deadline, max_bytes, allowed, resolve)
        if isinstance(answer, Response):
            if answer.status == 304:
                return Response(
                    status=304, etag=answer.etag or etag, last_modified=answer.last_modified or last_modified, url=current
                )
            return answer
        target = urljoin(current, answer)
        if target in seen:
            raise FetchError("redirects", f"{current} redirects back to {target}"[:300])
        if len(seen) > MAX_REDIRECTS:
            raise FetchError("redirects", f"more than {MAX_REDIRECTS} redirects")
        current = target


def _hop(url: str, headers: dict, deadline: _Deadline, max_bytes: int, allowed: tuple, resolve: Resolver) -> Response | str:
    """One request: a Response, or the Location a redirect points at."""
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            raise FetchError("scheme", url[:200])
        host = parts.hostname or ""
        port = parts.port or SCHEMES[scheme]
    except ValueError as exc:  # a port that is not a number, a bad IPv6 literal
        raise FetchError("network", f"{type(exc).__name__}: {exc}") from None
    if not host:
        raise FetchError("network", f"no host in {url[:200]}")
    infos = _checked(host, _resolve(host, port, deadline, resolve), allowed)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    sock: socket.socket | None = None
    connection: http.client.HTTPConnection | None = None
    try:
        sock = _connect(infos, deadline)
        deadline.guard(sock)
        if scheme == "https":
            sock.settimeout(deadline.left())
            sock = _tls().wrap_socket(sock, server_hostname=host)
            deadline.guard(sock)
        connection_class = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        connection = connection_class(host, port, timeout=deadline.left())
        connection.sock = sock  # already connected, to the address checked above
        connection.request("GET", target, headers=headers)
        sock.settimeout(deadline.left())
        answer = connection.getresponse()
        return _read(answer, deadline, max_bytes, url)
    except FetchError:
        raise
    except (TimeoutError, http.client.HTTPException, ssl.SSLError, OSError, ValueError) as error:
        if deadline.expired or isinstance(error, TimeoutError):
            raise deadline.error() from None
        raise FetchError("network", f"{type(error).__name__}: {error}"[:300]) from None
    finally:
        deadline.release()
        if connection is not None:
            connection.close()  # the socket and the response read from it
        elif sock is not None:
            sock.close()


def _read(answer: http.client.HTTPResponse, deadline: _Deadline, max_bytes: int, url: str) -> Response | str:
    status = answer.status
    if status == 304:
        return Response(status=304, etag=answer.headers.get("ETag", ""), last_modified=answer.headers.get("Last-Modified", ""))
    if status in REDIRECT_STATUSES:
        location = answer.headers.get("Location", "").strip()
        if not location:
            raise FetchError("http", f"HTTP {status} without a Location", status=status)
        return location
    if status >= 300:
        retry_after = parse_retry_after(answer.headers.get("Retry-After"))
        if status == 429:
            raise FetchError("rate_limited", "HTTP 429", status=429, retry_after=retry_after)
        if status == 503:
            raise FetchError("unavailable", "HTTP 503", status=503, retry_after=retry_after)
        raise FetchError("http", f"HTTP {status}", status=status)
    length = answer.headers.get("Content-Length")
    if length and length.isdigit() and int(length) > max_bytes:
        raise FetchError("too_large", f"{int(length)} bytes > {max_bytes}")
    body = bytearray()
    while True:
        chunk = answer.read(CHUNK)
        if deadline.expired:  # cut short by the timer: what was read is not the whole body
            raise deadline.error()
        if not chunk:
            break
        body += chunk
        if len(body) > max_bytes:
            raise FetchError("too_large", f"more than {max_bytes} bytes")
    return Response(
        status=status,
        body=bytes(body),
        etag=answer.headers.get("ETag", ""),
        last_modified=answer.headers.get("Last-Modified", ""),
        content_type=answer.headers.get("Content-Type", ""),
        url=url,
    )
