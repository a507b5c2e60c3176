"""The for-you by meaning and duplicates shown once in every list (issue 26, points 4 and 5).

The bundled encoder is loaded once for the module; corpora are a handful of papers made
below, or the seeds with a variant-title copy of ParisKV and a near-miss beside it, every
vector computed by the real builder. Lists are read through the real Library and Corpus
over SQLite and Whoosh in tmp dirs, as Slack's answers read them.
"""

from __future__ import annotations

import copy
from datetime import date
from pathlib import Path

import pytest
from test_semantic import paris_lookalike, paris_variant

from bot.config import Settings
from bot.corpus import Corpus
from bot.digests.compose import compose_digest
from bot.library.readinglist import Library
from bot.models import Listing, Paper
from bot.semantic.model import UseEncoder
from bot.semantic.service import Meaning

REPO = Path(__file__).resolve().parents[1]
TEAM = "T_MEANING"
DAY = date(2026, 12, 3)


@pytest.fixture(scope="module")
def encoder():
    model = UseEncoder()
    model.warm()
    return model


def _open(data: Path, encoder, *, seeds: bool) -> Corpus:
    settings = Settings(data_dir=data, seeds_dir=REPO / "seeds" if seeds else data / "no-seeds")
    corpus = Corpus.open(settings)
    corpus.meaning = Meaning(corpus.store, settings.vectors_dir, encoder=encoder)
    corpus.ingest_seeds_if_empty()
    return corpus


def _ingest(corpus: Corpus, feed: str, papers: list[Paper]) -> None:
    corpus.ingest_listing(Listing(path=f"{feed}.txt", feed=feed, records=[(i + 1, p) for i, p in enumerate(papers)]))


# -- for you by meaning (point 4) -------------------------------------------------------------

BIRDS_EN = Paper(
    id="birdsen", title_en="Recognising bird species from their songs in field recordings", title_zh="", authors=["A"]
)
BIRDS_ZH = Paper(  # the same topic, in Chinese only: no word in common with BIRDS_EN
    id="birdszh", title_en="", title_zh="野外录音中的鸟类鸣叫识别", summary_zh="从野外录音里分辨不同鸟种的叫声。", authors=["B"]
)
OVERPARAM = Paper(
    id="overparam", title_en="", title_zh="过参数化神经网络的泛化理论", summary_zh="过参数化模型为何仍能泛化。", authors=["C"]
)
TUNNEL = Paper(  # shares one character with OVERPARAM (过), nothing of its meaning
    id="tunnel", title_en="", title_zh="过江隧道的渗水监测", summary_zh="用传感器监测隧道渗水。", authors=["D"]
)
SPEC_EN = Paper(id="specen", title_en="Speculative decoding with draft trees for faster generation", title_zh="", authors=["E"])
OTHERS = [
    Paper(id="auction", title_en="Auction design for online advertising", title_zh="", authors=["F"]),
    Paper(
        id="traffic", title_en="", title_zh="城市交通拥堵的预测", summary_zh="用历史车流数据预测早晚高峰的堵车。", authors=["G"]
    ),
    Paper(id="sparse", title_en="Sparse attention kernels for long sequences on GPUs", title_zh="", authors=["H"]),
    Paper(id="federated", title_en="", title_zh="联邦学习中的偏差补偿", summary_zh="分割联邦学习的收敛问题。", authors=["I"]),
    Paper(id="crops", title_en="Estimating crop yields from satellite images", title_zh="", authors=["J"]),
]


@pytest.fixture(scope="module")
def made(tmp_path_factory, encoder):
    """The made papers, oldest first: the ones the tests look for are stored first, so that
    newest-first alone (or the terms alone) puts them last."""
    corpus = _open(tmp_path_factory.mktemp("meaning-foryou"), encoder, seeds=False)
    _ingest(corpus, "made", [BIRDS_ZH, SPEC_EN, TUNNEL, BIRDS_EN, OVERPARAM, *OTHERS])
    corpus.meaning.builder.run()
    yield corpus
    corpus.close()


