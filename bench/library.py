"""Benchmark "for you" ranking: term vectors (bot.library.ranking.rank_by_profile) vs Whoosh more-like-this.

    .venv/bin/python bench/library.py [--new 1000] [--saved 200] [--repeat 5]

Speed: a digest of `--new` papers ranked against a profile of `--saved` saved papers, on
the benchmark corpus (bench/corpus.py, deterministic) ingested through the real Corpus.
"cold" analyses every paper afresh (a new process); "warm" reuses the Library's term
cache (a server that has ranked these papers before, as a digest and `/papers foryou`
do). Whoosh MLT: key terms of the saved set (`key_terms_from_text`, 50 terms), one OR
query over the index filtered to the new papers; it ranks but cannot say which saved
paper a candidate is like.

Quality: on the seed listings (97 real papers), profiles of the papers about one topic
(their titles name it) and precision@5 of the other papers on that topic among each
method's top five; "topic" is judged by the same title keywords (a crude judged set, but
the same for both methods).
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
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from whoosh import query as wq  # noqa: E402

from bench.corpus import generate  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.corpus import Corpus  # noqa: E402
from bot.library import ranking as library  # noqa: E402
from bot.library.ranking import TermCache, rank_by_profile  # noqa: E402
from bot.search.query import TEXT_FIELD  # noqa: E402

TOPICS = {  # topic -> words in a title that put a paper on it
    "reasoning": ("Reasoning",),
    "reinforcement learning": ("Reinforcement", " RL"),
    "diffusion": ("Diffusion",),
    "attention": ("Attention",),
    "language models": ("Language Model",),
    "synthetic data": ("Synthetic",),
    "long context / retrieval": ("Long-Context", "Retrieval", "KV"),
    "hallucination": ("Hallucination",),
    "agents": ("Agent",),
}


def open_corpus(data: Path, listings: Path) -> Corpus:
    corpus = Corpus.open(Settings(data_dir=data, seeds_dir=data / "none"))
    corpus.ingest_paths([listings])
    return corpus


def whoosh_mlt(corpus: Corpus, saved, new, numterms: int = 50) -> list[str]:
    """Ids of `new` papers, ranked by Whoosh's more-like-this over the saved set."""
    new_ids = {p.id for p in new}
    with corpus.index._searcher() as searcher:
        # `text` is neither vectored nor stored, so (like PaperIndex.more_like) the key
        # terms come from the saved papers' titles and summaries, analysed afresh.
        text = "\n".join(f"{p.title_en}\n{p.title_zh}\n{p.summary_zh}" for p in saved)
        keys = searcher.key_terms_from_text(TEXT_FIELD, text, numterms=numterms)
        q = wq.Or([wq.Term(TEXT_FIELD, term, boost=weight) for term, weight in keys])
        only = wq.NumericRange("seq", min(p.seq for p in new), None)
        results = searcher.search(q, limit=len(new) + len(saved), filter=only)
        return [hit["id"] for hit in results if hit["id"] in new_ids]


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def speed(args, work: Path) -> dict:
    listings = work / f"corpus-{args.new + args.saved}"
    generate(args.new + args.saved, listings)
    data = Path(tempfile.mkdtemp(prefix="bench-library-"))
    try:
        corpus = open_corpus(data, listings)
        papers = sorted(corpus.store.iter_papers(), key=lambda p: p.seq)
        saved, new = papers[: args.saved], papers[args.saved : args.saved + args.new]
        cache = TermCache()
        rank_by_profile(new, saved, cache=cache)
        whoosh_mlt(corpus, saved, new)
        runs: dict[str, list[float]] = {"cold": [], "warm": [], "all_terms": [], "mlt": []}
        chosen = library.MATCH_TERMS
        for _ in range(args.repeat):  # interleaved, so a busy machine slows every variant alike
            runs["cold"] += timed(lambda: rank_by_profile(new, saved, cache=TermCache()), 1)
            runs["warm"] += timed(lambda: rank_by_profile(new, saved, cache=cache), 1)
            library.MATCH_TERMS = 10**6  # before: every term of a candidate walks the postings
            runs["all_terms"] += timed(lambda: rank_by_profile(new, saved, cache=cache), 1)
            library.MATCH_TERMS = chosen
            runs["mlt"] += timed(lambda: whoosh_mlt(corpus, saved, new), 1)
        corpus.close()
        return {"new": len(new), "saved": len(saved), **runs}
    finally:
        shutil.rmtree(data, ignore_errors=True)


def quality(work: Path) -> dict[str, tuple[float, float, int]]:
    data = Path(tempfile.mkdtemp(prefix="bench-library-q-"))
    try:
        corpus = open_corpus(data, ROOT / "seeds")
        papers = sorted(corpus.store.iter_papers(), key=lambda p: p.seq)
        out = {}
        for topic, words in TOPICS.items():
            on_topic = [p for p in papers if any(w.lower() in p.title_en.lower() for w in words)]
            if len(on_topic) < 4:
                continue
            half = len(on_topic) // 2
            saved, relevant = on_topic[:half], {p.id for p in on_topic[half:]}
            new = [p for p in papers if p not in saved]
            k = min(5, len(relevant))
            vec = [r.paper.id for r in rank_by_profile(new, saved)][:k]
            mlt = whoosh_mlt(corpus, saved, new)[:k]
            out[topic] = (sum(i in relevant for i in vec) / k, sum(i in relevant for i in mlt) / k, len(on_topic))
        corpus.close()
        return out
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--new", type=int, default=1000)
    parser.add_argument("--saved", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--work", type=Path, default=ROOT / "bench" / "work")
    args = parser.parse_args(argv)
    result = speed(args, args.work)
    print(f"ranking {result['new']} new papers against {result['saved']} saved (ms, median of {args.repeat}; min-max):")
    labels = (
        ("cold", "term vectors, cold"),
        ("warm", f"term vectors, warm ({library.MATCH_TERMS} terms)"),
        ("all_terms", "term vectors, warm (all terms)"),
        ("mlt", "Whoosh more-like-this"),
    )
    for name, label in labels:
        runs = result[name]
        print(f"  {label:28} {statistics.median(runs):8.1f}   ({min(runs):.1f}-{max(runs):.1f})")
    print("precision@5 on the seeds, profile = half of a topic's papers (term vectors / Whoosh MLT):")
    scores = quality(args.work)
    for topic, (vec, mlt, n) in scores.items():
        print(f"  {topic:24} {vec:.2f} / {mlt:.2f}   ({n} papers on the topic)")
    vec_mean = statistics.mean(v for v, _, _ in scores.values())
    mlt_mean = statistics.mean(m for _, m, _ in scores.values())
    print(f"  {'mean':24} {vec_mean:.2f} / {mlt_mean:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
