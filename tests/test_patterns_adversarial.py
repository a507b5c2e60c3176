"""Every text pattern runs in linear time on hostile input (issue 29, point 2).

SRE, Python's regex engine, backtracks, and holds the interpreter lock while it does:
one quadratic pattern on one 50 KB record froze the whole server (`A` + 49,990 spaces +
`B` as an author line: 22.7 s), and a cubic one on 2,000 capitals in a comment took
166 s. Each function that applies a pattern to text from a listing, a feed or a user
(bot/ingest/listing.py, bot/slack/render/mrkdwn.py, bot/search/analysis.py's tokenizer,
bot/digests/times.py, the BibTeX title and names, the lexicon's learning) gets 50,000-character inputs made to make it backtrack: runs of
spaces, separators, parentheses, capitals, mixed scripts.

The cases run in a child process that reports each as it finishes, so a pattern that
would take hours fails this test in seconds (the child is stopped) instead of hanging
the suite.
"""

from __future__ import annotations

import json
import re
import selectors
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import listing_reference as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ingest import listing

N = 50_000
CASE_BOUND = 1.0  # seconds for one call on a loaded 2-core machine; the linear code takes < 0.3 s
STUCK = 10.0  # seconds without a report: the child is stopped and the case it is in fails

INPUTS = {
    "spaces": "A" + " " * N + "B",
    "spaces at the end": "A" + " " * N,
    "tabs and ideographic spaces": "A" + " \t\u3000" * (N // 3) + "B",
    "commas": "," * N,
    "comma space": ", " * (N // 2),
    "full-width semicolons": "；" * N,
    "ands": " and" * (N // 4),
    "opening parentheses": "(" * N,
    "full-width parentheses": "（" * N,
    "url and closing parentheses": "https://a.org/" + ")" * N,
    "url and brackets": "https://a.org/" + ").,]}" * (N // 5),
    "capitals": "A" * N,
    "a capital and small letters": "A" + "a" * N,
    "capital words": "AB " * (N // 3),
    "acronym and spaces": "ICMLX" + " " * N + "x",
    "acronym, spaces and quotes": "ICMLX" + " '" * (N // 2),
    "venue and spaces": "ICML" + " " * N + "x",
    "venue and years": "ICML " + "2020 " * (N // 5),
    "camel case": "aA" * (N // 2),
    "mixed scripts": "中a1_ΣЖ" * (N // 6),
    "han": "中" * N,
    "digits": "1" * N,
    "http": "http://" * (N // 7),
    "label runs": "Journal" + " -" * (N // 2) + "x",
    "slack markup": "<a|" * (N // 3),
    "time and spaces": "9" + " " * N + "pm",
    "days": "周" + "一" * N,
}


def _record(field: str, text: str) -> str:
    fields = {"title": "T", "authors": "A B", "affiliations": "", "summary": "x", "comments": "", "journal": ""}
    fields[field] = text
    lines = ["feed", fields["title"] + "x", "标题", fields["authors"]]
    if fields["affiliations"]:
        lines.append("机构 * " + fields["affiliations"])
    lines.append("AI总结 " + fields["summary"])
    if fields["comments"]:
        lines.append("Comments " + fields["comments"])
    if fields["journal"]:
        lines.append("Journal ref " + fields["journal"])
    return "\n".join(lines) + "\n"


def cases():
    """(name, function of one text): every function that runs a pattern over untrusted text."""
    from bot.digests import times
    from bot.library import export
    from bot.search import analysis, lexicon
    from bot.slack.render import mrkdwn

    yield "listing.parse_authors", listing.parse_authors
    yield "listing.find_urls", listing.find_urls
    yield "listing.find_venue", listing.find_venue
    yield "listing.parse_affiliations", listing.parse_affiliations
    yield "listing.paper_id", listing.paper_id
    for label in ("AI总结", "机构 * ", "Comments ", "Journal ref "):
        yield (
            f"listing: a {label.strip()} line",
            lambda text, label=label: listing.parse_text(f"feed\nT\n标题\nA\n{label}{text}\n"),
        )
    for field in ("title", "authors", "affiliations", "summary", "comments", "journal"):
        yield f"listing.parse_text: {field}", lambda text, field=field: listing.parse_text(_record(field, text))
    yield "export.bib_title", export.bib_title
    yield "export.bib_name", export.bib_name
    yield "lexicon.defined_acronyms", lexicon.defined_acronyms
    yield "lexicon.english_words", lexicon.english_words
    yield "mrkdwn.escape", mrkdwn.escape
    yield "mrkdwn.unescape_slack_text", mrkdwn.unescape_slack_text
    yield "analysis.analyze", analysis.analyze
    yield "analysis.index_words", analysis.index_words
    yield "times.parse_time", times.parse_time
    yield "times.is_timeish", times.is_timeish
    yield "times.suggest_time", times.suggest_time
    yield "times.parse_day_word", times.parse_day_word
    yield "times.parse_zone", lambda text: _refused_or(times.parse_zone, text)


def _refused_or(function, text):
    try:
        return function(text)
    except Exception as error:  # a refusal is an answer too; only the time matters here
        return error


def run_cases() -> None:
    """In the child: run every case on every input, printing one JSON line as each ends."""
    from bot.search.analysis import load_chinese

    load_chinese()  # loading the dictionaries is not the pattern's time
    for name, function in cases():
        for label, text in INPUTS.items():
            print(json.dumps({"case": name, "input": label}), flush=True)
            start = time.perf_counter()
            function(text)
            print(json.dumps({"case": name, "input": label, "seconds": time.perf_counter() - start}), flush=True)


def test_every_pattern_is_linear_on_hostile_input():
    child = subprocess.Popen(
        [sys.executable, "-c", "import test_patterns_adversarial as t; t.run_cases()"],
        cwd=Path(__file__).parent,
        stdout=subprocess.PIPE,
        text=True,
    )
    slow, running, finished = [], None, 0
    try:
        assert child.stdout is not None

        with selectors.DefaultSelector() as selector:
            selector.register(child.stdout, selectors.EVENT_READ)
            while True:
                if not selector.select(timeout=STUCK):
                    slow.append(f"{running['case']} on {running['input']}: still running after {STUCK:.0f} s")
                    break
                line = child.stdout.readline()
                if not line:
                    break
                report = json.loads(line)
                if "seconds" not in report:
                    running = report
                else:
                    finished += 1
                    if report["seconds"] > CASE_BOUND:
                        slow.append(f"{report['case']} on {report['input']}: {report['seconds']:.1f} s")
    finally:
        child.kill()
        child.wait()
    assert slow == []
    assert finished == len(list(cases())) * len(INPUTS)


# -- the same output as the patterns they replace (tests/listing_reference.py's) ---------------

AUTHOR_TEXT = st.text(alphabet=" ,，、;；and\tAB张")
VENUE_TEXT = st.text(alphabet=" '’()AICMLNbc19202;.")


@settings(max_examples=400, deadline=None)
@given(AUTHOR_TEXT)
def test_author_separator_splits_as_before(text):
    assert listing.parse_authors(text) == reference.parse_authors(text)


@settings(max_examples=400, deadline=None)
@given(VENUE_TEXT)
def test_venues_and_years_are_found_as_before(text):
    assert listing.find_venue(text) == reference.find_venue(text)


OLD_CAPITALISED_INSIDE = re.compile(r"[^\W_]*[^\W_][A-Z][^\W_]*")  # bot/library/export.py before
OLD_DEFINED = re.compile(r"((?:[A-Za-z][\w-]*\s+){1,7})\(([A-Z][A-Za-z0-9]{1,9}?)s?\)")  # bot/search/lexicon.py before
WORDY_TEXT = st.text(alphabet="aAbZz1_-é中 ()s\t")


@settings(max_examples=500, deadline=None)
@given(WORDY_TEXT)
def test_bibtex_title_words_are_found_as_before(text):
    from bot.library import export

    assert [m.span() for m in export._CAPITALISED_INSIDE.finditer(text)] == [
        m.span() for m in OLD_CAPITALISED_INSIDE.finditer(text)
    ]


@settings(max_examples=500, deadline=None)
@given(WORDY_TEXT)
def test_acronym_definitions_are_found_as_before(text):
    from bot.search import lexicon

    assert [(m.span(), m.groups()) for m in lexicon._definitions(text)] == [
        (m.span(), m.groups()) for m in OLD_DEFINED.finditer(text)
    ]


# -- binary data anywhere in a listing ----------------------------------------------------------


def test_a_nul_anywhere_marks_a_listing_binary():
    """The NUL check looked at the first 8 KB only: a text head on a binary body passed."""
    text_head = ("feed\n" + "Title\n标题\nA B\nAI总结 x\n" * 1000).encode()
    assert len(text_head) > 8192
    listing_result = listing.parse_bytes("upload.txt", text_head + b"\x00\x01\x02binary")
    assert listing_result.records == [] and [e.reason for e in listing_result.errors] == [
        "this is a binary file, not a text listing; export the listing as UTF-8 text and try again"
    ]
    start = time.perf_counter()
    assert listing.decode_listing("big.txt", b"a" * 20_000_000 + b"\x00")[0] is None
    assert time.perf_counter() - start < 0.5  # a C scan, not a parse


def test_control_characters_are_removed_from_every_field():
    """ESC and BEL in a title or summary reached terminals through the CLI as escape sequences."""
    controls = "\x1b[2J\x1b]0;pwned\x07\x08\x0b\x0c\x7f\x85\x9b"
    text = (
        f"feed\nA {controls}Title\n标题{controls}\nAda {controls}Lovelace, Alan Turing\n机构 * Lab {controls}A（甲）\n"
        f"AI总结 摘要{controls}\nComments Accepted at ICML 2026{controls}\nJournal ref J{controls}\n"
    )
    ((_, paper),) = listing.parse_text(text).records
    fields = [paper.title_en, paper.title_zh, *paper.authors, paper.summary_zh, paper.comments, paper.journal_ref]
    fields += [a.en for a in paper.affiliations]
    assert not [f for f in fields if any(unicodedata.category(c) == "Cc" for c in f)]
    assert paper.title_en == "A [2J]0;pwnedTitle" and paper.venue_name == "ICML" and paper.year == 2026
    tabbed = listing.parse_text("feed\nA\tTitle\r\n标题\r\nA B\r\nAI总结 x\r\n").records[0][1]
    assert (tabbed.title_en, tabbed.summary_zh) == ("A\tTitle", "x")  # tab, CR and LF are still text
