"""Typo correction from the index's own words: English by edit distance, Chinese by sound.

A query that finds nothing is corrected from the words the index holds, not from an
outside word list (bot/search/index.py then runs the corrected query).

English: a query word the index does not know is replaced by the closest `spell` word,
one edit away (two for words over six letters; optimal string alignment, RapidFuzz's,
in C), the most common of the closest.
Whoosh's own terms_within() was not used: it decodes every term sharing the first
letter and runs a pure-Python distance on each (80 ms a word at 50k papers).

Chinese: people type through pinyin input methods, so the typical typo is the right sound
with the wrong character (推测截码 for 推测解码). A stretch of the query that is not a word the
index has, but sounds like one that is (toneless, with the near-homophones z/zh, c/ch,
s/sh, n/ng folded), is replaced by the most common such word.

`Spelling` keeps both vocabularies for one index, read segment by segment as it grows.

Both come from shared papers only (bot/store/visibility.py), as the lexicon does: the
vocabulary is every workspace's, and a word only a private upload holds would show another
workspace it exists. English: a private upload's `spell` field is empty (schema.py).
Chinese words are read from the `text` field, which every paper fills (its own workspace
searches it), so the private papers' documents are counted out (`_han_doc_counts`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from bot.search.analysis import analyze, fold_han, normalize_text
from bot.search.lexicon import DICTIONARY, FUZZY_SOUNDS, Lexicon
from bot.search.query import TEXT_FIELD, iter_words, suggest_query
from bot.search.readers import SearcherPool, segment_id

MAX_WINDOW = 6  # longest stretch of characters looked up as one word
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


@lru_cache(maxsize=65536)
def sound(text: str) -> str:
    """Return the fuzzy toneless pinyin of `text`, syllables joined by spaces.

    >>> sound("解码"), sound("截码"), sound("上下文")
    ('jie ma', 'jie ma', 'san xia wen')
    """
    from pypinyin import Style, lazy_pinyin  # ~1 s and ~100 MB: only once a typo needs it

    syllables = []
    for syllable in lazy_pinyin(text, style=Style.NORMAL, errors="ignore"):
        for a, b in FUZZY_SOUNDS:
            syllable = syllable.replace(a, b)
        syllables.append(syllable)
    return " ".join(syllables)


class PinyinVocabulary:
    """The index's Chinese words (two characters or more) by how they sound.

    `private_only`: the words only private uploads have, which no correction may use or
    take for known (a word typed as it is in another workspace's upload is still a typo here).
    """

    def __init__(self, by_sound: dict[str, list[tuple[int, str]]], private_only: frozenset[str] = frozenset()):
        self.by_sound = by_sound
        self.private_only = private_only

    @classmethod
    def from_words(
        cls, words: Iterable[str], frequency: Callable[[str], int], private_only: frozenset[str] = frozenset()
    ) -> PinyinVocabulary:
        by_sound: dict[str, list[tuple[int, str]]] = {}
        for word in words:
            if 2 <= len(word) <= MAX_WINDOW and _HAN_RUN.fullmatch(word) and word not in private_only:
                by_sound.setdefault(sound(word), []).append((frequency(word), word))
        for candidates in by_sound.values():
            candidates.sort(reverse=True)
        return cls(by_sound, private_only)

    def closest(self, text: str) -> str | None:
        """Return the most common indexed word that sounds like `text` and differs from it
        in at most half its characters, or None."""
        for _, word in self.by_sound.get(sound(text), ()):
            if word != text and len(word) == len(text) and sum(a != b for a, b in zip(word, text, strict=True)) * 2 <= len(text):
                return word
        return None


def _close(a: str, b: str) -> bool:
    return sum(x != y for x, y in zip(a, b, strict=True)) * 2 <= len(a)


def correct_chinese(
    text: str,
    is_known: Callable[[str], bool],
    vocabulary: Callable[[], PinyinVocabulary],
    dictionary_words: Callable[[str], list[str]] | None = None,
    is_indexed: Callable[[str], bool] | None = None,
) -> str | None:
    """Return `text` with Chinese homophone slips replaced by indexed words, or None.

    `is_known(word)` says whether the index has `word` as a term; `vocabulary` builds the
    sound table only when some stretch is unknown (it reads the whole term list).
    Words jieba does not know (隐写术) are no single index term; for them
    `dictionary_words(sound)` offers dictionary words, kept when `is_indexed(word)` (every
    token of the word is in the index). The caller still runs the corrected query.

    >>> vocab = PinyinVocabulary({"jie ma": [(3, "解码")]})
    >>> correct_chinese("推测截码", {"推测", "解码"}.__contains__, lambda: vocab)
    '推测解码'
    """
    text, _ = normalize_text(text)
    pieces: list[str] = []
    last = 0
    changed = False
    table: PinyinVocabulary | None = None
    for match in _HAN_RUN.finditer(text):
        run = fold_han(match.group())
        out = []
        i = 0
        while i < len(run):
            replaced = False
            for size in range(min(MAX_WINDOW, len(run) - i), 1, -1):
                window = run[i : i + size]
                if is_known(window):
                    out.append(window)
                    i += size
                    replaced = True
                    break
                table = table or vocabulary()
                better = table.closest(window)
                if not better and dictionary_words is not None and is_indexed is not None and size >= 3:
                    better = next(
                        (
                            w
                            for w in dictionary_words(sound(window))
                            if w != window and len(w) == size and _close(w, window) and is_indexed(w)
                        ),
                        None,
                    )
                if better:
                    out.append(better)
                    i += size
                    replaced = changed = True
                    break
            if not replaced:
                out.append(run[i])
                i += 1
        pieces.append(text[last : match.start()])
        pieces.append("".join(out))
        last = match.end()
    if not changed:
        return None
    pieces.append(text[last:])
    return "".join(pieces)


class Spelling:
    """The words an index corrects typos from, kept up to date as it changes; one per PaperIndex.

    English: the `spell` field's words by (first letter, length), for RapidFuzz's edit
    distance. Chinese: the `text` field's Chinese words by sound (PinyinVocabulary), for
    correct_chinese. Each is read at the first typo (or at PaperIndex.warm) and, after a
    commit, from the new segments only: a segment never changes once written.

    The pool's lock (the index's open lock) guards what is kept here, and its epoch (the
    directory the index reads) keys the English words: another directory starts them over.
    """

    def __init__(self, pool: SearcherPool, private_ids: Callable[[], frozenset[str]] = frozenset):
        self._pool = pool
        self._private_ids = private_ids  # the ids of papers private to a workspace (Visibility.private)
        self._english_epoch = -1
        self.english: dict[tuple[str, int], list[str]] = {}  # see english_vocabulary()
        self._english_words: set[str] = set()
        self._english_segments: set[str | None] = set()
        self._pinyin_key: tuple | None = None
        self.pinyin: PinyinVocabulary | None = None  # see pinyin_vocabulary()
        # segment id -> (its private documents, {Chinese word: shared documents}) of the last
        # vocabulary read from the live index
        self.han_counts: dict[str | None, tuple[tuple[tuple[int, ...], int], dict[str, int]]] = {}

    def suggest(self, reader, text: str, lexicon: Lexicon | None, live_segments: Callable[[], set[str]]) -> str | None:
        """Return `text` with English and Chinese typos corrected from the words `reader`
        (a searcher's) has, or None. `live_segments()`: the live index's segment ids (see
        `pinyin_vocabulary`)."""
        english = self.suggest_english(reader, text, lexicon)
        fixed = english or text
        if any("\u3400" <= c <= "\u9fff" for c in fixed):
            private_only: frozenset[str] = frozenset()
            if self._private_ids():  # which words only private papers have: the vocabulary knows
                private_only = self.pinyin_vocabulary(reader, live_segments).private_only

            def is_known(word: str) -> bool:
                return (TEXT_FIELD, word) in reader and word not in private_only

            chinese = correct_chinese(
                fixed,
                is_known,
                lambda: self.pinyin_vocabulary(reader, live_segments),
                DICTIONARY.words_sounding,
                lambda w: all(is_known(t) for t in analyze(w)),
            )
            if chinese:
                return chinese
        return english

    def pinyin_vocabulary(self, reader, live_segments: Callable[[], set[str]]) -> PinyinVocabulary:
        """Return the index's Chinese words by pinyin, built on first need per index version.

        Each segment's Chinese words and their document counts are read once (segments
        never change once written): rebuilding it all after a commit asked every segment
        for every word's count, 1.25 s at 1M papers, in the first typo search after a
        day's file. The counts summed are MultiReader.doc_frequency's, less the private
        papers' documents (a word only they have is `private_only`), so which papers are
        private is part of the key: an upload, or a shared listing of its papers, changes it.
        """
        leaves = [leaf for leaf, _ in reader.leaf_readers()] if not reader.is_atomic() else [reader]
        private = self._private_ids()
        # By the segments read (unique names, never rewritten), not (epoch, generation): a
        # reader lent before a rebuild swapped in another folder could file its folder's
        # words under the new epoch when it asked after the swap.
        key = (tuple(segment_id(leaf) for leaf in leaves), private)
        with self._pool.lock:
            if self._pinyin_key == key and self.pinyin is not None:
                return self.pinyin
            known = self.han_counts  # replaced, never changed in place
        counts: dict[str, int] = {}
        seen: set[str] = set()
        tables = {}
        for leaf in leaves:
            segment = segment_id(leaf)
            docs = _private_docs(leaf, private)
            # A segment's deletions grow after it is written; with private papers about, its
            # deleted documents may be theirs (see _han_doc_counts), so they key the table too.
            deleted = leaf.doc_count_all() - leaf.doc_count() if private else 0
            cached = known.get(segment)
            table = cached[1] if cached is not None and cached[0] == (docs, deleted) else _han_doc_counts(leaf, docs, deleted)
            tables[segment] = ((docs, deleted), table)
            for word, count in table.items():
                seen.add(word)
                if count:
                    counts[word] = counts.get(word, 0) + count
        private_only = frozenset(seen - counts.keys())
        vocabulary = PinyinVocabulary.from_words(counts, counts.__getitem__, private_only)
        try:
            live = live_segments()
        except Exception:  # (the folder swapped meanwhile) keep nothing rather than guess
            live = set()
        with self._pool.lock:
            # Kept only if read from the live index's segments: a reader lent before a
            # rebuild or a merge would leave the next search its tables to read again.
            if set(tables) <= live:
                self.han_counts = tables  # only the segments this version has
                self._pinyin_key, self.pinyin = key, vocabulary
        return vocabulary

    def suggest_english(self, reader, text: str, lexicon: Lexicon | None) -> str | None:
        """Return `text` with English typos corrected from the `spell` words `reader` has, or None."""
        from rapidfuzz import process  # imported where it is used: a CLI digest never corrects
        from rapidfuzz.distance import OSA

        words = set(iter_words(text))
        if not words:
            return None

        def is_known(word: str) -> bool:
            # A known short name (USTC, CMU) is never "corrected" into a common word.
            return ("spell", word) in reader or (lexicon is not None and lexicon.is_alias(word))

        vocabulary = self.english_vocabulary(reader)

        def find_closest(word: str) -> str | None:
            # Two edits on a short word reach unrelated words (qwerty -> query); so one.
            maxdist = 2 if len(word) > 6 else 1
            candidates = [
                known for length in range(len(word) - maxdist, len(word) + maxdist + 1)
                for known in vocabulary.get((word[0], length), ())
            ]  # fmt: skip
            # RapidFuzz compares in C: the pure-Python distance was a third of all query time.
            found = process.extract(word, candidates, scorer=OSA.distance, score_cutoff=maxdist, limit=None)
            if not found:
                return None
            best = min(dist for _, dist, _ in found)
            near = [w for w, dist, _ in found if dist == best and reader.doc_frequency("spell", w) > 0]
            if not near:
                return None
            return max(near, key=lambda w: (reader.doc_frequency("spell", w), w))

        return suggest_query(text, is_known, find_closest)

    def english_vocabulary(self, reader) -> dict[tuple[str, int], list[str]]:
        """Return the spelling vocabulary by (first letter, length), read once per segment.

        Whoosh's terms_within() decodes every term sharing the first letter from disk
        and runs a pure-Python distance on each: 80 ms a word at 50k papers. Instead the
        word list is read once and bucketed by near length. Segments never change once
        written, so after a commit only the new segments' words are read (re-reading the
        whole list after each ingest took 4.2 s at 1M papers). The buckets are replaced,
        never changed in place, so a search reading the old ones is never disturbed.
        Words whose papers were all deleted may linger; `suggest_english` ignores those.
        """
        leaves = [leaf for leaf, _ in reader.leaf_readers()] if not reader.is_atomic() else [reader]
        with self._pool.lock:
            if self._english_epoch != self._pool.epoch:
                self._english_epoch, self.english, self._english_words, self._english_segments = (
                    self._pool.epoch,
                    {},
                    set(),
                    set(),
                )
            fresh = [leaf for leaf in leaves if segment_id(leaf) not in self._english_segments]
            if not fresh:
                return self.english
            epoch = self._pool.epoch
        added: dict[tuple[str, int], list[str]] = {}
        seen: set[str] = set()
        for leaf in fresh:
            for term in leaf.lexicon("spell"):
                word = term.decode("utf-8") if isinstance(term, bytes) else term
                if word not in seen:
                    seen.add(word)
                    added.setdefault((word[0], len(word)), []).append(word)
        with self._pool.lock:
            if epoch != self._english_epoch:  # another directory was swapped in meanwhile
                return self.english
            buckets = dict(self.english)
            for key, words in added.items():
                new = [w for w in words if w not in self._english_words]
                if new:
                    buckets[key] = buckets.get(key, []) + new
                    self._english_words.update(new)
            self.english = buckets
            self._english_segments.update(segment_id(leaf) for leaf in fresh)
            return buckets


def _han_doc_counts(leaf, private_docs: tuple[int, ...] = (), deleted: int = 0) -> dict[str, int]:
    """One segment's text-field terms from the first Han character on (UTF-8 keeps code
    point order: the Chinese words, without walking the English ones before them, 330,000
    terms at 1M papers for 3,000 Chinese ones), each with its count of shared documents
    (0: only `private_docs` have it).

    Only a word in no more documents than the segment's private ones can be theirs alone;
    those words' postings are read, to take the private documents out of their count (a
    word more common than that keeps its count, at most len(private_docs) too high: it is
    a shared word either way)."""
    counts: dict[str, int] = {}
    # doc_frequency still counts the documents the segment deleted (a private paper indexed
    # again, by an arXiv abstract or a new upload, leaves its old document here), while
    # postings skip them: a word that could be the private papers' alone is counted from its
    # live postings, not its frequency.
    for (fieldname, term), info in leaf.iter_from(TEXT_FIELD, _FIRST_HAN):
        if fieldname != TEXT_FIELD:
            break
        word = term.decode("utf-8") if isinstance(term, bytes) else term
        count = info.doc_frequency()
        if (private_docs or deleted) and count <= len(private_docs) + deleted:
            live = leaf.postings(TEXT_FIELD, word)
            if deleted:
                count = sum(1 for _ in live.all_ids())
                live = leaf.postings(TEXT_FIELD, word)
            count -= _hits(live, private_docs)
        counts[word] = count
    return counts


def _hits(matcher, docs: tuple[int, ...]) -> int:
    """How many of `docs` (ascending) the matcher's postings hold."""
    found = 0
    for doc in docs:
        if not matcher.is_active():
            break
        matcher.skip_to(doc)
        if matcher.is_active() and matcher.id() == doc:
            found += 1
    return found


def _private_docs(leaf, private: frozenset[str]) -> tuple[int, ...]:
    """The segment's document numbers of the papers in `private`, ascending."""
    docs: list[int] = []
    for paper_id in private:
        if ("id", paper_id) in leaf:
            docs.extend(doc for doc in leaf.postings("id", paper_id).all_ids() if not leaf.is_deleted(doc))
    return tuple(sorted(docs))


_FIRST_HAN = "\u3400"  # CJK Extension A: the lowest code point _HAN_RUN takes for Han


def edit_distance(a: str, b: str, limit: int) -> int:
    """Return the Damerau (optimal string alignment) distance of a and b, or `limit` once it
    is certain to be at least that (RapidFuzz's, in C).

    >>> edit_distance("decodng", "decoding", 3), edit_distance("teh", "the", 3), edit_distance("cat", "dog", 2)
    (1, 1, 2)
    """
    from rapidfuzz.distance import OSA  # imported where it is used: a CLI digest never corrects

    return min(OSA.distance(a, b, score_cutoff=limit), limit)
