"""Learning what one person (or one channel) reads from 👍 / 👎, saves, opens and interests.

Features. A paper is its analysed terms, exactly as ranking.py counts them (titles twice,
summary: the search analyzer, both languages), log tf x idf over the papers in play, unit
length, hashed into 2^18 columns by scikit-learn's FeatureHasher: no vocabulary to keep or
grow. An interest ("KV cache", "推测解码") is analysed the same way, as a short positive
paper.

Meaning. With search by meaning on (bot/semantic/, a `Dense` source), each paper's vector
and each interest's (embedded as a search's query is) join the likenesses: the similarity
to the nearest positive and MMR's redundancy are the vectors' cosine plus the terms' at a
share (LEXICAL_TIE for a paper, INTEREST_TIE for an interest), so a paper in the other
language with no word in common is found; a paper's terms count only where the vectors'
cosine is at least TERMS_GATE, so a lone shared character (过 of 过参数化 and 过江隧道)
lifts nothing the meaning does not already bring near; the classifier gets the vectors as
DENSE_WEIGHT-weighted columns beside the hashed terms. The issue asked for the terms as a
tie-break only: on the judged set that lost a third of the saved readers' hits (RESULTS.md). A pair where either side has no vector yet (the
builder is behind) is compared by its terms, as before; without vectors at all, or with
PAPERBOT_SEMANTIC=off, nothing here changes. bench/recommend.py --semantic chose the weights.

Model. A logistic regression (scikit-learn, liblinear) per person or channel, trained on
their positives (👍, saves, interests; opens weakly), their negatives (👎), and the papers
around them that they did not label as weak negatives (what arxiv-sanity-lite's per-tag
SVM does). Trained on each call: a few milliseconds for a few hundred rows, so a 👎 changes
the very next `/papers foryou`. A candidate's score is the classifier's (standardised)
plus today's signal, its similarity to the nearest positive: bench/recommend.py measures
each alone and together against today's TF-IDF ranking.

Never again: a paper the reader 👎'd is dropped, not merely ranked low.

Diversity. The top of the list is re-ranked by maximal marginal relevance (Carbonell &
Goldstein 1998): each next pick trades its score against its likeness to the picks
above it, so five near-duplicates do not fill the top five.
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy import sparse
from sklearn.feature_extraction import FeatureHasher
from sklearn.linear_model import LogisticRegression

from bot.library.ranking import TITLE_REPEAT, TermCache
from bot.models import Paper
from bot.search.analysis import analyze

N_FEATURES = 1 << 18
UNLABELED_WEIGHT = 0.15  # an unlabeled paper as a negative counts this much of a 👎
OPEN_WEIGHT = 0.3  # opening Details is this much of a 👍
SIMILARITY_SHARE = 1.0  # today's nearest-positive similarity, next to the classifier's score
REASON_MIN_SIMILARITY = 0.12  # below this a "like X" would mislead (ranking.py's is for raw cosine of tf-idf)
MMR_LAMBDA = 0.85  # relevance vs novelty in MMR; 1.0 is no diversity (bench/recommend.py: 0.75 cost precision early)
MMR_POOL = 30  # MMR re-ranks this many of the best (a for-you shows 5, a digest 10 highlights)
TRAIN_UNLABELED = 200  # at most this many unlabeled papers train a model (the first, in the given order)
C = 4.0  # inverse regularisation: few examples, unit-length rows
CENTROID_SHARE = 0.3  # as in ranking.py: the whole profile next to the nearest paper in it
NEGATIVE_SHARE = 0.5  # how far a likeness to a 👎'd paper pulls a candidate down
MODEL_TRUST_AT = 15  # the classifier counts half when the reader has given this many examples
DENSE_WEIGHT = 1.0  # the vectors' columns in the classifier, against the unit-length hashed terms
LEXICAL_TIE = 2.0  # with vectors, a paper's likeness to a saved / liked paper: cosine of vectors + this x the terms'
INTEREST_TIE = 0.5  # ...to an interest: the vectors' + this x the terms' (bench/recommend.py --semantic chose both)
TERMS_GATE = 0.25  # ...a paper's terms' share only where the vectors' cosine is at least this (the floor of a
# "like X" reason): a lone shared character (过 of 过参数化 and 过江隧道) lifts nothing the meaning does not bring
# near. On the judged set no gate from 0.1 to 0.3 moved the saved readers' hit@5 (0.784); an interest's terms are
# not gated (an interest sits further from its papers by meaning: any gate lost hits)
DENSE_REASON_MIN = 0.25  # cosine of the vectors alone below which "like X" would mislead (More like this's floor)
DENSE_INTEREST_MIN = 0.2  # ...and "matches your interest": a short text's cosines run lower


class Dense(Protocol):
    """Vectors by meaning (bot/semantic/service.py's Meaning): unit-length float32 rows."""

    def paper_vectors(self, paper_ids: Iterable[str]) -> dict[str, np.ndarray]: ...

    def embed_texts(self, texts: list[str]) -> np.ndarray: ...


_HASHER = FeatureHasher(n_features=N_FEATURES, input_type="string", alternate_sign=False)


@dataclass(frozen=True)
class Example:
    """One labelled thing: a paper (or an interest's text), +1 / -1, how much it counts, and
    where it comes from ("saved", "liked", "opened", "interest", "disliked", "channel")."""

    label: int
    source: str
    paper: Paper | None = None
    interest: str = ""
    weight: float = 1.0
    alternatives: tuple[str, ...] = ()  # an interest's: what a search for it also looks for


@dataclass
class Pick:
    """A ranked candidate: its score and the example it is most like (its reason), if close."""

    paper: Paper
    score: float = 0.0
    like: Example | None = None
    similarity: float = 0.0


@dataclass
class Diversity:
    """How alike the top of a list is: mean pairwise cosine of the top `n`, and pairs over 0.5."""

    mean_similarity: float = 0.0
    near_duplicates: int = 0
    n: int = 0


class HashedTerms:
    """Each paper's hashed log-tf row, by (id, rev): hashing is the slow part, done once."""

    def __init__(self, terms: TermCache, size: int = 50_000):
        self.terms = terms
        self.size = size
        self._rows: OrderedDict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()

    def rows(self, papers: list[Paper]) -> list[tuple[np.ndarray, np.ndarray]]:
        missing = [p for p in papers if (p.id, p.rev) not in self._rows]
        if missing:
            for paper, row in zip(missing, _hash_rows([self.terms.terms(p) for p in missing]), strict=True):
                self._rows[(paper.id, paper.rev)] = row
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)
        return [self._rows[(p.id, p.rev)] for p in papers]


