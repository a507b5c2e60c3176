"""paper_links (one pure function for every renderer), link buttons and the abstract's lead."""

from __future__ import annotations

import pytest

from bot.models import ArxivRecord, Link, Paper, paper_links
from bot.slack.render.blocks import check_blocks
from bot.slack.render.cards import abstract_lead, link_buttons, render_card
from bot.slack.render.plain import blocks_to_text

RECORD = ArxivRecord("2611.00001", version=3, title="T", abstract="A.")


def paper(urls: list[str], arxiv: ArxivRecord | None = None) -> Paper:
    return Paper(id="abcdefabcdef", title_en="T", title_zh="", urls=urls, arxiv=arxiv)


@pytest.mark.parametrize(
    "urls, arxiv, expected",
    [
        (
            ["https://github.com/a/b", "https://a.github.io/proj", "https://huggingface.co/m", "https://gitlab.com/x/y/",
             "https://github.com/a/b/", "https://arxiv.org/abs/2611.00001v2"],
            RECORD,
            [("arxiv", "https://arxiv.org/abs/2611.00001"), ("pdf", "https://arxiv.org/pdf/2611.00001"),
             ("code", "https://github.com/a/b"), ("project", "https://a.github.io/proj"),
             ("code", "https://huggingface.co/m"), ("code", "https://gitlab.com/x/y/")],
        ),
        (["https://arxiv.org/pdf/2501.01234v1.pdf"], None,
         [("arxiv", "https://arxiv.org/abs/2501.01234"), ("pdf", "https://arxiv.org/pdf/2501.01234")]),
        (["https://www.cs.example.edu/~me/paper"], None, [("project", "https://www.cs.example.edu/~me/paper")]),
        (["ftp://old.example.org/x"], None, []),
    ],
)  # fmt: skip
def test_links_are_classified_in_order_each_url_once(urls, arxiv, expected):
    assert paper_links(paper(urls, arxiv)) == [Link(kind, url) for kind, url in expected]


def test_link_buttons_number_repeated_kinds_and_stay_valid():
    buttons = link_buttons(paper(["https://github.com/a/b", "https://github.com/c/d"], RECORD), "en")
    assert [(b["text"]["text"], b["action_id"]) for b in buttons] == [
        ("arXiv", "link_arxiv_1"), ("PDF", "link_pdf_1"), ("Code", "link_code_1"), ("Code 2", "link_code_2")
    ]  # fmt: skip
    card = render_card(paper(["https://github.com/a/b"], RECORD), "zh", full=True)
    assert check_blocks(card.blocks) == []
    assert "[代码 https://github.com/a/b]" in blocks_to_text(card.blocks)  # the console shows where they go


@pytest.mark.parametrize(
    "abstract, lead",
    [
        ("Short one. Second sentence here. Third.", "Short one. Second sentence here."),
        ("We study e.g. things in 3.5 dimensions. Then more.", "We study e.g. things in 3.5 dimensions. Then more."),
        ("A" * 400 + ". B.", "A" * 319 + "…"),
        ("", ""),
    ],
)
def test_the_abstracts_lead_is_its_first_sentence_or_two(abstract, lead):
    assert abstract_lead(abstract) == lead
