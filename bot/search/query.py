"""User text -> Whoosh query: fields, phrases, OR, and the repairs that keep search from failing.

We parse with our own small lexer and recursive-descent parser instead of Whoosh's
QueryParser: people type half-closed quotes, `foo:bar`, lone `OR`s, emoji and whole
paragraphs into Slack, and every one of those must still give a query (or a clean
"empty"), never an exception.

Grammar (OR separates alternatives: `KV缓存 OR speculative decoding` finds papers
about KV caches or about speculative decoding; parentheses group tighter)::

    query  := or
    or     := and ("OR" and)*
    and    := (unary | "AND")*
    unary  := ("NOT" | "-")* atom
    atom   := "(" or ")" | [field ":"] ('"' phrase '"' | word)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TypeGuard

from whoosh import query as wq

from bot.search.analysis import SPELL_MIN_CHARS, STOPWORDS, analyze, is_han
from bot.search.lexicon import Expansion, Lexicon

TEXT_FIELD = "text"  # the catch-all field free text searches (weights live in the index)

# What a `prefix:` searches; Chinese prefixes so people need not switch keyboards.
PREFIX_FIELDS: dict[str, str] = {
    "author": "authors",
    "authors": "authors",
    "作者": "authors",
    "affil": "affil",
    "affiliation": "affil",
    "机构": "affil",
    "venue": "venue",
    "会议": "venue",
    "feed": "feed",
    "来源": "feed",
    "year": "year",
    "年份": "year",
}

# Which stored fields a match in each indexed field can light up in a snippet.
HIGHLIGHT_FIELDS: dict[str, tuple[str, ...]] = {
    TEXT_FIELD: ("title_en", "title_zh", "summary", "authors", "affil_en", "affil_zh", "comments"),
    "authors": ("authors",),
    "affil": ("affil_en", "affil_zh"),
    "venue": (),
    "feed": (),
}

MAX_QUERY_CHARS = 500  # Slack messages can be 40k characters; nobody searches with a page.
MAX_CLAUSES = 24  # each clause is up to ~9 field lookups; more only slows the search down
MAX_DEPTH = 8  # nested parentheses beyond this are ignored rather than recursed into

_QUOTES = str.maketrans({c: '"' for c in "“”„‟«»「」『』〝〞"})
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Markup pasted with a query (`<b>hi</b>`, `<br/>`, `<span class="x">`): never what anyone searches for.
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_OPERATORS = {"OR", "AND", "NOT", "||", "&&"}
_YEAR_RANGE = re.compile(r"^(\d{4})(?:\s*(?:-|\.\.|~|到|至)\s*(\d{4}))?$")
_ASCII_WORD = re.compile(r"[A-Za-z]+")
_TWO_CAPITALS = re.compile(r"(?<![A-Za-z])[A-Z]{2}(?![A-Za-z])")

# Words that make a question of a topic ("papers about X", "有哪些关于X的论文"): dropped
# from free text when something else is left, so the topic is what must match.
QUESTION_WORDS_EN = frozenset(
    [
        "what",
        "which",
        "who",
        "how",
        "why",
        "where",
        "when",
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "any",
        "some",
        "all",
        "there",
        "me",
        "i",
        "we",
        "you",
        "find",
        "show",
        "give",
        "list",
        "search",
        "look",
        "looking",
        "paper",
        "papers",
        "article",
        "articles",
        "work",
        "works",
        "about",
        "regarding",
        "on",
        "recent",
        "new",
        "latest",
        "making",
        "make",
        "get",
        "please",
        "tell",
        "way",
        "ways",
    ]
)
QUESTION_WORDS_ZH = frozenset(
    [
        "如何",
        "怎么",
        "怎样",
        "怎么样",
        "什么",
        "哪些",
        "哪个",
        "有没有",
        "有",
        "是否",
        "关于",
        "论文",
        "文章",
        "相关",
        "一些",
        "查找",
        "找",
        "寻找",
        "请",
        "我",
        "想",
        "看看",
        "吗",
        "呢",
        "最新",
        "方面",
        "研究",
    ]
)
GENERIC_NAME_WORDS = frozenset(analyze("university institute college school department academy laboratory") + ["大学", "学院"])
EXPANSION_BOOST = 0.5  # an alternative a lexicon supplied counts half a literal match
COORD_SCALE = 0.9  # any-term fallback: matching more of the query counts (Whoosh's Or scale)


@dataclass(frozen=True)
class Clause:
    """A word or a quoted phrase, optionally limited to a prefix (`author`, `affil`, ...)."""

    text: str
    prefix: str = ""
    phrase: bool = False
    negated: bool = False


@dataclass(frozen=True)
class Group:
    """Clauses joined by "and" or "or"."""

    op: str
    children: tuple[Node, ...]
    negated: bool = False


Node = Clause | Group


@dataclass(frozen=True)
class ParsedQuery:
    """The parse tree of user text and the repair it needed, if any (an i18n key)."""

    root: Group
    problem: str | None = None

    def is_empty(self) -> bool:
        return not self.root.children


@dataclass(frozen=True)
class BuiltQuery:
    """A Whoosh query plus what the hits should highlight: (field, token) pairs.

    `expanded`: what the lexicon added, as "term → alternative" labels, and
    `expanded_terms` the tokens those alternatives search (to tell which a hit matched).
    """

    query: wq.Query | None
    problem: str | None = None
    terms: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    expanded: tuple[str, ...] = ()
    expanded_terms: tuple[tuple[str, tuple[str, ...]], ...] = ()
    impossible: bool = False  # an expanded query that cannot match (a required word nobody has)


def normalize_query(text: str) -> str:
    """Return `text` in NFKC with typographic quotes as `"` and markup tags dropped:
    ＂ａｕｔｈｏｒ：“x” → author:"x", `<b>KV</b> cache` → ` KV  cache`."""
    return _TAG.sub(" ", _CONTROL.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES)))


def parse_query(text: str) -> ParsedQuery:
    """Parse user text into a tree of clauses; never raises.

    >>> parse_query('"world model" OR robot').root.children[0]
    Group(op='or', children=(Clause(text='world model', prefix='', phrase=True, negated=False), \
Clause(text='robot', prefix='', phrase=False, negated=False)), negated=False)
    """
    problems: list[str] = []
    text = normalize_query(text or "")
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS]
        problems.append("query_truncated")
    tokens = _lex(text, problems)
    parser = _Parser(tokens, problems)
    root = parser.parse()
    root, clauses = _limit_clauses(root, MAX_CLAUSES)
    if clauses > MAX_CLAUSES and "query_truncated" not in problems:
        problems.append("query_truncated")
    # Truncation matters more to the user than a quietly closed quote.
    problem = "query_truncated" if "query_truncated" in problems else (problems[0] if problems else None)
    return ParsedQuery(root, problem)


def build_query(
    text: str,
    *,
    mode: str = "all",
    lexicon: Lexicon | None = None,
    expand: bool = False,
    is_known: Callable[[str], bool] | None = None,
) -> BuiltQuery:
    """Turn user text into a Whoosh query: every term must match (`all`) or any may (`any`).

    Pure: needs no index, so tests can assert on the query it builds (`is_known` says
    which tokens the index has; expansions to anything else are not searched).
    In `any` mode, prefixed clauses (author:, venue:, ...) stay required: they read as
    filters, and dropping them would answer a different question.
    With a `lexicon`, short names that match whole names only (北大) always search as the
    names they stand for; with `expand`, every span of free text also searches its
    aliases, translations and joined/split forms (see bot/search/lexicon.py).
    """
    parsed = parse_query(text)
    if parsed.is_empty():
        return BuiltQuery(None, "query_empty")
    builder = _Builder(mode, lexicon, expand, is_known or (lambda _: True))
    q = builder.build_root(_drop_question_words(parsed.root))
    if q is None:
        return BuiltQuery(None, "query_empty")
    return BuiltQuery(
        q.normalize(),
        parsed.problem,
        frozenset(builder.terms),
        tuple(dict.fromkeys(builder.expanded)),
        tuple(builder.expanded_terms),
        builder.impossible,
    )


def _drop_question_words(root: Group) -> Group:
    """Drop English question words from the top level of free text, if a topic is left.

    >>> [c.text for c in _drop_question_words(parse_query("papers about world models").root).children]
    ['world', 'models']
    """

    def is_question(node: Node) -> bool:
        return (
            isinstance(node, Clause)
            and not node.prefix
            and not node.phrase
            and not node.negated
            and node.text.lower() in QUESTION_WORDS_EN
        )

    kept = tuple(c for c in root.children if not is_question(c))
    if not kept or len(kept) == len(root.children):
        return root
    return replace(root, children=kept)


def suggest_query(
    text: str,
    is_known: Callable[[str], bool],
    find_closest: Callable[[str], str | None],
) -> str | None:
    """Return `text` with unknown English words replaced by the closest known ones, or None.

    `is_known` and `find_closest` look words up in the index's own vocabulary (whole,
    unstemmed words, so the suggestion reads like something a person typed). Chinese
    is left alone: its typos are wrong characters, not edit-distance slips.

    >>> suggest_query("speculativ decodng", {"speculative", "decoding"}.__contains__,
    ...               {"speculativ": "speculative", "decodng": "decoding"}.get)
    'speculative decoding'
    """
    text = normalize_query(text or "")[:MAX_QUERY_CHARS]
    pieces: list[str] = []
    last = 0
    changed = False
    for match in _ASCII_WORD.finditer(text):
        word = match.group()
        lower = word.lower()
        after = text[match.end() : match.end() + 1]
        if (
            len(word) < SPELL_MIN_CHARS
            or word in _OPERATORS
            or lower in STOPWORDS
            or (after == ":" and lower in PREFIX_FIELDS)
            or is_known(lower)
        ):
            continue
        better = find_closest(lower)
        if better and better != lower:
            pieces.append(text[last : match.start()])
            pieces.append(better)
            last = match.end()
            changed = True
    if not changed:
        return None
    pieces.append(text[last:])
    return "".join(pieces)


def iter_words(text: str) -> Iterable[str]:
    """Yield the lowercase ASCII words of `text` that spelling correction would look at."""
    for match in _ASCII_WORD.finditer(normalize_query(text or "")):
        yield match.group().lower()


# -- lexing -----------------------------------------------------------------------------

_Tok = tuple[str, object]  # ("lp"|"rp"|"op"|"clause", payload)


def _lex(text: str, problems: list[str]) -> list[_Tok]:
    tokens: list[_Tok] = []
    i, n = 0, len(text)
    pending_prefix = ""  # `author: "x"` or `author: x`: a prefix with its value after a space
    while i < n:
        char = text[i]
        if char.isspace():
            i += 1
            continue
        if char in "()":
            if pending_prefix:
                problems.append("query_repaired")
                pending_prefix = ""
            tokens.append(("lp" if char == "(" else "rp", None))
            i += 1
            continue
        if char == '"':
            end = text.find('"', i + 1)
            if end < 0:
                problems.append("query_repaired")
                end = n
            body = text[i + 1 : end].strip()
            if body:
                tokens.append(("clause", Clause(body, pending_prefix, phrase=True)))
            pending_prefix = ""
            i = end + 1
            continue
        j = i
        while j < n and not text[j].isspace() and text[j] not in '()"':
            j += 1
        word = text[i:j]
        i = j
        if word in _OPERATORS and not pending_prefix:
            tokens.append(("op", "AND" if word == "&&" else "OR" if word == "||" else word))
            continue
        negated = False
        if word.startswith("-") and len(word) > 1 and not pending_prefix:
            negated, word = True, word[1:]
        prefix, _, value = word.partition(":")
        if _ and prefix.lower() in PREFIX_FIELDS and not pending_prefix:
            prefix = prefix.lower()
            if not value:
                # The value follows: a quote right after the colon or a word after a space.
                pending_prefix = prefix
                if negated:
                    tokens.append(("op", "NOT"))
                continue
            tokens.append(("clause", Clause(value, prefix, negated=negated)))
            continue
        tokens.append(("clause", Clause(word, pending_prefix, negated=negated)))
        pending_prefix = ""
    if pending_prefix:
        problems.append("query_repaired")
    return tokens


# -- parsing ----------------------------------------------------------------------------


class _Parser:
    def __init__(self, tokens: list[_Tok], problems: list[str]):
        self.tokens = tokens
        self.i = 0
        self.problems = problems

    def parse(self) -> Group:
        group = self._parse_and(0)
        while self.i < len(self.tokens):  # a stray ")" ended the top level early
            self.problems.append("query_repaired")
            self.i += 1
            more = self._parse_and(0)
            group = Group("and", group.children + more.children)
        return group

    def _peek(self) -> _Tok | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _parse_and(self, depth: int) -> Group:
        """Parse up to the closing parenthesis; OR splits what it reads into alternatives."""
        alternatives: list[list[Node]] = []
        items: list[Node] = []
        while True:
            tok = self._peek()
            if tok is None:
                if depth:
                    self.problems.append("query_repaired")  # "(" never closed
                break
            kind, value = tok
            if kind == "rp":
                if depth:
                    self.i += 1
                    break
                self.problems.append("query_repaired")
                self.i += 1
                continue
            if kind == "op" and value == "AND":
                self.i += 1
                continue
            if kind == "op" and value == "OR":
                self.i += 1
                nxt = self._peek()
                if not items or nxt is None or nxt[0] == "rp" or nxt[1] in ("OR", "AND"):
                    self.problems.append("query_repaired")  # lone OR: nothing on one side
                    continue
                alternatives.append(items)
                items = []
                continue
            node = self._parse_unary(depth)
            if node is not None:
                items.append(node)
        if not alternatives:
            return Group("and", tuple(items))
        if items:
            alternatives.append(items)
        # "world OR -model" cannot mean "anything without model": drop an alternative made
        # only of exclusions, and say the query was repaired (subscribe then refuses it).
        kept = [a for a in alternatives if not all(n.negated for n in a)]
        if len(kept) < len(alternatives):
            self.problems.append("query_repaired")
        if not kept:
            return Group("and", ())
        branches = tuple(a[0] if len(a) == 1 else Group("and", tuple(a)) for a in kept)
        return Group("and", (Group("or", branches),) if len(branches) > 1 else branches)

    def _parse_unary(self, depth: int) -> Node | None:
        negated = False
        while (tok := self._peek()) is not None and tok == ("op", "NOT"):
            negated = not negated
            self.i += 1
        tok = self._peek()
        if tok is None or tok[0] == "rp" or tok[0] == "op":
            if negated:
                self.problems.append("query_repaired")  # NOT with nothing after it
            return None
        self.i += 1
        kind, value = tok
        if kind == "lp":
            if depth >= MAX_DEPTH:
                self.problems.append("query_repaired")
                return None
            group = self._parse_and(depth + 1)
            if not group.children:
                return None
            node: Node = group.children[0] if len(group.children) == 1 else group
        else:
            assert isinstance(value, Clause)
            node = value
        return _negate(node) if negated else node


def _negate(node: Node) -> Node:
    return replace(node, negated=not node.negated)


def _limit_clauses(node: Group, budget: int) -> tuple[Group, int]:
    """Keep the first `budget` clauses; return the trimmed tree and how many there were."""
    kept: list[Node] = []
    seen = 0
    for child in node.children:
        if isinstance(child, Clause):
            seen += 1
            if seen <= budget:
                kept.append(child)
        else:
            sub, count = _limit_clauses(child, max(0, budget - seen))
            seen += count
            if sub.children:
                kept.append(sub)
    return replace(node, children=tuple(kept)), seen


# -- building ---------------------------------------------------------------------------


class _Builder:
    def __init__(
        self, mode: str, lexicon: Lexicon | None = None, expand: bool = False, is_known: Callable[[str], bool] = lambda _: True
    ):
        self.any = mode == "any"
        self.terms: set[tuple[str, str]] = set()
        self.lexicon = lexicon
        self.expand = expand and lexicon is not None
        self.is_known = is_known
        self.expanded: list[str] = []
        self.expanded_terms: list[tuple[str, tuple[str, ...]]] = []
        self.root: Group | None = None
        # A required word the index lacks, with no alternative: the expanded query cannot
        # match, and Whoosh would still read every alternative's postings to find that out.
        self.impossible = False

    def build_root(self, root: Group) -> wq.Query | None:
        self.root = root
        if not self.any:
            return self._build(root, positive=True)
        # Any-term fallback: prefixed clauses stay required, everything else becomes optional.
        required: list[wq.Query] = []
        optional: list[wq.Query] = []
        banned: list[wq.Query] = []
        for child in root.children:
            if self.lexicon is not None and _is_plain(child) and not child.prefix:
                q = self._build_run([child], positive=True)  # each word on its own: any may match
            else:
                q = self._build(replace(child, negated=False), positive=not child.negated)
            if q is None:
                continue
            if child.negated:
                banned.append(q)
            elif isinstance(child, Clause) and child.prefix:
                required.append(q)
            else:
                optional.append(q)
        if optional:
            required.append(wq.Or(optional, scale=COORD_SCALE) if len(optional) > 1 else optional[0])
        if not required:
            return None
        return _and_not(required, banned)

    def _build(self, node: Node, positive: bool) -> wq.Query | None:
        if isinstance(node, Clause):
            q = self._build_clause(node, positive and not node.negated)
            return wq.Not(q) if q is not None and node.negated else q
        inner_positive = positive and not node.negated
        parts: list[wq.Query] = []
        banned: list[wq.Query] = []
        run: list[Clause] = []
        for child in (*node.children, None):
            # Consecutive plain words are one run, so a lexicon sees "speculative decoding"
            # or "KV cache" whole, not word by word.
            if (
                child is not None
                and self.lexicon is not None
                and node.op == "and"
                and _is_plain(child)
                and (not run or run[0].prefix == child.prefix)
            ):
                run.append(child)
                continue
            if run:
                q = self._build_run(run, inner_positive, required=node is self.root and not node.negated)
                if q is not None:
                    parts.append(q)
                run = []
            if child is None:
                break
            if self.lexicon is not None and node.op == "and" and _is_plain(child):
                run.append(child)
                continue
            q = self._build(replace(child, negated=False), inner_positive and not child.negated)
            if q is None:
                continue
            (banned if child.negated else parts).append(q)
        if node.op == "or":
            # A negated branch of an OR ("a OR -b") means little; search its words plainly.
            parts.extend(banned)
            banned = []
            q = wq.Or(parts) if parts else None
        elif not parts:
            q = None  # only negations: nothing to subtract them from
        else:
            q = _and_not(parts, banned) if not self.any else _and_not([wq.Or(parts)], banned)
        if q is not None and node.negated:
            return wq.Not(q)
        return q

    def _build_clause(self, clause: Clause, positive: bool) -> wq.Query | None:
        name = PREFIX_FIELDS[clause.prefix] if clause.prefix else TEXT_FIELD
        if name == "year":
            q = _build_year(clause.text)
            if q is not None:
                return q
            name = TEXT_FIELD  # year:abc -> just the text
        ordered = analyze(clause.text)
        tokens = list(dict.fromkeys(ordered))
        if not tokens:
            return None
        if positive:
            self.terms.update((f, t) for f in HIGHLIGHT_FIELDS[name] for t in tokens)
        if clause.phrase and len(ordered) > 1:
            return wq.Phrase(name, ordered)
        per_token: list[wq.Query] = [wq.Term(name, t) for t in tokens]
        if len(per_token) == 1:
            return per_token[0]
        return wq.Or(per_token) if self.any else wq.And(per_token)

    def _build_run(self, clauses: list[Clause], positive: bool, required: bool = False) -> wq.Query | None:
        """Build a run of plain words, each span of them OR-ed with what the lexicon knows."""
        assert self.lexicon is not None
        name = PREFIX_FIELDS[clauses[0].prefix] if clauses[0].prefix else TEXT_FIELD
        words: list[tuple[str, str | None]] = []  # (token, the raw word when it is one token)
        acronyms: set[str] = set()  # two capitals as typed (RL, KV): a topic, unlike "hi" or "co"
        for clause in clauses:
            acronyms.update(a.lower() for a in _TWO_CAPITALS.findall(clause.text))
            tokens = analyze(clause.text)
            raw = clause.text if len(tokens) == 1 and clause.text.isascii() and clause.text.isalpha() else None
            words.extend((t, raw) for t in tokens)
        if name == TEXT_FIELD:
            # 如何 / 哪些 make a question of the topic, in the any-word fallback too: a paper
            # that matches only 如何 is not an answer.
            topic = [w for w in words if w[0] not in QUESTION_WORDS_ZH]
            words = topic or ([] if self.any else words)
        if self.any:
            # A lone Chinese character or digit matches half the corpus: not a reason to show a paper.
            words = [w for w in words if not (len(w[0]) == 1 and (is_han(w[0]) or w[0].isdigit()))]
        if not words:
            return None
        spans: list[wq.Query] = []
        i = 0
        while i < len(words):
            length, alternatives = 1, []
            for size in range(min(5, len(words) - i), 0, -1):
                span = tuple(t for t, _ in words[i : i + size])
                alternatives = self._alternatives(span, words[i : i + size], name)
                if alternatives or size == 1:
                    length = size
                    break
            span = tuple(t for t, _ in words[i : i + length])
            i += length
            if (
                self.any
                and length == 1
                and not alternatives
                and len(span[0]) <= 2
                and span[0].isascii()
                and span[0] not in acronyms
            ):
                # Two letters alone ("hi", "co") match pieces of names (HiLD, CoT), not a topic.
                continue
            if positive:
                self.terms.update((f, t) for f in HIGHLIGHT_FIELDS[name] for t in span)
            literal: wq.Query | None = wq.Term(name, span[0]) if length == 1 else wq.And([wq.Term(name, t) for t in span])
            whole = [e for e in alternatives if e.whole]
            if whole:
                literal = None  # 北大 alone would find 西北大学: search the names it stands for
            # An alternative that contains the literal words, or another alternative's,
            # finds nothing new ("harvard university" beside "harvard"): skip its phrase.
            kept_sets = [] if literal is None else [set(span)]
            pruned = []
            for expansion in sorted(alternatives, key=lambda e: len(e.target)):
                target_set = set(expansion.target)
                if not any(k <= target_set for k in kept_sets):
                    pruned.append(expansion)
                    kept_sets.append(target_set)
            alternatives = pruned
            if required and self.expand and not alternatives and not all(self.is_known(t) for t in span):
                self.impossible = True
            options = [] if literal is None else [literal]
            for expansion in alternatives:
                target = expansion.target
                q = wq.Term(name, target[0]) if len(target) == 1 else wq.Phrase(name, list(target))
                options.append(q if expansion.whole else _boosted(q, EXPANSION_BOOST))
                if positive:
                    # "University" of "Peking University" lights up every university: in a
                    # longer name only the words that tell it apart are marked.
                    marked = [t for t in target if len(target) == 1 or t not in GENERIC_NAME_WORDS]
                    self.terms.update((f, t) for f in HIGHLIGHT_FIELDS[name] for t in marked)
                self.expanded.append(expansion.label)
                self.expanded_terms.append((expansion.label, target))
            if options:
                spans.append(options[0] if len(options) == 1 else wq.Or(options))
        if not spans:
            return None
        if len(spans) == 1:
            return spans[0]
        return wq.Or(spans, scale=COORD_SCALE) if self.any else wq.And(spans)

    def _alternatives(self, span: tuple[str, ...], words: list[tuple[str, str | None]], name: str) -> list[Expansion]:
        lexicon = self.lexicon
        assert lexicon is not None
        if name not in (TEXT_FIELD, "affil"):
            return []
        if not self.expand:
            return lexicon.whole_names(span) or []
        found = lexicon.expansions(span, self.is_known)
        raw = words[0][1]
        if len(span) == 1 and raw is not None:
            found.extend(lexicon.english_to_chinese(raw, span, self.is_known))
            found.extend(_split_forms(raw, span, self.is_known))
        if len(span) == 2 and all(w[1] is not None for w in words):
            found.extend(lexicon.english_to_chinese(f"{words[0][1]} {words[1][1]}", span, self.is_known))
            joined = analyze(words[0][1] + words[1][1])  # type: ignore[operator]
            if len(joined) == 1 and self.is_known(joined[0]):
                found.append(Expansion(span, (joined[0],), f"{words[0][1]} {words[1][1]} → {words[0][1]}{words[1][1]}", "joined"))
        return found


def _is_plain(node: Node) -> TypeGuard[Clause]:
    return (
        isinstance(node, Clause)
        and not node.negated
        and not node.phrase
        and PREFIX_FIELDS.get(node.prefix, TEXT_FIELD) in (TEXT_FIELD, "affil")
    )


def _split_forms(raw: str, span: tuple[str, ...], is_known: Callable[[str], bool]) -> list[Expansion]:
    """`kvcache` -> the phrase "kv cache", when the index has both halves (best balanced split)."""
    if len(raw) < 5:
        return []
    best: tuple[int, tuple[str, ...]] | None = None
    lower = raw.lower()
    for cut in range(2, len(lower) - 1):
        left, right = analyze(lower[:cut]), analyze(lower[cut:])
        if len(left) == 1 and len(right) == 1 and is_known(left[0]) and is_known(right[0]):
            balance = min(cut, len(lower) - cut)
            if best is None or balance > best[0]:
                best = (balance, (left[0], right[0]))
    if best is None:
        return []
    cut_at = len(best[1][0])
    return [Expansion(span, best[1], f"{raw} → {lower[:cut_at]} {lower[cut_at:]}", "split")]


def _boosted(q: wq.Query, boost: float) -> wq.Query:
    q.boost = boost
    return q


def _and_not(parts: list[wq.Query], banned: list[wq.Query]) -> wq.Query:
    positive = parts[0] if len(parts) == 1 else wq.And(parts)
    if not banned:
        return positive
    return wq.AndNot(positive, banned[0] if len(banned) == 1 else wq.Or(banned))


def _build_year(text: str) -> wq.Query | None:
    match = _YEAR_RANGE.match(text.strip())
    if not match:
        return None
    start = int(match.group(1))
    end = int(match.group(2) or start)
    if start > end:
        start, end = end, start
    return wq.NumericRange("year", start, end)
