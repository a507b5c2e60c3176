"""The listing parser on the seed files and on every format variant and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ingest.listing import (
    find_urls,
    find_venue,
    paper_id,
    parse_affiliations,
    parse_path,
    parse_text,
)
from bot.models import Affiliation

SEEDS = Path(__file__).resolve().parent.parent / "seeds"

RECORD = """Fast Widgets for Everyone
人人可用的快速部件
Ada Lovelace, Alan Turing
机构 * Analytical Engine Lab（分析机实验室） ； Bletchley Park（布莱切利园） 纠错
AI总结 提出快速部件。
Comments Accepted at ICML 2026. Code: https://github.com/example/widgets
"""


def seed_papers():
    papers = {}
    records = 0
    for path in sorted(SEEDS.glob("*.txt")):
        listing = parse_path(path)
        assert listing.errors == []
        records += len(listing.records)
        for _, paper in listing.records:
            papers.setdefault(paper.id, paper)
    return records, papers


def by_title(papers, prefix):
    matches = [p for p in papers.values() if p.title_en.startswith(prefix)]
    assert len(matches) == 1, prefix
    return matches[0]


def test_seed_files_hold_110_records_of_97_papers():
    records, papers = seed_papers()
    assert records == 110
    assert len(papers) == 97


def test_seed_feeds_are_named_on_the_first_line():
    feeds = {parse_path(p).feed for p in SEEDS.glob("*.txt")}
    assert feeds == {"ICML", "Harvard University（哈佛大学）"}


def test_affiliation_pairs_are_split_english_and_chinese():
    _, papers = seed_papers()
    paper = by_title(papers, "Score Broadcast and Decorrelation")
    assert paper.title_zh == "分数广播与去相关：基于广播的信用分配通用框架"
    assert paper.authors == ["Mustafa Uzun", "Mete Erdogan", "Cengiz Pehlevan", "Alper T. Erdogan"]
    assert len(paper.affiliations) == 6
    assert paper.affiliations[0] == Affiliation("KUIS AI Center, Koc University, Turkey", "科克大学KUIS人工智能中心，土耳其")
    assert paper.affiliations[-1] == Affiliation("Center for Brain Science, Harvard University, USA", "哈佛大学脑科学中心，美国")
    assert "纠错" not in paper.affiliations[-1].zh
    assert paper.summary_zh.startswith("提出分数广播与去相关（SBD）框架")


def test_comment_urls_are_found():
    _, papers = seed_papers()
    assert by_title(papers, "World Action Verifier").urls == ["https://world-action-verifier.github.io"]
    assert by_title(papers, "Skip a Layer or Loop It").urls == ["https://github.com/tianyi-lab/PoLar"]


def test_workshop_venue_is_told_apart_from_the_main_conference():
    _, papers = seed_papers()
    workshop = by_title(papers, "Step-Tagging")
    assert (workshop.venue, workshop.venue_name, workshop.year, workshop.track) == (
        "ICML 2026 Workshop",
        "ICML",
        2026,
        "workshop",
    )
    main = by_title(papers, "MineDraft")
    assert (main.venue, main.track) == ("ICML 2026", "main")


def test_journal_ref_gives_the_venue():
    _, papers = seed_papers()
    paper = by_title(papers, "BESplit")
    assert paper.journal_ref.startswith("Proceedings of the Forty-Third International Conference on Machine Learning")
    assert paper.venue == "ICML 2026"


def test_paper_without_affiliations():
    _, papers = seed_papers()
    paper = by_title(papers, "Skewness-Robust Causal Discovery")
    assert paper.affiliations == []
    assert paper.authors == ["Daniel Klippert", "Alexander Marx"]
    assert paper.venue == "ICML 2026"


def test_affiliations_with_only_one_language():
    _, papers = seed_papers()
    paper = by_title(papers, "Symmetry Reveals Layerwise Dynamics")
    assert paper.affiliations == [Affiliation("Boston University, Departments of Computer Science", "")]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Accepted to ICML 26", ("ICML", 2026, "main")),
        (
            "appears in the Proceedings of the 43rd International Conference on Machine Learning (ICML '26)",
            ("ICML", 2026, "main"),
        ),
        (
            "The 3rd AI for Math Workshop at the 43rd International Conference on Machine Learning (ICML), Seoul, 2026",
            ("ICML", 2026, "workshop"),
        ),
        (
            "2025 IEEE International Conference on Machine Learning for Communication and Networking (ICMLCN)",
            ("ICMLCN", 2025, "main"),
        ),
        ("NeurIPS 2025 spotlight", ("NeurIPS", 2025, "main")),
        ("Project page: https://example.org", ("", None, "")),
    ],
)
def test_find_venue(text, expected):
    assert find_venue(text) == expected


def test_find_urls_strips_trailing_punctuation():
    assert find_urls("Code: https://github.com/a/b. See https://x.org/p（mirror） and https://github.com/a/b") == [
        "https://github.com/a/b",
        "https://x.org/p",
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("A Univ（甲大学） ； B Lab（乙实验室） 纠错", [Affiliation("A Univ", "甲大学"), Affiliation("B Lab", "乙实验室")]),
        ("A Univ (Dept. X)（甲大学（X系））", [Affiliation("A Univ (Dept. X)", "甲大学（X系）")]),
        ("A Univ (甲大学); B Lab", [Affiliation("A Univ", "甲大学"), Affiliation("B Lab", "")]),
        ("清华大学 ； MIT", [Affiliation("", "清华大学"), Affiliation("MIT", "")]),
        ("（北京大学）", [Affiliation("", "北京大学")]),
        ("Meta 纠错", [Affiliation("Meta", "")]),
    ],
)
def test_parse_affiliations(line, expected):
    assert parse_affiliations(line) == expected


def test_paper_id_ignores_case_width_and_punctuation():
    assert (
        paper_id("MineDraft: A Framework") == paper_id("minedraft — a  framework") == paper_id("ＭｉｎｅＤｒａｆｔ: A Framework")
    )
    assert paper_id("MineDraft: A Framework") != paper_id("MineDraft: Another Framework")


def test_bom_crlf_and_stray_blank_lines():
    text = "\ufeffICML\r\n\r\n\r\n" + RECORD.replace("\n", "\r\n\r\n\r\n") + "\r\n\r\n"
    listing = parse_text(text, "x.txt")
    assert listing.errors == []
    assert listing.feed == "ICML"
    [(line, paper)] = listing.records
    assert paper.title_en == "Fast Widgets for Everyone"
    assert paper.affiliations[1] == Affiliation("Bletchley Park", "布莱切利园")
    assert paper.urls == ["https://github.com/example/widgets"]


def test_missing_optional_lines_and_half_width_labels():
    text = "Some Feed\n\nPaper One\n论文一\nA. Author\nAI总结: 摘要一\n\nPaper Two with GPU 加速\n论文二：GPU 加速的 Transformer\n张三，李四\nAI总结：摘要二\nJournal-ref: TMLR 2025\n"
    listing = parse_text(text, "x.txt")
    assert listing.errors == []
    one, two = (p for _, p in listing.records)
    assert (one.comments, one.affiliations, one.venue) == ("", [], "")
    assert one.summary_zh == "摘要一"
    assert two.authors == ["张三", "李四"]
    assert two.title_zh == "论文二：GPU 加速的 Transformer"
    assert two.venue == "TMLR 2025"


def test_record_line_numbers_point_at_the_english_title():
    listing = parse_text("ICML\n\n" + RECORD + "\n" + RECORD.replace("Fast Widgets", "Slow Widgets"), "x.txt")
    assert [line for line, _ in listing.records] == [3, 10]


def test_record_without_summary_is_reported_and_the_next_still_parsed():
    broken = "Broken Paper\n坏论文\nNobody\n机构 * Nowhere（无处）\n"
    listing = parse_text("ICML\n" + broken + RECORD, "feed.txt")
    assert [p.title_en for _, p in listing.records] == ["Fast Widgets for Everyone"]
    [error] = listing.errors
    assert (error.path, error.line) == ("feed.txt", 2)
    assert "AI总结" in error.reason and "add the summary line" in error.reason
    assert "缺少" in error.reason_zh


def test_short_record_is_reported():
    listing = parse_text("ICML\nOnly A Title\nAI总结 摘要\n" + RECORD, "f.txt")
    [error] = listing.errors
    assert error.line == 2 and "has 1 line(s)" in error.reason
    assert len(listing.records) == 1


def test_chinese_only_first_line_is_reported():
    listing = parse_text("ICML\n只有中文标题\n只有中文标题\n作者\nAI总结 摘要\n", "f.txt")
    assert "English title" in listing.errors[0].reason
    assert listing.records == []


@pytest.mark.parametrize(
    "data, expected",
    [
        ("ICML\n快速部件\n".encode("gbk"), "looks like GBK"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        (b"", "file is empty"),
        ("AI总结 摘要\n".encode(), "first line must name the feed"),
    ],
)
def test_unreadable_files_are_rejected_with_a_reason(tmp_path, data, expected):
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    listing = parse_path(path)
    assert listing.records == []
    [error] = listing.errors
    assert expected in error.reason
    assert error.path == str(path)
    assert error.reason_zh and error.reason_zh != error.reason


def test_missing_file_is_reported(tmp_path):
    [error] = parse_path(tmp_path / "nope.txt").errors
    assert "cannot be read" in error.reason


def test_a_title_starting_with_comments_or_journal_is_a_title():
    text = (
        "ICML\nTitle One\n标题一\nAlice\nAI总结 摘要\n"
        "Comments on ICML 2024 Reviews\n关于评审的评论\nBob\nAI总结 摘要二\n"
        "Journal Reference Models for Citation\n引用模型\nCarol\nAI总结 摘要三\nJournal ref TMLR 2025\n"
    )
    listing = parse_text(text, "f.txt")
    assert listing.errors == []
    one, two, three = (p for _, p in listing.records)
    assert (one.comments, one.journal_ref, one.venue) == ("", "", "")
    assert two.title_en == "Comments on ICML 2024 Reviews"
    assert (three.title_en, three.journal_ref, three.venue) == ("Journal Reference Models for Citation", "TMLR 2025", "TMLR 2025")


def test_zero_width_characters_are_page_debris():
    listing = parse_text("ICML\nTitle\u200b A\n\u200b\n标题A\nAlice\n\u200bAI总结 摘要\n", "f.txt")
    assert listing.errors == []
    [(_, paper)] = listing.records
    assert (paper.title_en, paper.title_zh, paper.summary_zh) == ("Title A", "标题A", "摘要")


@pytest.mark.parametrize(
    "text, line, expected",
    [
        ("ICML\n", 1, "holds no records"),
        ("ICML\n???\n标题\nAlice\nAI总结 摘要\n", 2, "has no letters or digits"),
    ],
)
def test_silent_misparses_are_reported(text, line, expected):
    listing = parse_text(text, "f.txt")
    assert listing.records == []
    [error] = listing.errors
    assert error.line == line and expected in error.reason and error.reason_zh


def test_affiliation_separator_inside_parentheses_stays_in_the_name():
    assert parse_affiliations("Chemistry（物理；化学系） ； MIT（麻省理工）") == [
        Affiliation("Chemistry", "物理；化学系"),
        Affiliation("MIT", "麻省理工"),
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("12 pages (with appendix as PDF)", ("", None, "")),
        ("Data released under CC BY 4.0 (CCBY)", ("", None, "")),
        ("See arXiv 2012.12345 for the ICML version", ("ICML", None, "main")),
        ("Submitted to NeurIPS; extends our AAAI 2024 paper", ("NeurIPS", None, "main")),
    ],
)
def test_find_venue_ignores_lookalikes(text, expected):
    assert find_venue(text) == expected


def test_an_english_title_wrapped_onto_two_lines_is_joined():
    listing = parse_text("ICML\nA Very Long Title That\nWraps Onto a Second Line\n很长的标题\nAlice, Bob\nAI总结 摘要\n", "f.txt")
    assert listing.errors == []
    [(line, paper)] = listing.records
    assert (line, paper.title_en, paper.title_zh, paper.authors) == (
        2,
        "A Very Long Title That Wraps Onto a Second Line",
        "很长的标题",
        ["Alice", "Bob"],
    )


def test_a_chinese_title_may_stay_in_english():
    [(_, paper)] = parse_text("ICML\nTransformer\nTransformer\nAlice\nAI总结 摘要\n", "f.txt").records
    assert paper.title_zh == "Transformer"
