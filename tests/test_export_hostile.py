"""Exports of crafted papers: no value forges another entry, in BibTeX's rules or a standard parser's.

The two exploits of the red-team report (issue 29, point 1) come in through the real
listing parser, as a listing's Comments and Journal ref would; then any text at all in
every field (hypothesis) must read back as exactly the saved papers.
"""

from __future__ import annotations

import json
import re
from urllib.parse import unquote

import bibtexparser
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ingest.listing import parse_text
from bot.library.bibtex import read_bibtex
from bot.library.export import (
    UnsafeExport,
    bib_title,
    check_bib_entry,
    citation_keys,
    export_papers,
    to_bibtex,
    to_csl_json,
    to_ris,
)
from bot.models import ArxivRecord, Paper

FORGED_ENTRY = (
    'Accepted at ICML 2026 } @misc(qi2026pariskv, title = "Retracted: ParisKV is plagiarised", '
    'author = "Mallory Evil", year = "1999")'
)
PREAMBLE_URL = r"https://github.com/evil/y}}@preamble{{\gdef\title#1{PWNED}}}"
LISTING = f"""Red team feed

A Harmless Looking Paper
一篇看似无害的论文
Eve Attacker
AI总结 看似正常的总结。
Comments {FORGED_ENTRY}

ParisKV: Fast KV Cache Retrieval
ParisKV：快速的KV缓存检索
Yanlin Qi, Bo Li
AI总结 提出一种KV缓存检索方法。
Comments Accepted at ICML 2026

Another Harmless Paper
另一篇论文
Mallory Evil
AI总结 另一种方法。
Journal ref {PREAMBLE_URL}
"""


def crafted_papers() -> list[Paper]:
    listing = parse_text(LISTING, "redteam.txt")
    assert listing.errors == []
    papers = [paper for _, paper in listing.records]
    for seq, paper in enumerate(papers, start=1):
        paper.seq = seq
    return papers


def assert_reads_back_as(text: str, papers: list[Paper]) -> None:
    """Both BibTeX's own rules and bibtexparser read exactly these papers, titles intact."""
    keys = citation_keys(papers)
    expected = [(keys[p.id], bib_title(p.title_en)) for p in papers]
    as_bibtex = read_bibtex(text)
    assert as_bibtex.errors == [] and as_bibtex.preambles == [] and as_bibtex.strings == {}
    assert [(e.key, e.fields["title"]) for e in as_bibtex.entries] == expected
    parsed = bibtexparser.parse_string(text)
    assert parsed.failed_blocks == [] and parsed.preambles == [] and parsed.strings == []
    assert [(e.key, e["title"]) for e in parsed.entries] == expected
    assert len({e.key for e in parsed.entries}) == len(papers)
    for paper in papers:
        assert latex_text(bib_title(paper.title_en)) == " ".join(paper.title_en.split())


def test_old_writer_forged_both_exploits_under_bibtex_rules():
    """What the report saw, read by BibTeX's rules: the old `\\}` and the raw url (kept here as text)."""
    old_note = FORGED_ENTRY.replace("}", "\\}")
    fields = [("title", "{ParisKV}: Fast {KV} Cache Retrieval"), ("note", old_note)]
    forged = f"@inproceedings{{qi2026pariskv,\n  title = {{{fields[0][1]}}},\n  note = {{{old_note}}}\n}}\n"
    injected = f"@misc{{evil1999another,\n  title = {{Another Harmless Paper}},\n  url = {{{PREAMBLE_URL}}}\n}}\n"
    read = read_bibtex(forged + "\n" + injected)
    assert [(e.key, e.fields["title"]) for e in read.entries][0] == ("qi2026pariskv", "Retracted: ParisKV is plagiarised")
    assert read.preambles == [r"\gdef\title#1{PWNED}"]
    with pytest.raises(UnsafeExport):  # the check every written entry passes would have stopped it
        check_bib_entry(forged, "inproceedings", "qi2026pariskv", fields)


def test_a_crafted_comment_or_journal_ref_forges_nothing():
    papers = crafted_papers()
    text = to_bibtex(papers)
    assert_reads_back_as(text, papers)
    entries = {e.key: e for e in read_bibtex(text).entries}
    assert entries["qi2026pariskv"].fields["author"] == "Qi, Yanlin and Li, Bo"
    assert "Mallory" not in entries["qi2026pariskv"].fields["author"]
    evil = next(e for e in entries.values() if e.fields["title"] == "Another Harmless Paper")
    assert "{" not in evil.fields["url"] and "}" not in evil.fields["url"] and "@" not in evil.fields["url"]
    assert unquote(evil.fields["url"]) == PREAMBLE_URL  # encoded, not changed
    assert "PWNED" not in "".join(read_bibtex(text).preambles)