def _foryou(corpus: Corpus, user: str, **kwargs):
    return Library(corpus.store, corpus=corpus).foryou(user, team_id=TEAM, **kwargs)


def test_an_english_save_brings_its_chinese_meaning_neighbour_to_the_top_of_for_you(made):
    library = Library(made.store, corpus=made)
    library.save("U_BIRDS", "birdsen", team_id=TEAM)
    picks = library.foryou("U_BIRDS", team_id=TEAM, limit=10)
    assert picks[0].paper.id == "birdszh"
    assert picks[0].reason.kind == "saved" and picks[0].reason.paper.id == "birdsen"  # "like the paper you saved"
    off = copy.copy(made)  # the same store and index, PAPERBOT_SEMANTIC=off
    off.meaning = None
    lexical = Library(off.store, corpus=off).foryou("U_BIRDS", team_id=TEAM, limit=10)
    assert [p.paper.id for p in lexical].index("birdszh") > 2  # by the terms alone it is nowhere near


def test_a_lone_shared_character_never_makes_a_paper_similar(made):
    library = Library(made.store, corpus=made)
    library.save("U_OVER", "overparam", team_id=TEAM)
    ranked = library.foryou("U_OVER", team_id=TEAM, limit=20)
    picks = {p.paper.id: p for p in ranked}
    assert picks["tunnel"].reason.kind == "new"  # not "like 过参数化…": 过 is all they share
    # ...nor does 过 lift it: beside the vectors, a paper's terms count only where the meaning is near (TERMS_GATE)
    order = [p.paper.id for p in ranked]
    assert order.index("tunnel") > 2, order
    off = copy.copy(made)
    off.meaning = None
    lexical = Library(off.store, corpus=off).foryou("U_OVER", team_id=TEAM, limit=20)
    assert lexical[0].paper.id == "tunnel"  # by the terms alone, 过 put it first
    learned = Library(made.store, corpus=made).recommender.learner
    assert learned.dense is None  # the shared learner stays lexical; a ranking with vectors gets its own copy


def test_an_interest_alone_finds_papers_in_the_other_language(made):
    library = Library(made.store, corpus=made)
    library.feedback.add_interests(TEAM, "U_COLD", ["推测解码"])  # nothing saved, no 👍: a cold start
    picks = library.foryou("U_COLD", team_id=TEAM, limit=3)
    assert picks[0].paper.id == "specen"
    assert picks[0].reason.kind == "interest" and picks[0].reason.interest == "推测解码"


def test_without_vectors_the_for_you_is_exactly_the_terms_one(made, tmp_path, encoder):
    library = Library(made.store, corpus=made)
    library.save("U_SAME", "sparse", team_id=TEAM)
    library.feedback.add_interests(TEAM, "U_SAME", ["auction"])
    off = copy.copy(made)
    off.meaning = None
    without = [(p.paper.id, round(p.score, 9), p.reason) for p in Library(off.store, corpus=off).foryou("U_SAME", team_id=TEAM)]
    empty = copy.copy(made)  # search by meaning on, but no vector computed yet
    empty.meaning = Meaning(made.store, tmp_path / "no-vectors", encoder=encoder)
    before = [
        (p.paper.id, round(p.score, 9), p.reason) for p in Library(empty.store, corpus=empty).foryou("U_SAME", team_id=TEAM)
    ]
    plain = [(p.paper.id, round(p.score, 9), p.reason) for p in Library(made.store).foryou("U_SAME", team_id=TEAM)]
    assert without == before == plain
    assert without != [(p.paper.id, round(p.score, 9), p.reason) for p in library.foryou("U_SAME", team_id=TEAM)]


# -- duplicates shown once (point 5) -----------------------------------------------------------


