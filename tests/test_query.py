"""build_query and friends: what user text turns into, without running it."""

from __future__ import annotations

import pytest
from whoosh import query as wq

from bot.search.query import (
    MAX_CLAUSES,
    Clause,
    Group,
    build_query,
    normalize_query,
    parse_query,
    suggest_query,
)


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        ("speculative", wq.Term("text", "specul")),
        ("speculative decoding", wq.And([wq.Term("text", "specul"), wq.Term("text", "decod")])),
        ("KV缓存", wq.And([wq.Term("text", "kv"), wq.Term("text", "缓存")])),
        ('"speculative decoding"', wq.Phrase("text", ["specul", "decod"])),
        ("“speculative decoding”", wq.Phrase("text", ["specul", "decod"])),  # typographic quotes
        ("a OR b2", wq.Term("text", "b2")),  # "a" is a stopword
        ("grokking OR ridge", wq.Or([wq.Term("text", "grokk"), wq.Term("text", "ridg")])),
        ("author:Finn", wq.Term("authors", "finn")),
        ("作者:Finn", wq.Term("authors", "finn")),
        ("AUTHOR:Finn", wq.Term("authors", "finn")),
        ('author:"Chelsea Finn"', wq.Phrase("authors", ["chelsea", "finn"])),
        ("author: Finn", wq.Term("authors", "finn")),  # value after a space
        ("affil:哈佛", wq.Term("affil", "哈佛")),
        ("affil：Harvard", wq.Term("affil", "harvard")),  # full-width colon
        ("venue:workshop", wq.Term("venue", "workshop")),
        ("feed:ICML", wq.Term("feed", "icml")),
        ("year:2026", wq.NumericRange("year", 2026, 2026)),
        ("year:2024-2026", wq.NumericRange("year", 2024, 2026)),
        ("year:2026..2024", wq.NumericRange("year", 2024, 2026)),
        ("year:soon", wq.Term("text", "soon")),
        ("foo:bar", wq.And([wq.Term("text", "foo"), wq.Term("text", "bar")])),
        ("grokking -ridge", wq.AndNot(wq.Term("text", "grokk"), wq.Term("text", "ridg"))),
        ("grokking NOT ridge", wq.AndNot(wq.Term("text", "grokk"), wq.Term("text", "ridg"))),
    ],
)
def test_build_query_all_mode(user: str, expected: wq.Query) -> None:
    built = build_query(user)
    assert built.query == expected.normalize(), str(built.query)


def test_or_separates_alternatives() -> None:
    built = build_query("world model OR diffusion")
    assert built.query == wq.Or([wq.And([wq.Term("text", "world"), wq.Term("text", "model")]), wq.Term("text", "diffus")])


def test_or_with_mixed_languages_keeps_each_side_whole() -> None:
    built = build_query("KV缓存 OR speculative decoding")
    assert built.query == wq.Or(
        [
            wq.And([wq.Term("text", "kv"), wq.Term("text", "缓存")]),
            wq.And([wq.Term("text", "specul"), wq.Term("text", "decod")]),
        ]
    )


def test_parentheses_group() -> None:
    built = build_query("(grokking OR ridge) regression")
    assert built.query == wq.And([wq.Or([wq.Term("text", "grokk"), wq.Term("text", "ridg")]), wq.Term("text", "regress")])


def test_any_mode_relaxes_free_text_but_keeps_prefixes() -> None:
    built = build_query("author:Finn world diffusion", mode="any")
    assert built.query == wq.And([wq.Term("authors", "finn"), wq.Or([wq.Term("text", "world"), wq.Term("text", "diffus")])])


def test_any_mode_splits_multi_token_words() -> None:
    assert build_query("KV缓存", mode="any").query == wq.Or([wq.Term("text", "kv"), wq.Term("text", "缓存")])


@pytest.mark.parametrize(
    ("user", "problem"),
    [
        ("", "query_empty"),
        ("   \t\n", "query_empty"),
        ("the of and", "query_empty"),
        ("OR", "query_empty"),
        ("NOT", "query_empty"),
        ("*", "query_empty"),
        ("😀", "query_empty"),
        ("()", "query_empty"),
        ('"', "query_empty"),
        ("-grokking", "query_empty"),  # only a negation: nothing to subtract from
    ],
)
def test_nothing_to_search(user: str, problem: str) -> None:
    built = build_query(user)
    assert built.query is None and built.problem == problem


@pytest.mark.parametrize(
    "user",
    [
        'ridge "speculative decoding',
        "ridge (grokking",
        "ridge grokking)",
        "ridge grokking OR",
        "OR ridge grokking",
        "ridge OR OR grokking",
        "ridge grokking NOT",
        "ridge author:",
    ],
)
def test_repaired_input_still_searches_and_says_so(user: str) -> None:
    built = build_query(user)
    assert built.query is not None
    assert built.problem == "query_repaired"


def test_clean_input_has_no_problem() -> None:
    assert build_query('author:Finn "world model" OR robot').problem is None


def test_long_input_is_truncated_not_rejected() -> None:
    built = build_query("grokking " * 300)
    assert built.query is not None and built.problem == "query_truncated"


def test_clause_budget() -> None:
    words = " ".join(f"w{n}" for n in range(MAX_CLAUSES + 10))
    parsed = parse_query(words)
    assert len(parsed.root.children) == MAX_CLAUSES
    assert parsed.problem == "query_truncated"


def test_deep_parentheses_do_not_recurse_forever() -> None:
    built = build_query("(" * 200 + "grokking" + ")" * 200)
    assert built.query == wq.Term("text", "grokk")
    assert built.problem == "query_repaired"


def test_parse_tree() -> None:
    parsed = parse_query('author:Finn "world model" OR robot -diffusion')
    assert parsed.root == Group(
        "and",
        (
            Group(
                "or",
                (
                    Group("and", (Clause("Finn", "author"), Clause("world model", phrase=True))),
                    Group("and", (Clause("robot"), Clause("diffusion", negated=True))),
                ),
            ),
        ),
    )


def test_highlight_terms_follow_the_fields_searched() -> None:
    terms = build_query("author:Finn 缓存").terms
    assert ("authors", "finn") in terms and ("title_en", "finn") not in terms
    assert {("summary", "缓存"), ("title_zh", "缓存")} <= terms


def test_negated_terms_are_not_highlighted() -> None:
    assert ("title_en", "ridg") not in build_query("grokking -ridge").terms


def test_normalize_query_strips_control_characters() -> None:
    assert normalize_query("a\x1e4\x1fb") == "a 4 b"


KNOWN = {"speculative", "decoding", "grokking", "harvard", "finn"}
CLOSEST = {"speculativ": "speculative", "decodng": "decoding", "harvrd": "harvard"}


@pytest.mark.parametrize(
    ("user", "suggestion"),
    [
        ("speculativ decodng", "speculative decoding"),
        ("affil:Harvrd", "affil:harvard"),  # prefixes survive
        ('"speculativ decoding"', '"speculative decoding"'),
        ("speculative decoding", None),  # nothing to fix
        ("zzzz", None),  # nothing close enough
        ("LLM 推测解码", None),  # short words and Chinese are left alone
    ],
)
def test_suggest_query(user: str, suggestion: str | None) -> None:
    assert suggest_query(user, KNOWN.__contains__, CLOSEST.get) == suggestion


@pytest.mark.parametrize("text", ["world OR -model", "-model OR world"])
def test_an_alternative_of_only_exclusions_is_dropped_and_reported(text: str) -> None:
    built = build_query(text)
    assert built.query == wq.Term("text", "world")
    assert built.problem == "query_repaired"
