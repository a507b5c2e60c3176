"""Old vs new HTTP front, side by side: signed /papers over keep-alive, requests interleaved.

    .venv/bin/python bench/front.py --old /tmp/old-checkout --new .   [--requests 360]

Each checkout's `bot` package serves the seed corpus (`start_app_server`) in its own
process, against tests/fake_slack.py for auth.test; the client alternates which server it
asks first, so machine noise lands on both alike. Prints p50/p95 per query and the ratio.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_slack import FakeSlack  # noqa: E402
from slack_helpers import SIGNING_SECRET, signed_headers, slash_command_fields  # noqa: E402

QUERIES = ("help", "推测解码", "language models")
WORKER = r"""
import json, logging, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from bot.config import Settings
from bot.corpus import Corpus
from bot.slack.server import start_app_server
logging.basicConfig(level=logging.WARNING)
settings = Settings(data_dir=Path(tempfile.mkdtemp()), seeds_dir=Path(sys.argv[4]), slack_bot_token="xoxb-bench",
                    slack_signing_secret=sys.argv[2], slack_api_base_url=sys.argv[3])
corpus = Corpus.open(settings)
corpus.ingest_seeds_if_empty()
running = start_app_server(settings, corpus)
print(json.dumps({"port": running.port}), flush=True)
sys.stdin.readline()
running.shutdown()
"""


def percentile(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * q))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", default=str(ROOT))
    parser.add_argument("--requests", type=int, default=360)
    args = parser.parse_args()
    fake = FakeSlack().start()
    procs, conns = {}, {}
    for name, code in (("old", args.old), ("new", args.new)):
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
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        procs[name], conns[name] = proc, conn
    times: dict[tuple[str, str], list[float]] = {(n, q): [] for n in conns for q in QUERIES}
    for i in range(args.requests):
        query = QUERIES[i % len(QUERIES)]
        for name in ("old", "new") if i % 2 else ("new", "old"):
            body = urlencode(slash_command_fields(query, fake.response_url(), user_id="U_BENCH"))
            headers = signed_headers(body, "application/x-www-form-urlencoded")
            started = time.perf_counter()
            conns[name].request("POST", "/slack/events", body=body.encode(), headers=headers)
            response = conns[name].getresponse()
            response.read()
            assert response.status == 200, response.status
            if i >= 30:  # warm-up
                times[(name, query)].append((time.perf_counter() - started) * 1000)
    print("| query | old p50 | old p95 | new p50 | new p95 | p50 new/old |\n|---|---:|---:|---:|---:|---:|")
    for query in QUERIES:
        old, new = times[("old", query)], times[("new", query)]
        print(f"| `{query}` | {statistics.median(old):.2f} | {percentile(old, 0.95):.2f} | "
              f"{statistics.median(new):.2f} | {percentile(new, 0.95):.2f} | {statistics.median(new) / statistics.median(old):.2f} |")  # fmt: skip
    for proc in procs.values():
        proc.stdin.write("\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
    fake.stop()


if __name__ == "__main__":
    main()
