"""The bilingual analyzer: Chinese segmentation with rjieba, English stemming, one pipeline.

>>> [t.text for t in bilingual_analyzer()("KV-Cache 压缩：上下文学习")]
['kv', 'cach', '压缩', '上下', '下文', '上下文', '学习']

Indexing (the default) adds jieba's search-mode sub-words (上下文 also gives 上下, 下文) at
the position of the word they come from; queries (`mode="query"`) keep only whole words.
So a query for 上下 finds 上下文, and the phrase "上下文学习" is two adjacent positions on
both sides.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from whoosh.analysis import Filter, Token, Tokenizer
from whoosh.analysis.analyzers import CompositeAnalyzer
from whoosh.lang.porter import stem

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
# A run is either Han characters (segmented by rjieba) or letters/digits of any other script.
_RUN = re.compile(f"([{_HAN}]+)|([^\\W_{_HAN}]+)")
# Where a joined word splits: KVCache -> KV|Cache, ParisKV -> Paris|KV (not at digits: LLM4Cov stays).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2})")

# Longer "words" are URLs, hashes or base64: noise that only bloats the term index.
MAX_TOKEN_CHARS = 40
SECTION_GAP = 100
# Shorter words have too many neighbours one edit away (bar → bai) to correct safely.
SPELL_MIN_CHARS = 4

ENGLISH_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "into",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
    ]
)
# Function words that would otherwise make an all-terms query demand a 的.
CHINESE_STOPWORDS = frozenset(["的", "了", "和", "与", "及", "之", "在", "是", "对", "将", "把", "被", "等"])
STOPWORDS = ENGLISH_STOPWORDS | CHINESE_STOPWORDS


def normalize_text(text: str) -> tuple[str, list[int] | None]:
    """Return `text` in NFKC and a map from its offsets back to the original, or None if 1:1.

    NFKC turns full-width letters, digits and punctuation into ASCII (ＫＶ → KV, ： → :),
    which keeps the same length; only rarer compatibility characters (ﬁ, ㎏, ½) expand,
    and then we normalize character by character to keep highlight offsets right.
    """
    if text.isascii():
        return text, None
    norm = unicodedata.normalize("NFKC", text)
    if len(norm) == len(text):
        return norm, None
    pieces: list[str] = []
    offsets: list[int] = []
    for i, char in enumerate(text):
        piece = unicodedata.normalize("NFKC", char)
        pieces.append(piece)
        offsets.extend([i] * len(piece))
    offsets.append(len(text))
    return "".join(pieces), offsets


@lru_cache(maxsize=8192)
def segment_chinese(run: str, subwords: bool) -> tuple[tuple[str, int, int, int], ...]:
    """Split a run of Han characters into (word, start, end, word_index) tuples.

    With `subwords`, jieba's search mode adds the dictionary words inside long words
    (上下文 → 上下, 下文); each carries the index of the word it came from, so phrases
    still see one position per word. Cached: titles and queries repeat the same runs.

    HMM is off: it guesses unknown words from context, so 低秩大语言模型 became 低/秩大/...
    and a query for 大语言模型 could not find it. Without it unknown words fall apart into
    single characters the same way in documents and queries.
    """
    jieba = _jieba()
    words = jieba.tokenize(run, hmm=False)
    if not subwords:
        return tuple((w, s, e, i) for i, (w, s, e) in enumerate(words))
    owner = [0] * len(run)
    for i, (_, s, e) in enumerate(words):
        for c in range(s, e):
            owner[c] = i
    found = jieba.tokenize(run, mode="search", hmm=False)
    # jieba's order: a word's sub-words first, then the word itself.
    return tuple(sorted(((w, s, e, owner[s]) for w, s, e in found), key=lambda t: (t[3], t[2] - t[1], t[1])))


@lru_cache(maxsize=1)
def _jieba():
    """rjieba, imported at the first Han run: its import builds jieba's dictionary (~0.27 s,
    a third of a CLI command's start), which English text never needs. See load_chinese()."""
    import rjieba

    return rjieba


@lru_cache(maxsize=1)
def _t2s():
    """OpenCC's traditional-to-simplified converter, made at the first Han run."""
    import opencc

    return opencc.OpenCC("t2s")


