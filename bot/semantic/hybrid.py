"""How dense neighbours join the lexical results, as measured on the judged set (bench/RESULTS.md).

- Every term matched (literal, then expanded): that order is kept whole, as the README
  promises; dense neighbours only fill a page those matches leave short. A fused
  re-ranking of these hits did not help on the judged set, so there is none.
- The any-term fallback ranks by shared words, not by what the question is about: its
  top hits and the dense neighbours are fused by reciprocal rank (RRF), which found the
  right paper for most of the questions it missed.
- No lexical match at all: dense neighbours alone, only for a query made of words (not
  keyboard noise, markup or a name no dictionary knows) and only above a floor.

A query taken as typed (a quoted phrase, a field, an exclusion, OR) gets its lexical
results only. Each hit says how it was found: literal, expanded, partial (some words) or meaning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.models import Paper
from bot.search.analysis import analyze, load_chinese, segment_chinese
from bot.search.lexicon import DICTIONARY
from bot.search.query import Clause, Group, parse_query

FUSE_DEPTH = 30  # lexical and dense candidates fused for an any-term query
RRF_K = 60  # the usual reciprocal-rank constant: rank 1 and rank 10 weigh 1/61 and 1/70
FILL = 10  # dense neighbours offered after the lexical matches run out
FLOOR = 0.1  # cosine below which a neighbour is not offered: on the judged set, right papers by
# meaning score from 0.1 up (a floor of 0.2 lost some); nonsense, kept out by is_meaningful, tops 0.06-0.18
NEIGHBOUR_FLOOR = 0.25  # More like this: a paper this far is not "similar"

_MARKUP = re.compile(r"<[^>]*>|[{}\[\]=;$\\]")
_LATIN = re.compile(r"[a-z]+")
_HAN = re.compile(r"[\u3400-\u9fff]+")


def is_meaningful(text: str) -> bool:
    """Whether `text` reads as words someone means, so its nearest papers by meaning may be shown.

    The encoder places any string somewhere, keyboard noise included; with no word in
    common with any paper, only a query with a dictionary word (English or Chinese) gets
    neighbours. Markup and code are not questions.
    """
    lowered = text.lower()
    if _MARKUP.search(lowered):
        return False
    for word in _LATIN.findall(lowered):
        if len(word) < 3:
            continue
        forms = {word, word[:-1] if word.endswith("s") else word, word[:-2] if word.endswith("es") else word}
        if any(DICTIONARY.chinese_for(form) for form in forms):
            return True
    han = "".join(_HAN.findall(text))
    if han:
        load_chinese()
        return any(len(w) >= 2 and DICTIONARY.english_for(w) for w, *_ in segment_chinese(han, True))
    return False


def taken_as_typed(text: str) -> bool:
    """Whether the query asks for exactly what it says, so nothing is added to it by meaning:
    a quoted phrase, a field (`author:`), an exclusion (`-word`) or `OR`. A paper near
    "KV cache" in meaning is not what `"KV cache"` or `-cache` asked for."""

    def literal(node: Clause | Group) -> bool:
        if isinstance(node, Clause):
            return node.phrase or bool(node.prefix) or node.negated
        return node.negated or node.op == "or" or any(literal(child) for child in node.children)

    return any(literal(child) for child in parse_query(text).root.children)


def fuse(lexical: Sequence[str], dense: Sequence[str], *, depth: int = FUSE_DEPTH) -> list[str]:
    """Reciprocal-rank fusion of the two rankings' first `depth`, best first; the best lexical
    match keeps first place (on the judged set, unpinned fusion pushed a right partial match
    of 大模型RL训练 off the first page)."""
    scores: dict[str, float] = {}
    for ranking in (lexical[:depth], dense[:depth]):
        for rank, pid in enumerate(ranking):
            scores[pid] = scores.get(pid, 0.0) + 1.0 / (RRF_K + rank + 1)
    order = {pid: i for i, pid in enumerate(dict.fromkeys([*lexical[:depth], *dense[:depth]]))}
    fused = sorted(scores, key=lambda pid: (-scores[pid], order[pid]))
    if lexical:
        fused.remove(lexical[0])
        fused.insert(0, lexical[0])
    return fused


def key_words(paper: Paper) -> frozenset[str]:
    """The words of a paper's titles and its authors' names that can say two papers are alike:
    two letters or characters or more, as the index holds them (stemmed, stop words gone),
    so never a lone character. More like this breaks ties by meaning with how
    many two papers share: ~50 µs a paper, where Whoosh's key terms took ~60 ms at 1M papers."""
    words = {w for w in analyze(f"{paper.title_en}\n{paper.title_zh}") if len(w) >= 2}
    words.update(name.strip().lower() for name in paper.authors if name.strip())
    return frozenset(words)