def _hash_rows(counts: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """Counters of terms -> (column indices, log tf) per document."""
    matrix = _HASHER.transform([[term for term, n in c.items() for _ in range(n)] for c in counts]).tocsr()
    matrix.sum_duplicates()
    out = []
    for i in range(matrix.shape[0]):
        start, end = matrix.indptr[i], matrix.indptr[i + 1]
        out.append((matrix.indices[start:end].copy(), 1.0 + np.log(matrix.data[start:end])))
    return out


def interest_terms(interest: str, alternatives: Sequence[str] = ()) -> list[str]:
    """An interest's terms, as a title's: analysed as search reads it, counted like a title,
    plus what a search for it also looks for (`alternatives`: the lexicon's translations and
    aliases, PaperIndex.alternatives), once each: a search counts an alternative as half a
    literal match, and so a Chinese-only paper matches `KV cache` through 键值缓存."""
    return [term for term in analyze(interest) for _ in range(TITLE_REPEAT)] + list(alternatives)


@dataclass
class Pool:
    """The papers being ranked, as a matrix built once (a digest morning ranks the same
    papers for every subscriber): idf over the pool, only the columns the pool uses."""

    papers: list[Paper]
    matrix: sparse.csr_matrix  # one unit-length row per paper, compact columns
    columns: np.ndarray  # sorted hashed column of each compact column
    idf: np.ndarray
    total: int
    dense: np.ndarray | None = None  # (papers, DIM) vectors by meaning, zero where a paper has none yet
    has_dense: np.ndarray | None = None  # which papers have one

    def vectorize(self, rows: list[tuple[np.ndarray, np.ndarray]]) -> sparse.csr_matrix:
        """Rows (an example's terms) in the pool's columns and weights; terms no candidate has
        cannot move a candidate's score, so they are dropped."""
        indptr, indices, data = [0], [], []
        for cols, values in rows:
            where = np.searchsorted(self.columns, cols)
            where = np.minimum(where, len(self.columns) - 1)
            found = self.columns[where] == cols if len(self.columns) else np.zeros(len(cols), dtype=bool)
            local = where[found]
            weighted = values[found] * self.idf[local]
            order = np.argsort(local)
            indices.append(local[order])
            data.append(weighted[order])
            indptr.append(indptr[-1] + len(local))
        return _normalised(
            sparse.csr_matrix(
                (np.concatenate(data) if data else np.zeros(0), np.concatenate(indices) if indices else np.zeros(0, int), indptr),
                shape=(len(rows), len(self.columns)),
            )
        )


def make_pool(papers: list[Paper], hashed: HashedTerms, dense: Dense | None = None) -> Pool:
    """Stack the papers' hashed rows, weigh by idf over them, normalise each row; with
    `dense`, the papers' vectors beside them (those that have one)."""
    rows = hashed.rows(papers)
    if not rows:
        return Pool([], sparse.csr_matrix((0, 0)), np.zeros(0, dtype=np.int64), np.zeros(0), 0)
    vectors, has_vector = _dense_rows(dense, papers)
    all_indices = np.concatenate([r[0] for r in rows]).astype(np.int64)
    columns, local = np.unique(all_indices, return_inverse=True)
    df = np.bincount(local, minlength=len(columns))
    idf = np.log((1.0 + len(rows)) / (1.0 + df)) + 1.0
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(r[0]) for r in rows])
    data = np.concatenate([r[1] for r in rows]) * idf[local]
    matrix = sparse.csr_matrix((data, local, indptr), shape=(len(rows), len(columns)))
    matrix.sort_indices()
    return Pool(list(papers), _normalised(matrix), columns, idf, len(rows), vectors, has_vector)


