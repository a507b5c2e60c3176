"""Compare two copies of paperbot's code on one ingested data folder, query by query.

    .venv/bin/python bench/ab.py --old /path/to/old/checkout --new . --data bench/work/data/paperbot-100000

Two worker processes, one per code copy, open the same data folder (read only: the index
must already be in step with the store) and answer the benchmark's query mix in
alternating passes, so a busy machine slows both alike. Prints p50/p95 per kind and
overall for each, their ratio, and every query whose top 5 differ between the two.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from queries import QUERIES  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def worker(code: str, data: str) -> None:
    sys.path.insert(0, code)
    from bot.config import Settings
    from bot.corpus import Corpus

    corpus = Corpus.open(Settings(data_dir=Path(data)))
    for text, _ in QUERIES_BY_TEXT:  # warm-up
        corpus.search(text)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        order = json.loads(line)
        out = []
        for i in order:
            text = QUERIES[i][1]
            start = time.perf_counter()
            result = corpus.search(text)
            elapsed = (time.perf_counter() - start) * 1000
            out.append([i, elapsed, [h.paper.id for h in result.hits], result.total])
        print(json.dumps(out), flush=True)


QUERIES_BY_TEXT = [(text, kind) for kind, text in QUERIES]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--new-data", help="the new code's data folder, when it is not --data (e.g. merged)")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return 0
    procs = {}
    for name in ("old", "new"):
        code = str(Path(getattr(args, name)).resolve())
        data = args.new_data if name == "new" and args.new_data else args.data
        procs[name] = subprocess.Popen(
            [sys.executable, __file__, "--old", "-", "--new", "-", "--data", data, "--worker", code, data],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        json.loads(procs[name].stdout.readline())
    times: dict[str, dict[int, list[float]]] = {"old": {}, "new": {}}
    tops: dict[str, dict[int, tuple]] = {"old": {}, "new": {}}
    rng = random.Random(7)
    for n in range(args.passes):
        order = list(range(len(QUERIES)))
        rng.shuffle(order)
        for name in ("old", "new") if n % 2 == 0 else ("new", "old"):
            procs[name].stdin.write(json.dumps(order) + "\n")
            procs[name].stdin.flush()
            for i, elapsed, ids, total in json.loads(procs[name].stdout.readline()):
                times[name].setdefault(i, []).append(elapsed)
                tops[name][i] = (ids, total)
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()
    kinds = sorted({kind for kind, _ in QUERIES})
    print(f"{'kind':<12} {'old p50':>8} {'new p50':>8} {'old p95':>8} {'new p95':>8}  ratio p50/p95")
    for kind in [*kinds, "all"]:
        ids = [i for i, (k, _) in enumerate(QUERIES) if kind in ("all", k)]
        row = {}
        for name in ("old", "new"):
            values = [t for i in ids for t in times[name][i]]
            row[name] = (statistics.median(values), percentile(values, 0.95))
        ratio = (row["new"][0] / row["old"][0], row["new"][1] / row["old"][1])
        print(
            f"{kind:<12} {row['old'][0]:8.1f} {row['new'][0]:8.1f} {row['old'][1]:8.1f} {row['new'][1]:8.1f}"
            f"  {ratio[0]:.2f} / {ratio[1]:.2f}"
        )
    changed = [i for i in range(len(QUERIES)) if tops["old"][i][0] != tops["new"][i][0]]
    print(f"top 5 differ for {len(changed)} of {len(QUERIES)} queries")
    for i in changed:
        print(f"  {QUERIES[i][1]!r}: old {tops['old'][i]} new {tops['new'][i]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
