"""The bilingual analyzer: token lists for Chinese, English, mixed and full-width text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.search.analysis import (
    BilingualAnalyzer,
    analyze,
    bilingual_analyzer,
    join_sections,
    normalize_text,
    spelling_analyzer,
    split_sections,
)


def tokens(text: str, mode: str = "index") -> list[str]:
    return [t.text for t in bilingual_analyzer()(text, mode=mode)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("KV缓存", ["kv", "缓存"]),
        ("KV-Cache", ["kv", "cach"]),
        ("kv_cache", ["kv", "cach"]),
        ("Speculative Decoding", ["specul", "decod"]),
        ("decoders decoding decoded", ["decod", "decod", "decod"]),
        ("LLM LLMs", ["llm", "llm"]),
        ("ICML 2026", ["icml", "2026"]),
        ("GPT-4o", ["gpt", "4o"]),
        ("the art of the model", ["art", "model"]),
        ("ＫＶ缓存", ["kv", "缓存"]),  # full-width letters
        ("ＩＣＭＬ　２０２６", ["icml", "2026"]),  # full-width digits and ideographic space
        ("缓存，检索。", ["缓存", "检索"]),  # full-width punctuation is a separator
        ("Québec ERDOĞAN", ["quebec", "erdogan"]),  # accents folded, never stemmed away
        ("Tübingen", ["tubingen"]),
        ("😀🚀", []),
        ("", []),
    ],
)
def test_index_tokens(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


@pytest.mark.parametrize(
    ("text", "index", "query"),
    [
        ("上下文学习", ["上下", "下文", "上下文", "学习"], ["上下文", "学习"]),
        ("哈佛大学", ["哈佛", "大学", "哈佛大学"], ["哈佛大学"]),
        ("大语言模型", ["大", "语言", "模型"], ["大", "语言", "模型"]),
        ("模型的训练", ["模型", "训练"], ["模型", "训练"]),  # 的 is a stopword
    ],
)
def test_chinese_index_adds_subwords_query_does_not(text: str, index: list[str], query: list[str]) -> None:
    assert tokens(text, "index") == index
    assert tokens(text, "query") == query


def test_query_tokens_are_a_subset_of_index_tokens() -> None:
    text = "稳定原生低秩大语言模型预训练 with KV-Cache 上下文"
    assert set(tokens(text, "query")) <= set(tokens(text, "index"))


def test_hmm_off_keeps_unknown_words_consistent_across_contexts() -> None:
    # With HMM on, 低秩大语言模型 segmented as 低/秩大/语言/模型 and 大 went missing.
    assert set(tokens("大语言模型", "query")) <= set(tokens("稳定原生低秩大语言模型预训练"))


def test_chinese_is_never_stemmed() -> None:
    assert tokens("训练 trainings") == ["训练", "train"]


def test_subwords_share_the_position_of_their_word() -> None:
    got = [(t.text, t.pos) for t in bilingual_analyzer()("KV 上下文学习", positions=True)]
    assert got == [("kv", 0), ("上下", 1), ("下文", 1), ("上下文", 1), ("学习", 2)]


def test_stopwords_leave_no_position_gap() -> None:
    got = [(t.text, t.pos) for t in bilingual_analyzer()("retrieval of the code", positions=True)]
    assert got == [("retriev", 0), ("code", 1)]


def test_chars_point_into_the_original_text() -> None:
    text = "ＫＶ缓存 ﬁnite 上下文"  # full-width and a ligature that NFKC expands
    got = [(t.text, text[t.startchar : t.endchar]) for t in bilingual_analyzer()(text, chars=True)]
    assert got == [("kv", "ＫＶ"), ("缓存", "缓存"), ("finit", "ﬁnite"), ("上下", "上下"), ("下文", "下文"), ("上下文", "上下文")]


@pytest.mark.parametrize(
    ("text", "expected_len"),
    [("ﬁ", 2), ("ＫＶ", 2), ("plain", 5)],
)
def test_normalize_text_maps_offsets_when_lengths_change(text: str, expected_len: int) -> None:
    norm, offsets = normalize_text(text)
    assert len(norm) == expected_len
    if offsets is not None:
        assert len(offsets) == len(norm) + 1
        assert offsets[-1] == len(text)


def test_overlong_tokens_are_dropped() -> None:
    assert tokens("a" * 41 + " ok") == ["ok"]


def test_sections_carry_their_boost_and_stay_apart() -> None:
    value = join_sections([(4.0, "speculative"), (1.0, "decoding")])
    got = [(t.text, t.boost, t.pos) for t in bilingual_analyzer()(value, positions=True)]
    assert [(text, boost) for text, boost, _ in got] == [("specul", 4.0), ("decod", 1.0)]
    assert got[1][2] - got[0][2] > 1  # no phrase across sections


def test_sections_round_trip_and_survive_separators_in_text() -> None:
    packed = join_sections([(2.5, "a\x1eb"), (1.0, ""), (1.0, "c")])
    assert split_sections(packed) == [(2.5, "a b"), (1.0, "c")]


def test_spelling_analyzer_keeps_whole_english_words_only() -> None:
    got = [t.text for t in spelling_analyzer()("Speculative decoding 投机解码 for LLMs in 2026 by Xu")]
    assert got == ["speculative", "decoding", "llms"]


@pytest.mark.parametrize("mode", ["index", "query"])
def test_analyze_helper_matches_the_pipeline(mode: str) -> None:
    assert analyze("KV缓存 retrieval", mode=mode) == tokens("KV缓存 retrieval", mode)


# -- the indexing fast path (BilingualAnalyzer) makes the pipeline's tokens ---------------

_PIECES = [
    "the", "of", "a", "Learning", "KVCache", "ParisKV", "LLM4Cov", "Québec", "ﬁne-tuning", "ＫＶ", "２０２６",
    "上下文学习", "的", "大语言模型", "推測解碼", "了", "和", "ab" * 25, "x", "GPT-4o", "；", "，", "\n", " ", "-",
    "kvCache", "HTTPServer", "iPhone", "McDonald", "A1B2", "ÉCOLE", "ǅungla", "Ab", "2026",
]  # fmt: skip


def _pipeline(analyzer, value: str, **kwargs) -> list[tuple]:
    """The tokens Whoosh's own composition of the same tokenizer and filters yields."""
    from whoosh.analysis.analyzers import CompositeAnalyzer

    return [
        (t.text, t.pos if kwargs.get("positions") else None, t.boost)
        for t in CompositeAnalyzer.__call__(analyzer, value, **kwargs)
    ]


