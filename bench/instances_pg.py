"""Two `serve` instances on one PostgreSQL (issue 24): follow lag, /papers rate, a 500-channel fan-out.

    .venv/bin/python bench/instances_pg.py [--papers 10000] [--step-seconds 15] [--fanout 500]

A PostgreSQL 15 in a temporary folder (tests/postgres_support.py), the fake Slack Web API
(tests/fake_slack.py), a synthetic corpus (bench/corpus.py) stored once, its index built
once, its vectors computed once, both given to the two instances as PAPERBOT_INDEX_SNAPSHOT
(with the vectors beside it), so what is measured is serving, not embedding. Then:

1. lag: a one-paper listing stored by a third process (the loader, as the CLI would), and
   the time until a signed /papers finds it on each instance (default follow interval, 2 s);
2. rate: signed /papers over keep-alive, alternating instances, at offered rates that step
   up; p50/p95 per step and each instance's RSS at the start and end of the run;
3. fan-out: `--fanout` channel subscriptions due at the same minute (two messages each), a
   fresh start of both instances before it: each channel posted exactly once per message,
   the per-channel gap, and the time from the minute until the last delivery is sent.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from corpus import generate  # noqa: E402
from digest_support import listing_text  # noqa: E402
from fake_slack import FakeSlack  # noqa: E402
from postgres_support import start_postgres  # noqa: E402
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender, all_text  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.corpus import Corpus  # noqa: E402
from bot.digests.subscriptions import SubscriptionStore  # noqa: E402

QUERIES = ("language models", "推测解码", "graph neural networks", "diffusion", "强化学习", "retrieval augmented")


def pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * q))] if values else float("nan")


def free_port() -> int:
    import socket  # noqa: PLC0415 (only here)

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


RUNNING: list[Instance] = []  # stopped in main's finally, whatever failed: no server left behind


class Instance:
    def __init__(self, name: str, folder: Path, url: str, fake: FakeSlack, snapshot: Path):
        self.name, self.port = name, free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
        env.update(
            SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SIGNING_SECRET, SLACK_API_BASE_URL=fake.api_url,
            PORT=str(self.port), PAPERBOT_HOST="127.0.0.1", PAPERBOT_DATA_DIR=str(folder / name),
            PAPERBOT_SEEDS_DIR=str(folder / "no-seeds"), PAPERBOT_ARXIV="off", PAPERBOT_DATABASE_URL=url,
            PAPERBOT_INDEX_SNAPSHOT=str(snapshot),
        )  # fmt: skip
        self.log = open(folder / f"{name}.log", "a", encoding="utf-8")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "serve"], cwd=folder, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self.sender = SlackSender(f"http://127.0.0.1:{self.port}", fake)
        RUNNING.append(self)

    def wait_ready(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{self.name} never became ready; see {self.log.name}")
            time.sleep(0.1)

    def search(self, text: str, sender: SlackSender | None = None) -> str:
        code, answer = (sender or self.sender).command(text)
        assert code == 200, answer
        return all_text(answer.get("blocks") or []) if isinstance(answer, dict) else str(answer)

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.sender.close()
        self.log.close()


def measure_lag(loader: Corpus, instances: list[Instance], folder: Path, samples: int) -> dict:
    lags: dict[str, list[float]] = {i.name: [] for i in instances}
    for n in range(samples):
        topic = f"Zorblax Quantization {n} Qwerty"
        path = folder / "lag" / f"lag-{n}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_text(listing_text(f"Lag Feed {n}", 90000 + n, 1, topic=topic), encoding="utf-8")
        loader.ingest_paths([path])  # committed when this returns
        committed = time.monotonic()
        pending = set(lags)
        while pending:
            for instance in instances:
                if instance.name in pending and topic in instance.search(f"zorblax quantization {n} qwerty"):
                    lags[instance.name].append(time.monotonic() - committed)
                    pending.discard(instance.name)
            if time.monotonic() - committed > 30:
                raise SystemExit(f"not searchable after 30 s on {pending}")
            time.sleep(0.05)
    every = [x for v in lags.values() for x in v]
    return {"samples": len(every), "p50_s": round(pct(every, 0.5), 2), "p95_s": round(pct(every, 0.95), 2),
            "max_s": round(max(every), 2)}  # fmt: skip


def measure_rate(instances: list[Instance], fake: FakeSlack, rates: list[int], step_s: float, sample_s: float = 0) -> list[dict]:
    """Open-loop: requests start at the offered rate (a thread per connection pair), latency from the planned start.

    With `sample_s`, each step also reports p95 and both instances' RSS every `sample_s` seconds
    (a sustained run: is it flat?)."""
    steps = []
    for rate in rates:
        latencies: list[float] = []
        stamped: list[tuple[float, float]] = []  # (planned start, latency)
        lock = threading.Lock()
        workers = max(2, min(16, rate // 5))
        interval = workers / rate  # each worker's own spacing
        begin = time.monotonic() + 0.2
        stop_at = begin + step_s

        def work(
            k: int,
            latencies=latencies,
            stamped=stamped,
            lock=lock,
            interval=interval,
            begin=begin,
            stop_at=stop_at,
            workers=workers,
        ) -> None:
            senders = [SlackSender(f"http://127.0.0.1:{i.port}", fake) for i in instances]
            planned = begin + k * interval / workers
            n = 0
            while planned < stop_at:
                delay = planned - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                sender = senders[(k + n) % len(senders)]
                code, _ = sender.command(QUERIES[(k + n) % len(QUERIES)])
                took = time.monotonic() - planned  # includes waiting behind a slow answer (no coordinated omission)
                with lock:
                    latencies.append(took if code == 200 else float("inf"))
                    stamped.append((planned, latencies[-1]))
                n += 1
                planned += interval
            for sender in senders:
                sender.close()

        threads = [threading.Thread(target=work, args=(k,)) for k in range(workers)]
        rss_before = [round(i.rss_mb()) for i in instances]
        rss_samples: list[list[int]] = []
        for thread in threads:
            thread.start()
        while sample_s and any(t.is_alive() for t in threads):
            threads[0].join(timeout=sample_s)
            rss_samples.append([round(i.rss_mb()) for i in instances])
        for thread in threads:
            thread.join()
        done = len(latencies) / step_s
        steps.append({
            "offered_per_s": rate, "done_per_s": round(done, 1), "p50_ms": round(pct(latencies, 0.5) * 1000, 1),
            "p95_ms": round(pct(latencies, 0.95) * 1000, 1), "rss_mb_before": rss_before,
            "rss_mb_after": [round(i.rss_mb()) for i in instances],
        })  # fmt: skip
        if sample_s:
            windows: dict[int, list[float]] = defaultdict(list)
            for planned, took in stamped:
                windows[int((planned - begin) // sample_s)].append(took)
            steps[-1]["p95_ms_per_window"] = [round(pct(windows[w], 0.95) * 1000, 1) for w in sorted(windows)]
            steps[-1]["rss_mb_per_window"] = rss_samples
        print(json.dumps(steps[-1]), flush=True)
        if pct(latencies, 0.95) > 0.3:
            break
    return steps


def made_vectors(loader: Corpus, embedded: int) -> None:
    """Every paper's vector, made rather than embedded (100k at ~60-130 papers/s is 13-27 min):
    `embedded` papers through the real encoder, each other paper a mix of two of those and a
    little noise (as bench/semantic.py makes rows at scale), under its own id and text key, so
    the instances' builders find nothing to do and a search costs what it costs with real rows."""
    import numpy as np  # noqa: PLC0415

    from bot.semantic.text import paper_text, text_key  # noqa: PLC0415

    meaning = loader.meaning
    assert meaning is not None
    ids = [r[0] for r in loader.store.read("SELECT id FROM papers ORDER BY seq")]
    rng = np.random.default_rng(24)
    seeds = None
    for start in range(0, len(ids), 2000):
        papers = [p for p in loader.store.get_many(ids[start : start + 2000]) if p is not None]
        texts = [paper_text(p) for p in papers]
        if seeds is None:
            seeds = meaning.encoder.encode(texts[:embedded])
            meaning.vectors.add([p.id for p in papers[:embedded]], [text_key(t) for t in texts[:embedded]], seeds)
            papers, texts = papers[embedded:], texts[embedded:]
        if not papers:
            continue
        n = len(papers)
        a, b = rng.integers(0, len(seeds), n), rng.integers(0, len(seeds), n)
        mix = rng.uniform(0.0, 0.35, (n, 1)).astype(np.float32)
        noise = rng.standard_normal((n, seeds.shape[1])).astype(np.float32)
        noise /= np.linalg.norm(noise, axis=1, keepdims=True)
        rows = (1 - mix) * seeds[a] + mix * seeds[b] + 0.15 * noise
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        meaning.vectors.add([p.id for p in papers], [text_key(t) for t in texts], rows)