def load_chinese() -> None:
    """Load jieba's dictionary and OpenCC now (once per process): the server does it before
    it says it is ready, so no search waits for them; a CLI command loads them if it meets
    Chinese text."""
    _jieba()
    _t2s()


@lru_cache(maxsize=8192)
def fold_han(run: str) -> str:
    """Return a run of Han characters in simplified script (OpenCC t2s), same length.

    Folded before segmentation on both sides, so 推測解碼 and 推测解码 are one word. OpenCC
    converts phrase by phrase and may change the length (a regional word); highlight
    offsets need the same length, so such a run is converted character by character.

    >>> fold_han("推測解碼"), fold_han("推测解码")
    ('推测解码', '推测解码')
    """
    t2s = _t2s()
    folded = t2s.convert(run)
    if len(folded) != len(run):
        folded = "".join(c if len(f := t2s.convert(c)) != 1 else f for c in run)
    return folded


@lru_cache(maxsize=8192)
def split_camel(word: str, whole: bool = True) -> tuple[tuple[str, int, int, int], ...]:
    """Split a joined word at its case changes: KVCache -> KV, Cache (+ KVCache if `whole`).

    Documents keep the whole word too (a query for `kvcache` still finds it); the parts
    take one position each so the phrase "KV cache" finds KVCache, and the whole word
    sits at the last part's position.

    >>> [w for w, *_ in split_camel("KVCache")], [w for w, *_ in split_camel("ParisKV", False)]
    (['KV', 'Cache', 'KVCache'], ['Paris', 'KV'])
    """
    bounds = [0, *(m.start() for m in _CAMEL.finditer(word)), len(word)]
    parts = [(word[a:b], a, b, i) for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False))]
    if whole:
        parts.append((word, 0, len(word), len(parts) - 1))
    return tuple(parts)


_SECTION, _BOOST_END = "\x1e", "\x1f"  # ASCII record/unit separators: never in real text


def join_sections(sections: Iterable[tuple[float, str]]) -> str:
    """Pack (boost, text) sections into one field value for BilingualTokenizer.

    >>> split_sections(join_sections([(4.0, "Title"), (1.0, "summary")]))
    [(4.0, 'Title'), (1.0, 'summary')]
    """
    # Built for every paper indexed: str.replace, not str.translate (which maps a non-ASCII
    # text character by character: half of building the index's documents), and each
    # boost's header formatted once.
    parts = []
    for boost, text in sections:
        if text:
            head = _SECTION_HEADS.get(boost)
            if head is None:
                head = f"{_SECTION}{boost:g}{_BOOST_END}"
                if boost and len(_SECTION_HEADS) < 64:  # not -0.0 under 0.0's key
                    _SECTION_HEADS[boost] = head
            parts.append(head)
            parts.append(text.replace(_SECTION, " ").replace(_BOOST_END, " "))
    return "".join(parts)


_SECTION_HEADS: dict[float, str] = {}


def split_sections(value: str) -> list[tuple[float, str]]:
    """Unpack `join_sections` output; anything malformed counts as boost 1."""
    sections = []
    for part in value.split(_SECTION):
        head, sep, text = part.partition(_BOOST_END)
        try:
            boost = float(head) if sep else 1.0
        except ValueError:
            boost, text = 1.0, part
        if not sep:
            text = part
        if text:
            sections.append((boost, text))
    return sections


class BilingualTokenizer(Tokenizer):
    """Yield letter/digit runs as words and Han runs as rjieba words, after NFKC.

    `value` may be several (boost, text) sections made by `join_sections`, for a
    catch-all field (Whoosh takes a list as already-made tokens, so sections travel in
    one string): each section's tokens carry its boost (Whoosh adds boosts into the term weight, so a title
    word counts more than a summary word) and sections are SECTION_GAP positions apart
    so phrases never match across them.

    >>> [t.text for t in BilingualTokenizer()("ＫＶ缓存, GPT-4o")]
    ['KV', '缓存', 'GPT', '4o']
    >>> [t.text for t in BilingualTokenizer(chinese=False)("ＫＶ缓存, GPT-4o")]
    ['KV', 'GPT', '4o']
    """

    def __init__(self, chinese: bool = True):
        self.chinese = chinese

    def __eq__(self, other: object) -> bool:
        # The schema is compared on open; tokenizers that differ must not compare equal.
        return type(other) is type(self) and other.__dict__ == self.__dict__

    def __hash__(self) -> int:
        return hash((type(self), self.chinese))

    def __call__(
        self,
        value: str,
        positions: bool = False,
        chars: bool = False,
        keeporiginal: bool = False,
        removestops: bool = True,
        start_pos: int = 0,
        start_char: int = 0,
        tokenize: bool = True,
        mode: str = "",
        **kwargs,
    ) -> Iterator[Token]:
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        sections = split_sections(value) if value.startswith(_SECTION) else ((1.0, value),)
        pos = start_pos
        subwords = mode != "query"
        for boost, section in sections:
            words, width = tokenize_section(section, self.chinese, subwords)
            for word, start, end, position in words:
                token.text = word
                token.boost = boost
                token.stopped = False
                if keeporiginal:
                    token.original = word
                if positions:
                    token.pos = pos + position
                if chars:
                    token.startchar, token.endchar = start_char + start, start_char + end
                yield token
            pos += width + SECTION_GAP


