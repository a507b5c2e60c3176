"""A signed /papers while 510 connections trickle bytes (issue 29, point 3), for each code.

    .venv/bin/python bench/slowloris.py --code /tmp/old-checkout --code .   [--connections 510]

Each checkout's `bot` serves the seed corpus with its default HTTP limits
(`start_app_server`) in its own process. Then, per scenario, `--connections` sockets open
and each sends one byte of a request head every 5 s (inside the 30 s read timeout), from
one address (127.0.0.2) or spread over 51 (127.0.0.2-52, 10 each), then spread and
reopening at once every connection the server closes; after 2 s a signed
/papers from 127.0.0.1 is timed to its answer, up to --give-up seconds. Slack gives up
after 3 s. Not part of the suite; needs Linux (all of 127/8 is loopback) and ~1,100 fds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from fake_slack import FakeSlack  # noqa: E402
from front import WORKER  # noqa: E402
from slack_helpers import SIGNING_SECRET, signed_headers, slash_command_fields  # noqa: E402

HEAD = b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"


def _connect(port: int, source: str) -> socket.socket | None:
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    except OSError:
        return None
    sock.setblocking(False)
    return sock


def drip(port: int, sources: list[str], stop: threading.Event, reconnect: bool) -> None:
    """Each socket sends one byte of a request head every 5 s; with `reconnect`, a socket
    the server closed is opened again at once (an attacker keeping up the pressure)."""
    socks = [_connect(port, source) for source in sources]
    at = 0
    while not stop.wait(0 if at == 0 else 0.5):
        for n, sock in enumerate(socks):
            closed = sock is None
            if sock is not None:
                try:
                    sock.recv(1024)  # anything at all is an answer (408/503) or the close
                    closed = True
                except BlockingIOError:
                    closed = False
                except OSError:
                    closed = True
            if closed:
                if sock is not None:
                    sock.close()
                socks[n] = _connect(port, sources[n]) if reconnect else None
                continue
            if at % 10 == 0:  # every 5 s
                with contextlib.suppress(OSError):
                    sock.send(HEAD[at // 10 % len(HEAD) : at // 10 % len(HEAD) + 1])
        at += 1
    for sock in socks:
        if sock is not None:
            sock.close()


def timed_command(port: int, give_up: float, response_url: str) -> str:
    body = urlencode(slash_command_fields("speculative decoding", response_url))
    headers = signed_headers(body, "application/x-www-form-urlencoded")
    request = f"POST /slack/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {len(body)}\r\n"
    request += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=give_up) as sock:
            sock.sendall(request.encode() + body.encode())
            answer = sock.recv(64)
    except OSError:
        return f"> {give_up:.0f} s (no answer)"
    status = answer.split(b" ", 2)[1].decode() if answer else "closed"
    return f"{time.monotonic() - started:.2f} s ({status})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code", action="append", required=True)
    parser.add_argument("--connections", type=int, default=510)
    parser.add_argument("--give-up", type=float, default=30.0)
    args = parser.parse_args()
    fake = FakeSlack().start()
    n = args.connections
    scenarios = {
        "no attack": [],
        "no attack, again": [],
        f"{n} from one address": ["127.0.0.2"] * n,
        f"{n} from {(n + 9) // 10} addresses": [f"127.0.{2 + i // 10 // 250}.{2 + (i // 10) % 250}" for i in range(n)],
    }
    scenarios[f"{n} from {(n + 9) // 10} addresses, reconnecting at once"] = scenarios[f"{n} from {(n + 9) // 10} addresses"]
    print("| scenario | " + " | ".join(args.code) + " |\n|---|" + "---:|" * len(args.code))
    rows: dict[str, list[str]] = {name: [] for name in scenarios}
    for code in args.code:
        cmd = [
            sys.executable,
            "-c",
            WORKER,
            str(Path(code).resolve()),
            SIGNING_SECRET,
            fake.api_url.rstrip("/"),
            str(ROOT / "seeds"),
        ]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=code)
        port = json.loads(proc.stdout.readline())["port"]
        for name, sources in scenarios.items():
            stop = threading.Event()
            dripper = threading.Thread(target=drip, args=(port, sources, stop, "reconnecting" in name), daemon=True)
            dripper.start()
            time.sleep(2 if sources else 0)
            rows[name].append(timed_command(port, args.give_up, fake.response_url()))
            stop.set()
            dripper.join()
            time.sleep(1)  # the server notices the closed sockets
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait(timeout=20)
    for name, cells in rows.items():
        print(f"| {name} | " + " | ".join(cells) + " |")
    fake.stop()


if __name__ == "__main__":
    main()
