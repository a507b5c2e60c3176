"""What pruning tombstones costs, on SQLite and PostgreSQL (issue 24: tombstones pruned).

    .venv/bin/python bench/tombstones.py [--tombstones 100000] [--backend both|sqlite|postgresql]

Each backend: one paper stored (the newest rev), then `--tombstones` tombstones written
straight into `paper_tombstones` (half of them older than the retention), then timed:
a follow's `removed_since` over all of them, the prune (`Store.prune_tombstones`: it
deletes the older half), a prune with nothing to do (what every later run of the job costs),
and `removed_since` again. PostgreSQL 15 runs in a temporary folder (tests/postgres_support.py).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from digest_support import listing_text  # noqa: E402
from postgres_support import start_postgres  # noqa: E402

from bot.ingest.listing import parse_text  # noqa: E402
from bot.store.database import PAPERS, open_store  # noqa: E402

OLD, NEW, CUTOFF = "2026-11-01T08:00:00+00:00", "2026-11-20T08:00:00+00:00", "2026-11-13T08:00:00+00:00"


def ms(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return (time.perf_counter() - started) * 1000, result


def run(location: str, tombstones: int) -> None:
    store = open_store(location)
    store.ingest_listing(parse_text(listing_text("Feed A", 0, 1), "a.txt"))
    base = 1_000_000  # the tombstones' revs, below the paper's once it is stored again at the top
    with store.transaction(PAPERS) as db:
        db.executemany(
            "INSERT INTO paper_tombstones (paper_id, seq, rev, removed_at) VALUES (?, ?, ?, ?)",
            [(f"gone-{i}", i, base + i, OLD if i < tombstones // 2 else NEW) for i in range(tombstones)],
        )
        db.execute("UPDATE papers SET rev = ?", (base + tombstones + 1,))
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('counter', ?)", (str(base + tombstones + 1),))
    read_ms, rows = ms(lambda: store.removed_since(0))
    prune_ms, pruned = ms(lambda: store.prune_tombstones(CUTOFF))
    again_ms, _ = ms(lambda: store.prune_tombstones(CUTOFF))
    after_ms, left = ms(lambda: store.removed_since(0))
    print(f"{location.split(':')[0] if '://' in location else 'sqlite'}: {len(rows)} tombstones; removed_since {read_ms:.0f} ms; "
          f"prune of {pruned} {prune_ms:.0f} ms; prune with nothing to do {again_ms:.1f} ms; "
          f"removed_since of the {len(left)} left {after_ms:.0f} ms", flush=True)  # fmt: skip
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tombstones", type=int, default=100_000)
    parser.add_argument("--backend", choices=("both", "sqlite", "postgresql"), default="both")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tombstones-"))
    try:
        if args.backend in ("both", "sqlite"):
            run(str(folder / "paperbot.sqlite3"), args.tombstones)
        if args.backend in ("both", "postgresql"):
            server = start_postgres()
            try:
                run(server.schema_url(server.new_schema()), args.tombstones)
            finally:
                server.stop("immediate")
                shutil.rmtree(server.folder, ignore_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