CACHED_SECTION_CHARS = 2000  # longer sections (a long summary) are tokenized each time, not kept


def tokenize_section(
    section: str, chinese: bool = True, subwords: bool = True
) -> tuple[tuple[tuple[str, int, int, int], ...], int]:
    """Return (word, startchar, endchar, position) for each word of one section, and its width in positions.

    Offsets are into `section` as given (NFKC is undone), positions start at 0. One
    paper's sections are analyzed two or three times (the catch-all `text` field, their
    own field, the spelling field), and feeds, venues and affiliations recur across
    papers: short sections are cached.

    >>> tokenize_section("ＫＶ上下文")
    ((('KV', 0, 2, 0), ('上下', 2, 4, 1), ('下文', 3, 5, 1), ('上下文', 2, 5, 1)), 2)
    """
    if len(section) <= CACHED_SECTION_CHARS:
        return _tokenize_cached(section, chinese, subwords)
    return _tokenize(section, chinese, subwords)


def _tokenize(section: str, chinese: bool, subwords: bool) -> tuple[tuple[tuple[str, int, int, int], ...], int]:
    text, offsets = normalize_text(section)
    out: list[tuple[str, int, int, int]] = []
    append = out.append
    pos = 0
    for match in _RUN.finditer(text):
        han, word = match.groups()
        if han is None:
            if _unsplit(word):
                s, e = match.span()
                if offsets is not None:
                    s, e = offsets[s], offsets[e]
                append((word, s, e, pos))
                pos += 1
                continue
            pieces: tuple[tuple[str, int, int, int], ...] = split_camel(word, whole=subwords)
        elif not chinese:
            continue
        else:
            pieces = _han_words(han, subwords)
        base = match.start()
        for word, start, end, word_index in pieces:
            s, e = base + start, base + end
            if offsets is not None:
                s, e = offsets[s], offsets[e]
            append((word, s, e, pos + word_index))
        pos += pieces[-1][3] + 1
    return tuple(out), pos


def _unsplit(word: str) -> bool:
    """Has this Latin word no case change to split at (_CAMEL)? A word in one case, or
    capitalized, cannot have one: most words, spared the regex."""
    return word.islower() or word.istitle() or word.isupper() or not _CAMEL.search(word)


@lru_cache(maxsize=8192)
def _han_words(run: str, subwords: bool) -> tuple[tuple[str, int, int, int], ...]:
    """segment_chinese(fold_han(run), subwords): one cache lookup a run instead of two."""
    return segment_chinese(fold_han(run), subwords)


_tokenize_cached = lru_cache(maxsize=8192)(_tokenize)


def index_words(section: str) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    """What indexing reads of one section: its words, their positions, its width.

    `tokenize_section(section)` without the character offsets, which only highlighting
    needs: no match object, offset pair or 4-tuple a word (a sixth of indexing's
    analysis). tests/test_analysis.py checks indexing against the pipeline, which
    tokenizes with `tokenize_section`. Short sections are cached, as there.
    """
    if len(section) <= CACHED_SECTION_CHARS:
        return _index_words_cached(section)
    return _index_form(section)