def _fast(analyzer, value: str, **kwargs) -> list[tuple]:
    return [(t.text, t.pos if kwargs.get("positions") else None, t.boost) for t in analyzer(value, **kwargs)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join), min_size=1, max_size=4), st.booleans())
def test_the_indexing_fast_path_yields_the_pipelines_tokens(texts: list[str], sectioned: bool) -> None:
    value = join_sections((float(n + 1), text) for n, text in enumerate(texts)) if sectioned else " ".join(texts)
    text_analyzer, spell = bilingual_analyzer(), spelling_analyzer()
    for _ in range(2):  # the second time from the caches
        assert _fast(text_analyzer, value, mode="index", positions=True) == _pipeline(
            text_analyzer, value, mode="index", positions=True
        )
        assert _fast(text_analyzer, value, mode="index") == _pipeline(text_analyzer, value, mode="index")
        assert _fast(spell, value, mode="index") == _pipeline(spell, value, mode="index")
        for analyzer, positions in ((text_analyzer, True), (text_analyzer, False), (spell, False)):
            assert analyzer.index_terms(value, positions) == _counted(
                _pipeline(analyzer, value, mode="index", positions=positions), positions
            )


def _counted(tokens: list[tuple], positions: bool) -> tuple[int, dict[str, list]]:
    """What Whoosh's Positions or Frequency format sums from `tokens`: (length, term -> [weight, positions or count])."""
    terms: dict[str, list] = {}
    for text, pos, boost in tokens:
        entry = terms.setdefault(text, [0.0, 0] if not positions else [0.0])
        entry[0] += boost
        if positions:
            entry.append(pos)
        else:
            entry[1] += 1
    return len(tokens), terms


def test_a_paper_indexes_to_the_same_postings_through_the_fast_path() -> None:
    from whoosh.analysis.analyzers import CompositeAnalyzer

    from bot.models import Affiliation, Paper
    from bot.search.schema import build_schema, paper_document

    paper = Paper(
        id="p1", title_en="Speculative Decoding of the KVCache", title_zh="推測解碼的上下文学习",
        authors=["José Müller", "Chelsea Finn"], affiliations=[Affiliation("Harvard University", "哈佛大学")],
        summary_zh="提出一种上下文学习方法，显著降低KV缓存开销。", comments="Accepted at ICML 2026", feeds=["ICML"],
    )  # fmt: skip
    doc = paper_document(paper)
    checked = set()
    for name, field in build_schema().items():
        if name in doc and isinstance(field.analyzer, BilingualAnalyzer):
            fast = list(field.index(doc[name]))
            slow_analyzer = CompositeAnalyzer(*field.analyzer.items)
            slow = list(field.format.word_values(doc[name], slow_analyzer, mode="index"))
            assert sorted(fast) == sorted((w.encode(), f, wt, v) for w, f, wt, v in slow), name
            checked.add(name)
    assert checked == {"text", "authors", "affil", "venue", "feed", "spell"}
