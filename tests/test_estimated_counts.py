"""An estimated total reads as one everywhere a count is shown; an exact one stays exact.

The search engine sets `IndexPage.estimated`; these tests start from the page a renderer
is given (an IndexPage for Corpus, a SearchResult for the renderers), which is where an
estimate enters each layer.
"""

from __future__ import annotations

import json

import pytest

from bot.cli import format_result
from bot.console import reply_to_text
from bot.i18n import format_estimate
from bot.models import Hit, Paper, SearchResult
from bot.search.index import IndexHit, IndexPage
from bot.slack.answers.subscribe import render_filter_note
from bot.slack.render.blocks import section
from bot.slack.render.home import render_home
from bot.slack.render.plain import blocks_to_text
from bot.slack.render.results import render_results
from bot.slack.reply import Reply
from bot.slack.values import decode_value
from tests.slack_helpers import all_text, button_values


def paper(n: int) -> Paper:
    return Paper(id=f"{n:012x}", title_en=f"Diffusion Paper {n}", title_zh=f"扩散论文{n}", authors=["A. Author"])


def page_of(total: int, *, estimated: bool, page: int = 1, shown: int = 5, query: str = "diffusion") -> SearchResult:
    hits = [Hit(paper=paper(n), score=1.0) for n in range(shown)]
    return SearchResult(query=query, hits=hits, total=total, page=page, per_page=5, estimated=estimated)


@pytest.mark.parametrize(
    ("total", "en", "zh"),
    [
        (7, "7", "7"),
        (149, "150", "150"),
        (3_412, "3,400", "3,400"),
        (9_960, "10,000", "1万"),
        (36_123, "36,000", "3.6万"),
        (123_456, "120,000", "12万"),
        (1_234_567, "1,200,000", "120万"),
        (123_456_789, "120,000,000", "1.2亿"),
    ],
)
def test_an_estimate_has_two_significant_figures_in_each_languages_way(total, en, zh):
    assert (format_estimate(total, "en"), format_estimate(total, "zh")) == (en, zh)


def test_an_estimate_is_never_rounded_below_the_papers_already_shown():
    assert format_estimate(1_049, "en", at_least=1_045) == "1,100"
    assert format_estimate(104_900, "zh", at_least=104_500) == "11万"
    assert format_estimate(36_123, "en", at_least=15) == "36,000"


@pytest.mark.parametrize(
    ("lang", "estimated", "page", "expected"),
    [
        ("en", True, 1, "About *36,000* papers for “diffusion”"),
        ("zh", True, 1, "“diffusion”找到约 *3.6万* 篇论文"),
        ("en", True, 3, "About *36,000* papers for “diffusion” · page 3"),
        ("zh", True, 3, "“diffusion”找到约 *3.6万* 篇论文 · 第 3 页"),
        ("en", False, 3, "*36,123* papers for “diffusion” · page 3 of 7,225"),
        ("zh", False, 3, "“diffusion”共找到 *36,123* 篇论文 · 第 3/7,225 页"),
    ],
)
def test_the_results_header_says_about_only_for_an_estimate(lang, estimated, page, expected):
    blocks = render_results(page_of(36_123, estimated=estimated, page=page), lang).blocks
    assert blocks[0] == section(expected)
    assert [decode_value(v).page for v in button_values(blocks, "results_next")] == [page + 1]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [("en", "About *12,000* papers like “Diffusion Paper 9”"), ("zh", "与“扩散论文9”相似的论文约 *1.2万* 篇")],
)
def test_more_like_this_says_about_for_an_estimate(lang, expected):
    blocks = render_results(page_of(12_345, estimated=True), lang, like=paper(9)).blocks
    assert blocks[0] == section(expected)
    assert button_values(blocks, "results_next")


def test_a_short_page_under_an_estimate_offers_no_next():
    blocks = render_results(page_of(36_000, estimated=True, page=2, shown=3), "en").blocks
    assert button_values(blocks, "results_next") == []
    assert [decode_value(v).page for v in button_values(blocks, "results_prev")] == [1]


