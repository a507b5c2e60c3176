"""Crafted author names cost no more to show than plain ones (issue 29, point 4).

One author of `https://a.org/` and 49,900 `)` in five papers made each App Home view
take ~7 s: trimming the URL recounted its brackets for every `)` dropped, and every
author of every card was escaped, shown or not. The views here are built as Slack gets
them (App Home, a search), from a real corpus.
"""

from __future__ import annotations

import time

import pytest
from digest_support import QuietDirectory, RecordingPoster, ingest, open_corpus
from hypothesis import given
from hypothesis import strategies as st

from bot.services import build_services
from bot.slack.answers.home import build_home
from bot.slack.answers.search import answer_search
from bot.slack.render.cards import short_authors
from bot.slack.render.mrkdwn import _OPENER, _URL_TRAIL, _trim_url, escape

CRAFTED_AUTHOR = "https://a.org/" + ")" * 49_900
TIME_BOUND = 2.0  # seconds for a whole view on a loaded 2-core machine; the old code took ~7 s for App Home


def crafted_listing() -> str:
    lines = ["Crafted Feed", ""]
    for n in range(5):
        lines += [
            f"Crafted Zebrafish Paper {n}",
            f"构造的斑马鱼论文 {n}",
            f"{CRAFTED_AUTHOR}, Bob Li",
            f"AI总结 斑马鱼摘要 {n}",
            "",
        ]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def crafted_services(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("crafted")
    corpus = open_corpus(tmp / "data")
    ingest(corpus, tmp, "crafted.txt", crafted_listing())
    services = build_services(corpus.settings, corpus, poster=RecordingPoster(), directory=QuietDirectory())
    for paper in corpus.store.newest(5):
        services.library.save("U_CRAFTED", paper.id)
    yield services
    corpus.close()


def timed(build):
    start = time.perf_counter()
    result = build()
    return result, time.perf_counter() - start


def test_app_home_with_crafted_authors_renders_in_time(crafted_services):
    build_home(crafted_services, "U_WARM")  # the first view loads what every view shares
    view, seconds = timed(lambda: build_home(crafted_services, "U_CRAFTED"))
    assert seconds < TIME_BOUND, f"App Home took {seconds:.1f} s"
    assert "Crafted Zebrafish Paper" in str(view)


def test_a_search_over_crafted_authors_renders_in_time(crafted_services):
    crafted_services.corpus.search("warm up")
    reply, seconds = timed(lambda: answer_search(crafted_services.corpus, "zebrafish", "en"))
    assert seconds < TIME_BOUND, f"the search took {seconds:.1f} s"
    assert reply.result.total == 5


def test_escaping_a_url_ending_in_brackets_is_linear():
    _, seconds = timed(lambda: escape(CRAFTED_AUTHOR))
    assert seconds < 0.5, f"escaping took {seconds:.1f} s"  # the old trim: ~1.3 s
    assert escape(CRAFTED_AUTHOR) == "<https://a.org/>" + ")" * 49_900


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see https://a.org/x.", "see <https://a.org/x>."),
        ("(https://a.org/x)", "(<https://a.org/x>)"),
        ("https://en.wikipedia.org/wiki/A_(b))", "<https://en.wikipedia.org/wiki/A_(b)>)"),
        ("[https://a.org/[x]]", "[<https://a.org/[x]>]"),
        ("https://a.org/x?).,;", "<https://a.org/x>?).,;"),
        ("my_repo *bold* https://a.org/a_b", "myˍrepo ∗bold∗ <https://a.org/a_b>"),
        ("https://", "https://"),
    ],
)
def test_escape_output_is_unchanged_on_normal_text(text, expected):
    assert escape(text) == expected


def trim_url_before_issue_29(url: str) -> str:
    """The quadratic trim, verbatim: what the linear one must give on every URL."""
    while url and (url[-1] in _URL_TRAIL or (url[-1] in _OPENER and url.count(url[-1]) > url.count(_OPENER[url[-1]]))):
        url = url[:-1]
    return url


@given(st.text(alphabet="()[]{}.,;:!?'…a/"))
def test_the_linear_trim_gives_what_the_old_one_gave(tail):
    assert _trim_url("https://a.org/" + tail) == trim_url_before_issue_29("https://a.org/" + tail)


def test_only_the_authors_shown_are_escaped():
    """A card shows three names and a count: the rest is never escaped (nor paid for)."""
    crafted = ["A_1", "B*2", "C~3", *[CRAFTED_AUTHOR] * 20]
    line, seconds = timed(lambda: short_authors(crafted, "en"))
    assert line == "Aˍ1, B∗2, C∼3 +20"
    assert seconds < 0.5, f"short_authors took {seconds:.1f} s"
    assert short_authors(["A", "B", "C", "D"], "en") == "A, B, C, D"
    assert short_authors(["A", "B", "C", "D", "E"], "zh") == "A, B, C 等 5 人"
