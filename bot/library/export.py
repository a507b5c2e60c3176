"""Saved papers as BibTeX, RIS or CSL-JSON: the three formats Zotero imports.

Keys are stable across exports: first author's family name, year, first word of the
title that is not a stopword (`qi2026pariskv`), folded to ASCII. When two exported
papers share a key, the one stored first keeps it and the others get `b`, `c`, ... in
the order they were stored, so a paper's key does not depend on the order of an export.

Names are written as "Family, Given" (the last word is the family name, as in the
listings' "Yanlin Qi"); a name in Chinese characters, which has no space to split on, is
one braced literal in BibTeX and a `literal` name in CSL-JSON, so it survives as written.
Everything is UTF-8: modern BibTeX tools (biber, Zotero, bibtexparser) read it.

A paper's text is anyone's (a listing's Comments, an arXiv comment), so no value may end
early or open an entry: braces from the text become `\textbraceleft{}`/`\textbraceright{}`,
URLs are percent-encoded, and each entry is read back by BibTeX's own rules
(bot/library/bibtex.py) before it is written (see `check_bib_entry`).

The abstract is arXiv's (`paper.abstract_en`) when the paper is matched, else none; the
AI summary is a note labelled as one: BibTeX `annote` and RIS `N1` (Zotero: a child
note), CSL-JSON `note` (Zotero: Extra). Filed as the abstract, Zotero showed it as the
paper's 摘要.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import quote

from bot.i18n import DEFAULT_LANG, t
from bot.library.bibtex import BibEntry, read_bibtex
from bot.models import Paper

FORMATS = ("bibtex", "ris", "csl-json")
ALIASES = {"bib": "bibtex", "bibtex": "bibtex", "ris": "ris", "csl": "csl-json", "csl-json": "csl-json", "json": "csl-json"}
EXTENSIONS = {"bibtex": "bib", "ris": "ris", "csl-json": "json"}
FORMAT_LABELS = {"bibtex": "BibTeX", "ris": "RIS", "csl-json": "CSL-JSON"}
JOURNALS = {"TMLR", "JMLR", "TPAMI", "PAMI", "IJCV", "JAIR", "TACL", "Nature", "Science"}
_KEY_STOPWORDS = {
    "a",
    "an",
    "the",
    "on",
    "of",
    "in",
    "for",
    "to",
    "and",
    "towards",
    "toward",
    "via",
    "with",
    "is",
    "are",
    "do",
    "does",
    "can",
    "when",
    "what",
    "how",
    "why",
}
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([0-9]{4}\.[0-9]{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/[0-9]{7})(?:v\d+)?", re.IGNORECASE)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def normalize_format(name: str) -> str | None:
    """`bib`, `BibTeX`, `csl`, `json`, ... -> one of FORMATS; None when unknown."""
    return ALIASES.get((name or "").strip().lower())


def arxiv_id(paper: Paper) -> str:
    """The paper's arXiv id: its own field when the store has one, else from an arXiv URL."""
    own = str(getattr(paper, "arxiv_id", "") or "").strip()
    if own:
        return own.removeprefix("arXiv:").removeprefix("arxiv:")
    for url in paper.urls:
        match = _ARXIV_URL.search(url)
        if match:
            return match.group(1)
    return ""


def paper_urls(paper: Paper) -> list[str]:
    urls = [u for u in paper.urls if u.startswith(("http://", "https://"))]
    eprint = arxiv_id(paper)
    if eprint and not any(_ARXIV_URL.search(u) for u in urls):
        urls.insert(0, f"https://arxiv.org/abs/{eprint}")
    return urls


# -- names and keys ---------------------------------------------------------------------------


_PARTICLES = {
    "de",
    "la",
    "le",
    "du",
    "del",
    "della",
    "der",
    "den",
    "di",
    "da",
    "van",
    "von",
    "ten",
    "ter",
    "dos",
    "das",
    "bin",
    "al",
}


def split_name(name: str) -> tuple[str, str] | None:
    """("Family", "Given") for a Western-order name; None for one to keep as written.

    The family name is the last word, with any particles before it ("de la Tour").

    >>> split_name("Yanlin Qi"), split_name("张三"), split_name("Jean-Luc de la Tour")
    (('Qi', 'Yanlin'), None, ('de la Tour', 'Jean-Luc'))
    """
    words = (name or "").split()
    if len(words) < 2 or _HAN.search(name):
        return None
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    return " ".join(words[start:]), " ".join(words[:start])


