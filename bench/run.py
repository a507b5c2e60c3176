"""Benchmark paperbot against SQLite FTS5 (trigram): ingest, size, search, cold start, memory.

    python bench/run.py --sizes 1000,10000,100000          # writes bench/RESULTS.md
    python bench/run.py --sizes 1000 --json                # also prints the results as JSON

For each size a deterministic corpus is generated under bench/work/ (bench/corpus.py),
then for each engine, each in its own subprocess so that peak RSS and cold start are
honest: ingest into a fresh data folder (paperbot: `Corpus.ingest_paths`, store + index);
measure the folder; serve the fixed query mix (bench/queries.py) warm, several times;
and time cold starts (`python -c` that opens the corpus and answers one query). At the
largest size, `/papers` is also timed end to end: Slack-signed form posts to paperbot's
HTTP server on loopback, answer in the ack body.

Progress goes to stderr; workers are this file with `--worker KIND`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import hmac
import http.client
import json
import os
import platform
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

BENCH = Path(__file__).resolve().parent
# paperbot's code: this checkout, or a patched copy (`--code DIR`, passed on to workers).
ROOT = Path(os.environ.get("PAPERBOT_BENCH_CODE") or BENCH.parent).resolve()
for p in (str(ROOT), str(BENCH)):
    if p not in sys.path:
        sys.path.insert(0, p)

ENGINES = ("paperbot", "fts5")
SIGNING_SECRET = "bench-signing-secret-0123456789abcdef"
COLD_QUERY = "language models"
COLD_RUNS = 3

TARGETS = {  # issue 12's, at 1M papers
    "search_p50_ms": 30.0,
    "search_p95_ms": 100.0,
    "search_p95_vs_fts5": 1 / 3,
    "e2e_p95_ms": 200.0,
    "ingest_per_s": 1500.0,
    "cold_start_s": 2.0,
    "peak_rss_mb": 400.0,
}


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def peak_rss_mb() -> float:
    """This process's RSS high-water mark in MB.

    VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss across exec, so a child
    spawned from a big parent would report the parent's size as its own peak.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100) of `values`."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


# -- engines, as the workers see them -----------------------------------------------------


def open_engine(engine: str, data: Path, *, writing: bool = False):
    if engine == "paperbot":
        from bot.config import Settings
        from bot.corpus import Corpus

        # As `python -m bot ingest` does: large index writes use a worker per core.
        return Corpus.open(Settings(data_dir=data), writer_procs=(os.cpu_count() or 1) if writing else 1)
    from fts5 import Fts5Corpus

    return Fts5Corpus(data / "fts5.sqlite3")


def search_once(engine: str, corpus, text: str) -> tuple[int, str]:
    if engine == "paperbot":
        result = corpus.search(text)
        return result.total, result.mode
    result = corpus.search(text)
    return result["total"], result["mode"]


# -- workers (each runs in its own process) -----------------------------------------------


def worker_ingest(engine: str, data: Path, corpus_dir: Path) -> dict:
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    files = sorted(corpus_dir.glob("*.txt"))
    start = time.perf_counter()
    corpus = open_engine(engine, data, writing=True)
    opened = time.perf_counter()
    if engine == "paperbot":
        reports = corpus.ingest_paths(files)
        records = sum(r.new + r.updated + r.unchanged for r in reports)
        papers = corpus.store.state()[0]
        indexed = corpus.index.state()[0]
        assert indexed == papers, (indexed, papers)
    else:
        totals = corpus.ingest_paths(files)
        records = totals["records"]
        papers = corpus.count()
    done = time.perf_counter()
    corpus.close()
    if engine == "fts5":  # fold the WAL into the database so the size is the real one
        import sqlite3

        db = sqlite3.connect(data / "fts5.sqlite3")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
    return {
        "papers": papers,
        "records": records,
        "ingest_s": done - opened,
        "open_s": opened - start,
        "ingest_peak_rss_mb": peak_rss_mb(),
    }


