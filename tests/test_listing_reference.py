"""The listing parser gives every Paper and every error exactly as the parser before issue 12.

tests/listing_reference.py is that parser, verbatim. Compared on the seeds, a generated
corpus (bench/corpus.py), the odd inputs tests/test_listing.py covers and more, and
deterministic mutations of the seed files (lines dropped, repeated, swapped, relabelled).
"""

from __future__ import annotations

import random
from pathlib import Path

import listing_reference as old
import pytest
from bench_modules import bench_module
from test_listing import RECORD, SEEDS  # the same well-formed record and seed folder

from bot.ingest import listing as new

ODD_TEXTS = [
    "",
    "\n\n  \n",
    "ICML\n",
    "AI总结 摘要\n",
    "\ufeffICML\r\n\r\n" + RECORD.replace("\n", "\r\n\r\n") + "\r\n",
    "ICML\r" + RECORD.replace("\n", "\r"),
    "Some Feed\n\nPaper One\n论文一\nA. Author\nAI总结: 摘要一\n\nPaper Two with GPU 加速\n论文二：GPU 加速的 Transformer\n张三，李四\nAI总结：摘要二\nJournal-ref: TMLR 2025\n",
    "ICML\nBroken Paper\n坏论文\nNobody\n机构 * Nowhere（无处）\n" + RECORD,
    "ICML\nOnly A Title\nAI总结 摘要\n" + RECORD,
    "ICML\n只有中文标题\n只有中文标题\n作者\nAI总结 摘要\n",
    "ICML\n???\n标题\nAlice\nAI总结 摘要\n",
    "ICML\nTitle One\n标题一\nAlice\nAI总结 摘要\nComments on ICML 2024 Reviews\n关于评审的评论\nBob\nAI总结 摘要二\n"
    "Journal Reference Models for Citation\n引用模型\nCarol\nAI总结 摘要三\nJournal ref TMLR 2025\n",
    "ICML\nTitle\u200b A\n\u200b\n标题A\nAlice\n\u200bAI总结 摘要\n",
    "ICML\nTitle \U000e0001B\U0001f600\n标题\nAlice\nAI总结 摘要\U000110bd\n",
    "ICML\nA Very Long Title That\nWraps Onto a Second Line\n很长的标题\nAlice, Bob\nAI总结 摘要\n",
    "ICML\nTransformer\nTransformer\nAlice\nAI总结 摘要\n",
    "ICML\nT\n标题\nA\n机构 * X（甲）\n机构 * Y（乙）\nAI总结 摘要\n",
    "ICML\nT\n标题\nA\nAI总结 摘要\n机构 * X（甲）\nAI总结 又一个\n",
    "ICML\nT\n标题\nA\nAI总结 摘要\nComments: a\nComment b\ncomments   c\nJournal ref: d\nJOURNAL-REF e\nJournalref f\n",
    "ICML\nT\n标题\nA\nAI总结 摘要\nComments NeurIPS 2024; ICML'25 workshop\nJournal ref Proc. of the International Conference on Machine Learning for Health, 2023\n",
    "ICML\n" + "T" * 1001 + "\n标题\nA\nAI总结 摘要\n" + RECORD,
    "ICML\nT\n标题\n" + "A, " * 20000 + "\nAI总结 摘要\n",
    "ICML\nT\n标题\nA\n机构 * " + "X（甲）；" * 5000 + "\nAI总结 摘要\n",
    "ICML\nT\n标题\nA\nAI总结 " + "摘" * 10001 + "\nComments " + "c" * 5001 + "\n",
    "ICML\nT\n标题\nA\nAI总结 摘要\nComments " + "c" * 5001 + "\n",
    "ICML\nT\n标题\nA\nAI总结 摘要\nJournal ref " + "j" * 5001 + "\n",
    "ICML\nP1\n论文1\nA1\nP2\n论文2\nA2\nAI总结 摘要\n",
    "ICML\nP1\n论文1\nA1\n机构 * U1（一）\nP2\n论文2\nA2\n机构 * U2（二）\nAI总结 摘要\n",
    "ICML\nP1\n论文1\nA1\nAI总结 摘要\nComments Accepted\nP2\n论文2\nAI总结 摘要二\n",
    "ICML\nAI总结 只有摘要\n",
    "ICML\n机构 * U（大学）\nAI总结 摘要\n",
    "ICML\nComments x\nJournal ref y\nT\n标题\nA\nAI总结 s\n",
    "ICML\nＴｉｔｌｅ Ｗｉｄｅ\n标题\nＡ，Ｂ、Ｃ；Ｄ and E\nAI 总结：摘要\nComments：Accepted to ＩＣＭＬ 2026\n",
    "ICML\nT\u00a0A\u3000B\n标题\nA\nAI总结\u3000摘要\nComments\u00a0ICML 2026\n",
    "ICML\nT\n标题\nA\n机构＊：X Lab (甲实验室) ; Y Univ (Dept. Z) ; 丙大学 ; （丁大学） ; (E) ; F（（G）） ; H) ; (I ; J（K（L） 纠错\nAI总结 s\n",
    "ICML\nT\n标题\nA\nAI总结 s\nComments https://a.b/c. and http://X.org/y（mirror）, https://a.b/c；HTTPS://z.io/q?x=1!\n",
    "ICML\nT\n标题\nA\nAI总结 s\nComments Accepted at \u212aDD 2024 (K\u212aD)\n",
    "ICML\nT\n标题\nA\nAI总结 s\nComments 已被 ICML 2026 接收，NeurIPS'25 workshop\n",
]