def _index_form(section: str) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    text, _ = normalize_text(section)
    words: list[str] = []
    positions: list[int] = []
    add_word, add_position = words.append, positions.append
    pos = 0
    for han, word in _RUN.findall(text):
        if han:
            run_words, run_positions, width = _han_index_words(han)
            words += run_words
            positions += [pos + p for p in run_positions]
            pos += width
        elif _unsplit(word):
            add_word(word)
            add_position(pos)
            pos += 1
        else:
            pieces = split_camel(word, whole=True)
            words += [piece[0] for piece in pieces]
            positions += [pos + piece[3] for piece in pieces]
            pos += pieces[-1][3] + 1
    return tuple(words), tuple(positions), pos


_index_words_cached = lru_cache(maxsize=8192)(_index_form)


@lru_cache(maxsize=8192)
def _han_index_words(run: str) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    """A Han run's words with sub-words, their positions within the run, and its width."""
    pieces = _han_words(run, True)
    return tuple(p[0] for p in pieces), tuple(p[3] for p in pieces), pieces[-1][3] + 1


def forget_sections() -> None:
    """Drop the cached sections once a write is done: a day's summaries and abstracts
    (25–40 KB of tokens each) would otherwise stay in the server for good."""
    _tokenize_cached.cache_clear()
    _index_words_cached.cache_clear()
    _han_words.cache_clear()
    _han_index_words.cache_clear()


class FoldFilter(Filter):
    """Lowercase and strip accents, so Québec, QUEBEC and quebec are one term.

    >>> [t.text for t in (BilingualTokenizer() | FoldFilter())("Québec ERDOĞAN 缓存")]
    ['quebec', 'erdogan', '缓存']
    """

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for t in tokens:
            t.text = fold_word(t.text)
            yield t


# Latin letters that are not a base letter plus a mark, so NFKD leaves them whole.
_LATIN_FOLD = str.maketrans(
    {"ð": "d", "đ": "d", "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "ł": "l", "þ": "th", "ı": "i", "ħ": "h"}
)


@lru_cache(maxsize=65536)
def fold_word(word: str) -> str:
    """Return `word` lowercased without accents (Guðmundsdóttir -> gudmundsdottir); Han unchanged."""
    word = word.lower()
    if word.isascii():
        return word
    word = word.translate(_LATIN_FOLD)
    decomposed = unicodedata.normalize("NFKD", word)
    if decomposed == word:
        return word
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))


class StopFilter(Filter):
    """Drop stopwords and over-long tokens, closing the gaps they leave in positions.

    Whoosh's own StopFilter renumbers by counting tokens, which would pull apart the
    sub-words that share their parent word's position (and the gaps between sections);
    this one only shifts later tokens back by the positions it removed.

    >>> [(t.text, t.pos) for t in (BilingualTokenizer() | StopFilter())("the 上下文", positions=True)]
    [('上下', 0), ('下文', 0), ('上下文', 0)]
    """

    def __init__(self, stoplist: frozenset[str] = STOPWORDS, maxsize: int = MAX_TOKEN_CHARS):
        self.stops = frozenset(stoplist)
        self.maxsize = maxsize

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        stops, maxsize = self.stops, self.maxsize
        shift = 0
        stopped_at: int | None = None
        for t in tokens:
            if t.text in stops or len(t.text) > maxsize:
                if t.positions and t.pos != stopped_at:
                    shift += 1
                    stopped_at = t.pos
                if not t.removestops:
                    t.stopped = True
                    yield t
                continue
            if t.positions:
                t.pos -= shift
            yield t


class EnglishStemFilter(Filter):
    """Porter-stem alphabetic ASCII tokens; leave Chinese, digits and other scripts alone."""

    is_morph = True

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        for t in tokens:
            text = t.text
            if text.isascii() and text.isalpha():
                t.text = stem_word(text)
            yield t


@lru_cache(maxsize=65536)
def stem_word(word: str) -> str:
    """Return the Porter stem of a lowercase English word (cached: vocabularies are small)."""
    return stem(word)