def measure_fanout(
    folder: Path, url: str, fake: FakeSlack, snapshot: Path, loader: Corpus, count: int, papers_each: int = 12
) -> dict:
    subscriptions = SubscriptionStore(loader.store)
    start = datetime.now(UTC) + timedelta(minutes=1)
    due = start.replace(second=0, microsecond=0)
    if (due - datetime.now(UTC)).total_seconds() < 40:  # time for both instances to start first
        due += timedelta(minutes=1)
    last = loader.store.last_seq()
    for n in range(count):
        sub, _ = subscriptions.save(team_id="", kind="channel", place_id=f"CFAN{n:04d}", user_id="U1", lang="en",
                                    hour=due.hour, minute=due.minute, timezone="UTC")  # fmt: skip
        with loader.store.transaction() as db:
            db.execute("UPDATE subscriptions SET cursor_seq = ? WHERE id = ?", (last - papers_each, sub.id))
    fake.reset()
    instances = [Instance(name, folder, url, fake, snapshot) for name in ("a", "b")]
    for instance in instances:
        instance.wait_ready()
    wait = (due - datetime.now(UTC)).total_seconds()
    print(f"fan-out: {count} subscriptions due at {due:%H:%M}; waiting {wait:.0f} s", flush=True)
    time.sleep(max(0.0, wait))
    t0 = time.monotonic()
    ids = [s.id for s in subscriptions.all() if s.place_id.startswith("CFAN")]
    while True:
        rows = loader.store.read(
            "SELECT COUNT(*) FROM deliveries WHERE status = 'sent' AND local_date = ?", (due.date().isoformat(),)
        )
        if rows[0][0] >= len(ids) or time.monotonic() - t0 > 600:
            break
        time.sleep(0.5)
    until_last = time.monotonic() - t0
    posts = [c for c in fake.calls_to("chat.postMessage") if str(c.args.get("channel", "")).startswith("CFAN")]
    per_channel: dict[str, list[float]] = defaultdict(list)
    heads: dict[str, int] = defaultdict(int)
    for call in posts:
        per_channel[call.args["channel"]].append(float(call.response["ts"]))
        if not call.args.get("thread_ts"):
            heads[call.args["channel"]] += 1
    gaps = [b - a for times in per_channel.values() for a, b in zip(sorted(times), sorted(times)[1:], strict=False)]
    holders = loader.store.read("SELECT holder, COUNT(*) FROM deliveries GROUP BY holder")
    for instance in instances:
        instance.stop()
    return {
        "subscriptions": len(ids), "sent": rows[0][0], "until_last_s": round(until_last, 1),
        "channels_with_one_digest": sum(1 for n in heads.values() if n == 1), "channels_posted_twice": sum(1 for n in heads.values() if n > 1),
        "messages": len(posts), "min_gap_same_channel_s": round(min(gaps), 2) if gaps else None,
        "by_instance": sorted(n for _, n in holders),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=10000)
    parser.add_argument("--lag-samples", type=int, default=10)
    parser.add_argument("--rates", default="20,40,80,120,160,200")
    parser.add_argument("--step-seconds", type=float, default=15)
    parser.add_argument("--fanout", type=int, default=500)
    parser.add_argument(
        "--sustain", default="0", help="after the steps, one long run at this rate ('auto': the highest step with p95 <= 100 ms)"
    )
    parser.add_argument("--sustain-seconds", type=float, default=600)
    parser.add_argument(
        "--embed-all", action="store_true", help="embed every paper for real (slow) instead of making most vectors"
    )
    parser.add_argument("--embedded", type=int, default=2000, help="papers embedded for real when vectors are made")
    # Papers in each fan-out digest: 12 fit one message since the compact rows (issue 28); 30
    # make a head and replies, each reply waiting for its channel's next slot.
    parser.add_argument("--fanout-papers", type=int, default=30)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="paperbot-bench-pg-"))
    server = start_postgres()
    fake = FakeSlack().start()
    results: dict = {"papers": args.papers}
    try:
        schema = server.new_schema()
        url = server.schema_url(schema)
        listings = ROOT / "bench" / "work" / f"corpus-{args.papers}"
        generate(args.papers, listings)
        began = time.monotonic()
        loader = Corpus.open(Settings(data_dir=folder / "loader", seeds_dir=folder / "no-seeds", database_url=url))
        loader.ingest_paths(sorted(listings.glob("*.txt")))
        results["store_and_index_s"] = round(time.monotonic() - began, 1)
        print(json.dumps(results), flush=True)
        (folder / "no-seeds").mkdir(exist_ok=True)
        if loader.meaning is not None:  # vectors too, so the instances serve, not embed, while measured
            began = time.monotonic()
            if args.embed_all:
                loader.meaning.builder.run()
            else:
                made_vectors(loader, args.embedded)
            loader.meaning.vectors.compact(threads=2)
            results["vectors_s" if args.embed_all else "made_vectors_s"] = round(time.monotonic() - began, 1)
            print(json.dumps({"vectors_s": round(time.monotonic() - began, 1)}), flush=True)
        snapshot = folder / "snapshot" / "index"  # a data folder's layout: its vectors beside it come too
        shutil.copytree(loader.settings.index_dir, snapshot)
        if loader.settings.vectors_dir.is_dir():
            shutil.copytree(loader.settings.vectors_dir, snapshot.parent / "vectors")
        instances = [Instance(name, folder, url, fake, snapshot) for name in ("a", "b")]
        began = time.monotonic()
        for instance in instances:
            instance.wait_ready()
        results["both_ready_s"] = round(time.monotonic() - began, 1)
        results["lag"] = measure_lag(loader, instances, folder, args.lag_samples)
        print(json.dumps(results["lag"]), flush=True)
        for instance in instances:  # what is measured is a search with results, not an error sentence
            for query in QUERIES:
                code, answer = instance.sender.command(query)
                assert code == 200 and len(answer.get("blocks") or []) >= 4, (instance.name, query, answer)
        results["rate"] = measure_rate(instances, fake, [int(r) for r in args.rates.split(",")], args.step_seconds)
        sustain = (
            int(args.sustain)
            if args.sustain != "auto"
            else max((s["offered_per_s"] for s in results["rate"] if s["p95_ms"] <= 100), default=0)
        )
        if sustain:
            results["sustained"] = measure_rate(instances, fake, [sustain], args.sustain_seconds, sample_s=60)
        for instance in instances:
            instance.stop()
        if args.fanout:
            results["fanout"] = measure_fanout(folder, url, fake, snapshot, loader, args.fanout, args.fanout_papers)
        loader.close()
        print(json.dumps(results, indent=2, ensure_ascii=False), flush=True)
    finally:
        for instance in RUNNING:
            instance.stop()
        fake.stop()
        server.stop("immediate")
        shutil.rmtree(server.folder, ignore_errors=True)
        print(f"logs: {folder}", flush=True)


if __name__ == "__main__":
    main()