def test_ris_and_csl_json_hold_the_crafted_papers():
    papers = crafted_papers()
    ris = to_ris(papers)
    assert ris.count("\r\nER  - ") + ris.startswith("ER  - ") == len(papers)
    assert len(re.findall(r"(?m)^TY  - ", ris)) == len(papers)
    for line in ris.split("\r\n"):
        assert line == "" or re.match(r"^[A-Z][A-Z0-9]  - ", line), line
    items = json.loads(to_csl_json(papers))
    assert [i["id"] for i in items] == list(citation_keys(papers).values())
    assert [i["title"] for i in items] == [p.title_en for p in papers]


# Text meant to break out: braces (escaped or not), backslashes, @, quotes, #, %, commas,
# " and ", parentheses, white space of every kind, CJK.
HOSTILE = st.lists(st.sampled_from([*'{}\\@"#%,=()~^$&_ \t\n\u2028aA1张', " and ", "@misc{", "\\}", "\\{", "Kv"])).map("".join)


@settings(max_examples=150, deadline=None)
@given(
    title=HOSTILE.filter(lambda s: re.search(r"\w", s) is not None),
    author=HOSTILE,
    comments=HOSTILE,
    url_tail=HOSTILE,
    summary=HOSTILE,
)
def test_any_text_in_any_field_reads_back_as_the_saved_papers(title, author, comments, url_tail, summary):
    papers = [
        Paper(
            id="p1",
            title_en=title,
            title_zh="标题" + title,
            authors=[author, "Yanlin Qi"] if author.strip() else ["Yanlin Qi"],
            summary_zh=summary,
            comments=comments,
            venue="ICML 2026",
            venue_name="ICML",
            year=2026,
            urls=["https://x.org/" + url_tail],
            seq=1,
            arxiv=ArxivRecord(arxiv_id="2601.00001", abstract=comments),
        ),
        Paper(id="p2", title_en="ParisKV", title_zh="ParisKV", authors=["Yanlin Qi"], year=2026, seq=2),
    ]
    text = to_bibtex(papers)
    assert_reads_back_as(text, papers)
    url = read_bibtex(text).entries[0].fields["url"]
    assert unquote(url) == unquote("https://x.org/" + url_tail)
    for fmt in ("ris", "csl-json"):
        export_papers(papers, fmt)  # never raises
    assert len(re.findall(r"(?m)^TY  - ", to_ris(papers))) == 2


def test_the_abstract_is_arxivs_and_the_ai_summary_a_labelled_note():
    """Zotero shows `abstract`/`AB` as the paper's abstract (摘要): never the AI summary."""
    record = ArxivRecord(arxiv_id="2601.00001", abstract="We present ParisKV, a retrieval method.")
    with_abstract = Paper(id="a", title_en="ParisKV", title_zh="ParisKV", summary_zh="提出一种方法。", seq=1, arxiv=record)
    without = Paper(id="b", title_en="Other", title_zh="其他", summary_zh="另一种方法。", seq=2)
    bib = {e.key: e.fields for e in read_bibtex(to_bibtex([with_abstract, without])).entries}
    first, second = bib.values()
    assert first["abstract"] == "We present ParisKV, a retrieval method."
    assert first["annote"] == "AI summary by paperbot, not the authors' abstract: 提出一种方法。"
    assert "abstract" not in second and "提出" not in first["abstract"]
    zh = read_bibtex(export_papers([with_abstract], "bibtex", "zh")).entries[0].fields
    assert zh["annote"] == "paperbot 生成的 AI 总结（并非作者摘要）：提出一种方法。"

    ris = to_ris([with_abstract, without]).split("\r\n")
    assert "AB  - We present ParisKV, a retrieval method." in ris
    assert "N1  - AI summary by paperbot, not the authors' abstract: 提出一种方法。" in ris
    assert not any(line.startswith("AB  - ") and "方法" in line for line in ris)

    items = json.loads(to_csl_json([with_abstract, without]))
    assert items[0]["abstract"] == "We present ParisKV, a retrieval method." and "abstract" not in items[1]
    assert items[1]["note"] == "AI summary by paperbot, not the authors' abstract: 另一种方法。"


_COMMANDS = {
    r"\textbackslash{}": "\\",
    r"\textbraceleft{}": "{",
    r"\textbraceright{}": "}",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\%": "%",
    r"\&": "&",
    r"\$": "$",
    r"\#": "#",
    r"\_": "_",
}


def latex_text(value: str) -> str:
    """What LaTeX prints for a value the exporter wrote: commands to characters, grouping braces dropped."""
    slots = {command: chr(0xE000 + n) for n, command in enumerate(_COMMANDS)}
    for command, slot in slots.items():
        value = value.replace(command, slot)
    value = value.replace("{", "").replace("}", "")
    for command, slot in slots.items():
        value = value.replace(slot, _COMMANDS[command])
    return value