def ascii_fold(text: str) -> str:
    """Letters and digits only, accents dropped: "Ölçer" -> "olcer"; Chinese -> ""."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    return "".join(c for c in decomposed if c.isascii() and c.isalnum()).lower()


def base_key(paper: Paper) -> str:
    first = paper.authors[0] if paper.authors else ""
    parts = split_name(first)
    family = ascii_fold(parts[0] if parts else first) or "anon"
    year = str(paper.year) if paper.year else "nd"
    words = [ascii_fold(w) for w in re.split(r"[\s:：\-–—,;/]+", paper.title_en or "")]
    word = next((w for w in words if w and w not in _KEY_STOPWORDS), "") or "paper"
    return f"{family}{year}{word}"


def citation_keys(papers: Iterable[Paper]) -> dict[str, str]:
    """Paper id -> key, unique within these papers; earlier-stored papers keep the bare key."""
    papers = list(papers)
    by_base: dict[str, list[Paper]] = {}
    for paper in papers:
        by_base.setdefault(base_key(paper), []).append(paper)
    keys = {}
    for base, group in by_base.items():
        for number, paper in enumerate(sorted(group, key=lambda p: (p.seq, p.id))):
            keys[paper.id] = base if number == 0 else f"{base}{_suffix(number)}"
    return keys


def _suffix(number: int) -> str:
    """1 -> b, 2 -> c, ..., 25 -> z, 26 -> ba: a letter run that never ends in a plain 'a'."""
    letters = ""
    while number:
        number, rest = divmod(number, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def kind_of(paper: Paper) -> str:
    """ "journal", "conference" or "preprint"."""
    if not paper.venue_name:
        return "preprint"
    return "journal" if paper.venue_name in JOURNALS else "conference"


# -- BibTeX -----------------------------------------------------------------------------------

# Braces from the text are written as LaTeX's brace commands, never `\{`/`\}`: BibTeX counts
# a brace whatever stands before it, so one `\}` closed the field early and what followed
# it was read as a new entry (a forged `@misc` with another paper's key, or a `@preamble`
# of LaTeX run when the user builds their paper). Every brace a value holds is then one
# the writer put there, in pairs, and none has a backslash before it, so BibTeX and
# readers that skip `\{` (Zotero, bibtexparser) see the same groups.
_BIB_SPECIAL = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "{": r"\textbraceleft{}",
        "}": r"\textbraceright{}",
        "%": r"\%",
        "&": r"\&",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
    }
)
# In a URL, what BibTeX or LaTeX's \url would read as markup is percent-encoded (a URL
# means the same either way): braces, backslash, white space, quotes, and `@` so that no
# value holds what could start an entry were it ever read out of its braces. Everything
# else RFC 3986 allows stays, `%` too (already-encoded octets).
_URL_KEPT = "!#$&'()*+,-./:;=?[]_~%"


def bib_escape(text: str) -> str:
    """Escape LaTeX's special characters, white space collapsed; UTF-8 letters stay as they are."""
    return " ".join((text or "").split()).translate(_BIB_SPECIAL)


def bib_url(url: str) -> str:
    """`url` with what BibTeX or LaTeX would read as markup percent-encoded."""
    return quote(url, safe=_URL_KEPT)


# A word (letters and digits) with a capital after its first character, tried only where
# a word begins (the lookbehind) and read once (a lazy scan to the capital, then the rest
# possessively). Spelled `[^\W_]*[^\W_][A-Z][^\W_]*`, SRE tried it again from every
# character of a word without such a capital: quadratic (5,000 digits in a title: 0.8 s).
_CAPITALISED_INSIDE = re.compile(r"(?<![^\W_])[^\W_][^\W_]*?[A-Z][^\W_]*+")


def bib_title(title: str) -> str:
    """Brace words with capitals after the first letter ("{ParisKV}", "{LLM}") so styles keep them.

    The words are found in the title as written and the rest escaped around them, so the
    escapes' own letters (`\\textbraceleft`) are never taken for a word.
    """
    title = " ".join((title or "").split())
    out, done = [], 0
    for match in _CAPITALISED_INSIDE.finditer(title):
        out.append(title[done : match.start()].translate(_BIB_SPECIAL))
        out.append("{" + match.group() + "}")  # letters and digits only: nothing to escape
        done = match.end()
    out.append(title[done:].translate(_BIB_SPECIAL))
    return "".join(out)


