"""Compare bulk ingest of two copies of paperbot's code on one corpus, alternating runs.

    .venv/bin/python bench/ingest_ab.py --old /tmp/old --new . --corpus bench/work/corpus-20000 --runs 3

Each run is `Corpus.ingest_paths` over the corpus's files into a fresh data folder in
its own process, timed as bench/run.py's `worker_ingest` times it (writer_procs = cores),
old and new in turn so a busy machine slows both alike. Reports papers/s (wall) and CPU
seconds (the process and its index workers), the index's segment count and ingest peak
RSS, and the ratios new/old. With --check, the two indexes must answer the benchmark's
queries with the same totals and the same top 10 (ids and scores; papers tied on score
in any order: parallel workers deal documents out as they come, so docnums differ). Not part of the suite.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent

WORKER = r"""
import json, os, resource, shutil, sys, time
from pathlib import Path
code, corpus_dir, data = sys.argv[1:4]
sys.path.insert(0, code)
from bot.config import Settings
from bot.corpus import Corpus
data = Path(data)
shutil.rmtree(data, ignore_errors=True)
data.mkdir(parents=True)
files = sorted(Path(corpus_dir).glob("*.txt"))
corpus = Corpus.open(Settings(data_dir=data), writer_procs=os.cpu_count() or 1)
start = time.perf_counter()
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
corpus.ingest_paths(files)
wall = time.perf_counter() - start
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
papers = corpus.store.state()[0]
assert corpus.index.state()[0] == papers
segments = len(corpus.index._index()._segments())
corpus.close()
rss = max(me.ru_maxrss, kids.ru_maxrss) / 1024
cpu = me.ru_utime + me.ru_stime - cpu0.ru_utime - cpu0.ru_stime + kids.ru_utime + kids.ru_stime
print(json.dumps({"papers": papers, "wall": wall, "cpu": cpu, "segments": segments, "rss_mb": rss}))
"""

CHECK = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[3])
from bot.config import Settings
from bot.corpus import Corpus
from queries import QUERIES
corpus = Corpus.open(Settings(data_dir=Path(sys.argv[2])))
out = {}
for _, text in QUERIES:
    r = corpus.search(text, per_page=12)
    hits = sorted((-round(h.score, 5), h.paper.id) for h in r.hits)
    if len(hits) == 12:  # ties are ordered by docnum, which parallel workers deal out as they come
        hits = [h for h in hits if h[0] < hits[-1][0]]
    out[text] = [r.total, r.mode, r.suggestion, hits[:10]]
print(json.dumps(out))
"""


def run(code: str, corpus: str, data: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", WORKER, code, corpus, str(data)], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"ingest with {code} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def answers(code: str, data: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHECK, code, str(data), str(BENCH)], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"queries with {code} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True, help="the old copy of the code (a folder holding bot/)")
    parser.add_argument("--new", default=str(BENCH.parent), help="the new copy (default: this checkout)")
    parser.add_argument("--corpus", required=True, help="a folder of listing files (bench/corpus.py N DIR)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", default=str(BENCH / "work" / "ingest-ab"))
    parser.add_argument("--check", action="store_true", help="also compare both indexes' answers to bench/queries.py")
    args = parser.parse_args()
    work = Path(args.work)
    results: dict[str, list[dict]] = {"old": [], "new": []}
    for i in range(args.runs):
        for name in ("old", "new") if i % 2 == 0 else ("new", "old"):
            r = run(getattr(args, name), args.corpus, work / name)
            results[name].append(r)
            print(
                f"run {i + 1} {name}: {r['papers'] / r['wall']:7.0f} papers/s  wall {r['wall']:6.1f} s  cpu {r['cpu']:6.1f} s"
                f"  segments {r['segments']}  rss {r['rss_mb']:.0f} MB",
                flush=True,
            )
    med = {k: {m: statistics.median(r[m] for r in v) for m in ("wall", "cpu", "rss_mb", "segments")} for k, v in results.items()}
    papers = results["new"][0]["papers"]
    for name in ("old", "new"):
        m = med[name]
        print(
            f"median {name}: {papers / m['wall']:.0f} papers/s, cpu {m['cpu']:.1f} s, {m['segments']:.0f} segments, {m['rss_mb']:.0f} MB"
        )
    print(f"new/old: throughput x{med['old']['wall'] / med['new']['wall']:.2f}, cpu x{med['new']['cpu'] / med['old']['cpu']:.2f}")
    if args.check:
        old, new = answers(args.old, work / "old"), answers(args.new, work / "new")
        differ = [q for q in old if old[q] != new[q]]
        print(f"answers: {len(old) - len(differ)} of {len(old)} queries the same" + (f"; differ: {differ}" if differ else ""))
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