class BilingualAnalyzer(CompositeAnalyzer):
    """Our tokenizer and filters, with a fast path for what indexing asks of them.

    Whoosh runs a pipeline as one generator per stage, and the same words go through
    it again and again (every paper has "learning" in it). Indexing (mode "index",
    positions or none, no character offsets) instead takes each section's words from
    `tokenize_section` and each word's fate from a per-word cache of the filters' verdict,
    and yields exactly the tokens the pipeline would (tests/test_analysis.py compares
    them). Anything else (queries, snippets' offsets) runs the pipeline itself.
    """

    def __init__(self, *composables):
        super().__init__(*composables)
        self._words: dict[str, str | None] = {}  # word -> what the filters make of it (_verdict)

    def __getstate__(self):
        return {"items": self.items}  # the cache is not part of the schema Whoosh pickles

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._words = {}

    def __call__(
        self, value, positions=False, chars=False, keeporiginal=False, removestops=True, start_pos=0,
        start_char=0, tokenize=True, mode="", no_morph=False, **kwargs,
    ):  # fmt: skip
        tokenizer = self.items[0]
        if (
            mode != "index" or chars or keeporiginal or not removestops or start_pos or not tokenize or no_morph
            or (positions and not tokenizer.chinese) or not _is_fast(self.items)
        ):  # fmt: skip
            return super().__call__(
                value, positions=positions, chars=chars, keeporiginal=keeporiginal, removestops=removestops,
                start_pos=start_pos, start_char=start_char, tokenize=tokenize, mode=mode, no_morph=no_morph, **kwargs,
            )  # fmt: skip
        return self._index_tokens(value, positions, Token(positions, chars, removestops=removestops, mode=mode, **kwargs))

    def indexes_directly(self, positions: bool) -> bool:
        """Can `index_terms` stand in for this analyzer's index-time tokens?"""
        return _is_fast(self.items) and not (positions and not self.items[0].chinese)

    def _index_tokens(self, value: str, positions: bool, token: Token) -> Iterator[Token]:
        for text, boost, pos in self._index_words(value):
            token.text = text
            token.boost = boost
            token.stopped = False
            if positions:
                token.pos = pos
            yield token

    def _index_words(self, value: str) -> Iterator[tuple[str, float, int]]:
        """(text, boost, position) of each token indexing yields, as the filters would make them.

        `index_terms` is this loop with the terms counted in place (tests/test_analysis.py
        checks the two agree)."""
        sections = split_sections(value) if value.startswith(_SECTION) else ((1.0, value),)
        get, fate = self._words.get, self._fate
        text: Any  # a word, None, or a sentinel (_UNSEEN, _STOPPED)
        pos = 0
        shift = 0  # positions of stopwords removed so far (StopFilter)
        for boost, section in sections:
            words, places, width = index_words(section)
            stopped_at = None
            for word, position in zip(words, places, strict=True):
                text = get(word, _UNSEEN)
                if text is _UNSEEN:
                    text = fate(word)
                if text is _STOPPED:
                    if position != stopped_at:
                        shift += 1
                        stopped_at = position
                    continue
                if text is None:
                    continue
                yield text, boost, pos + position - shift
            pos += width + SECTION_GAP
        self._trim()

    def index_terms(self, value: str, positions: bool) -> tuple[int, dict[str, list]]:
        """What indexing `value` gives per term, without a Token per word: (length, terms).

        `terms` maps each term to [weight, position, position, ...] (positions=True:
        the sum of its tokens' boosts, then their positions in order) or [weight,
        frequency]; `length` is the number of tokens. This is what Whoosh's Positions
        and Frequency formats compute from the tokens (bot/search/segments.py encodes it as
        they do). One list a term: allocating was a fifth of this. The loop is
        `_index_words`' with the counting inlined: a generator's yield per token was a
        fifth of the rest.
        """
        sections = split_sections(value) if value.startswith(_SECTION) else ((1.0, value),)
        get, fate = self._words.get, self._fate
        text: Any  # a word, None, or a sentinel (_UNSEEN, _STOPPED)
        terms: dict[str, list] = {}
        have = terms.get
        length = 0
        pos = 0
        for boost, section in sections:
            words, places, width = index_words(section)
            stopped_at = None
            at = pos  # pos minus the positions of the stopwords removed so far (StopFilter)
            for word, position in zip(words, places):  # noqa: B905  (equal lengths by construction; strict costs)
                text = get(word, _UNSEEN)
                if text is _UNSEEN:
                    text = fate(word)
                if text is None:
                    continue
                if text is _STOPPED:
                    if position != stopped_at:
                        at -= 1
                        pos -= 1
                        stopped_at = position
                    continue
                length += 1
                entry = have(text)
                if entry is None:
                    # 0.0 + boost: Whoosh's sums start at 0.0 (the same bits, even for a -0.0 boost)
                    terms[text] = [0.0 + boost, at + position] if positions else [0.0 + boost, 1]
                else:
                    entry[0] += boost
                    if positions:
                        entry.append(at + position)
                    else:
                        entry[1] += 1
            pos += width + SECTION_GAP
        self._trim()
        return length, terms

    def _fate(self, word: str) -> str | None:
        """What the filters make of one word (its text; None if dropped, _STOPPED if a
        stopword), remembered for the next time it comes."""
        text = self._words[word] = self._verdict(word, self.items[0].chinese)
        return text

    def _trim(self) -> None:
        if len(self._words) > 500_000:  # a vocabulary this large is mostly noise: start over
            self._words.clear()

    def _verdict(self, word: str, han_too: bool) -> str | None:
        """What the filters make of one word: its text, None if dropped, _STOPPED if a stopword."""
        if not han_too and is_han(word[0]):
            return None  # a tokenizer without Chinese never yields it
        text = word
        for item in self.items[1:]:
            if isinstance(item, FoldFilter):
                text = fold_word(text)
            elif isinstance(item, StopFilter):
                if text in item.stops or len(text) > item.maxsize:
                    return _STOPPED
            elif isinstance(item, EnglishStemFilter):
                if text.isascii() and text.isalpha():
                    text = stem_word(text)
            elif isinstance(item, SpellableFilter) and not (len(text) >= item.minsize and text.isascii() and text.isalpha()):
                return None
        return text


