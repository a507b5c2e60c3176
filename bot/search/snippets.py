"""Snippets: the part of a hit's stored text that shows why it matched, matched terms marked.

A snippet is cut from the stored field (bot/search/schema.py's SNIPPET_FIELDS) that
matched the most distinct query terms, re-analysed here with character offsets. Whoosh's
highlighter is not used: its fragmenters split on spaces, so they never cut Chinese text.
Only the first SNIPPET_SCAN_CHARS of a field are analysed, so a hit costs the same
whatever it stores (a 448 KB summary once took 9 s).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.models import Fragment
from bot.search.analysis import bilingual_analyzer
from bot.search.schema import FIELD_LANG, PAIRED_FIELDS, SNIPPET_FIELDS, TITLE_FIELDS

SNIPPET_CHARS = 200
SNIPPET_SCAN_CHARS = 10_000  # a snippet is looked for in this much of a field (build_snippet)


def matched_expansions(stored: dict, expansions: Iterable[tuple[str, tuple[str, ...]]]) -> list[str]:
    """Return the labels of the lexicon alternatives whose every token is in the stored paper.

    Like a snippet, only the first SNIPPET_SCAN_CHARS of each field are read: the cost
    per hit is bounded whatever the stored text.
    """
    tokens = {t.text for name in SNIPPET_FIELDS for t in _ANALYZER((stored.get(name) or "")[:SNIPPET_SCAN_CHARS], mode="index")}
    return list(dict.fromkeys(label for label, target in expansions if set(target) <= tokens))


def build_snippet(
    stored: dict, terms: frozenset[tuple[str, str]], limit: int = SNIPPET_CHARS, *, lang: str | None = None
) -> tuple[list[Fragment], str]:
    """Return up to `limit` characters of the best-matching field, matched terms marked.

    Re-analyzes the stored text with character offsets (index mode, so 上下 lights up
    inside 上下文) instead of Whoosh's highlighter, whose fragmenters split on spaces
    and so never cut Chinese text. Only the first SNIPPET_SCAN_CHARS of a field are
    analyzed: the cost of a snippet is bounded whatever the stored text (a 448 KB
    summary took 9 s here, and ingest limits only guard what arrives after them).
    The field matching the most distinct terms wins; on a tie a title (the renderer
    then shows no quote: the title already says it), then the field in the reader's `lang`.
    """
    found: dict[str, tuple[int, list[tuple[int, int]]]] = {}
    for name in SNIPPET_FIELDS:
        text = stored.get(name) or ""
        wanted = {t for f, t in terms if f == name}
        if not text or not wanted:
            continue
        scanned = text[:SNIPPET_SCAN_CHARS]
        tokens = [(t.startchar, t.endchar, t.text) for t in _ANALYZER(scanned, chars=True, mode="index") if t.text in wanted]
        distinct = len({s[2] for s in tokens})
        if distinct:
            found[name] = (distinct, _merge_spans((s, e) for s, e, _ in tokens))
    best: tuple[tuple[int, bool, bool], str, list[tuple[int, int]]] | None = None
    for name, (distinct, spans) in found.items():
        # A field and its translation (affil_en/affil_zh) matching both say the same thing,
        # however many tokens each took (Peking University vs 北京大学): the reader's wins.
        twin = PAIRED_FIELDS.get(name)
        if twin in found:
            distinct = max(distinct, found[twin][0])
        rank = (distinct, name in TITLE_FIELDS, lang is not None and FIELD_LANG.get(name) == lang)
        if best is None or rank > best[0]:
            best = (rank, name, spans)
    if best is None:
        name = "summary" if stored.get("summary") else "title_en"
        text = stored.get(name) or ""
        return ([Fragment(_clip(text, limit))] if text else []), name
    _, name, spans = best
    return _fragments(stored[name], spans, limit), name


def _merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


# A URL in stored text, as Slack's renderer links it (bot/slack/render/mrkdwn.py): up to
# whitespace, markup characters, quotes or CJK text, without the punctuation that ends a sentence.
_URL = re.compile(r"https?://[^\s<>|\"“”‘’\u3000-\u9fff\uff00-\uffef]+")
_URL_TRAIL = ".,;:!?'…"
_OPENER = {")": "(", "]": "[", "}": "{"}
URL_REACH = 2000  # how far before and after a snippet's window a URL it cuts may start or end


def url_spans(text: str) -> list[tuple[int, int]]:
    """Where the URLs in `text` are, as (start, end) offsets."""
    spans = []
    for match in _URL.finditer(text):
        url = match.group()
        while url and (url[-1] in _URL_TRAIL or (url[-1] in _OPENER and url.count(url[-1]) > url.count(_OPENER[url[-1]]))):
            url = url[:-1]
        spans.append((match.start(), match.start() + len(url)))
    return spans


def _keep_urls_whole(text: str, spans: list[tuple[int, int]], start: int, end: int) -> tuple[list[tuple[int, int]], int, int]:
    """A quote never cuts a URL: a window edge inside one moves to its end, and a match
    inside one marks the whole URL (`…/tianyi-lab/*PoLar*` would link only the
    organisation's page)."""
    # Only around the window: a stored field may be long, and a URL a few hundred characters.
    offset = max(0, start - URL_REACH)
    urls = [(s + offset, e + offset) for s, e in url_spans(text[offset : end + URL_REACH])]
    if not urls:
        return spans, start, end
    for s, e in urls:
        if s < start < e:
            start = s
        if s < end < e:
            end = e
    marked = []
    for s, e in spans:
        if e <= start or s >= end:
            continue
        inside = next(((us, ue) for us, ue in urls if us < e and s < ue), None)
        marked.append(inside or (s, e))
    return _merge_spans(marked), start, end


def _fragments(text: str, spans: list[tuple[int, int]], limit: int) -> list[Fragment]:
    if len(text) <= limit:
        start, end = 0, len(text)
    else:
        # The window that shows the most hits, opening a little before one of them. The
        # spans are sorted and disjoint and the candidate windows only move right, so two
        # cursors count the spans inside each: linear, where counting afresh for every
        # span was quadratic (2.4 s for one 224 KB summary dense with hits).
        best_start, best_count = 0, -1
        first = last = 0  # spans[first:last] lie inside the window
        for s, _ in spans:
            start = max(0, min(s - 20, len(text) - limit))
            while first < len(spans) and spans[first][0] < start:
                first += 1
            last = max(last, first)
            while last < len(spans) and spans[last][1] <= start + limit:
                last += 1
            if last - first > best_count:
                best_start, best_count = start, last - first
        start, end = best_start, best_start + limit
    spans, start, end = _keep_urls_whole(text, spans, start, end)
    out: list[Fragment] = []
    if start > 0:
        out.append(Fragment("…"))
    cursor = start
    for s, e in spans:
        if e <= start or s >= end:
            continue
        s, e = max(s, start), min(e, end)
        if s > cursor:
            out.append(Fragment(text[cursor:s]))
        out.append(Fragment(text[s:e], hit=True))
        cursor = e
    if cursor < end:
        out.append(Fragment(text[cursor:end]))
    if end < len(text):
        out.append(Fragment("…"))
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_ANALYZER = bilingual_analyzer()
