"""Bulk ingest's fast paths give exactly what the plain code they replaced gave.

The reference functions below are the pre-optimisation code (4d310ce), kept here verbatim
in substance: each fast path is compared with its reference on the seeds, a generated
corpus and hand-made records that hit the edge cases (non-ASCII letters IGNORECASE
matches, format characters past U+FFFF, unbalanced parentheses, broken records).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bench_modules import bench_module

from bot import listing
from bot.listing import parse_path, parse_text

SEEDS = Path(__file__).resolve().parent.parent / "seeds"

EDGE_CASES = """Edge Feed
Fast Widgets for Everyone\u200b
人人可用的快速部件\U000e0001
Ada Lovelace,\u00a0Alan Turing\u3000and Grace Hopper
机构 * Lab A（甲（一）实验室） ； Lab B (乙；丙) ； Lab C（未闭合 ； Lab D） ； ) Lab E ； Lab F（己）） 纠错
AI总结 提出快速部件。
Comments Accepted at \u212aDD 2024 and NeurIP\u017f 2025; extends our AAAI paper

Kelvin Venue Without Year
开尔文
Bo Li
AI总结 摘要。
Journal ref International Conference on Machine Learning for Communication and Networking (ICMLCN) 2025

Lost Summary Record
丢失摘要
Some Author

Next Record After the Lost One
下一条
Other Author
AI总结 摘要二。
Comments ICLR'26 Workshop on World Models, see https://example.org/a. and (PDF)

Short Record
AI总结 只有一行。

Two Affiliations
两个机构
A Author
机构 * Lab A（甲）
机构 * Lab B（乙）
AI总结 摘要三。
"""


def reference_lines(text: str) -> list[tuple[int, str]]:
    """parse_text's numbered, cleaned, non-empty lines, line by line as before."""

    def clean(line: str) -> str:
        return (
            re.sub(
                "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
                "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
                "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]",
                "",
                line,
            )
            .replace("\u00a0", " ")
            .replace("\u3000", " ")
            .strip()
        )

    lines = [(n, clean(line)) for n, line in enumerate(text.split("\n"), start=1)]
    return [(n, line) for n, line in lines if line]


def reference_known_venues(text: str) -> list[tuple[int, str]]:
    found = []
    for name, pattern in listing._VENUE_PATTERNS:
        for match in pattern.finditer(text):
            if re.match(r"\s+(?:for|and|in|on)\s", text[match.end() :]) and " " in match.group(0):
                continue
            found.append((match.start(), name))
            break
    return found


def reference_split_outside_parentheses(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "（(":
            depth += 1
        elif ch in "）)":
            depth = max(0, depth - 1)
        elif ch in "；;" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def reference_parse_text(text: str, path: str, monkeypatch) -> listing.Listing:
    """parse_text with every replaced piece swapped back for its reference."""
    monkeypatch.setattr(listing, "_known_venues", reference_known_venues)
    monkeypatch.setattr(listing, "_split_outside_parentheses", reference_split_outside_parentheses)
    lines = reference_lines(text)
    feed_line, feed = lines[0]
    result = listing.Listing(path=path, feed=feed)
    for chunk in listing._chunks(lines[1:]):
        listing._parse_chunk(chunk, result)
    monkeypatch.undo()
    return result


@pytest.fixture(scope="module")
def listing_files(tmp_path_factory) -> list[Path]:
    """The seeds, a generated corpus (1,500 papers, repeats within and across feeds), the edge cases."""
    folder = tmp_path_factory.mktemp("reference-listings")
    bench_module("corpus").generate(1500, folder)
    (folder / "edge.txt").write_text(EDGE_CASES, encoding="utf-8")
    return [*sorted(SEEDS.glob("*.txt")), *sorted(folder.glob("*.txt"))]


def test_parsing_gives_what_the_reference_gives(listing_files, monkeypatch):
    for path in listing_files:
        text = path.read_text(encoding="utf-8")
        assert parse_text(text, str(path)) == reference_parse_text(text, str(path), monkeypatch), path
    edge = parse_path(listing_files[-1])
    assert len(edge.errors) == 3 and len(edge.records) == 3  # the edge cases are parsed, not all refused


@pytest.mark.parametrize(
    "text",
    [
        "Accepted at \u212aDD 2024",  # the Kelvin sign: IGNORECASE matches it to k
        "NeurIP\u017f 2025",  # long s
        "International Conference on Machine Learning for Communication (ICMLCN 2025) and ICML 2024",
        "Submitted to NeurIPS; extends our AAAI 2024 paper",
        "Proceedings of the 43rd International Conference on Machine Learning (ICML 2026)",
        "ICLR'26 workshop",
        "icml2026 neurips",
        "XICML 2026, ICMLX, conference",
        "",
    ],
)
def test_venue_lookup_matches_the_reference(text, monkeypatch):
    assert listing._known_venues(text) == reference_known_venues(text)
    expected = listing.find_venue(text)
    monkeypatch.setattr(listing, "_known_venues", reference_known_venues)
    assert listing.find_venue(text) == expected


@pytest.mark.parametrize("text", ["A（甲；乙） ； B", "A ) ; B ( ; C", "（（；））；x", "plain ; split；here", "no marks"])
def test_affiliation_split_matches_the_reference(text):
    assert listing._split_outside_parentheses(text) == reference_split_outside_parentheses(text)
