"""Time crafted listing records under two copies of bot/ingest/listing.py (issue 29, point 2).

    .venv/bin/python bench/hostile_listing.py --old 508cf6f --new . --limit 30

`--old` is a git revision (its listing.py is loaded beside today's bot package) and
`--new` a folder holding bot/ingest/listing.py. Each crafted record is parsed in its
own process, old and new in turn, stopped after --limit seconds (the old parser took
22.7 s on the space run and minutes on a run of capitals). Then the seed listings x40,
the same way, so the fix is seen not to slow normal records. Not part of the suite.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N = 50_000

WORKER = r"""
import importlib.util, json, sys, time
sys.path.insert(0, sys.argv[1])
spec = importlib.util.spec_from_file_location("listing_under_test", sys.argv[2])
listing = importlib.util.module_from_spec(spec)
spec.loader.exec_module(listing)
text = open(sys.argv[3], encoding="utf-8").read()
repeat = int(sys.argv[4])
start = time.process_time()
for _ in range(repeat):
    result = listing.parse_text(text)
print(json.dumps({"cpu": (time.process_time() - start) / repeat, "records": len(result.records), "errors": len(result.errors)}))
"""


def _record(authors: str = "A B", comments: str = "", journal: str = "", summary: str = "x") -> str:
    lines = ["feed", "A crafted paper", "标题", authors, "AI总结 " + summary]
    if comments:
        lines.append("Comments " + comments)
    if journal:
        lines.append("Journal ref " + journal)
    return "\n".join(lines) + "\n"


CRAFTED = {
    "authors: A + 49,990 spaces + B (the issue's record)": _record(authors="A" + " " * 49_990 + "B"),
    "authors: A + 49,990 tabs/ideographic spaces + B": _record(authors="A" + " \t\u3000" * 16_663 + "B"),
    "comments: 2,000 capitals": _record(comments="A" * 2_000),
    "comments: 4,990 capitals": _record(comments="A" * 4_990),
    "comments: ICML + 998 years": _record(comments="ICML " + "2020 " * 998),
    "journal ref: ICML; + 998 years": _record(journal="ICML; " + "2020 " * 998),
}


def _time(code: Path, listing_py: Path, text_file: Path, repeat: int, limit: float) -> str:
    try:
        out = subprocess.run(
            [sys.executable, "-c", WORKER, str(code), str(listing_py), str(text_file), str(repeat)],
            capture_output=True,
            text=True,
            timeout=limit,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return f"> {limit:.0f} s (stopped)"
    report = json.loads(out.stdout)
    return f"{report['cpu'] * 1000:,.1f} ms ({report['records']} records, {report['errors']} errors)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", required=True, help="git revision of the old listing.py")
    parser.add_argument("--new", default=str(ROOT), help="folder with the new bot/")
    parser.add_argument("--limit", type=float, default=30.0)
    args = parser.parse_args()
    new = Path(args.new).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        old_py = Path(tmp) / "listing_old.py"
        old_py.write_text(
            subprocess.run(
                ["git", "show", f"{args.old}:bot/ingest/listing.py"], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout
        )
        new_py = new / "bot" / "ingest" / "listing.py"
        print("| Crafted record (one record, CPU) | old | new |\n|---|---:|---:|")
        for label, text in CRAFTED.items():
            text_file = Path(tmp) / "record.txt"
            text_file.write_text(text, encoding="utf-8")
            old = _time(new, old_py, text_file, 1, args.limit)
            now = _time(new, new_py, text_file, 1, args.limit)
            print(f"| {label} | {old} | {now} |")
        seeds = Path(tmp) / "seeds.txt"
        seed_texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "seeds").glob("*.txt"))]
        seeds.write_text("feed\n" + "\n".join(t.split("\n", 1)[1] for t in seed_texts * 40), encoding="utf-8")
        for run in range(3):
            old = _time(new, old_py, seeds, 3, 600)
            now = _time(new, new_py, seeds, 3, 600)
            print(f"| the seed listings x40, run {run + 1} | {old} | {now} |")


if __name__ == "__main__":
    main()