def _dense_rows(dense: Dense | None, papers: list[Paper]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The papers' vectors as one matrix (zero rows for those without), and which have one;
    (None, None) when none has (so everything is as without meaning)."""
    if dense is None or not papers:
        return None, None
    found = dense.paper_vectors([p.id for p in papers])
    if not found:
        return None, None
    dim = len(next(iter(found.values())))
    matrix = np.zeros((len(papers), dim), dtype=np.float32)
    has = np.zeros(len(papers), dtype=bool)
    for i, paper in enumerate(papers):
        row = found.get(paper.id)
        if row is not None:
            matrix[i] = row
            has[i] = True
    return matrix, has


def _normalised(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags(1.0 / norms) @ matrix)


def _standardise(values: np.ndarray) -> np.ndarray:
    spread = float(values.std())
    return (values - values.mean()) / spread if spread > 1e-12 else np.zeros_like(values)


@dataclass
class Learner:
    """Ranks candidates for one reader from their examples (see the module docstring)."""

    hashed: HashedTerms
    similarity_share: float = SIMILARITY_SHARE
    use_model: bool = True
    mmr_lambda: float = MMR_LAMBDA
    unlabeled_weight: float = UNLABELED_WEIGHT
    dense: Dense | None = None  # vectors by meaning; None: the terms alone (PAPERBOT_SEMANTIC=off)
    dense_weight: float = DENSE_WEIGHT
    lexical_tie: float = LEXICAL_TIE
    interest_tie: float = INTEREST_TIE
    terms_gate: float = TERMS_GATE

    def rank(self, candidates: list[Paper], examples: list[Example], *, exclude: set[str] | None = None) -> list[Pick]:
        """Order `candidates` for the reader, best first; `exclude` (their 👎) never appears.

        With no examples at all the order is kept (the caller gives the newest first).
        """
        return self.rank_pool(make_pool(candidates, self.hashed, self.dense), examples, exclude=exclude)

    def rank_pool(self, pool: Pool, examples: list[Example], *, exclude: set[str] | None = None) -> list[Pick]:
        """`rank` over a pool built once for many readers (`make_pool`)."""
        exclude = exclude or set()
        labelled_ids = {e.paper.id for e in examples if e.paper is not None}
        keep = [i for i, p in enumerate(pool.papers) if p.id not in exclude and p.id not in labelled_ids]
        if not keep:
            return []
        candidates = [pool.papers[i] for i in keep]
        if not examples:
            return [Pick(p) for p in candidates]
        example_rows = self._example_rows(examples)
        cand = pool.matrix[keep] if len(keep) < pool.total else pool.matrix
        labelled = pool.vectorize(example_rows)
        n = len(candidates)
        labels = np.array([e.label for e in examples])
        weights = np.array([e.weight for e in examples], dtype=np.float64)
        positives = np.flatnonzero(labels > 0)
        negatives = np.flatnonzero(labels < 0)
        sims = (cand @ labelled.T).toarray()
        dense = self._dense_part(pool, keep, examples)
        meaning = None
        if dense is not None:
            cand_vectors, cand_has, example_vectors, example_has = dense
            both = cand_has[:, None] & example_has[None, :]
            tie = np.array([self.lexical_tie if e.paper is not None else self.interest_tie for e in examples])
            meaning = cand_vectors @ example_vectors.T
            gate = np.array([self.terms_gate if e.paper is not None else -np.inf for e in examples])
            sims = np.where(both, meaning + tie[None, :] * sims * (meaning >= gate[None, :]), sims)
        best = np.full(n, -1)
        best_sim = np.zeros(n)
        if len(positives):
            best = positives[sims[:, positives].argmax(axis=1)]
            best_sim = sims[np.arange(n), best]
        # Today's signal (ranking.py): the nearest positive, and a share of all of them.
        similarity = best_sim.copy()
        if len(positives):
            share = weights[positives] / weights[positives].sum()
            similarity = (1 - CENTROID_SHARE) * best_sim + CENTROID_SHARE * (sims[:, positives] @ share)
        if len(negatives):
            similarity = similarity - NEGATIVE_SHARE * sims[:, negatives].max(axis=1)
        score = self.similarity_share * _standardise(similarity)
        if self.use_model and len(positives):
            # The classifier earns its say with examples: with one or two it is noise.
            trust = len(examples) / (len(examples) + MODEL_TRUST_AT)
            features, labelled_features = cand, labelled
            if dense is not None and self.dense_weight > 0:
                features = sparse.hstack([cand, sparse.csr_matrix(self.dense_weight * dense[0])]).tocsr()
                labelled_features = sparse.hstack([labelled, sparse.csr_matrix(self.dense_weight * dense[2])]).tocsr()
            score = score + trust * self._model_scores(features, labelled_features, labels, weights)
        order = np.lexsort((np.arange(n), -np.round(score, 9)))
        # Plain lists: a thousand numpy scalars, one at a time, cost more than the model.
        ranked = order.tolist()
        close = best_sim >= REASON_MIN_SIMILARITY
        if dense is not None and meaning is not None and len(positives):
            # Compared by meaning, the reason is the vectors' to give: a shared character or a
            # name's fragment lifts the terms' share, never the meaning.
            nearest_at = np.maximum(best, 0)
            by_meaning = dense[1] & dense[3][nearest_at]
            floor = np.array([DENSE_REASON_MIN if e.paper is not None else DENSE_INTEREST_MIN for e in examples])
            close = np.where(by_meaning, meaning[np.arange(n), nearest_at] >= floor[nearest_at], close)
        nearest = np.where(close, best, -1)[order].tolist()
        picks = [
            Pick(candidates[i], s, examples[b] if b >= 0 else None, sim)
            for i, s, b, sim in zip(ranked, score[order].tolist(), nearest, best_sim[order].tolist(), strict=True)
        ]
        if self.mmr_lambda < 1.0:
            picks = self._diversify(picks, cand, ranked, None if dense is None else (dense[0], dense[1]))
        return picks

    def _dense_part(
        self, pool: Pool, keep: list[int], examples: list[Example]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """(candidates' vectors, which have one, examples' vectors, which have one), or None
        when no pair of a candidate and an example can be compared by meaning."""
        if self.dense is None or pool.dense is None or pool.has_dense is None:
            return None
        cand_has = pool.has_dense[keep]
        if not cand_has.any():
            return None
        dim = pool.dense.shape[1]
        vectors = np.zeros((len(examples), dim), dtype=np.float32)
        has = np.zeros(len(examples), dtype=bool)
        found = self.dense.paper_vectors([e.paper.id for e in examples if e.paper is not None])
        texts = [i for i, e in enumerate(examples) if e.paper is None and e.interest.strip()]
        if texts:
            # An interest as a search's query is embedded: its words, not its alternatives.
            vectors[texts] = self.dense.embed_texts([examples[i].interest for i in texts])
            has[texts] = True
        for i, example in enumerate(examples):
            row = found.get(example.paper.id) if example.paper is not None else None
            if row is not None:
                vectors[i] = row
                has[i] = True
        if not has.any():
            return None
        return pool.dense[keep], cand_has, vectors, has

    def _example_rows(self, examples: list[Example]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each example's hashed row, in order: the papers' in one call to the cache, the
        interests' in one call to the hasher (a call each cost ~0.3 ms of overhead, 40 a person)."""
        papers = iter(self.hashed.rows([e.paper for e in examples if e.paper is not None]))
        texts = [Counter(interest_terms(e.interest, e.alternatives)) for e in examples if e.paper is None]
        interests = iter(_hash_rows(texts) if texts else [])
        return [next(papers) if e.paper is not None else next(interests) for e in examples]

    def _model_scores(self, cand, labelled, labels: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The classifier's standardised decision for each candidate."""
        unlabeled = cand[:TRAIN_UNLABELED]
        x = sparse.vstack([labelled, unlabeled]).tocsr()
        y = np.concatenate([(labels > 0).astype(int), np.zeros(unlabeled.shape[0], dtype=int)])
        if len(set(y.tolist())) < 2:
            return np.zeros(cand.shape[0])
        pos_total = weights[labels > 0].sum()
        w = np.concatenate([weights, np.full(unlabeled.shape[0], self.unlabeled_weight)])
        # Positives weigh as much, all together, as the negatives and the unlabeled do.
        neg_total = w[len(labels) :].sum() + weights[labels < 0].sum()
        w[: len(labels)][labels > 0] *= max(1.0, neg_total / max(pos_total, 1e-9))
        # The pool's columns only (a few thousand of the 2^18): liblinear's cost grows with
        # the columns it is given, 3 s a model over all of them.
        model = LogisticRegression(C=C, solver="liblinear", max_iter=200)
        model.fit(x, y, sample_weight=w)
        return _standardise(model.decision_function(cand))

    def _diversify(
        self, picks: list[Pick], cand, order: list[int], dense: tuple[np.ndarray, np.ndarray] | None = None
    ) -> list[Pick]:
        """MMR over the best MMR_POOL picks; the rest keep their order after them. Two picks
        are alike by meaning where both have vectors (`dense`), else by their terms."""
        head = picks[:MMR_POOL]
        if len(head) < 3:
            return picks
        top = order[: len(head)]
        rows = cand[top]
        alike = (rows @ rows.T).toarray()
        if dense is not None:
            vectors, has = dense[0][top], dense[1][top]
            both = has[:, None] & has[None, :]
            alike = np.where(both, vectors @ vectors.T + self.lexical_tie * alike, alike)
        scores = np.array([p.score for p in head])
        spread = scores.max() - scores.min()
        relevance = (scores - scores.min()) / spread if spread > 1e-12 else np.ones_like(scores)
        chosen: list[int] = []
        left = list(range(len(head)))
        while left:
            redundancy = alike[np.ix_(left, chosen)].max(axis=1) if chosen else np.zeros(len(left))
            mmr = self.mmr_lambda * relevance[left] - (1 - self.mmr_lambda) * redundancy
            pick = left[int(np.argmax(mmr))]
            chosen.append(pick)
            left.remove(pick)
        return [head[i] for i in chosen] + picks[MMR_POOL:]

    def diversity(self, papers: list[Paper], n: int = 5) -> Diversity:
        """How alike the first `n` papers are (bench/recommend.py's diversity measure)."""
        top = papers[:n]
        if len(top) < 2:
            return Diversity(n=len(top))
        rows = make_pool(top, self.hashed).matrix
        alike = (rows @ rows.T).toarray()
        pairs = [alike[i, j] for i in range(len(top)) for j in range(i + 1, len(top))]
        return Diversity(float(np.mean(pairs)), sum(1 for s in pairs if s > 0.5), len(top))


def signal_weight(source: str) -> float:
    """How much an example counts, by where it comes from."""
    return OPEN_WEIGHT if source == "opened" else 1.0


def log_scale(count: int) -> float:
    """A channel paper's weight from how many people valued it: 1, 1.7, 2.1, ..."""
    return 1.0 + math.log(max(1, count))