def worker_serve(engine: str, data: Path, repeat: int) -> dict:
    from queries import QUERIES

    corpus = open_engine(engine, data)
    totals = {}
    for _, text in QUERIES:  # warm: every query once, unmeasured
        totals[text] = search_once(engine, corpus, text)
    times: dict[str, list[float]] = {text: [] for _, text in QUERIES}
    rng = random.Random(7)
    for _ in range(repeat):
        order = list(QUERIES)
        rng.shuffle(order)
        for _, text in order:
            t0 = time.perf_counter()
            search_once(engine, corpus, text)
            times[text].append((time.perf_counter() - t0) * 1000)
    all_ms = [ms for v in times.values() for ms in v]
    per_category: dict[str, list[float]] = {}
    for category, text in QUERIES:
        per_category.setdefault(category, []).extend(times[text])
    return {
        "search_p50_ms": percentile(all_ms, 50),
        "search_p95_ms": percentile(all_ms, 95),
        "search_p99_ms": percentile(all_ms, 99),
        "searches": len(all_ms),
        "peak_rss_mb": peak_rss_mb(),
        "categories": {c: {"p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95)} for c, v in per_category.items()},
        "queries": {
            text: {"median_ms": statistics.median(times[text]), "total": totals[text][0], "mode": totals[text][1]}
            for _, text in QUERIES
        },
    }


class _FakeWebApi:
    """Answer every Slack Web API call with ok (Bolt calls auth.test once, lazily; users.info
    says who the reader is, as paperbot asks it for a person's language when they set none)."""

    def __init__(self):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from threading import Thread

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.endswith("/users.info"):
                    reader = {"id": "U0READER", "tz": "UTC", "locale": "en-US", "is_bot": False}
                    body = json.dumps({"ok": True, "user": reader}).encode()
                else:
                    body = json.dumps(
                        {
                            "ok": True,
                            "url": "https://bench.slack.com/",
                            "team": "bench",
                            "user": "paperbot",
                            "team_id": "T0BENCH",
                            "user_id": "U0BOT",
                            "bot_id": "B0BOT",
                            "is_enterprise_install": False,
                        }
                    ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/"


def worker_slack(data: Path) -> None:
    """Serve /papers over HTTP on loopback until stdin says stop; print port, then peak RSS."""
    import logging

    from bot.config import Settings
    from bot.corpus import Corpus
    from bot.slack.server import start_app_server

    logging.basicConfig(level=logging.WARNING)
    api = _FakeWebApi()
    settings = Settings(
        data_dir=data,
        slack_bot_token="xoxb-bench",
        slack_signing_secret=SIGNING_SECRET,
        slack_api_base_url=api.url,
    )
    # As serve() does: load, then prepare (the dictionary and typo vocabularies loaded
    # before the server is ready), so the first requests meet the server users meet.
    corpus = Corpus.load(settings)
    corpus.prepare()
    running = start_app_server(settings, corpus)
    print(json.dumps({"port": running.port}), flush=True)
    sys.stdin.readline()
    running.shutdown()
    print(json.dumps({"peak_rss_mb": peak_rss_mb()}), flush=True)


INGEST_RECORD = "bench-ingest.json"  # beside an ingested data folder: which corpus, and how the ingest went


def ingest_record_path(data: Path) -> Path:
    return data.parent / f"{data.name}.{INGEST_RECORD}"


def record_ingest(data: Path, manifest: dict, ingest: dict) -> None:
    """Written only after an ingest completed (the record goes before one starts)."""
    record = {"corpus_sha256": manifest["sha256"], "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), **ingest}
    ingest_record_path(data).write_text(json.dumps(record, indent=2), encoding="utf-8")


def reused_ingest(data: Path, manifest: dict) -> dict | None:
    """The recorded ingest of `data` if it was built from this very corpus, else None."""
    try:
        record = json.loads(ingest_record_path(data).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if record.get("corpus_sha256") != manifest["sha256"] or not data.is_dir():
        return None
    return record


def run_worker(kind: str, *args: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"worker {kind} {args} failed with exit code {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- measurements driven from the parent ---------------------------------------------------

# Printed after the answer, so it costs the cold start nothing that matters.
_HWM = "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')][0])"
_COLD = {
    "paperbot": (
        "import sys; sys.path.insert(0, {root!r}); from pathlib import Path; "
        "from bot.config import Settings; from bot.corpus import Corpus; "
        "c = Corpus.open(Settings(data_dir=Path({data!r}))); print(c.search({q!r}).total); " + _HWM
    ),
    "fts5": (
        "import sys; sys.path.insert(0, {bench!r}); from pathlib import Path; "
        "from fts5 import Fts5Corpus; "
        "c = Fts5Corpus(Path({data!r}) / 'fts5.sqlite3'); print(c.search({q!r})['total']); " + _HWM
    ),
}


def cold_start(engine: str, data: Path) -> dict:
    """Wall time from spawning `python -c` to its exit after answering one query (median of 3)."""
    code = _COLD[engine].format(root=str(ROOT), bench=str(BENCH), data=str(data), q=COLD_QUERY)
    walls, rss = [], []
    for _ in range(COLD_RUNS):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = proc.communicate()
        walls.append(time.perf_counter() - t0)
        lines = out.split()
        if proc.returncode != 0 or len(lines) != 2 or not all(x.isdigit() for x in lines):
            raise SystemExit(f"cold start of {engine} failed ({proc.returncode}): {out!r} {err.decode()}")
        rss.append(int(lines[1]) / 1024)
    return {"cold_start_s": statistics.median(walls), "cold_start_runs_s": walls, "cold_start_rss_mb": max(rss)}


def slash_body(text: str, n: int) -> str:
    return urllib.parse.urlencode(
        {
            "token": "legacy-verification-token",
            "team_id": "T0BENCH",
            "team_domain": "bench",
            "channel_id": "C0BENCH",
            "channel_name": "papers",
            "user_id": "U0READER",
            "user_name": "reader",
            "command": "/papers",
            "text": text,
            "api_app_id": "A0BENCH",
            "is_enterprise_install": "false",
            "response_url": "https://hooks.slack.com/commands/T0BENCH/1/abc",
            "trigger_id": f"1.{n}.abc",
        }
    )


def signed_headers(body: str, secret: str = SIGNING_SECRET) -> dict:
    ts = str(int(time.time()))
    sig = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    return {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": f"v0={sig}",
    }


def end_to_end(data: Path, repeat: int) -> dict:
    """Time signed `/papers` posts against paperbot's HTTP server in another process."""
    from queries import QUERIES

    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "slack", str(data)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"slack worker died: {proc.stderr.read()}")
        port = json.loads(line)["port"]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.connect()
        # http.client sends headers and body in two writes; without TCP_NODELAY the body
        # waits for the server's delayed ACK (~40 ms), an artifact of this client, not
        # of paperbot.
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        n = 0

        def post(text: str) -> float:
            nonlocal n
            n += 1
            body = slash_body(text, n)
            t0 = time.perf_counter()
            conn.request("POST", "/slack/events", body=body.encode(), headers=signed_headers(body))
            resp = conn.getresponse()
            payload = resp.read()
            elapsed = (time.perf_counter() - t0) * 1000
            if resp.status != 200 or b"blocks" not in payload:
                raise SystemExit(f"/papers {text!r} answered {resp.status}: {payload[:300]!r}")
            return elapsed

        for _, text in QUERIES:
            post(text)  # warm (the first also triggers Bolt's auth.test)
        times = []
        rng = random.Random(11)
        for _ in range(repeat):
            order = list(QUERIES)
            rng.shuffle(order)
            times.extend(post(text) for _, text in order)
        conn.close()
        proc.stdin.write("stop\n")
        proc.stdin.flush()
        rss = json.loads(proc.stdout.readline())["peak_rss_mb"]
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return {
        "e2e_p50_ms": percentile(times, 50),
        "e2e_p95_ms": percentile(times, 95),
        "e2e_p99_ms": percentile(times, 99),
        "requests": len(times),
        "server_peak_rss_mb": rss,
    }


# -- the report -----------------------------------------------------------------------------


def machine_info() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import sqlite3

    import whoosh

    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(mem_gb, 1),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "whoosh": ".".join(str(x) for x in whoosh.versionstring().split(".")[:3]) if hasattr(whoosh, "versionstring") else "",
        "platform": platform.platform(),
        "commit": _git_commit(),
        "code": str(ROOT),
    }


def _git_commit() -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


PUBLIC_KEYS = (
    "engine", "papers", "ingest_per_s", "index_mb", "search_p50_ms", "search_p95_ms", "search_p99_ms",
    "cold_start_s", "peak_rss_mb",
)  # fmt: skip


def _fmt(value, digits=1) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}"


def targets_table(results: list[dict], e2e: dict | None) -> list[tuple[str, str, str, str]]:
    """Return (target, threshold, measured, verdict) rows for the largest size."""
    if not results:
        return []
    largest = max(r["papers_target"] for r in results)
    pb = next((r for r in results if r["engine"] == "paperbot" and r["papers_target"] == largest), None)
    fts = next((r for r in results if r["engine"] == "fts5" and r["papers_target"] == largest), None)
    rows = []
    note = "" if largest >= 100_000 else f" (at {largest:,}, not 100k)"

    def verdict(ok: bool | None) -> str:
        return "pending" if ok is None else ("PASS" if ok else "MISS")

    if pb:
        rows.append(
            (
                "Search p50" + note,
                f"≤ {TARGETS['search_p50_ms']:.0f} ms",
                f"{pb['search_p50_ms']:.1f} ms",
                verdict(pb["search_p50_ms"] <= TARGETS["search_p50_ms"]),
            )
        )
        rows.append(
            (
                "Search p95" + note,
                f"≤ {TARGETS['search_p95_ms']:.0f} ms",
                f"{pb['search_p95_ms']:.1f} ms",
                verdict(pb["search_p95_ms"] <= TARGETS["search_p95_ms"]),
            )
        )
        if fts:
            ratio = pb["search_p95_ms"] / fts["search_p95_ms"]
            rows.append(
                (
                    "Search p95 vs FTS5's" + note,
                    f"≤ {TARGETS['search_p95_vs_fts5']:.2f}x",
                    f"{ratio:.2f}x ({pb['search_p95_ms']:.1f} vs {fts['search_p95_ms']:.1f} ms)",
                    verdict(ratio <= TARGETS["search_p95_vs_fts5"]),
                )
            )
        if e2e:
            rows.append(
                (
                    "Slash command end to end p95" + (f" (at {e2e['papers']:,})" if e2e["papers"] < 100_000 else ""),
                    f"≤ {TARGETS['e2e_p95_ms']:.0f} ms",
                    f"{e2e['e2e_p95_ms']:.1f} ms",
                    verdict(e2e["e2e_p95_ms"] <= TARGETS["e2e_p95_ms"]),
                )
            )
        else:
            rows.append(("Slash command end to end p95", f"≤ {TARGETS['e2e_p95_ms']:.0f} ms", "not measured", "pending"))
        rows.append(
            (
                "Ingest" + note,
                f"≥ {TARGETS['ingest_per_s']:,.0f} papers/s",
                f"{pb['ingest_per_s']:,.0f} papers/s",
                verdict(pb["ingest_per_s"] >= TARGETS["ingest_per_s"]),
            )
        )
        rows.append(
            (
                "Cold start" + note,
                f"≤ {TARGETS['cold_start_s']:.0f} s",
                f"{pb['cold_start_s']:.2f} s",
                verdict(pb["cold_start_s"] <= TARGETS["cold_start_s"]),
            )
        )
        rows.append(
            (
                "Peak memory while serving" + note,
                f"≤ {TARGETS['peak_rss_mb']:.0f} MB",
                f"{pb['peak_rss_mb']:.0f} MB",
                verdict(pb["peak_rss_mb"] <= TARGETS["peak_rss_mb"]),
            )
        )
    return rows


def render_markdown(machine: dict, manifests: dict, results: list[dict], e2e: dict | None, args) -> str:
    from queries import QUERIES

    out = ["# paperbot benchmark results", ""]
    reuse = f" --reuse {args.reuse}" if args.reuse else ""
    out.append(
        f"Generated by `python bench/run.py --sizes {args.sizes}{reuse}` (repeat {args.repeat}) on {machine['date']}, "
        f"commit `{machine['commit']}`. How it works and what the numbers mean: [README.md](README.md)."
    )
    out += ["", "## Machine", ""]
    out.append(f"- CPU: {machine['cpu']}, {machine['cores']} cores; memory {machine['memory_gb']} GB")
    out.append(f"- Python {machine['python']}, SQLite {machine['sqlite']}; {machine['platform']}")
    if machine.get("code") != str(BENCH.parent):
        out.append(f"- paperbot code benchmarked: `{machine['code']}` (a patched copy, not this checkout)")
    out += [
        "",
        "## Targets (paperbot at the largest size)",
        "",
        "| Target | Threshold | Measured | Verdict |",
        "|---|---|---|---|",
    ]
    for row in targets_table(results, e2e):
        out.append("| " + " | ".join(row) + " |")
    out += [
        "",
        "## Results",
        "",
        "| Engine | Papers | Ingest (papers/s) | On disk (MB) | Search p50 (ms) | p95 (ms) | p99 (ms) | Cold start (s) | Peak RSS serving (MB) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        out.append(
            f"| {r['engine']} | {r['papers']:,} | {r['ingest_per_s']:,.0f} | {r['index_mb']:.1f} | "
            f"{r['search_p50_ms']:.2f} | {r['search_p95_ms']:.2f} | {r['search_p99_ms']:.2f} | "
            f"{r['cold_start_s']:.2f} | {r['peak_rss_mb']:.0f} |"
        )
    out += [
        "",
        "## paperbot ÷ FTS5",
        "",
        "Each figure of paperbot divided by FTS5's at the same size (ingest: below 1 means paperbot is slower; "
        "everything else: above 1 means paperbot is slower or bigger).",
        "",
        "| Papers | Ingest rate | On disk | Search p50 | p95 | p99 | Cold start | Peak RSS |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    sizes = sorted({r["papers_target"] for r in results})
    for n in sizes:
        pb = next((r for r in results if r["engine"] == "paperbot" and r["papers_target"] == n), None)
        fts = next((r for r in results if r["engine"] == "fts5" and r["papers_target"] == n), None)
        if not (pb and fts):
            continue
        cells = [
            f"{pb[k] / fts[k]:.2f}x"
            for k in (
                "ingest_per_s",
                "index_mb",
                "search_p50_ms",
                "search_p95_ms",
                "search_p99_ms",
                "cold_start_s",
                "peak_rss_mb",
            )
        ]
        out.append(f"| {n:,} | " + " | ".join(cells) + " |")
    out += ["", "## Slash command end to end", ""]
    if e2e:
        out.append(
            f"Slack-signed `/papers` form posts to paperbot's HTTP server (bot/slack/server.py, "
            f"`start_app_server`) on loopback, answer in the ack body, keep-alive connection, "
            f"{e2e['requests']} requests after one warm pass, {e2e['papers']:,} papers."
        )
        out += ["", "| Papers | p50 (ms) | p95 (ms) | p99 (ms) | Server peak RSS (MB) |", "|---:|---:|---:|---:|---:|"]
        out.append(
            f"| {e2e['papers']:,} | {e2e['e2e_p50_ms']:.1f} | {e2e['e2e_p95_ms']:.1f} | {e2e['e2e_p99_ms']:.1f} | "
            f"{e2e['server_peak_rss_mb']:.0f} |"
        )
    else:
        out.append("Not measured in this run (`--skip-e2e`).")
    out += [
        "",
        "## Detail",
        "",
        "| Engine | Papers | Records | Ingest (s) | Ingest peak RSS (MB) | Cold start runs (s) | RSS after first query (MB) |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for r in results:
        runs = ", ".join(f"{x:.2f}" for x in r["cold_start_runs_s"])
        reused = f" (reused: ingested {r['ingest_reused']})" if r.get("ingest_reused") else ""
        out.append(
            f"| {r['engine']} | {r['papers']:,} | {r['records']:,} | {r['ingest_s']:.1f}{reused} | "
            f"{r['ingest_peak_rss_mb']:.0f} | {runs} | {r['cold_start_rss_mb']:.0f} |"
        )
    largest = sizes[-1] if sizes else None
    by_engine = {r["engine"]: r for r in results if r["papers_target"] == largest}
    if by_engine:
        engines = [e for e in ENGINES if e in by_engine]
        out += [
            "",
            f"### Latency by query kind at {largest:,} papers (ms)",
            "",
            "| Kind | " + " | ".join(f"{e} p50 | {e} p95" for e in engines) + " |",
            "|---|" + "---:|" * (2 * len(engines)),
        ]
        for category in dict.fromkeys(c for c, _ in QUERIES):
            cells = []
            for e in engines:
                c = by_engine[e]["categories"][category]
                cells += [f"{c['p50_ms']:.2f}", f"{c['p95_ms']:.2f}"]
            out.append(f"| {category} | " + " | ".join(cells) + " |")
        out += [
            "",
            f"### Every query at {largest:,} papers: median ms and hits (mode)",
            "",
            "| Kind | Query | " + " | ".join(f"{e} ms | {e} hits" for e in engines) + " |",
            "|---|---|" + "---:|" * (2 * len(engines)),
        ]
        for category, text in QUERIES:
            cells = []
            for e in engines:
                q = by_engine[e]["queries"][text]
                mode = "" if q["mode"] == "all" else f" ({q['mode']})"
                cells += [f"{q['median_ms']:.2f}", f"{q['total']:,}{mode}"]
            shown = text.replace("|", "\\|")
            out.append(f"| {category} | `{shown}` | " + " | ".join(cells) + " |")
    out += ["", "## Corpora", "", "| Papers | Records | Files | MB | sha256 |", "|---:|---:|---:|---:|---|"]
    for n, m in sorted(manifests.items()):
        out.append(f"| {n:,} | {m['records']:,} | {m['files']} | {m['bytes'] / 1e6:.1f} | `{m['sha256'][:16]}` |")
    out.append("")
    return "\n".join(out)


# -- main -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated paper counts")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--repeat", type=int, default=5, help="measured passes over the query mix")
    parser.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    parser.add_argument("--out", default=str(BENCH / "RESULTS.md"), help="where to write the Markdown report ('' for nowhere)")
    parser.add_argument("--work", default=str(BENCH / "work"), help="generated corpora and data folders")
    parser.add_argument("--skip-e2e", action="store_true", help="skip the Slack end-to-end measurement")
    parser.add_argument("--code", help="benchmark the paperbot package in DIR (a patched copy) instead of this checkout")
    parser.add_argument(
        "--reuse", default="",
        help="engines (comma-separated) whose data folder is kept when its INGEST_RECORD matches the corpus: "
             "no ingest, its recorded ingest figures are reported as reused (an FTS5 1M ingest takes ~20 min)",
    )  # fmt: skip
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    if args.code:  # before anything imports bot; workers inherit the variable
        global ROOT
        ROOT = Path(args.code).resolve()
        os.environ["PAPERBOT_BENCH_CODE"] = str(ROOT)
        sys.path.insert(0, str(ROOT))

    if args.worker:
        kind = args.worker
        if kind == "ingest":
            print(json.dumps(worker_ingest(rest[0], Path(rest[1]), Path(rest[2]))))
        elif kind == "serve":
            print(json.dumps(worker_serve(rest[0], Path(rest[1]), int(rest[2]))))
        elif kind == "slack":
            worker_slack(Path(rest[0]))
        else:
            raise SystemExit(f"unknown worker {kind}")
        return 0

    from corpus import generate

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    engines = [e for e in args.engines.split(",") if e]
    work = Path(args.work)
    machine = machine_info()
    log(f"machine: {machine['cpu']}, {machine['cores']} cores, Python {machine['python']}")
    manifests: dict[int, dict] = {}
    results: list[dict] = []
    for n in sizes:
        t0 = time.perf_counter()
        corpus_dir = work / f"corpus-{n}"
        manifests[n] = generate(n, corpus_dir)
        log(
            f"corpus {n:,}: {manifests[n]['records']:,} records in {manifests[n]['files']} files "
            f"({time.perf_counter() - t0:.1f}s)"
        )
        for engine in engines:
            data = work / "data" / f"{engine}-{n}"
            ing = reused_ingest(data, manifests[n]) if engine in args.reuse.split(",") else None
            if ing is None:
                ingest_record_path(data).unlink(missing_ok=True)  # a half-done ingest must not look reusable
                ing = run_worker("ingest", engine, str(data), str(corpus_dir))
                record_ingest(data, manifests[n], ing)
                log(
                    f"{engine} {n:,}: ingested {ing['papers']:,} papers in {ing['ingest_s']:.1f}s "
                    f"({ing['papers'] / ing['ingest_s']:,.0f}/s)"
                )
            else:
                log(
                    f"{engine} {n:,}: reused the data folder ingested {ing['measured']} "
                    f"({ing['papers'] / ing['ingest_s']:,.0f}/s then)"
                )
            size = dir_mb(data)
            srv = run_worker("serve", engine, str(data), str(args.repeat))
            log(
                f"{engine} {n:,}: search p50 {srv['search_p50_ms']:.2f} ms, p95 {srv['search_p95_ms']:.2f} ms, "
                f"RSS {srv['peak_rss_mb']:.0f} MB"
            )
            cold = cold_start(engine, data)
            log(f"{engine} {n:,}: cold start {cold['cold_start_s']:.2f}s")
            results.append(
                {
                    "engine": engine,
                    "papers": ing["papers"],
                    "ingest_per_s": ing["papers"] / ing["ingest_s"],
                    "index_mb": size,
                    "search_p50_ms": srv["search_p50_ms"],
                    "search_p95_ms": srv["search_p95_ms"],
                    "search_p99_ms": srv["search_p99_ms"],
                    "cold_start_s": cold["cold_start_s"],
                    "peak_rss_mb": srv["peak_rss_mb"],
                    "papers_target": n,
                    "records": ing["records"],
                    "ingest_s": ing["ingest_s"],
                    "ingest_peak_rss_mb": ing["ingest_peak_rss_mb"],
                    "ingest_reused": ing.get("measured"),
                    "cold_start_runs_s": cold["cold_start_runs_s"],
                    "cold_start_rss_mb": cold["cold_start_rss_mb"],
                    "searches": srv["searches"],
                    "categories": srv["categories"],
                    "queries": srv["queries"],
                }
            )
    e2e = None
    if not args.skip_e2e and "paperbot" in engines and sizes:
        n = max(sizes)
        e2e = {"papers": n, **end_to_end(work / "data" / f"paperbot-{n}", args.repeat)}
        log(f"end to end at {n:,}: p50 {e2e['e2e_p50_ms']:.1f} ms, p95 {e2e['e2e_p95_ms']:.1f} ms")
    if args.out:
        Path(args.out).write_text(render_markdown(machine, manifests, results, e2e, args), encoding="utf-8")
        log(f"wrote {args.out}")
    if args.json:
        public = [{k: r[k] for k in PUBLIC_KEYS} for r in results]
        print(
            json.dumps(
                {
                    "results": public,
                    "end_to_end": e2e,
                    "machine": machine,
                    "targets": [
                        dict(zip(("target", "threshold", "measured", "verdict"), row, strict=True))
                        for row in targets_table(results, e2e)
                    ],
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