VENUE_TEXTS = [
    "",
    " ",
    "Accepted to ICML 26",
    "appears in the Proceedings of the 43rd International Conference on Machine Learning (ICML '26)",
    "The 3rd AI for Math Workshop at the 43rd International Conference on Machine Learning (ICML), Seoul, 2026",
    "2025 IEEE International Conference on Machine Learning for Communication and Networking (ICMLCN)",
    "NeurIPS 2025 spotlight",
    "NIPS 2017",
    "nips'17 and NeurIPS 2019",
    "Project page: https://example.org",
    "12 pages (with appendix as PDF)",
    "Data released under CC BY 4.0 (CCBY)",
    "See arXiv 2012.12345 for the ICML version",
    "Submitted to NeurIPS; extends our AAAI 2024 paper",
    "The Web Conference 2024 (WWW '24)",
    "the web conference",
    "International Conference on Computer Vision and Pattern Recognition 2022",
    "Computer Vision and Pattern Recognition (CVPR) 2023; ECCV 2022",
    "European Conference on Computer Vision in 2020",
    "CoRL 2023, MLSys 2024, COLM 2025, TMLR, JMLR 2021",
    "Accepted to K\u212aDD 2021",
    "Accepted to ICML 2026 已接收",
    "ICML2026",
    "ICML-2026",
    "ICMLs 2026",
    "xICML 2026",
    "ICML 2026 2027 2028",
    "ICML 1999 and ICLR 2031",
    "Transactions on Machine Learning Research (09/2024)",
    "Proceedings of the ACM SIGIR 2024; workshop",
    "Journal of Machine Learning Research 2019 UAI",
    "Accepted by AISTATS'23 Workshop",
    "Accepted by IJCAI ’24",
    "In ACML 2023 (Asian Conference on Machine Learning)",
    "conference (ABCDE)",
    "Symposium ABC",
    "(ABCD)",
    "FOOBAR 2020",
    "FooBAR 2020.5",
    "Accepted to ICML; 2026",
    "ICML workshop; NeurIPS 2020",
]

LABEL_LINES = [
    "AI总结",
    "AI 总结：",
    "ai总结",
    "AI",
    "A",
    "AIx总结",
    "机构",
    "机构 * ",
    "机构＊：",
    "机",
    "机器学习",
    "Comments",
    "comments:",
    "COMMENT x",
    "Commentary",
    "Comment：",
    "Cjournal ref",
    "C",
    "c",
    "Journal ref",
    "journal-ref",
    "JOURNAL REF:",
    "Journalref",
    "Journal Reference",
    "Jcomments",
    "J",
    "j",
    "Komments",
    "Commentſ x",
    "Journalſ",
    "İAI总结",
    "ıJournal ref",
]

AFFILIATION_LINES = [
    "",
    "纠错",
    "A Univ（甲大学） ； B Lab（乙实验室） 纠错",
    "A Univ (Dept. X)（甲大学（X系））",
    "A Univ (甲大学); B Lab",
    "清华大学 ； MIT",
    "（北京大学）",
    "(Peking)",
    "(北京)",
    "Meta 纠错",
    "Chemistry（物理；化学系） ； MIT（麻省理工）",
    "A）",
    "A)",
    "(A",
    "A（B）C（D）",
    "X ((Y)",
    "X (Y))",
    "X）(Y)",
    "；；;",
    " ， A ，,",
    "A（ ）",
    "A()",
    "（）",
    "A (B) (C)",
    "A（甲） 纠错 B",
    "A（甲）纠错  ",
]


def _generated_files(tmp_path_factory) -> list[Path]:
    out = tmp_path_factory.mktemp("listing-corpus")
    bench_module("corpus").generate(2000, out)
    return sorted(out.glob("*.txt"))


def _seed_lines() -> list[str]:
    return [line for path in sorted(SEEDS.glob("*.txt")) for line in path.read_text("utf-8").splitlines()]


def _mutations(count: int) -> list[str]:
    """Seed text with lines dropped, repeated, swapped, blanked or given a label."""
    rng = random.Random(12)
    texts = [path.read_text("utf-8") for path in sorted(SEEDS.glob("*.txt"))]
    labels = ["AI总结 ", "Comments ", "Journal ref ", "机构 * ", "\u200b", "Comments: ", "journal-ref "]
    mutated = []
    for _ in range(count):
        lines = [line for line in rng.choice(texts).split("\n") if line.strip()]
        start = rng.randrange(1, max(2, len(lines) - 40))
        lines = lines[:1] + lines[start : start + 40]
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(lines))
            op = rng.randrange(6)
            if op == 0 and len(lines) > 1:
                del lines[at]
            elif op == 1:
                lines.insert(at, lines[at])
            elif op == 2:
                other = rng.randrange(len(lines))
                lines[at], lines[other] = lines[other], lines[at]
            elif op == 3:
                lines[at] = rng.choice(labels) + lines[at]
            elif op == 4:
                lines[at] = lines[at][: rng.randrange(len(lines[at]) + 1)]
            else:
                lines.insert(at, rng.choice(labels) + rng.choice(lines))
        mutated.append("\n".join(lines) + "\n")
    return mutated


