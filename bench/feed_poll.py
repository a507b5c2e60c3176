"""One poll of a feed serving a large listing: wall time, and how long the server's interpreter was held.

    python bench/feed_poll.py --code /tmp/old --code . [--records 1000] [--rounds 3] [--hostile]

For each `--code` (a copy of the `bot` package; default this checkout), in a process of
its own as the server runs it (one writer process, the dictionaries loaded, the seeds
stored): a listing of `--records` new papers (bench/corpus.py's generator) is served by a
`python -m http.server` process on 127.0.0.1, added as a source and polled once while a
thread that asks to wake every 0.5 ms records how late each wake came. A late wake is
the interpreter held by something else (the parser's patterns, the store's transaction,
the index's analysis): a search in a serving thread would have waited as long. Reported
per code, median over rounds: the poll's wall time, the longest late wake, and the time
lost to wakes later than 5 ms, summed.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("PAPERBOT_BENCH_CODE") or BENCH.parent).resolve()
for p in (str(ROOT), str(BENCH)):
    if p not in sys.path:
        sys.path.insert(0, p)

SEED = 20261207


HOSTILE_AUTHORS = "A" + " " * 49_990 + "B"  # issue 29's record: 22.7 s in the author pattern before its fix


def write_listing(out: Path, records: int, hostile: bool = False) -> int:
    from corpus import Generator, build_vocabulary, format_record, load_seed_papers

    gen = Generator(build_vocabulary(load_seed_papers(BENCH.parent / "seeds")), SEED)
    texts = [format_record(gen.record("Bench Feed")) for _ in range(records)]
    if hostile:
        texts.append(f"A Hostile Record\n\n敌意记录\n\n{HOSTILE_AUTHORS}\n\nAI总结 一条作者行很长的记录。")
    text = "\n\n".join(["Bench Feed", *texts]) + "\n"
    out.write_text(text, encoding="utf-8")
    return len(text.encode())


class Ticker:
    """A thread that sleeps 0.5 ms at a time and records how late it woke."""

    def __init__(self):
        self.late: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(0.0005)
            now = time.perf_counter()
            self.late.append(now - last - 0.0005)
            last = now

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def worker(records: int, hostile: bool = False) -> dict:
    from bot.config import Settings
    from bot.corpus import Corpus
    from bot.feeds.sources import SourceService

    work = Path(tempfile.mkdtemp(prefix="feed-poll-"))
    served = work / "served"
    served.mkdir()
    size = write_listing(served / "feed.txt", records, hostile)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(served)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        env = {
            "PAPERBOT_DATA_DIR": str(work / "data"),
            "PAPERBOT_SEEDS_DIR": str(BENCH.parent / "seeds"),
            "PAPERBOT_ARXIV": "off",
            "PAPERBOT_FEEDS_ALLOW_PRIVATE": "on",
        }
        settings = Settings.from_env(env)
        corpus = Corpus.load(settings)
        corpus.prepare()  # as `serve` does: the seeds stored, the dictionaries loaded
        feeds = SourceService(settings, corpus, timeout=60)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        feeds.add(f"http://127.0.0.1:{port}/feed.txt", added_by="bench")
        with Ticker() as ticker:
            started = time.perf_counter()
            (result,) = feeds.poll_all()
            wall = time.perf_counter() - started
        corpus.close()
    finally:
        server.terminate()
        server.wait()
    late = ticker.late
    return {
        "bytes": size,
        "added": result.added,
        "error": result.error,
        "wall_s": wall,
        "longest_late_ms": max(late) * 1000 if late else 0.0,
        "late_over_5ms_total_ms": sum(x for x in late if x > 0.005) * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", action="append", help="a copy of paperbot to run (repeatable; default this checkout)")
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hostile", action="store_true", help="add issue 29's record with a 50 KB author line")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.records, args.hostile)))
        return 0
    codes = [Path(c).resolve() for c in (args.code or [str(BENCH.parent)])]
    runs: dict[Path, list[dict]] = {code: [] for code in codes}
    for round_ in range(args.rounds):
        for code in codes if round_ % 2 == 0 else reversed(codes):
            env = {**os.environ, "PAPERBOT_BENCH_CODE": str(code)}
            cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--records", str(args.records)]
            cmd += ["--hostile"] if args.hostile else []
            done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                sys.stderr.write(done.stderr[-3000:])
                return 1
            runs[code].append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(
        f"| code | listing | added | poll wall (s) | longest late wake (ms) | late wakes > 5 ms, total (ms) |  ({args.rounds} rounds, median)"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for code, results in runs.items():

        def median(key: str, results=results) -> float:
            return statistics.median(r[key] for r in results)

        print(
            f"| {code} | {results[0]['bytes'] / 1024:.0f} KB | {results[0]['added']} | {median('wall_s'):.2f} "
            f"| {median('longest_late_ms'):.0f} | {median('late_over_5ms_total_ms'):.0f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