def bib_name(name: str) -> str:
    """A name as BibTeX reads it: "Family, Given" (particles kept); CJK names braced whole.

    A name BibTeX would split differently (holding a comma or an " and ") is braced whole.
    """
    parts = split_name(name)
    if parts is None or "," in name or " and " in f" {' '.join(name.lower().split())} ":
        return "{" + bib_escape(name) + "}"
    family, given = parts
    if " " in family:  # "de la Tour": braced, or BibTeX would split it again
        return f"{{{bib_escape(family)}}}, {bib_escape(given)}"
    return f"{bib_escape(family)}, {bib_escape(given)}"


class UnsafeExport(Exception):
    """An entry would not read back as written: a bug in the writer, never written out."""


def check_bib_entry(text: str, entry_type: str, key: str, fields: list[tuple[str, str]]) -> None:
    """Raise UnsafeExport unless `text` reads, by BibTeX's rules, as exactly this one entry.

    Also refuse a backslash before a brace in a value: readers that take `\\{` for an
    escaped brace (Zotero's) would group the value differently from BibTeX.
    """
    found = read_bibtex(text)
    expected = BibEntry(entry_type, key, dict(fields))
    if found.errors or found.preambles or found.strings or found.entries != [expected] or len(expected.fields) != len(fields):
        raise UnsafeExport(f"the BibTeX entry for {key} does not read back as written")
    if any("\\{" in value or "\\}" in value for _, value in fields):
        raise UnsafeExport(f"the BibTeX entry for {key} has an escaped brace")


def bib_entry(paper: Paper, key: str, lang: str = DEFAULT_LANG) -> str:
    """One paper as a BibTeX entry, checked to read back as itself (check_bib_entry)."""
    kind = kind_of(paper)
    entry_type = {"journal": "article", "conference": "inproceedings", "preprint": "misc"}[kind]
    fields: list[tuple[str, str]] = [("title", bib_title(paper.title_en or paper.title_zh))]
    if paper.authors:
        fields.append(("author", " and ".join(bib_name(a) for a in paper.authors)))
    if paper.year:
        fields.append(("year", str(paper.year)))
    if kind == "journal":
        fields.append(("journal", bib_escape(paper.venue_name)))
    elif kind == "conference":
        fields.append(("booktitle", bib_escape(paper.venue)))
    urls = paper_urls(paper)
    if urls:
        fields.append(("url", bib_url(urls[0])))
    eprint = arxiv_id(paper)
    if eprint:
        fields += [("eprint", bib_escape(eprint)), ("archiveprefix", "arXiv")]
    notes = []
    if paper.title_zh and paper.title_zh != paper.title_en:
        notes.append(paper.title_zh)
    if paper.comments:
        notes.append(paper.comments)
    if notes:
        fields.append(("note", bib_escape(". ".join(notes))))
    if paper.abstract_en:
        fields.append(("abstract", bib_escape(paper.abstract_en)))
    if paper.summary_zh:
        fields.append(("annote", bib_escape(ai_summary_note(paper, lang))))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    text = f"@{entry_type}{{{key},\n{body}\n}}\n"
    check_bib_entry(text, entry_type, key, fields)
    return text


def ai_summary_note(paper: Paper, lang: str = DEFAULT_LANG) -> str:
    """The AI summary, labelled as one, for a note: it is not the authors' abstract."""
    return t("library.export_ai_summary", lang, summary=" ".join(paper.summary_zh.split()))


def to_bibtex(papers: Iterable[Paper], lang: str = DEFAULT_LANG) -> str:
    """BibTeX entries: `abstract` is arXiv's abstract when known; the AI summary is an `annote`.

    Zotero imports `annote` as a child note and `note` into Extra (and `abstract` as the
    abstract), so the AI summary never passes for the authors' abstract.
    """
    papers = list(papers)
    keys = citation_keys(papers)
    return "\n".join(bib_entry(paper, keys[paper.id], lang) for paper in papers)


# -- RIS --------------------------------------------------------------------------------------


def ris_line(tag: str, value: str) -> str:
    return f"{tag}  - {' '.join((value or '').split())}"