def test_seed_files_parse_as_before():
    for path in sorted(SEEDS.glob("*.txt")):
        assert new.parse_path(path) == old.parse_path(path), path


def test_a_generated_corpus_parses_as_before(tmp_path_factory):
    files = _generated_files(tmp_path_factory)
    records = 0
    for path in files:
        listing = new.parse_path(path)
        assert listing == old.parse_path(path), path
        records += len(listing.records)
    assert records > 2000


@pytest.mark.parametrize("text", ODD_TEXTS)
def test_odd_inputs_parse_as_before(text):
    assert new.parse_text(text, "odd.txt") == old.parse_text(text, "odd.txt")


def test_mutated_seed_files_parse_as_before():
    for text in _mutations(300):
        assert new.parse_text(text, "m.txt") == old.parse_text(text, "m.txt"), text


def test_odd_files_are_reported_as_before(tmp_path):
    for name, data in [
        ("gbk.txt", "ICML\n快速部件\n".encode("gbk")),
        ("png.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
        ("empty.txt", b""),
        ("latin1.txt", "ICML\ncaf\xe9\n".encode("latin-1")),
    ]:
        (tmp_path / name).write_bytes(data)
        assert new.parse_path(tmp_path / name) == old.parse_path(tmp_path / name), name
    assert new.parse_path(tmp_path / "missing.txt") == old.parse_path(tmp_path / "missing.txt")


def test_field_helpers_agree_on_every_seed_line_and_odd_strings():
    lines = _seed_lines()
    for text in [*VENUE_TEXTS, *lines]:
        assert new.find_venue(text) == old.find_venue(text), text
        assert new.find_urls(text) == old.find_urls(text), text
        assert new.paper_id(text) == old.paper_id(text), text
        assert new.parse_authors(text) == old.parse_authors(text), text
    known: dict = {}  # one memory over all of them, as over one listing
    for text in [*AFFILIATION_LINES, *lines, *AFFILIATION_LINES]:
        assert new.parse_affiliations(text) == old.parse_affiliations(text), text
        assert new.parse_affiliations(text, known) == old.parse_affiliations(text), text
    for text in [*lines, *LABEL_LINES, *(label + rest for label in LABEL_LINES for rest in ("", " x", ":y"))]:
        if text:
            assert new._kind(text) == old._kind(text), text


def test_author_and_affiliation_splits_agree_on_random_strings():
    """Strings made of the characters the splitters care about, in every mix."""
    rng = random.Random(7)
    pieces = [
        "A",
        "b",
        "甲",
        " ",
        "\t",
        "\u2003",
        "\x1c",
        "\x85",
        ",",
        "，",
        "、",
        ";",
        "；",
        " and ",
        "and",
        "（",
        "）",
        "(",
        ")",
        "纠错",
        " 纠错",
        "\n",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        assert new.parse_authors(text) == old.parse_authors(text), text
        assert new.parse_affiliations(text) == old.parse_affiliations(text), text
        assert new._split_pair(text.strip() or "x") == old._split_pair(text.strip() or "x"), text


def test_papers_with_the_same_comments_get_their_own_url_lists():
    """Venues and URLs are found once per distinct comment text in a listing, not shared."""
    listing = new.parse_text("ICML\n" + RECORD + RECORD.replace("Fast", "Slow"), "f.txt")
    one, two = (paper for _, paper in listing.records)
    assert one.urls == two.urls == ["https://github.com/example/widgets"]
    assert (one.venue, two.venue) == ("ICML 2026", "ICML 2026")
    one.urls.append("https://example.org")
    assert two.urls == ["https://github.com/example/widgets"]


def test_paper_ids_agree_on_random_ascii_and_unicode_titles():
    """ASCII titles take a shortcut to the id; every ASCII character is tried in it."""
    rng = random.Random(3)
    alphabet = [chr(c) for c in range(128)] + ["é", "Ｍ", "ß", "İ", "ﬁ", "甲", "\u00a0", "²"]
    for _ in range(3000):
        title = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        assert new.paper_id(title) == old.paper_id(title), repr(title)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", False),
        ("ascii", False),
        ("中文\u00e9\uffff", False),
        ("\ud800 lone", False),
        ("x\U00010000", True),
        ("\U0010ffff中", True),
    ],
)
def test_characters_past_the_bmp_are_told(text, expected):
    assert new._has_astral(text) is expected
    assert (old._ASTRAL.search(text) is not None) is expected