@pytest.fixture(scope="module")
def dupes(tmp_path_factory, encoder):
    """The seeds, then another feed's copy of ParisKV under a variant title (same authors, the
    same summary), a near-miss (similar title and summary, other authors); all embedded."""
    corpus = _open(tmp_path_factory.mktemp("meaning-dupes"), encoder, seeds=True)
    seeds_last = corpus.store.last_seq()
    paris = next(p for p in corpus.store.iter_papers() if p.title_en.startswith("ParisKV"))
    variant = paris_variant(paris)
    lookalike = paris_lookalike(paris)
    _ingest(corpus, "otherfeed", [variant, lookalike])
    corpus.meaning.builder.run()
    assert corpus.meaning.duplicates.canonical("variantparis") == paris.id
    assert corpus.meaning.duplicates.canonical("lookalike01") == "lookalike01"
    yield corpus, paris.id, seeds_last
    corpus.close()


def test_a_digest_shows_a_paper_and_its_duplicate_once(dupes):
    corpus, paris, seeds_last = dupes
    everything = compose_digest(corpus, after_seq=0, local_date=DAY, max_papers=500, max_per_feed=500)
    ids = [p.id for p in everything.papers]
    assert ids.count(paris) == 1 and "variantparis" not in ids and "lookalike01" in ids
    shown = next(p for p in everything.papers if p.id == paris)
    assert "otherfeed" in shown.feeds and "https://example.org/pariskv-v2" in shown.urls  # with the merged fields
    # The next morning's digest: the copy is not new, the near-miss is.
    next_day = compose_digest(corpus, after_seq=seeds_last, local_date=DAY)
    assert [p.id for p in next_day.papers] == ["lookalike01"]


def test_for_you_and_home_show_a_paper_and_its_duplicate_once(dupes):
    corpus, paris, _ = dupes
    library = Library(corpus.store, corpus=corpus)
    library.feedback.add_interests(TEAM, "U_KV", ["drift robust KV cache retrieval"])
    ids = [p.paper.id for p in library.foryou("U_KV", team_id=TEAM, limit=10)]
    assert ids.count(paris) == 1 and "variantparis" not in ids and "lookalike01" in ids
    newest = [p.id for p in corpus.newest(5, team=TEAM)]  # App Home's newest papers
    assert newest.count(paris) + newest.count("variantparis") == 1 and "lookalike01" in newest
    assert len(newest) == 5


def test_a_save_or_a_vote_on_the_duplicate_counts_for_its_paper(dupes):
    corpus, paris, _ = dupes
    library = Library(corpus.store, corpus=corpus)
    library.save("U_SAVE", "variantparis", team_id=TEAM)  # a save made under the copy's id
    library.save("U_SAVE", paris, team_id=TEAM)
    saved = library.saved_papers("U_SAVE", team_id=TEAM)
    assert [p.id for p in saved] == [paris] and "otherfeed" in saved[0].feeds  # Saved, Home's Saved and export read this
    assert library.saved_count("U_SAVE", team_id=TEAM) == 1
    assert library.is_saved("U_SAVE", paris, team_id=TEAM) and paris in library.saved_ids("U_SAVE", team_id=TEAM)
    assert paris not in [p.paper.id for p in library.foryou("U_SAVE", team_id=TEAM, limit=50)]
    assert library.unsave("U_SAVE", paris, team_id=TEAM)
    assert not library.is_saved("U_SAVE", "variantparis", team_id=TEAM)  # unsaved under both ids
    library.feedback.vote(TEAM, "U_DOWN", "variantparis", -1)  # 👎 on the copy's card
    assert paris not in [p.paper.id for p in library.foryou("U_DOWN", team_id=TEAM, limit=200)]
    library.record_share("C_KV", "variantparis", "U1", team_id=TEAM)
    library.record_share("C_KV", paris, "U2", team_id=TEAM)
    top = library.top("C_KV", team_id=TEAM)
    assert [(item.paper.id, item.shares) for item in top] == [(paris, 2)]  # popular: one paper, both shares


def test_more_like_this_and_search_show_the_duplicate_pair_once(dupes):
    corpus, paris, _ = dupes
    similar = [h.paper.id for h in corpus.more_like("lookalike01", per_page=10).hits]
    assert similar.count(paris) + similar.count("variantparis") == 1
    found = [h.paper.id for h in corpus.search("ParisKV", per_page=10).hits]
    assert found.count(paris) == 1 and "variantparis" not in found