def to_ris(papers: Iterable[Paper], lang: str = DEFAULT_LANG) -> str:
    """RIS records: `TAG  - value` lines, each record from TY to ER, CRLF line ends (the spec).

    A value's white space, line breaks included, is collapsed, so no value can begin a
    line of its own (a forged `ER`/`TY`). `AB` is arXiv's abstract when known; the AI
    summary is an `N1` note, which Zotero imports as a child note.
    """
    papers = list(papers)
    keys = citation_keys(papers)
    lines: list[str] = []
    for paper in papers:
        kind = kind_of(paper)
        lines.append(ris_line("TY", {"journal": "JOUR", "conference": "CONF", "preprint": "UNPB"}[kind]))
        lines.append(ris_line("ID", keys[paper.id]))
        lines.append(ris_line("TI", paper.title_en or paper.title_zh))
        if paper.title_zh and paper.title_en and paper.title_zh != paper.title_en:
            lines.append(ris_line("TT", paper.title_zh))  # translated title
        for author in paper.authors:
            parts = split_name(author)
            lines.append(ris_line("AU", f"{parts[0]}, {parts[1]}" if parts else author))
        if paper.year:
            lines.append(ris_line("PY", str(paper.year)))
        if kind == "journal":
            lines.append(ris_line("JO", paper.venue_name))
        elif kind == "conference":
            lines.append(ris_line("T2", paper.venue))
        eprint = arxiv_id(paper)
        if eprint:
            lines.append(ris_line("AN", f"arXiv:{eprint}"))
        for url in paper_urls(paper):
            lines.append(ris_line("UR", url))
        if paper.abstract_en:
            lines.append(ris_line("AB", paper.abstract_en))
        if paper.summary_zh:
            lines.append(ris_line("N1", ai_summary_note(paper, lang)))
        if paper.comments:
            lines.append(ris_line("N1", paper.comments))
        lines.append("ER  - ")
        lines.append("")
    return "\r\n".join(lines)


# -- CSL-JSON -------------------------------------------------------------------------------


def csl_item(paper: Paper, key: str, lang: str = DEFAULT_LANG) -> dict:
    """One paper as CSL-JSON: `abstract` is arXiv's; the comments and the labelled AI summary are the `note`.

    Zotero imports a CSL `note` into Extra, one line each; a line is collapsed to one so
    that no text can pass for another of Extra's `field: value` lines.
    """
    kind = kind_of(paper)
    item: dict = {
        "id": key,
        "type": {"journal": "article-journal", "conference": "paper-conference", "preprint": "article"}[kind],
        "title": paper.title_en or paper.title_zh,
    }
    authors = []
    for author in paper.authors:
        parts = split_name(author)
        authors.append({"family": parts[0], "given": parts[1]} if parts else {"literal": author})
    if authors:
        item["author"] = authors
    if paper.year:
        item["issued"] = {"date-parts": [[paper.year]]}
    if kind == "journal":
        item["container-title"] = paper.venue_name
    elif kind == "conference":
        item["container-title"] = paper.venue
        item["event-title"] = paper.venue
    urls = paper_urls(paper)
    if urls:
        item["URL"] = urls[0]
    eprint = arxiv_id(paper)
    if eprint:
        item["number"] = f"arXiv:{eprint}"
        item["publisher"] = "arXiv"
    if paper.abstract_en:
        item["abstract"] = paper.abstract_en
    notes = [" ".join(paper.comments.split())] if paper.comments.strip() else []
    if paper.summary_zh:
        notes.append(ai_summary_note(paper, lang))
    if notes:
        item["note"] = "\n".join(notes)
    if paper.title_zh and paper.title_zh != item["title"]:
        item["original-title"] = paper.title_zh
    return item


def to_csl_json(papers: Iterable[Paper], lang: str = DEFAULT_LANG) -> str:
    papers = list(papers)
    keys = citation_keys(papers)
    return json.dumps([csl_item(p, keys[p.id], lang) for p in papers], ensure_ascii=False, indent=2) + "\n"


def export_papers(papers: Iterable[Paper], fmt: str, lang: str = DEFAULT_LANG) -> str:
    """Render papers in `fmt` (one of FORMATS or an alias), notes labelled in `lang`; ValueError for an unknown format."""
    name = normalize_format(fmt)
    if name is None:
        raise ValueError(fmt)
    return {"bibtex": to_bibtex, "ris": to_ris, "csl-json": to_csl_json}[name](papers, lang)
