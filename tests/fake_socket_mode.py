"""A stand-in for Slack's Socket Mode WebSocket server, on 127.0.0.1 and a free port.

Stdlib only (RFC 6455, just what Socket Mode uses): the HTTP Upgrade handshake, unmasked
server frames, masked client frames, text frames, ping -> pong, and the close handshake.
After a client connects it gets `{"type": "hello", ...}` as Slack sends it; `push()`
sends an envelope to the newest connection and the client's acks
(`{"envelope_id": ..., "payload": ...}`) are recorded for `wait_for_ack()`.

Hand `FakeSocketMode.url` to the fake Web API (`FakeSlack.socket_url`) so that
`apps.connections.open` returns it.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import socket
import struct
import threading
import time

from slack_helpers import slash_command_fields

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


def accept_key(key: str) -> str:
    """Sec-WebSocket-Accept for a client's Sec-WebSocket-Key."""
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def encode_frame(opcode: int, payload: bytes = b"") -> bytes:
    """One final, unmasked frame: servers never mask (RFC 6455, section 5.1)."""
    length = len(payload)
    if length <= 125:
        header = struct.pack("!BB", 0x80 | opcode, length)
    elif length <= 0xFFFF:
        header = struct.pack("!BBH", 0x80 | opcode, 126, length)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 127, length)
    return header + payload


def slash_command_envelope(
    envelope_id: str, text: str, response_url: str, *, user_id: str = "U100", channel_id: str = "C100"
) -> dict:
    """A `slash_commands` envelope as Slack pushes it: the form fields as a JSON payload."""
    return {
        "envelope_id": envelope_id,
        "type": "slash_commands",
        "accepts_response_payload": True,
        "payload": slash_command_fields(text, response_url, user_id=user_id, channel_id=channel_id),
    }


class _ClientGone(Exception):
    pass


class _Connection:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.send_lock = threading.Lock()
        self.closed = False

    def send(self, opcode: int, payload: bytes = b"") -> None:
        with self.send_lock:
            if not self.closed:
                self.sock.sendall(encode_frame(opcode, payload))

    def recv_exact(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise _ClientGone
            data += chunk
        return data

    def read_frame(self) -> tuple[int, bytes]:
        b1, b2 = self.recv_exact(2)
        if not b1 & 0x80:
            raise AssertionError("fragmented frames are not expected from the Socket Mode client")
        if not b2 & 0x80:
            raise AssertionError("a client frame must be masked (RFC 6455, section 5.1)")
        length = b2 & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", self.recv_exact(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", self.recv_exact(8))
        mask = self.recv_exact(4)
        data = self.recv_exact(length)
        return b1 & 0x0F, bytes(byte ^ mask[i % 4] for i, byte in enumerate(data))

    def close(self) -> None:
        with self.send_lock:
            self.closed = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


class FakeSocketMode:
    def __init__(self):
        self.acks: list[dict] = []  # every JSON text frame the client sent
        self.pings = 0
        self.closes: list[int] = []  # close codes the client sent
        self.handshakes: list[str] = []  # request lines, e.g. "GET /link/?ticket=t1 HTTP/1.1"
        self._connections: list[_Connection] = []
        self._lock = threading.Condition()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)  # closing a socket does not wake a blocked accept()
        self._thread = threading.Thread(target=self._accept_loop, name="fake-socket-mode", daemon=True)
        self._stopped = False

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> FakeSocketMode:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Send a close frame (1001, going away) to open connections and stop listening."""
        self._stopped = True
        self._thread.join(timeout=5)
        self._listener.close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.send(CLOSE, struct.pack("!H", 1001))
            connection.close()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self._listener.getsockname()[1]}/link/?ticket=fake-ticket"

    # -- scripting and inspecting --------------------------------------------------------

    def wait_connected(self, count: int = 1, timeout: float = 5.0) -> None:
        """Wait until `count` clients completed the handshake (and were sent hello)."""
        self._wait(lambda: len(self.handshakes) >= count, timeout, f"{count} connection(s)")

    def push(self, envelope: dict) -> None:
        """Send `envelope` as a text frame to the newest open connection."""
        with self._lock:
            open_ones = [c for c in self._connections if not c.closed]
        if not open_ones:
            raise AssertionError("no Socket Mode client is connected")
        open_ones[-1].send(TEXT, json.dumps(envelope).encode())

    def wait_for_ack(self, envelope_id: str, timeout: float = 5.0) -> dict:
        """The client's ack frame for `envelope_id` (its `payload` is the response, if any)."""
        found: list[dict] = []

        def acked() -> bool:
            found[:] = [a for a in self.acks if a.get("envelope_id") == envelope_id]
            return bool(found)

        self._wait(acked, timeout, f"an ack for {envelope_id}")
        return found[0]

    def wait_closed(self, timeout: float = 5.0) -> None:
        """Wait until every connection has ended (close frame or EOF)."""
        self._wait(lambda: all(c.closed for c in self._connections), timeout, "all connections to close")

    def _wait(self, predicate, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out waiting for {what}; acks so far: {self.acks}")
                self._lock.wait(remaining)

    def _append(self, items: list, item) -> None:
        with self._lock:
            items.append(item)
            self._lock.notify_all()

    def _notify(self) -> None:
        with self._lock:
            self._lock.notify_all()

    # -- the socket side ---------------------------------------------------------------------

    def _accept_loop(self) -> None:
        while not self._stopped:
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # the listener was closed
            sock.settimeout(None)
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        connection = _Connection(sock)
        try:
            request_line = self._handshake(connection)
            with self._lock:
                self._connections.append(connection)
                self.handshakes.append(request_line)
                self._lock.notify_all()
            hello = {
                "type": "hello",
                "num_connections": 1,
                "debug_info": {"host": "fake"},
                "connection_info": {"app_id": "A0001"},
            }
            connection.send(TEXT, json.dumps(hello).encode())
            while True:
                opcode, data = connection.read_frame()
                if opcode == PING:
                    with self._lock:
                        self.pings += 1
                    connection.send(PONG, data)
                elif opcode == TEXT:
                    self._append(self.acks, json.loads(data.decode("utf-8")))
                elif opcode == CLOSE:
                    code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else 1005
                    self._append(self.closes, code)
                    connection.send(CLOSE, data[:2])  # echo the code: the close handshake
                    return
        except (_ClientGone, OSError):
            return  # the client closed the TCP connection without a close frame
        finally:
            connection.close()
            self._notify()

    def _handshake(self, connection: _Connection) -> str:
        raw = b""
        while b"\r\n\r\n" not in raw:
            chunk = connection.sock.recv(1024)
            if not chunk:
                raise _ClientGone
            raw += chunk
        head, _, rest = raw.partition(b"\r\n\r\n")
        if rest:
            raise AssertionError("the client sent frames before the handshake's answer")
        request_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
        if headers.get("upgrade", "").lower() != "websocket" or "sec-websocket-key" not in headers:
            connection.sock.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            raise _ClientGone
        answer = (
            "HTTP/1.1 101 Switching Protocols\r\n"
            "Upgrade: websocket\r\n"
            "Connection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept_key(headers['sec-websocket-key'])}\r\n\r\n"
        )
        connection.sock.sendall(answer.encode())
        return request_line
