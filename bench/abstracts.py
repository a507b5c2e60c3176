"""What English abstracts cost the index: rebuild time, size on disk and search latency.

    .venv/bin/python bench/abstracts.py --size 10000

Ingests bench/work/corpus-N (made by bench/run.py) into a fresh data folder, then measures
rebuild / size / search p50-p95 over bench/queries.py twice: as ingested (no arXiv records),
and after giving every paper an arXiv record with a ~1,000-character English abstract
(sentences drawn deterministically from the corpus's own English titles, so query words
hit them as real abstracts would). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from queries import QUERIES  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.corpus import Corpus  # noqa: E402
from bot.models import ArxivRecord  # noqa: E402


def size_of(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def measure(corpus: Corpus, repeat: int) -> dict:
    start = time.perf_counter()
    corpus.reindex()
    rebuild = time.perf_counter() - start
    for _, text in QUERIES:  # warm-up
        corpus.search(text)
    times = []
    for _ in range(repeat):
        for _, text in QUERIES:
            t0 = time.perf_counter()
            corpus.search(text)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {
        "rebuild_s": round(rebuild, 2),
        "index_mb": round(size_of(corpus.settings.index_dir) / 1e6, 1),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(len(times) * 0.95)], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print where searches spend their time, with abstracts")
    args = parser.parse_args()
    listings = ROOT / "bench" / "work" / f"corpus-{args.size}"
    if not listings.is_dir():
        print(f"no {listings}: run bench/run.py --sizes {args.size} first", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus.open(Settings(data_dir=Path(tmp), seeds_dir=Path(tmp) / "none"))
        corpus.ingest_paths([listings])
        before = measure(corpus, args.repeat)
        papers = list(corpus.store.iter_papers())
        titles = [p.title_en for p in papers]
        rng = random.Random(20261201)
        found = {}
        for n, paper in enumerate(papers):
            sentences = [f"We study {rng.choice(titles).lower()}." for _ in range(12)]
            abstract = " ".join(sentences)[:1000]
            found[paper.id] = ArxivRecord(f"2612.{n:05d}", 1, paper.title_en, abstract, list(paper.authors), "cs.LG", ["cs.LG"])
        t0 = time.perf_counter()
        corpus.store.save_arxiv(found, "2026-12-01T00:00:00+00:00")
        saved = time.perf_counter() - t0
        after = measure(corpus, args.repeat)
        if args.profile:
            import cProfile
            import pstats

            profile = cProfile.Profile()
            profile.enable()
            for _, text in QUERIES:
                corpus.search(text)
            profile.disable()
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        corpus.close()
    print(f"{args.size} papers; saving {len(found)} arXiv records took {saved:.2f} s")
    print(f"{'':22}{'rebuild s':>10}{'index MB':>10}{'p50 ms':>9}{'p95 ms':>9}")
    for name, row in (("no abstracts", before), ("1,000-char abstracts", after)):
        print(f"{name:22}{row['rebuild_s']:>10}{row['index_mb']:>10}{row['p50_ms']:>9}{row['p95_ms']:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
