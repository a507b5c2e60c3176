"""Pure renderers: dicts in, dicts out, always within Block Kit's limits."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.models import Affiliation, Fragment, Hit, Paper, SearchResult
from bot.slack.render.blocks import (
    LIMITS,
    actions,
    button,
    check_blocks,
    check_view,
    context,
    header,
    section,
    split_text,
    truncate,
)
from bot.slack.render.cards import render_card, render_snippet, short_authors
from bot.slack.render.help import render_help
from bot.slack.render.home import render_home
from bot.slack.render.mrkdwn import escape, escape_code, escape_label, unescape_slack_text
from bot.slack.render.plain import blocks_to_text
from bot.slack.render.results import render_no_results, render_results
from bot.slack.values import ButtonValue, decode_value, encode_value


def huge_paper(paper_id: str = "0123456789ab") -> Paper:
    """60 authors, 40 affiliations, a 5,000-character summary, titles past every limit."""
    return Paper(
        id=paper_id,
        title_en="A Very Long Title About Speculative Decoding " * 12,
        title_zh="关于推测解码的非常长的标题" * 30,
        authors=[f"Author Number{i} Surname{i}" for i in range(60)],
        affiliations=[Affiliation(f"University {i} of Somewhere", f"某地第{i}大学") for i in range(40)],
        summary_zh="本文提出了一种新的推测解码方法，显著提升了吞吐量。" * 200,
        comments="Accepted at ICML 2026. " * 200,
        journal_ref="Proceedings " * 300,
        venue="ICML 2026",
        urls=[f"https://example.org/paper/{i}" for i in range(15)],
    )


def small_paper(paper_id: str = "aaaabbbbcccc") -> Paper:
    return Paper(
        id=paper_id,
        title_en="ParisKV: Fast KV-Cache Retrieval",
        title_zh="ParisKV：快速的KV缓存检索",
        authors=["Yanlin Qi", "Xinhang Chen"],
        affiliations=[Affiliation("Xi'an Jiaotong University", "西安交通大学"), Affiliation("Qwen Team", "")],
        summary_zh="提出基于碰撞候选选择的KV缓存检索框架。",
        venue="ICML 2026",
        urls=["https://arxiv.org/abs/2601.00001"],
    )


def result_of(papers: list[Paper], *, total: int | None = None, page: int = 1, query: str = "kv cache", **kwargs) -> SearchResult:
    hits = [
        Hit(paper=p, score=1.0, snippet=[Fragment("fast "), Fragment("KV缓存", True), Fragment(" retrieval")]) for p in papers
    ]
    return SearchResult(query=query, hits=hits, total=total if total is not None else len(hits), page=page, **kwargs)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_huge_paper_renders_within_limits_everywhere(lang):
    paper = huge_paper()
    messages = [
        render_card(paper, lang, full=True),
        render_card(paper, lang, full=False, shared_by="U1"),
        render_results(result_of([huge_paper(f"{i:012x}") for i in range(5)], total=500, page=3, query="q" * 4000), lang),
        render_results(result_of([paper], total=9), lang, like=paper),
    ]
    for message in messages:
        assert check_blocks(message.blocks) == []
        assert len(message.text) <= LIMITS["message_text"]
    card = render_card(paper, lang, full=True).blocks
    assert card[0]["type"] == "header" and card[0]["text"]["text"].endswith("…")
    summary = [b for b in card if b.get("type") == "section" and "推测解码方法" in b.get("text", {}).get("text", "")]
    assert 2 <= len(summary) <= 4  # 5,000+ characters split over several sections, not cut to one
    assert "Author Number59" in blocks_to_text(card)  # every author in Details


def test_huge_home_view_is_within_limits():
    papers = [huge_paper(f"{i:012x}") for i in range(5)]
    view = render_home("U1", "zh", newest=papers, paper_count=5, result=result_of(papers, total=99), subscriptions=[])
    assert check_view(view) == []


def test_results_layout():
    blocks = render_results(result_of([small_paper()], total=7), "en").blocks
    assert blocks[0] == section("*7* papers for “kv cache” · page 1 of 2")
    hit = blocks[1]
    assert hit["block_id"] == "hit:1:aaaabbbbcccc"
    assert hit["text"]["text"].split("\n") == [
        "1. *<https://arxiv.org/abs/2601.00001|ParisKV: Fast KV-Cache Retrieval>*",
        "_ParisKV：快速的KV缓存检索_",
        "Yanlin Qi, Xinhang Chen · Xi'an Jiaotong University; Qwen Team · *ICML 2026*",
        "> fast \u200b*KV缓存*\u200b retrieval",
    ]
    assert [e["action_id"] for e in blocks[2]["elements"]] == [
        "paper_share",
        "paper_details",
        "paper_more",
        "paper_save",
        "paper_like",
        "paper_dislike",
        "link_arxiv_1",
        "link_pdf_1",
    ]
    assert [e.get("url") for e in blocks[2]["elements"][6:]] == [
        "https://arxiv.org/abs/2601.00001",
        "https://arxiv.org/pdf/2601.00001",
    ]
    assert decode_value(blocks[2]["elements"][0]["value"]) == ButtonValue(id="aaaabbbbcccc", lang="en")
    assert blocks[-1]["elements"][0]["action_id"] == "results_next"
    assert decode_value(blocks[-1]["elements"][0]["value"]) == ButtonValue(mode="search", query="kv cache", lang="en", page=2)


def test_chinese_reader_sees_chinese_first():
    text = render_results(result_of([small_paper()]), "zh").blocks[1]["text"]["text"].split("\n")
    assert "ParisKV：快速的KV缓存检索" in text[0] and text[1] == "_ParisKV: Fast KV-Cache Retrieval_"
    assert "西安交通大学；Qwen Team" in text[2]


def test_any_term_fallback_and_problem_are_said():
    result = result_of([small_paper()], mode="any", problem="query_repaired")
    text = blocks_to_text(render_results(result, "en").blocks)
    assert "some of them" in text and "unclosed quote" in text


def test_no_results_offers_the_suggestion():
    message = render_no_results(SearchResult(query="specalative", hits=[], total=0, mode="none", suggestion="speculative"), "en")
    assert check_blocks(message.blocks) == []
    assert message.blocks[0] == section("No papers found for “specalative”.")
    (button_block,) = [b for b in message.blocks if b["type"] == "actions"]
    assert button_block["elements"][0]["action_id"] == "search_run"
    assert decode_value(button_block["elements"][0]["value"]).query == "speculative"


def test_shared_card_says_who_shared_and_has_no_share_button():
    blocks = render_card(small_paper(), "en", full=False, shared_by="U42").blocks
    assert blocks[0] == context("<@U42> shared this paper")
    assert [e["action_id"] for e in blocks[-1]["elements"]] == [
        "paper_details",
        "paper_more",
        "paper_save",
        "paper_like",
        "paper_dislike",
        "link_arxiv_1",
        "link_pdf_1",
    ]


@pytest.mark.parametrize(
    ("authors", "expected"),
    [
        ([], ""),
        (["A"], "A"),
        (["A", "B", "C", "D"], "A, B, C, D"),
        (["A", "B", "C", "D", "E"], "A, B, C +2"),
        ([f"X{i}" for i in range(15)], "X0, X1, X2 +12"),
        (["<b>&"], "&lt;b&gt;&amp;"),
    ],
)
def test_short_authors(authors, expected):
    assert short_authors(authors, "en") == expected


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [("abc", 3, "abc"), ("abcd", 3, "ab…"), ("", 5, ""), ("ab cd", 4, "ab…")],
)
def test_truncate(text, limit, expected):
    assert truncate(text, limit) == expected


def test_snippet_bolds_hits_and_escapes_markup():
    fragments = [Fragment("a <tag> & "), Fragment("star*s", True), Fragment(" end")]
    assert render_snippet(fragments) == "a &lt;tag&gt; &amp; \u200b*star∗s*\u200b end"
    assert len(render_snippet([Fragment("x" * 5000)], limit=100)) == 100


def test_split_text_prefers_sentence_ends():
    parts = split_text("一句话。" * 1000, 300, 3)
    assert len(parts) == 3 and all(len(p) <= 300 for p in parts)
    assert parts[0].endswith("。") and parts[-1].endswith("…")


def test_button_value_stays_under_2000_characters():
    element = button("x" * 100, "a", ButtonValue(query="长" * 5000, lang="zh"))
    assert len(element["value"]) <= LIMITS["button_value"] and len(element["text"]["text"]) == 75


@pytest.mark.parametrize(
    ("blocks", "surface", "problem"),
    [
        ([section("x")] * 51, "message", "51 blocks > 50"),
        ([section("x")] * 101, "home", "101 blocks > 100"),
        ([{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}], "message", "3001 characters > 3000"),
        ([{"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}], "message", "151 characters > 150"),
        ([{"type": "header", "text": {"type": "mrkdwn", "text": "x"}}], "message", "must be plain_text"),
        ([{"type": "context", "elements": [{"type": "mrkdwn", "text": "x"}] * 11}], "message", "11 elements"),
        ([{"type": "actions", "elements": [button("b", f"a{i}", "v") for i in range(26)]}], "message", "26 elements"),
        (
            [{"type": "actions", "elements": [{**button("b", "a", "v"), "text": {"type": "plain_text", "text": "x" * 76}}]}],
            "message",
            "76 characters > 75",
        ),
        ([{"type": "actions", "elements": [{**button("b", "a", "v"), "value": "v" * 2001}]}], "message", "button value longer"),
        ([actions(button("b", "a", "v"), button("c", "a", "w"))], "message", "duplicate action_id"),
        ([{"type": "section", "fields": [{"type": "mrkdwn", "text": "f"}] * 11}], "message", "11 fields > 10"),
        ([{"type": "section", "fields": [{"type": "mrkdwn", "text": "f" * 2001}]}], "message", "2001 characters > 2000"),
        ([section("x", block_id="same"), section("y", block_id="same")], "message", "duplicate block_id"),
        ([{"type": "section", "text": {"type": "mrkdwn", "text": ""}}], "message", "empty text"),
    ],
)
def test_check_blocks_finds_each_limit(blocks, surface, problem):
    problems = check_blocks(blocks, surface)
    assert any(problem in p for p in problems), problems


def test_check_blocks_accepts_the_edges():
    blocks = [header("x" * 150), section("x" * 3000), context(*["c"] * 10)] + [section("x")] * 47
    assert check_blocks(blocks) == []


def test_blocks_to_text():
    blocks = [
        header("Title"),
        section("*bold* <https://a.org|link> <@U1> &lt;x&gt;"),
        context("one", "two"),
        actions(button("Share", "s", "v"), button("Details", "d", "v")),
    ]
    assert blocks_to_text(blocks) == "Title\n=====\n*bold* link (https://a.org) @U1 <x>\none · two\n[Share] [Details]"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_fits_block_kit(lang):
    assert check_blocks(render_help(lang).blocks) == []


names = st.text(min_size=0, max_size=300)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    title_en=names,
    title_zh=names,
    authors=st.lists(names, max_size=80),
    summary=st.text(max_size=7000),
    query=st.text(max_size=3000),
    lang=st.sampled_from(["en", "zh"]),
    snippet=st.lists(st.builds(Fragment, st.text(max_size=400), st.booleans()), max_size=30),
)
def test_any_paper_renders_within_limits(title_en, title_zh, authors, summary, query, lang, snippet):
    paper = Paper(id="abcdef123456", title_en=title_en, title_zh=title_zh, authors=authors, summary_zh=summary, comments=summary)
    hit = Hit(paper=paper, score=1.0, snippet=snippet)
    result = SearchResult(query=query, hits=[hit] * 5, total=50, page=2, suggestion=query[:100] or None)
    for message in (render_results(result, lang), render_card(paper, lang), render_card(paper, lang, full=False, shared_by="U1")):
        assert check_blocks(message.blocks) == [], message.blocks
    assert len(encode_value(ButtonValue(query=query))) <= LIMITS["button_value"]


@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("KV cache &amp; retrieval", "KV cache & retrieval"),
        ("a &lt;b&gt; c", "a <b> c"),
        ("&amp;lt;", "&lt;"),  # a typed "&lt;" is read once, not twice
        ("<https://arxiv.org/abs/2601.00001|ParisKV> paper", "ParisKV paper"),
        ("see <https://github.com/x/my_repo>", "see https://github.com/x/my_repo"),
        ("<mailto:a@b.org|a@b.org>", "a@b.org"),
        ("<#C123|general> papers", "#general papers"),
        ("<#C123> papers", "  papers"),
        ("<@U123> ParisKV", "  ParisKV"),
        ("<@U123|ada> ParisKV <!here>", "  ParisKV  "),
        ("<https://a.org/?q=1&amp;r=2|a &amp; b>", "a & b"),
        ("推测解码", "推测解码"),
    ],
)
def test_unescape_slack_text(typed, plain):
    assert unescape_slack_text(typed) == plain


# -- paper text can't break mrkdwn -------------------------------------------------------

MARKUP_TITLE = "A* Search for *Bold* Claims: x_1 and y_2 with `code` ~strike~"
INERT_TITLE = "A∗ Search for ∗Bold∗ Claims: xˍ1 and yˍ2 with ˋcodeˋ ∼strike∼"


def markup_paper() -> Paper:
    return Paper(
        id="abcabcabcabc",
        title_en=MARKUP_TITLE,
        title_zh="用于*粗体*断言的A*搜索",
        authors=["O'Brien *Jr*", "Ann_Lee"],
        affiliations=[Affiliation("Lab ~X~", "")],
        summary_zh="代码见https://github.com/x/my_repo，欢迎使用_任意_版本。",
        comments="Code at https://github.com/x/my_repo. *Oral*",
        venue="ICML_2026",
        urls=["https://example.org/a_b*c"],
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (MARKUP_TITLE, INERT_TITLE),
        ("<b> & </b>", "&lt;b&gt; &amp; &lt;/b&gt;"),
        ("code at https://github.com/x/my_repo.", "code at <https://github.com/x/my_repo>."),
        ("(see https://en.wikipedia.org/wiki/A*_(algorithm))", "(see <https://en.wikipedia.org/wiki/A*_(algorithm)>)"),
        ("代码见https://github.com/x/my_repo，以及_说明_", "代码见<https://github.com/x/my_repo>，以及ˍ说明ˍ"),
        ("https://a.org/?x=1&y=2 and *b*", "<https://a.org/?x=1&y=2> and ∗b∗"),
        ("https:// alone", "https:// alone"),
    ],
)
def test_escape_makes_text_inert_and_keeps_urls_exact(text, expected):
    assert escape(text) == expected


def test_escape_label_and_code():
    assert escape_label("my_repo https://a.org/x_y") == "myˍrepo https://a.org/xˍy"  # a label holds no link
    assert escape_code("my_file *v2*.txt `x` <y>") == "my_file *v2*.txt ˋxˋ &lt;y&gt;"  # code shows * and _ as they are


def test_markup_in_a_paper_renders_as_text_in_results():
    hit = render_results(result_of([markup_paper()]), "en").blocks[1]["text"]["text"].split("\n")
    assert hit[0] == f"1. *{INERT_TITLE}*"  # not on arXiv: the title links nowhere, the URL is a button
    assert hit[1] == "_用于∗粗体∗断言的A∗搜索_"
    assert hit[2] == "O'Brien ∗Jr∗, AnnˍLee · Lab ∼X∼ · *ICMLˍ2026*"


def test_markup_in_a_paper_renders_as_text_on_its_card():
    text = all_texts(render_card(markup_paper(), "en", full=True).blocks)
    assert "O'Brien ∗Jr∗, AnnˍLee" in text
    assert "Code at <https://github.com/x/my_repo>. ∗Oral∗" in text
    assert "代码见<https://github.com/x/my_repo>，欢迎使用ˍ任意ˍ版本。" in text
    buttons = render_card(markup_paper(), "en", full=True).blocks[-1]["elements"]
    assert [(e["text"]["text"], e.get("url")) for e in buttons if "url" in e][-1] == ("Project", "https://example.org/a_b*c")
    assert "*" not in text.replace("*Authors*", "").replace("*Affiliations*", "").replace("*Venue*", "").replace(
        "*Paper id*", "").replace("*AI summary*", "").replace("*Comments*", "").replace("a_b*c", "")  # fmt: skip


def all_texts(blocks: list[dict]) -> str:
    """Every mrkdwn text in `blocks` (headers and buttons are plain text: nothing to escape)."""
    out = []
    for block in blocks:
        texts = [block.get("text"), *block.get("fields", []), *block.get("elements", [])]
        out += [x["text"] for x in texts if isinstance(x, dict) and x.get("type") == "mrkdwn"]
    return "\n".join(out)


def test_notification_text_keeps_mentions_and_escaping():
    paper = Paper(id="abcabcabcabc", title_en="Attacks on <!channel> & Friends", title_zh="")
    card = render_card(paper, "en", full=False, shared_by="U07ABC")
    assert card.text == "<@U07ABC> shared this paper: Attacks on &lt;!channel&gt; &amp; Friends"
    results = render_results(result_of([paper], query="<!here> & co"), "en")
    assert "“&lt;!here&gt; &amp; co”" in results.text and "<!here>" not in results.text
    assert "\u200b" not in results.text


def test_the_console_still_reads_plain_text():
    blocks = render_card(small_paper(), "en", full=False, shared_by="U42").blocks
    assert blocks_to_text(blocks).startswith("@U42 shared this paper")


def primary_buttons(blocks: list[dict]) -> list[dict]:
    elements = [e for b in blocks for e in [*b.get("elements", []), b.get("accessory") or {}]]
    return [e for e in elements if isinstance(e, dict) and e.get("style") == "primary"]


def test_a_message_has_at_most_one_primary_button():
    papers = [small_paper(f"{n:012d}") for n in range(5)]
    with_suggestion = render_results(result_of(papers, total=12, suggestion="kv caches"), "en")
    # "Search instead for" is a quiet way back to the typed text, not the message's main action.
    assert primary_buttons(with_suggestion.blocks) == []
    assert "search_run" in [e.get("action_id") for b in with_suggestion.blocks for e in b.get("elements", [])]
    assert primary_buttons(render_results(result_of(papers, total=12), "en").blocks) == []
    assert primary_buttons(render_card(papers[0], "zh").blocks) == []


def test_one_page_of_results_says_no_page_number():
    (en,) = [b["text"]["text"] for b in render_results(result_of([small_paper()]), "en").blocks[:1]]
    (zh,) = [b["text"]["text"] for b in render_results(result_of([small_paper()]), "zh").blocks[:1]]
    assert en == "*1* paper for “kv cache”" and zh == "“kv cache”共找到 *1* 篇论文"
