"""A stand-in for Slack's Web API and response_urls, on 127.0.0.1 and a free port.

Point the app's WebClient at `FakeSlack.api_url` (SLACK_API_BASE_URL) and hand out
`FakeSlack.response_url(...)` as response_urls. `users` and `channels` script what
users.info (tz, locale) and conversations.info (is_member, or an `error`) answer.
Every call is recorded; `fail()` makes
the next N calls of a method return a Slack error (or 429 + Retry-After for
"ratelimited"); `slow()` makes a method take its time (a digest caught mid-post). Set `socket_url` (tests/fake_socket_mode.py) to answer
`apps.connections.open`, which a Socket Mode client calls with its app token.

Installs from a link: `add_install(code, team_id, ...)` makes oauth.v2.access trade that
code for a bot token of that team (and auth.test answer for the token with the team);
`add_org_install(code, enterprise_id, ...)` for an org-wide (Enterprise Grid) token;
`add_refresh(...)` makes a refresh token (grant_type=refresh_token) give a new token.
A token nobody registered gets the default team T0001 from auth.test, as always.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


@dataclass
class Call:
    method: str  # "chat.postMessage", or "response" for a response_url POST
    args: dict
    headers: dict = field(default_factory=dict)
    status: int = 200  # what the fake answered
    response: dict = field(default_factory=dict)  # the answer's body (a posted message's ts)


class FakeSlack:
    def __init__(self):
        self.calls: list[Call] = []
        self.socket_url: str | None = None  # what apps.connections.open returns
        self.users: dict[str, dict] = {}  # user id -> fields users.info adds (tz, locale)
        # bot token -> user id -> fields users.info adds when asked with that token (one user
        # id may be two people in two workspaces); over `users`
        self.users_by_token: dict[str, dict[str, dict]] = {}
        self.channels: dict[str, dict] = {}  # channel id -> fields conversations.info adds (is_member)
        self.codes: dict[str, dict] = {}  # OAuth code -> what oauth.v2.access answers (used once)
        self.refreshes: dict[str, dict] = {}  # refresh token -> what oauth.v2.access answers for it
        self.tokens: dict[str, dict] = {}  # bot token -> the team auth.test names for it
        self._failures: dict[str, list[tuple[str, int]]] = {}
        self._delays: dict[str, float] = {}  # method -> seconds each call takes before it answers
        self._gate: tuple[str, int, threading.Event] | None = None  # (channel, posts let through, opened)
        self.held = 0  # calls that reached the gate (and waited there)
        self._lock = threading.Condition()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> FakeSlack:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    def response_url(self, name: str | None = None) -> str:
        return f"{self.url}/response/{name or next(self._ids)}"

    # -- scripting and inspecting --------------------------------------------------------

    def fail(self, method: str, error: str, times: int = 1) -> None:
        """Make the next `times` calls of `method` fail with `error` ("ratelimited" -> 429)."""
        status = 429 if error == "ratelimited" else 200
        with self._lock:
            self._failures.setdefault(method, []).extend([(error, status)] * times)

    def slow(self, method: str, seconds: float) -> None:
        """Make every call of `method` wait `seconds` before answering (0: answer at once)."""
        with self._lock:
            self._delays[method] = seconds

    def hold_posts(self, channel: str, *, after: int) -> None:
        """Let `after` chat.postMessage calls to `channel` through, then keep the next ones
        waiting (in flight, unanswered) until `release_posts()`: a poster caught mid-digest."""
        with self._lock:
            self._gate = (channel, after, threading.Event())

    def release_posts(self) -> None:
        with self._lock:
            if self._gate is not None:
                self._gate[2].set()
            self._gate = None

    def _wait_at_gate(self, method: str, args: dict) -> None:
        with self._lock:
            gate = self._gate
            if gate is None or method != "chat.postMessage" or args.get("channel") != gate[0]:
                return
            through = sum(1 for c in self.calls if c.method == method and c.args.get("channel") == gate[0])
        if through >= gate[1]:
            with self._lock:
                self.held += 1
            gate[2].wait(timeout=30)

    def reset(self) -> None:
        self.release_posts()
        with self._lock:
            self.held = 0
            self.calls.clear()
            self._failures.clear()
            self._delays.clear()
            self.socket_url = None
            self.users.clear()
            self.users_by_token.clear()
            self.channels.clear()
            self.codes.clear()
            self.refreshes.clear()
            self.tokens.clear()

    def add_install(
        self, code: str, team_id: str, team_name: str, bot_token: str, *, refresh_token: str = "", expires_in: int = 0
    ) -> None:
        """Make `code` install the app in `team_id` with `bot_token` (rotating when `refresh_token`)."""
        answer = {
            "ok": True, "app_id": "A0001", "token_type": "bot", "access_token": bot_token, "bot_user_id": "UBOT" + team_id,
            "scope": "commands,chat:write", "team": {"id": team_id, "name": team_name}, "enterprise": None,
            "is_enterprise_install": False, "authed_user": {"id": "UINSTALLER"},
        }  # fmt: skip
        if refresh_token:
            answer.update({"refresh_token": refresh_token, "expires_in": expires_in})
        with self._lock:
            self.codes[code] = answer
            self.tokens[bot_token] = {"team_id": team_id, "team": team_name, "user_id": "UBOT" + team_id}

    def add_org_install(self, code: str, enterprise_id: str, org_name: str, bot_token: str) -> None:
        """Make `code` install the app org-wide (Enterprise Grid): an enterprise, no team, and
        auth.test answering for the token with the org (as Slack answers for an org-wide install)."""
        answer = {
            "ok": True, "app_id": "A0001", "token_type": "bot", "access_token": bot_token, "bot_user_id": "UBOT" + enterprise_id,
            "scope": "commands,chat:write", "team": None, "enterprise": {"id": enterprise_id, "name": org_name},
            "is_enterprise_install": True, "authed_user": {"id": "WORGADMIN"},
        }  # fmt: skip
        with self._lock:
            self.codes[code] = answer
            self.tokens[bot_token] = {
                "team_id": "", "team": "", "enterprise_id": enterprise_id, "is_enterprise_install": True,
                "user_id": "UBOT" + enterprise_id, "bot_id": "B" + enterprise_id, "url": "https://org.enterprise.slack.com/",
            }  # fmt: skip

    def add_refresh(self, refresh_token: str, team_id: str, bot_token: str, *, next_refresh: str, expires_in: int) -> None:
        """Make `refresh_token` give `bot_token` (a rotation), valid for `expires_in` seconds."""
        answer = {
            "ok": True, "app_id": "A0001", "token_type": "bot", "access_token": bot_token, "bot_user_id": "UBOT" + team_id,
            "scope": "commands,chat:write", "team": {"id": team_id}, "refresh_token": next_refresh, "expires_in": expires_in,
        }  # fmt: skip
        with self._lock:
            self.refreshes[refresh_token] = answer
            self.tokens[bot_token] = {"team_id": team_id, "team": team_id, "user_id": "UBOT" + team_id}

    def calls_to(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 5.0) -> list[Call]:
        """Wait until `method` was called `count` times (listeners post after the ack)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                found = [c for c in self.calls if c.method == method]
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    names = [c.method for c in self.calls]
                    raise AssertionError(f"expected {count} call(s) to {method}, got {len(found)}; calls: {names}")
                self._lock.wait(remaining)

    def _record(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)
            self._lock.notify_all()

    def _next_failure(self, method: str) -> tuple[str, int] | None:
        with self._lock:
            queue = self._failures.get(method)
            return queue.pop(0) if queue else None

    # -- the HTTP side ---------------------------------------------------------------------

    def _answer(self, method: str, args: dict, headers: dict | None = None) -> dict:
        token = args.get("token") or (headers or {}).get("Authorization", "").removeprefix("Bearer ")
        if method == "oauth.v2.access":
            with self._lock:
                if args.get("grant_type") == "refresh_token":
                    answer = self.refreshes.pop(args.get("refresh_token", ""), None)
                else:
                    answer = self.codes.pop(args.get("code", ""), None)
            return answer or {"ok": False, "error": "invalid_code" if args.get("code") else "invalid_refresh_token"}
        if method == "auth.test" and token in self.tokens:
            return {"ok": True, "url": "https://example.slack.com/", "bot_id": "B" + self.tokens[token]["team_id"],
                    "is_enterprise_install": False, **self.tokens[token]}  # fmt: skip
        if method == "auth.test":
            return {
                "ok": True,
                "url": "https://example.slack.com/",
                "team": "Example",
                "user": "paperbot",
                "team_id": "T0001",
                "user_id": "UBOT",
                "bot_id": "BBOT",
                "is_enterprise_install": False,
            }
        if method in ("chat.postMessage", "chat.postEphemeral"):
            return {"ok": True, "channel": args.get("channel"), "ts": f"{time.time():.6f}", "message_ts": "1.1"}
        if method == "conversations.open":
            return {"ok": True, "channel": {"id": "D" + str(args.get("users", "X"))}}
        if method == "users.info":
            return {
                "ok": True,
                "user": {
                    "id": args.get("user"),
                    "locale": "en-US",
                    "name": "someone",
                    **self.users.get(args.get("user"), {}),
                    **self.users_by_token.get(token, {}).get(args.get("user"), {}),
                },  # fmt: skip
            }
        if method == "conversations.info":
            channel = {
                "id": args.get("channel"),
                "is_member": True,
                "is_archived": False,
                **self.channels.get(args.get("channel"), {}),
            }
            if channel.get("error"):
                return {"ok": False, "error": channel["error"]}
            return {"ok": True, "channel": channel}
        if method == "apps.connections.open":
            if self.socket_url is None:
                return {"ok": False, "error": "not_allowed_token_type"}
            return {"ok": True, "url": self.socket_url}
        if method == "views.publish":
            return {"ok": True, "view": {"id": "V1", **(args.get("view") or {})}}
        if method == "files.getUploadURLExternal":  # files_upload_v2, step 1 of 3
            file_id = f"F{next(self._ids)}"
            return {"ok": True, "upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id}
        if method == "files.completeUploadExternal":  # step 3: share the uploaded file(s)
            files = args.get("files")
            files = json.loads(files) if isinstance(files, str) else files or []
            return {"ok": True, "files": [{"id": f.get("id"), "title": f.get("title")} for f in files]}
        return {"ok": True}

    def uploaded(self) -> dict[str, str]:
        """What files_upload_v2 sent to each upload URL (step 2): file id -> content."""
        return {c.args["file_id"]: c.args["content"] for c in self.calls_to("upload")}

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # see bot/slack/server.py

            def do_POST(self):  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8")
                args = _parse(raw, self.headers.get("Content-Type", ""))
                headers = dict(self.headers.items())
                if self.path.startswith("/response/"):
                    fake._record(Call("response", args, headers))
                    self._send(200, "ok", "text/plain")
                    return
                if self.path.startswith("/upload/"):  # the file's bytes, as files.slack.com takes them
                    fake._record(Call("upload", {"file_id": self.path.removeprefix("/upload/"), "content": raw}, headers))
                    self._send(200, "OK - 0", "text/plain")
                    return
                method = self.path.removeprefix("/api/").split("?")[0]
                delay = fake._delays.get(method, 0.0)
                if delay:
                    time.sleep(delay)
                fake._wait_at_gate(method, args)
                failure = fake._next_failure(method)
                if failure:
                    error, status = failure
                    fake._record(Call(method, args, headers, status))
                    extra = {"Retry-After": "1"} if status == 429 else {}
                    self._send(status, json.dumps({"ok": False, "error": error}), extra=extra)
                    return
                answer = fake._answer(method, args, headers)
                fake._record(Call(method, args, headers, response=answer))
                self._send(200, json.dumps(answer))

            def _send(self, status, body, content_type="application/json", extra=None):
                data = body.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (extra or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the caller died waiting (a killed instance): Slack's side still took it
                    self.close_connection = True

            def log_message(self, *args):
                pass

        return Handler


class FilesFakeSlack(FakeSlack):
    """The fake Web API, also serving uploaded files at /files/<name> (url_private_download)."""

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.redirects: dict[str, str] = {}  # file name -> where its download redirects
        super().__init__()

    def file_url(self, name: str, data: bytes) -> str:
        self.files[name] = data
        return f"{self.url}/files/{name}"

    def _handler(self):
        fake, base = self, super()._handler()

        class Handler(base):
            def do_GET(self):  # noqa: N802
                fake._record(Call("GET", {"path": self.path}, dict(self.headers.items())))
                location = fake.redirects.get(self.path.removeprefix("/files/"))
                if location:
                    self.send_response(302)
                    self.send_header("Location", location)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = fake.files.get(self.path.removeprefix("/files/"))
                self.send_response(200 if data is not None else 404)
                self.send_header("Content-Length", str(len(data or b"")))
                self.end_headers()
                self.wfile.write(data or b"")

        return Handler


def _parse(raw: str, content_type: str) -> dict:
    """Slack's Web API takes form fields or JSON; JSON-valued form fields are decoded too."""
    if "json" in content_type:
        return json.loads(raw or "{}")
    args = {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}
    for key in ("blocks", "view", "attachments"):
        if isinstance(args.get(key), str) and args[key][:1] in "[{":
            args[key] = json.loads(args[key])
    return args
