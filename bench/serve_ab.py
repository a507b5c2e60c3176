"""Cold start, server RSS and `/papers` end to end for two copies of the code, alternating.

    .venv/bin/python bench/serve_ab.py --old /tmp/old --new . --data bench/work/data/paperbot-300000 [--rounds 3]

bench/run.py's own measures (`cold_start`: spawn `python -c` that opens the corpus and
answers one query, median of 3; `end_to_end`: the Bolt server in its own process, signed
`/papers` posts over keep-alive, VmHWM of the server) on one data folder that must already
be in step with its store, without an ingest. Rounds alternate which code goes first, so
a busy machine slows both alike. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import run  # noqa: E402


def measure(code: Path, data: Path, repeat: int, e2e: bool = True) -> dict:
    run.ROOT = code  # cold_start's `python -c` puts it first on sys.path
    os.environ["PAPERBOT_BENCH_CODE"] = str(code)  # end_to_end's server worker reads it
    return {**run.cold_start("paperbot", data), **(run.end_to_end(data, repeat) if e2e else {})}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, type=Path)
    parser.add_argument("--new", required=True, type=Path)
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="measured passes over the query mix per server")
    parser.add_argument("--skip-e2e", action="store_true", help="cold start only")
    args = parser.parse_args(argv)
    codes = {"old": args.old.resolve(), "new": args.new.resolve()}
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for round_ in range(args.rounds):
        for name in ("old", "new") if round_ % 2 == 0 else ("new", "old"):
            result = measure(codes[name], args.data.resolve(), args.repeat, not args.skip_e2e)
            runs[name].append(result)
            run.log(f"{name} round {round_ + 1}: " + ", ".join(f"{k} {v:.2f}" for k, v in result.items() if isinstance(v, float)))
    keys = ("cold_start_s", "cold_start_rss_mb")
    if not args.skip_e2e:
        keys += ("e2e_p50_ms", "e2e_p95_ms", "e2e_p99_ms", "server_peak_rss_mb")
    summary = {name: {k: statistics.median(r[k] for r in results) for k in keys} for name, results in runs.items()}
    print(f"| median of {args.rounds} rounds | old | new | new / old |")
    print("|---|---:|---:|---:|")
    for k in keys:
        old, new = summary["old"][k], summary["new"][k]
        print(f"| {k} | {old:.2f} | {new:.2f} | {new / old:.2f} |")
    print(json.dumps({"summary": summary, "runs": runs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
