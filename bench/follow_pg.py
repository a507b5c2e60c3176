"""A follow tick on PostgreSQL, before/after keeping the count in `meta` (issue 24 review).

    .venv/bin/python bench/follow_pg.py [--papers 100000] [--ticks 200]

A PostgreSQL 15 in a temporary folder (tests/postgres_support.py), a synthetic corpus
(bench/corpus.py) stored once. Then, on the same store in one run:

1. tick: what a follow tick and a /readyz probe ask the store when nothing changed,
   `Store.state()`; "before" is the statement state() ran until this change (COUNT(*) and
   MAX(rev) over papers, removed_rev), "after" the two rows of `meta` it reads now;
2. removal: one paper removed through one instance, and the time until a second instance's
   follow has it out of its index (before this change: a full rebuild, 503 meanwhile; after:
   its tombstone deleted in place).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from corpus import generate  # noqa: E402
from postgres_support import start_postgres  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.corpus import Corpus  # noqa: E402
from bot.ingest.listing import parse_path  # noqa: E402
from bot.store.database import open_store  # noqa: E402

OLD_STATE = (
    "SELECT (SELECT COUNT(*) FROM papers), (SELECT COALESCE(MAX(rev), 0) FROM papers), "
    "(SELECT COALESCE(MAX(CAST(value AS INTEGER)), 0) FROM meta WHERE key = 'removed_rev')"
)


def timed_ms(call, ticks: int) -> dict:
    samples = []
    for _ in range(ticks):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return {"p50_ms": round(statistics.median(samples), 3), "p95_ms": round(samples[int(len(samples) * 0.95) - 1], 3)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--papers", type=int, default=100000)
    parser.add_argument("--ticks", type=int, default=200)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="paperbot-follow-"))
    server = start_postgres()
    try:
        url = server.schema_url(server.new_schema())
        listings = ROOT / "bench" / "work" / f"corpus-{args.papers}"
        generate(args.papers, listings)
        store = open_store(url)
        started = time.perf_counter()
        for path in sorted(listings.glob("*.txt")):
            store.ingest_listing(parse_path(path))
        print(f"stored {store.state()[0]} papers in {time.perf_counter() - started:.1f} s", flush=True)
        before = timed_ms(lambda: store.read(OLD_STATE), args.ticks)
        after = timed_ms(store.state, args.ticks)
        print(f"tick (Store.state) at {store.state()[0]} papers: before {before}, after {after}", flush=True)
        store.close()

        def instance(name: str) -> Corpus:
            return Corpus.open(Settings(data_dir=folder / name, seeds_dir=folder / "no-seeds", database_url=url))

        first = instance("a")
        second = Corpus.load(
            Settings(
                data_dir=folder / "b", seeds_dir=folder / "no-seeds", database_url=url, index_snapshot_dir=folder / "a" / "index"
            )
        )
        second.ensure_index()
        second._ready = True
        gone = first.store.newest(1)[0].id
        first.remove_papers([gone])
        started = time.perf_counter()
        reason = second.follow()
        print(f"removal followed in {time.perf_counter() - started:.3f} s ({reason})", flush=True)
        started = time.perf_counter()
        second.reindex()
        print(f"a full rebuild (what a follower did before) takes {time.perf_counter() - started:.1f} s", flush=True)
        first.close()
        second.close()
    finally:
        server.stop("immediate")
        shutil.rmtree(server.folder, ignore_errors=True)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
