"""A stand-in for arXiv's Atom API and for listing URLs, on 127.0.0.1 and a free port.

Tests add entries with `add(...)` (written as arXiv's Atom) and point
PAPERBOT_ARXIV_API_URL at `api_url`. `/api/query` answers like arXiv: `id_list` picks
entries by id, `ti:"..."` clauses pick entries sharing most of the phrase's words (so a
near-miss title comes back too, as from the real search, and the client must reject it),
`cat:X` picks a category. Every request is recorded with its arrival time.

`script(path, *answers)` makes the next requests to `path` get scripted answers
(status, headers, body), for errors; `pages[path]` serves a fixed body with an ETag.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ATOM_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
    "<title>arXiv Query</title><id>http://arxiv.org/api/fake</id><updated>2026-12-01T00:00:00Z</updated>\n"
)


@dataclass
class Entry:
    arxiv_id: str
    title: str
    authors: list[str]
    abstract: str = "We study things. We find results. We release code."
    version: int = 1
    categories: list[str] = field(default_factory=lambda: ["cs.LG"])
    published: str = "2026-11-01T00:00:00Z"
    updated: str = "2026-11-02T00:00:00Z"
    doi: str = ""
    comment: str = ""

    def atom(self) -> str:
        cats = "".join(f'<category term="{c}" scheme="http://arxiv.org/schemas/atom"/>' for c in self.categories)
        authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in self.authors)
        extra = f"<arxiv:doi>{escape(self.doi)}</arxiv:doi>" if self.doi else ""
        extra += f"<arxiv:comment>{escape(self.comment)}</arxiv:comment>" if self.comment else ""
        url = f"http://arxiv.org/abs/{self.arxiv_id}v{self.version}"
        return (
            f"<entry><id>{url}</id><updated>{self.updated}</updated><published>{self.published}</published>"
            f"<title>{escape(self.title)}</title><summary>{escape(self.abstract)}</summary>{authors}{extra}"
            f'<link href="{url}" rel="alternate" type="text/html"/>'
            f'<link title="pdf" href="http://arxiv.org/pdf/{self.arxiv_id}v{self.version}" rel="related" type="application/pdf"/>'
            f'<arxiv:primary_category term="{self.categories[0]}" scheme="http://arxiv.org/schemas/atom"/>{cats}</entry>\n'
        )


def atom_feed(entries: list[Entry], total: int | None = None) -> str:
    count = len(entries) if total is None else total
    return (
        ATOM_HEAD
        + f"<opensearch:totalResults>{count}</opensearch:totalResults>\n"
        + "".join(e.atom() for e in entries)
        + "</feed>\n"
    )


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


@dataclass
class Request:
    path: str
    query: dict
    at: float
    headers: dict


class FakeArxiv:
    def __init__(self, host: str = "127.0.0.1"):
        self.entries: list[Entry] = []
        self.requests: list[Request] = []
        self.pages: dict[str, tuple[str, str]] = {}  # path -> (body, etag)
        self.delay: dict[str, float] = {}  # path -> seconds to wait before answering
        self._scripts: dict[str, list[tuple[int, dict, bytes]]] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer((host, 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def reset(self) -> FakeArxiv:
        """Forget entries, pages, delays, scripts and recorded requests (between tests)."""
        with self._lock:
            for store in (self.entries, self.requests, self.pages, self.delay, self._scripts):
                store.clear()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def api_url(self) -> str:
        return self.url + "/api/query"

    def add(self, *entries: Entry) -> None:
        self.entries.extend(entries)

    def script(self, path: str, *answers: tuple[int, dict, bytes | str]) -> None:
        with self._lock:
            self._scripts.setdefault(path, []).extend(
                (status, headers, body.encode() if isinstance(body, str) else body) for status, headers, body in answers
            )

    def api_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path == "/api/query"]

    def answer(self, query: dict) -> str:
        ids = [i for i in query.get("id_list", [""])[0].split(",") if i]
        search = query.get("search_query", [""])[0]
        phrases = re.findall(r'ti:"([^"]*)"', search)
        cats = re.findall(r"cat:([\w.\-]+)", search)
        terms = re.findall(r'all:"([^"]*)"', search)
        chosen = []
        for entry in self.entries:
            title = _words(entry.title)
            if (
                entry.arxiv_id in ids
                or any(len(_words(p) & title) * 2 >= max(1, len(_words(p))) for p in phrases)
                or any(c in entry.categories for c in cats)
                or any(_words(t) <= _words(entry.title + " " + entry.abstract) for t in terms)
            ):
                chosen.append(entry)
        limit = int(query.get("max_results", ["10"])[0])
        return atom_feed(chosen[:limit], total=len(chosen))

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                parts = urlsplit(self.path)
                with fake._lock:
                    fake.requests.append(Request(parts.path, parse_qs(parts.query), time.monotonic(), dict(self.headers)))
                    scripted = fake._scripts.get(parts.path)
                    answer = scripted.pop(0) if scripted else None
                if parts.path in fake.delay:
                    time.sleep(fake.delay[parts.path])
                if answer is not None:
                    status, headers, body = answer
                    return self._send(status, body, headers)
                if parts.path == "/api/query":
                    return self._send(200, fake.answer(parse_qs(parts.query)).encode(), {"Content-Type": "application/atom+xml"})
                if parts.path == "/loop":
                    return self._send(302, b"", {"Location": "/loop"})
                if parts.path == "/huge":
                    return self._huge()
                if parts.path == "/huge-unsized":
                    return self._huge(sized=False)
                if parts.path in fake.pages:
                    body, etag = fake.pages[parts.path]
                    if etag and self.headers.get("If-None-Match") == etag:
                        return self._send(304, b"", {"ETag": etag})
                    return self._send(200, body.encode(), {"ETag": etag, "Content-Type": "text/plain; charset=utf-8"})
                return self._send(404, b"<html><body>Not Found</body></html>", {"Content-Type": "text/html"})

            def _huge(self, sized: bool = True):
                """50 MB of text: with a Content-Length, or without one (read until closed)."""
                size = 50 * 1024 * 1024
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                if sized:
                    self.send_header("Content-Length", str(size))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.end_headers()
                chunk = b"x" * 65536
                try:
                    for _ in range(size // len(chunk)):
                        self.wfile.write(chunk)
                except OSError:
                    pass  # the client stopped reading, as it should

            def _send(self, status: int, body: bytes, headers: dict) -> None:
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

            def log_message(self, format, *args):  # noqa: A002
                pass

        return Handler
