"""Ranking papers by what a person or a channel values ("for you"), and saying why.

Each paper is a bag of terms from its titles (twice) and summary, analysed exactly as
search analyses text (bot/search/analysis.py), weighted by TF-IDF over the papers being
ranked plus the profile, and compared by cosine. A candidate's score is its best
similarity to one profile paper (that paper is the reason shown: "like *ParisKV*, which
you saved"), plus a smaller share of its similarity to the whole profile.
bench/library.py measures it against Whoosh's more-like-this.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, OrderedDict, defaultdict
from dataclasses import dataclass

from bot.models import Paper
from bot.search.analysis import analyze

CENTROID_SHARE = 0.3  # how much the whole profile counts next to the single best match


TITLE_REPEAT = 2  # title terms count twice: a title says what a paper is about


MATCH_TERMS = 16  # a candidate's strongest terms that look for similar saved papers


REASON_MIN_SIMILARITY = 0.2  # below this (a shared word like "robust" or "加速"), "like X" would mislead


@dataclass
class Ranked:
    """A paper in a ranked list: its score, and the profile paper it is most like."""

    paper: Paper
    score: float = 0.0
    like: Paper | None = None


def paper_terms(paper: Paper) -> Counter:
    """Count the analysed terms of a paper's titles (twice) and summary.

    >>> sorted(paper_terms(Paper(id="x", title_en="KV cache", title_zh="", summary_zh="缓存")).items())
    [('cach', 2), ('kv', 2), ('缓存', 1)]
    """
    terms: Counter = Counter()
    for title in {paper.title_en, paper.title_zh}:
        for _ in range(TITLE_REPEAT):
            terms.update(analyze(title))
    terms.update(analyze(paper.summary_zh))
    return terms


class TermCache:
    """Analysed term counts per (paper id, rev): analysis is the slow part of ranking."""

    def __init__(self, size: int = 20_000):
        self.size = size
        self._items: OrderedDict[tuple[str, int], Counter] = OrderedDict()
        self._lock = threading.Lock()

    def terms(self, paper: Paper) -> Counter:
        key = (paper.id, paper.rev)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
        terms = paper_terms(paper)
        with self._lock:
            self._items[key] = terms
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return terms


def _weigh(counts: list[Counter]) -> list[dict[str, float]]:
    """TF-IDF vectors of unit length over these documents (log tf, smoothed idf)."""
    df: Counter = Counter()
    for terms in counts:
        df.update(terms.keys())
    total = len(counts)
    idf = {term: math.log((1 + total) / (1 + n)) + 1.0 for term, n in df.items()}
    vectors = []
    for terms in counts:
        vector = {term: (1.0 + math.log(n)) * idf[term] for term, n in terms.items()}
        norm = math.sqrt(sum(w * w for w in vector.values())) or 1.0
        vectors.append({term: w / norm for term, w in vector.items()})
    return vectors


def rank_by_profile(
    papers: list[Paper],
    profile: list[Paper],
    *,
    weights: dict[str, float] | None = None,
    cache: TermCache | None = None,
) -> list[Ranked]:
    """Order `papers` by similarity to `profile`, best first; ties keep their given order.

    `weights` (paper id -> weight, default 1) lets some profile papers count more (the
    channel's most voted). A paper with nothing in common with the profile scores 0 and
    keeps its place among the others that do not match. Profile papers are never ranked
    against themselves.
    """
    if not papers:
        return []
    profile_ids = {p.id for p in profile}
    if not profile:
        return [Ranked(p) for p in papers]
    terms_of = cache.terms if cache else paper_terms
    vectors = _weigh([terms_of(p) for p in profile] + [terms_of(p) for p in papers])
    profile_vectors, paper_vectors = vectors[: len(profile)], vectors[len(profile) :]
    weights = weights or {}
    profile_weights = [max(0.0, weights.get(p.id, 1.0)) for p in profile]
    # An inverted index over the profile: a candidate only meets the profile papers it
    # shares a term with, so 1,000 x 200 comparisons cost what their overlap costs.
    postings: dict[str, list[tuple[int, float]]] = {}
    centroid: defaultdict[str, float] = defaultdict(float)
    weight_sum = sum(profile_weights) or 1.0
    for number, (vector, weight) in enumerate(zip(profile_vectors, profile_weights, strict=True)):
        for term, value in vector.items():
            postings.setdefault(term, []).append((number, value * weight))
            centroid[term] += value * weight / weight_sum
    centroid_norm = math.sqrt(sum(v * v for v in centroid.values())) or 1.0
    ranked = []
    for paper, vector in zip(papers, paper_vectors, strict=True):
        if paper.id in profile_ids:
            continue
        # Only a paper's strongest terms look for matches: the rest carry little weight and
        # are the common words whose postings are longest (5x faster at 1,000 x 200).
        strongest = sorted(vector.items(), key=lambda item: -item[1])[:MATCH_TERMS]
        sims: dict[int, float] = {}
        for term, value in strongest:
            for number, weighted in postings.get(term, ()):
                sims[number] = sims.get(number, 0.0) + value * weighted
        best, best_sim = None, 0.0
        for number, sim in sims.items():
            if sim > best_sim:
                best, best_sim = number, sim
        to_centroid = sum(value * centroid.get(term, 0.0) for term, value in vector.items()) / centroid_norm
        score = (1 - CENTROID_SHARE) * best_sim + CENTROID_SHARE * to_centroid
        like = profile[best] if best is not None and best_sim >= REASON_MIN_SIMILARITY else None
        ranked.append(Ranked(paper, score, like))
    order = sorted(range(len(ranked)), key=lambda i: (-round(ranked[i].score, 9), i))
    return [ranked[i] for i in order]


def short_title(paper: Paper, lang: str, limit: int = 60) -> str:
    """A title as people say it: the part before a colon when there is one ("ParisKV")."""
    title = paper.title(lang).strip()
    for mark in (":", "：", " - "):
        head = title.split(mark, 1)[0].strip()
        if head and head != title and len(head) >= 3:
            title = head
            break
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"
