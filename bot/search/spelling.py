"""Chinese typo correction: an input-method slip is a homophone, so compare by pinyin.

People type Chinese through pinyin input methods, so the typical typo is the right sound
with the wrong character (推测截码 for 推测解码). We correct it the way English typos are
corrected, from the index's own vocabulary: a stretch of the query that is not a word the
index has, but sounds like one that is (toneless, with the near-homophones z/zh, c/ch,
s/sh, n/ng folded), is replaced by the most common such word.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from bot.search.analysis import fold_han, normalize_text
from bot.search.lexicon import FUZZY_SOUNDS

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
    """The index's Chinese words (two characters or more) by how they sound."""

    def __init__(self, by_sound: dict[str, list[tuple[int, str]]]):
        self.by_sound = by_sound

    @classmethod
    def from_words(cls, words: Iterable[str], frequency: Callable[[str], int]) -> PinyinVocabulary:
        by_sound: dict[str, list[tuple[int, str]]] = {}
        for word in words:
            if 2 <= len(word) <= MAX_WINDOW and _HAN_RUN.fullmatch(word):
                by_sound.setdefault(sound(word), []).append((frequency(word), word))
        for candidates in by_sound.values():
            candidates.sort(reverse=True)
        return cls(by_sound)

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
                        (w for w in dictionary_words(sound(window)) if w != window and len(w) == size and _close(w, window) and is_indexed(w)),
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