@pytest.mark.parametrize(
    ("lang", "like", "expected"),
    [
        ("en", None, "No more papers for “diffusion”: page 4 is empty"),
        ("zh", None, "与“diffusion”匹配的论文已全部列出，第 4 页没有结果"),
        ("en", paper(9), "No more papers like “Diffusion Paper 9”: page 4 is empty"),
        ("zh", paper(9), "与“扩散论文9”相似的论文已全部列出，第 4 页没有结果"),
    ],
)
def test_an_empty_page_past_an_estimate_says_so_and_leads_back(lang, like, expected):
    blocks = render_results(page_of(36_000, estimated=True, page=4, shown=0), lang, like=like).blocks
    assert all_text(blocks).startswith(expected)
    assert "No papers found" not in all_text(blocks) and "没有找到" not in all_text(blocks)
    assert button_values(blocks, "results_next") == []
    (back,) = button_values(blocks, "results_prev")
    assert decode_value(back).page == 3 and decode_value(back).mode == ("more" if like else "search")


@pytest.mark.parametrize(
    ("lang", "about", "exact"),
    [("en", "About *36,000* papers", "*36,123* papers"), ("zh", "找到约 *3.6万* 篇论文", "共找到 *36,123* 篇论文")],
)
def test_console_and_app_home_show_the_estimate(lang, about, exact):
    for estimated, expected in ((True, about), (False, exact)):
        result = page_of(36_123, estimated=estimated)
        console = reply_to_text(Reply(render_results(result, lang), lang=lang, result=result))
        assert expected in console
        home = render_home("U1", lang, newest=[], paper_count=36_123, result=result, subscriptions=[])
        assert expected in blocks_to_text(home["blocks"])


@pytest.mark.parametrize(
    ("lang", "about", "exact"),
    [
        ("en", "About 36,000 papers for “diffusion” · page 2", "36,123 papers for “diffusion” · page 2 of 7,225"),
        ("zh", "“diffusion”找到约 3.6万 篇论文 · 第 2 页", "“diffusion”共找到 36,123 篇论文 · 第 2/7,225 页"),
    ],
)
def test_cli_text_and_json_flag_the_estimate(lang, about, exact):
    for estimated, expected in ((True, about), (False, exact)):
        result = page_of(36_123, estimated=estimated, page=2)
        assert expected in format_result(result, lang).splitlines()
        data = json.loads(json.dumps(result.to_dict(), ensure_ascii=False))
        assert (data["total"], data["estimated"], data["page"], len(data["hits"])) == (36_123, estimated, 2, 5)
    assert "page 4 is empty" in format_result(page_of(36_123, estimated=True, page=4, shown=0), "en")


@pytest.mark.parametrize(
    ("lang", "estimated", "expected"),
    [
        ("en", True, "(about 36,000 in the library match today)"),
        ("zh", True, "（目前库中约有 3.6万 篇匹配）"),
        ("en", False, "(36,123 in the library match today)"),
        ("zh", False, "（目前库中有 36,123 篇匹配）"),
    ],
)
def test_a_digest_filters_match_count_is_flagged_too(lang, estimated, expected):
    assert render_filter_note("diffusion", 36_123, lang, estimated=estimated).endswith(expected)


def test_corpus_carries_the_estimate_and_counts_a_page_the_matches_did_not_fill(seed_corpus):
    ids = [p.id for p in seed_corpus.newest(5)]
    full = IndexPage([IndexHit(i, 1.0) for i in ids], 36_123, "all", estimated=True)
    result = seed_corpus._result("q", full, 1, 5)
    assert (result.total, result.estimated, len(result.hits)) == (36_123, True, 5)
    short = IndexPage([IndexHit(i, 1.0) for i in ids[:3]], 36_123, "all", estimated=True)
    last = seed_corpus._result("q", short, 3, 5)  # pages 1-2 were full, page 3 holds 3: 13 in all
    assert (last.total, last.estimated, last.has_next) == (13, False, False)
    exact = seed_corpus._result("q", IndexPage([IndexHit(i, 1.0) for i in ids[:3]], 3, "all"), 1, 5)
    assert (exact.total, exact.estimated) == (3, False)
