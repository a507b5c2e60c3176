"""Bulk ingest's phases before the index, for copies of the code side by side.

    .venv/bin/python bench/ingest_phases.py --corpus DIR [--code DIR ...] [--runs 2]

For each run and each `--code` (default: this checkout), in a process of its own: parse
every listing (bot.ingest.listing.parse_path), store each (Store.ingest_listing) into a fresh
store, read them back (Store.iter_papers(since_rev=0)) and build the index documents
(bot.search.schema.paper_document), printing each phase's CPU seconds. The index upsert is left
out (bench/ingest_ab.py measures the whole ingest). Codes alternate, so a busy machine
slows them alike; compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PHASES = r"""
import json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import importlib


def find(*targets):  # bench/layout.py's, inline: this runs with only the code under test on the path
    for target in targets:
        module, name = target.split(":")
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            pass
    raise ImportError(targets)


paper_document = find("bot.search.schema:paper_document", "bot.search.index:paper_document", "bot.index:paper_document")
parse_path = find("bot.ingest.listing:parse_path", "bot.listing:parse_path")
Store = find("bot.store.database:Store", "bot.store:Store")
files = sorted(Path(sys.argv[2]).glob("*.txt"))
store = Store(Path(sys.argv[3]) / "paperbot.sqlite3")
marks = [time.process_time()]
listings = [parse_path(f) for f in files]
marks.append(time.process_time())
for listing in listings:
    store.ingest_listing(listing)
marks.append(time.process_time())
papers = list(store.iter_papers(since_rev=0))
marks.append(time.process_time())
documents = [paper_document(p) for p in papers]
marks.append(time.process_time())
names = ("parse", "store", "read", "paper_document")
print(json.dumps({"papers": len(papers), **{n: round(b - a, 2) for n, a, b in zip(names, marks, marks[1:])}}))
"""


def run_phases(code: Path, corpus: Path) -> dict:
    work = Path(tempfile.mkdtemp(prefix="ingest-phases-"))
    try:
        out = subprocess.run(
            [sys.executable, "-c", PHASES, str(code), str(corpus), str(work)], check=True, capture_output=True, text=True
        )
        return json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a folder of listing files (bench/corpus.py makes them)")
    parser.add_argument("--code", type=Path, action="append", help="a folder holding a bot/ package (repeatable)")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args(argv)
    codes = args.code or [ROOT]
    for run in range(1, args.runs + 1):
        for code in codes:
            result = run_phases(code.resolve(), args.corpus.resolve())
            phases = " ".join(f"{k} {v:.2f}" for k, v in result.items() if k != "papers")
            total = sum(v for k, v in result.items() if k != "papers")
            print(f"run {run} {code}: {result['papers']} papers, CPU s: {phases}, sum {total:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
