"""Affiliations as a row shows them: the institution, once, and never the authors again.

Listings write affiliations as their sources did: a department, the university, the city
and the country in one English name ("Department of Computer Science, Purdue University,
West Lafayette, IN, USA"), the same institution twice, and now and then the author list
pasted into the 机构 line. The store keeps what the source said (bot/ingest/listing.py);
a compact row (search results, digests, shared cards) shows what a reader needs:

    >>> shorten_affiliation("Department of Computer Science, Purdue University, West Lafayette, IN, USA")
    'Purdue University'
    >>> shorten_affiliation("University of California, Los Angeles, Los Angeles, CA, USA")
    'University of California, Los Angeles'

Details shows every affiliation in full.
"""

from __future__ import annotations

import re
from dataclasses import replace

from bot.models import Affiliation, Paper

LONG_NAME = 60  # an English name longer than this is cut at a word
# The words that name an institution, strongest first: a university over its lab.
_INSTITUTION = (
    re.compile(
        r"\b(?:universit(?:y|ät|é|à|ad|eit)|univ|école|ecole|polytechni\w*|institute of technology|academy of sciences)\b",
        re.I,
    ),
    re.compile(r"\b(?:institute|institut|college|academy|laborator(?:y|ies)|lab|labs|research|centre|center|inc|ltd|corporation|technologies)\b", re.I),
)  # fmt: skip
_ACRONYM = re.compile(r"^[A-Z]{2,6}$")  # EPFL, ETH, MIT, KAIST: an institution by its initials
_SUBUNIT = re.compile(r"\b(?:department|departments|dept|school of|faculty|division|program|group)\b", re.I)
_ONE_WORD_SYSTEM = re.compile(r"^(?:the )?university of [A-Z][\w.'-]*$", re.I)  # "University of California", then its campus


def shorten_affiliation(name: str) -> str:
    """An English affiliation as its institution: the comma-part naming it (a university before
    a lab), without department, city and country; a long name without one is cut."""
    parts = [p.strip() for p in re.split(r",\s*", name) if p.strip()]
    if len(parts) > 1 and _ACRONYM.match(parts[0]):
        return parts[0]  # EPFL, LTS4 laboratory, Lausanne
    if len(parts) > 1:
        for pattern in _INSTITUTION:
            for index, part in enumerate(parts):
                if pattern.search(part) and not (_SUBUNIT.search(part) and index + 1 < len(parts)):
                    following = parts[index + 1] if index + 2 < len(parts) else ""
                    if _ONE_WORD_SYSTEM.match(part) and following and not _SUBUNIT.search(following):
                        return f"{part}, {following}"  # University of California, Los Angeles
                    return _cut(part)
        return _cut(parts[0])
    return _cut(name)


_ZH_INSTITUTION = (
    re.compile(r"大学|理工学院|科学院|大學"),
    re.compile(r"研究院|研究所|研究机构|实验室|研究中心|中心|公司|学院|研究"),
)
ZH_LONG_NAME = 24


def shorten_affiliation_zh(name: str) -> str:
    """A Chinese affiliation as its institution: the part (between ，) naming it, else cut."""
    parts = [p.strip() for p in re.split(r"[，,]", name) if p.strip()]
    if len(parts) > 1:
        for pattern in _ZH_INSTITUTION:
            for part in parts:
                if pattern.search(part):
                    return _cut(part, ZH_LONG_NAME)
        return _cut(parts[0], ZH_LONG_NAME)
    return _cut(name, ZH_LONG_NAME)


_ZH_UNIVERSITY_UNIT = re.compile(r"^(.{2,16}?(?:大学|大學))(?:.{1,20}?)(?:系|学院|學院|研究院|研究所|实验室|實驗室|中心)$")


def _zh_university(name: str) -> str:
    """`普渡大学计算机学院` -> `普渡大学`: the university, without the school or lab within it."""
    match = _ZH_UNIVERSITY_UNIT.match(name)
    return match.group(1) if match else name


def _cut(name: str, limit: int = LONG_NAME) -> str:
    if len(name) <= limit:
        return name
    cut = name[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;&-") + "…"


def _author_keys(paper: Paper) -> set[str]:
    return {" ".join(a.split()).casefold() for a in paper.authors if a}


def repeats_authors(affiliation: Affiliation, authors: set[str]) -> bool:
    """An affiliation that is only author names (`Ziyue Li, Yang Li, Tianyi Zhou`)."""
    for name in (affiliation.en, affiliation.zh):
        pieces = [" ".join(p.split()).casefold() for p in re.split(r"[,，、;；]|\band\b", name or "") if p.strip()]
        if pieces and all(p in authors for p in pieces):
            return True
    return False


def compact_affiliations(paper: Paper) -> list[Affiliation]:
    """The paper's affiliations as a row shows them: author names left out, names
    shortened to their institution, each institution once (in the order given)."""
    authors = _author_keys(paper)
    seen: set[str] = set()
    kept: list[Affiliation] = []
    for affiliation in paper.affiliations:
        if repeats_authors(affiliation, authors):
            continue
        short_en = shorten_affiliation(affiliation.en)
        short_zh = shorten_affiliation_zh(affiliation.zh)
        if short_en != affiliation.en:  # the English name lost its department: so does the Chinese one
            short_zh = _zh_university(short_zh)
        short = replace(affiliation, en=short_en, zh=short_zh)
        key = (short.en or short.zh).casefold()
        if key in seen:
            continue
        seen.add(key)
        kept.append(short)
    return kept


def compact_paper(paper: Paper, first: list[Affiliation] | None = None) -> Paper:
    """`paper` with its compact affiliations (those in `first`, a search's matches, leading)."""
    affiliations = compact_affiliations(paper)
    if first:
        wanted = {(a.en, a.zh) for a in compact_affiliations(replace(paper, affiliations=first))}
        affiliations = [a for a in affiliations if (a.en, a.zh) in wanted] + [
            a for a in affiliations if (a.en, a.zh) not in wanted
        ]
    return replace(paper, affiliations=affiliations)
