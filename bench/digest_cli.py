"""`digest --json` as a CLI process over a day's papers in a big store, old code against new (issue 12).

    python bench/digest_cli.py --data W/data/paperbot-1000000 --code /tmp/old --code . --runs 5

`--data` is never written. Its SQLite file is copied under `--work` (1 GB at 1M papers),
its index is not: the copy's index folder links to the data folder's segment files
(Whoosh never rewrites a segment file; a commit writes new ones and a new TOC) and copies
the small rest (TOC, lexicon files). bench/daily.py's day's file (1,000 new papers and
100 stored ones listed again) is ingested into that copy once, with this checkout's code,
as bench/daily.py does, so the digest runs over the same 1,000 new papers as there; then
`python -m bot digest --json --since S --filter F` runs from a fresh process for
bench/daily.py's five filters, `--runs` times each, the codes alternating, first one
then the other; prints the median wall time per code and filter, the ratio, and whether
every run of every code printed the same JSON (it must). The data folder's files are
checked unchanged (size and mtime) at the end.

`--bytecode compiled` (the default) compiles each code's `bot` package first (`python -m
compileall`, as the Dockerfile does and as pip does for a regular install); `--bytecode
none` deletes its `bot/**/__pycache__` and runs with PYTHONDONTWRITEBYTECODE=1, so every
run compiles paperbot's source again: what an editable install in an environment with
PYTHONDONTWRITEBYTECODE=1 (this machine's) pays at every start.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(ROOT), str(BENCH)]

from daily import DIGEST_FILTERS, write_daily_file  # noqa: E402


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


def overlay(source: Path, work: Path) -> tuple[Path, int]:
    """A writable view of `source` with the day's file ingested; return it and the seq before the day."""
    data = work / "data"
    done = work / "since.json"
    if done.exists():
        return data, json.loads(done.read_text())["since"]
    shutil.rmtree(work, ignore_errors=True)
    (data / "index").mkdir(parents=True)
    shutil.copy2(source / "paperbot.sqlite3", data / "paperbot.sqlite3")
    for path in (source / "index").iterdir():
        target = data / "index" / path.name
        if path.name.startswith("papers_") and not path.name.endswith(".toc"):
            target.symlink_to(path)  # a segment's file: read, never written
        else:
            shutil.copy2(path, target)
    write_daily_file(data, work / "daily.txt")
    from bot.config import Settings
    from bot.corpus import Corpus

    corpus = Corpus.open(Settings(data_dir=data))
    try:
        since = corpus.store.last_seq()
        started = time.perf_counter()
        corpus.ingest_paths([work / "daily.txt"])
        print(f"day's file ingested in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    finally:
        corpus.close()
    done.write_text(json.dumps({"since": since}))
    return data, since


def prepare_bytecode(code: Path, mode: str) -> None:
    for cache in (code / "bot").rglob("__pycache__"):
        shutil.rmtree(cache)
    if mode == "compiled":
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "bot")], check=True)


def run_digest(code: Path, data: Path, since: int, text: str) -> tuple[float, float, str]:
    env = {**os.environ, "PAPERBOT_DATA_DIR": str(data), "PYTHONPATH": str(code), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [sys.executable, "-m", "bot", "digest", "--json", "--since", str(since), "--filter", text]
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=code, env=env, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"digest failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - used.ru_utime) + (after.ru_stime - used.ru_stime)
    return wall, cpu, hashlib.sha256(proc.stdout).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="an ingested data folder (never written)")
    parser.add_argument("--work", default=str(BENCH / "work" / "digest-cli"), help="where the copy goes (kept for the next run)")
    parser.add_argument("--code", action="append", required=True, help="a checkout of paperbot (repeatable)")
    parser.add_argument("--runs", type=int, default=5, help="runs per code and filter (median)")
    parser.add_argument("--bytecode", choices=("compiled", "none"), default="compiled", help="see above")
    args = parser.parse_args(argv)
    source = Path(args.data).resolve()
    before = snapshot(source)
    data, since = overlay(source, Path(args.work).resolve())
    codes = [Path(c).resolve() for c in args.code]
    for code in codes:
        prepare_bytecode(code, args.bytecode)
    print(f"bytecode: {args.bytecode}; {len(DIGEST_FILTERS)} filters x {args.runs} runs, codes alternating", file=sys.stderr)
    walls: dict[tuple[Path, str], list[float]] = {}
    cpus: dict[tuple[Path, str], list[float]] = {}
    outputs: dict[str, set[str]] = {}
    for text in DIGEST_FILTERS:
        for _ in range(args.runs):
            for code in codes:
                wall, cpu, sha = run_digest(code, data, since, text)
                walls.setdefault((code, text), []).append(wall)
                cpus.setdefault((code, text), []).append(cpu)
                outputs.setdefault(text, set()).add(sha)
    names = [c.name or str(c) for c in codes]
    ratio_head = " | ratio" if len(codes) == 2 else ""
    print(
        "| filter | "
        + " | ".join(f"{n} wall" for n in names)
        + ratio_head
        + " | "
        + " | ".join(f"{n} CPU" for n in names)
        + ratio_head
        + " | same output |"
    )
    print("|---|" + "---:|" * (2 * (len(codes) + (len(codes) == 2))) + "---|")
    for text in DIGEST_FILTERS:
        cells = []
        for series in (walls, cpus):
            medians = [statistics.median(series[(code, text)]) for code in codes]
            cells += [f"{m:.3f} s" for m in medians] + ([f"{medians[1] / medians[0]:.2f}"] if len(codes) == 2 else [])
        print(f"| `{text or '(none)'}` | " + " | ".join(cells) + f" | {'yes' if len(outputs[text]) == 1 else 'NO'} |")
    if snapshot(source) != before:
        raise SystemExit(f"{source} changed during the run")
    return 0 if all(len(shas) == 1 for shas in outputs.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
