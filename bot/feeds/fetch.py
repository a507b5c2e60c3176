"""HTTP GET for feeds and arXiv: conditional, size-capped, bounded in time and redirects.

The stdlib's urllib is enough here (one GET, no sessions or auth), and keeps every
failure one `FetchError` with a `kind` the caller turns into a sentence:

    network       the host can't be reached (DNS, refused, reset)
    timeout       no answer within `timeout` seconds
    too_large     the body is over `max_bytes` (checked on Content-Length and while reading)
    redirects     a redirect loop, or more than MAX_REDIRECTS redirects
    rate_limited  429; `retry_after` is the server's Retry-After in seconds, when given
    unavailable   503 (same `retry_after`)
    http          any other status >= 400 (`status` says which)
"""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from bot.errors import FetchError

USER_AGENT = "paperbot/0.1 (a Slack paper bot; python-urllib)"
MAX_REDIRECTS = 5
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
CHUNK = 64 * 1024


@dataclass
class Response:
    """What a GET returned; `status` 304 means not modified (and `body` is empty)."""

    status: int
    body: bytes = b""
    etag: str = ""
    last_modified: str = ""
    content_type: str = ""
    url: str = ""


class _Redirects(urllib.request.HTTPRedirectHandler):
    max_redirections = MAX_REDIRECTS
    max_repeats = 2


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


def fetch(
    url: str,
    *,
    etag: str = "",
    last_modified: str = "",
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    accept: str = "*/*",
) -> Response:
    """GET `url`; send ETag/Last-Modified back so an unchanged resource costs a 304."""
    headers = {"User-Agent": USER_AGENT, "Accept": accept}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    opener = urllib.request.build_opener(_Redirects)
    request = urllib.request.Request(url, headers=headers)
    try:
        with opener.open(request, timeout=timeout) as answer:
            length = answer.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > max_bytes:
                raise FetchError("too_large", f"{int(length)} bytes > {max_bytes}")
            body = bytearray()
            while True:
                chunk = answer.read(CHUNK)
                if not chunk:
                    break
                body += chunk
                if len(body) > max_bytes:
                    raise FetchError("too_large", f"more than {max_bytes} bytes")
            return Response(
                status=answer.status,
                body=bytes(body),
                etag=answer.headers.get("ETag", ""),
                last_modified=answer.headers.get("Last-Modified", ""),
                content_type=answer.headers.get("Content-Type", ""),
                url=answer.geturl(),
            )
    except urllib.error.HTTPError as error:
        error.close()
        if error.code == 304:
            return Response(status=304, etag=etag, last_modified=last_modified, url=url)
        if 300 <= error.code < 400:
            raise FetchError("redirects", str(error.reason), status=error.code) from None
        retry_after = parse_retry_after(error.headers.get("Retry-After") if error.headers else None)
        if error.code == 429:
            raise FetchError("rate_limited", "HTTP 429", status=429, retry_after=retry_after) from None
        if error.code == 503:
            raise FetchError("unavailable", "HTTP 503", status=503, retry_after=retry_after) from None
        raise FetchError("http", f"HTTP {error.code}", status=error.code) from None
    except FetchError:
        raise
    except TimeoutError as error:
        raise FetchError("timeout", f"no answer in {timeout:g} s") from error
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError | socket.timeout):
            raise FetchError("timeout", f"no answer in {timeout:g} s") from None
        raise FetchError("network", str(error.reason)) from None
    except (OSError, ValueError) as error:  # reset mid-body, a malformed URL, a bad status line
        raise FetchError("network", f"{type(error).__name__}: {error}") from None
