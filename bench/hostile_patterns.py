"""Time the BibTeX title and the lexicon's acronym learning, old and new, in one run (issue 29).

    .venv/bin/python bench/hostile_patterns.py --old 8f022ba [--rounds 5]

`--old` is a git revision whose bot/library/export.py and bot/search/lexicon.py are loaded
beside today's. Crafted texts at the listing's field limits (a 1,000-character title, a
5,000-character comment), then every seed paper's title and comments (x20), the work
`bib_title` and `defined_acronyms` do on normal records; CPU time, median of --rounds,
old and new alternating. Not part of the suite.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.ingest.listing import parse_path  # noqa: E402


def load(rev: str, path: str, name: str, tmp: Path):
    source = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    file = tmp / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def cpu(function, texts, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for text in texts:
            function(text)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from bot.library import export
    from bot.search import lexicon

    with tempfile.TemporaryDirectory() as tmp:
        old_export = load(args.old, "bot/library/export.py", "export_old", Path(tmp))
        old_lexicon = load(args.old, "bot/search/lexicon.py", "lexicon_old", Path(tmp))
    papers = [p for f in sorted((ROOT / "seeds").glob("*.txt")) for _, p in parse_path(f).records]
    titles = [p.title_en for p in papers] * 20
    learned = [t for p in papers for t in (p.title_en, p.comments) if t and "(" in t] * 20
    rows = [
        ("bib_title: a 1,000-digit title", "bib_title", ["1" * 1000], 1),
        ("bib_title: a 1,000-letter title, one capital", "bib_title", ["A" + "a" * 999], 1),
        (f"bib_title: the seed titles x20 ({len(titles):,})", "bib_title", titles, args.rounds),
        ("defined_acronyms: a 5,000-letter comment", "defined_acronyms", ["A" + "a" * 4999 + " (A)"], 1),
        ("defined_acronyms: 5,000 capitals", "defined_acronyms", ["A" * 4996 + " (A)"], 1),
        (f"defined_acronyms: seed titles/comments with '(' x20 ({len(learned):,})", "defined_acronyms", learned, args.rounds),
    ]
    print("| CPU | old | new |\n|---|---:|---:|")
    for label, name, texts, rounds in rows:
        module_old, module_new = (old_export, export) if name == "bib_title" else (old_lexicon, lexicon)
        for function_old, function_new in [(getattr(module_old, name), getattr(module_new, name))]:
            assert [function_old(t) for t in texts[:200]] == [function_new(t) for t in texts[:200]]
            old = cpu(function_old, texts, rounds)
            new = cpu(function_new, texts, rounds)
            print(f"| {label} | {old * 1000:,.2f} ms | {new * 1000:,.2f} ms |")


if __name__ == "__main__":
    main()
