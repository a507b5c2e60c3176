"""No text a person can type makes search raise: hypothesis against a small real index."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.models import Affiliation, Fragment, Paper
from bot.search.index import IndexPage, PaperIndex
from bot.search.query import build_query

PAPERS = [
    Paper(
        id="p1",
        title_en="Speculative Decoding for Long-Context LLMs",
        title_zh="面向长上下文大语言模型的推测解码",
        authors=["Chelsea Finn", "Yilun Du"],
        affiliations=[Affiliation("Harvard University", "哈佛大学")],
        summary_zh="提出KV缓存压缩方法，显著降低推理延迟。",
        comments="Accepted at ICML 2026",
        venue="ICML 2026",
        venue_name="ICML",
        year=2026,
        track="main",
        feeds=["ICML"],
        seq=1,
        rev=1,
    ),
    Paper(
        id="p2",
        title_en="Grokking in Ridge Regression",
        title_zh="岭回归中的Grokking现象",
        authors=["Gal Vardi"],
        affiliations=[Affiliation("Weizmann Institute", "魏茨曼研究院")],
        summary_zh="研究带权重衰减的梯度下降。",
        venue="ICML 2026 Workshop",
        venue_name="ICML",
        year=2026,
        track="workshop",
        feeds=["ICML", "Harvard University（哈佛大学）"],
        seq=2,
        rev=2,
    ),
]

# Pieces people (and copy-paste accidents) put in search boxes, mixed with anything at all.
SYNTAX = st.sampled_from(
    [
        '"',
        "“",
        "”",
        "(",
        ")",
        ":",
        "：",
        "OR",
        "AND",
        "NOT",
        "-",
        "*",
        "?",
        "~",
        "^",
        "\\",
        "/",
        "author:",
        "affil:",
        "venue:",
        "feed:",
        "year:",
        "foo:",
        "year:2026",
        "year:99999999999",
        "作者:",
        "😀",
        "🚀",
        "\u200b",
        "\x00",
        "\x1e",
        "\x1f",
        "\n",
        "　",
        "ＫＶ",
        "缓存",
        "上下文",
        "speculative",
        "grokking",
        "KV-Cache",
        "||",
        "&&",
        "[",
        "]",
        "{",
        "}",
        "'",
        "’",
        "推測",
        "北大",
        "哈佛",
        "KVCache",
        "multiagent",
        "LLM",
        "大模型",
        "papers",
        "about",
        "如何",
        "的论文",
        "Guðmundsdóttir",
        "截码",
        "ǅ",
        "ﬁ",
    ]
)
QUERY = st.lists(st.one_of(SYNTAX, st.text(max_size=12)), max_size=30).map(" ".join) | st.text(max_size=300)


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory):
    index = PaperIndex(Path(tmp_path_factory.mktemp("property")) / "index")
    index.rebuild(PAPERS)
    yield index
    index.close()


def assert_well_formed(page: IndexPage, per_page: int) -> None:
    assert isinstance(page, IndexPage)
    assert page.mode in ("all", "any", "none")
    assert page.total >= len(page.hits) >= 0
    assert len(page.hits) <= per_page
    assert (page.mode == "none") == (page.total == 0)
    assert page.suggestion is None or isinstance(page.suggestion, str)
    assert page.problem in (None, "query_empty", "query_repaired", "query_truncated")
    for hit in page.hits:
        assert hit.id in ("p1", "p2")
        assert all(isinstance(f, Fragment) for f in hit.snippet)
        assert sum(len(f.text) for f in hit.snippet) <= 202


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=QUERY, page=st.integers(-2, 4), per_page=st.integers(-1, 6))
def test_search_never_raises(small_index: PaperIndex, text: str, page: int, per_page: int) -> None:
    result = small_index.search(text, page=page, per_page=per_page)
    assert_well_formed(result, max(1, per_page))


@settings(max_examples=200, deadline=None)
@given(text=QUERY, mode=st.sampled_from(["all", "any"]))
def test_build_query_never_raises(text: str, mode: str) -> None:
    built = build_query(text, mode=mode)
    assert (built.query is None) == (built.problem == "query_empty")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=QUERY, mode=st.sampled_from(["all", "any"]))
def test_expanded_query_never_raises(small_index: PaperIndex, text: str, mode: str) -> None:
    built = build_query(text, mode=mode, lexicon=small_index.lexicon(), expand=True, is_known=lambda t: len(t) % 2 == 0)
    assert (built.query is None) == (built.problem == "query_empty")
    assert all(isinstance(label, str) and "→" in label for label in built.expanded)