_UNSEEN = object()  # not yet in BilingualAnalyzer._words
_STOPPED = "\x00stopped"  # a StopFilter's verdict (no token text has a NUL: the tokenizer yields letters and digits)


_FAST_FILTERS: tuple[type, ...] = ()  # set below, once the filter classes exist


def _is_fast(items) -> bool:
    return isinstance(items[0], BilingualTokenizer) and all(type(item) in _FAST_FILTERS for item in items[1:])


def bilingual_analyzer() -> CompositeAnalyzer:
    """Return the analyzer every text field uses, at index and at query time.

    >>> [t.text for t in bilingual_analyzer()("Speculative decoding of 大语言模型 in 2026")]
    ['specul', 'decod', '大', '语言', '模型', '2026']
    """
    return BilingualAnalyzer(BilingualTokenizer(), FoldFilter(), StopFilter(), EnglishStemFilter())


class SpellableFilter(Filter):
    """Keep only words worth correcting: ASCII letters, at least `minsize` of them."""

    def __init__(self, minsize: int = SPELL_MIN_CHARS):
        self.minsize = minsize

    def __call__(self, tokens: Iterator[Token]) -> Iterator[Token]:
        minsize = self.minsize
        for t in tokens:
            text = t.text
            if len(text) >= minsize and text.isascii() and text.isalpha():
                yield t


def spelling_analyzer() -> CompositeAnalyzer:
    """Return the analyzer for the typo-correction vocabulary: whole English words, no stems.

    Suggestions must read as words a person typed ("speculative", not "specul").

    >>> [t.text for t in spelling_analyzer()("Speculative decoding 投机解码 for LLMs")]
    ['speculative', 'decoding', 'llms']
    """
    return BilingualAnalyzer(BilingualTokenizer(chinese=False), FoldFilter(), StopFilter(), SpellableFilter())


_FAST_FILTERS = (FoldFilter, StopFilter, EnglishStemFilter, SpellableFilter)


def analyze(text: str, *, mode: str = "query") -> list[str]:
    """Return the token texts the bilingual analyzer makes of `text` (for tests and queries).

    >>> analyze("KV缓存")
    ['kv', '缓存']
    """
    return [t.text for t in _ANALYZER(text, mode=mode)]


_ANALYZER = bilingual_analyzer()


def is_han(char: str) -> bool:
    """Is `char` a Han (Chinese) character?"""
    return bool(_HAN_CHAR.match(char))


_HAN_CHAR = re.compile(f"[{_HAN}]")


def han_runs(text: str) -> list[str]:
    """Return the runs of Han characters the tokenizer segments in `text` (after NFKC), folded.

    >>> han_runs("KV緩存 and ⼤模型")
    ['缓存', '大模型']
    """
    norm, _ = normalize_text(text)
    return [fold_han(m.group(1)) for m in _RUN.finditer(norm) if m.group(1) is not None]
