"""The learning for-you's domain (issue 27): a model per person and per channel, never
again for 👎, interests as a cold start, a reason on every pick, diversity.

Papers reach the store through the real listing parser and Corpus (SQLite + Whoosh in
tmp_path); the corpus is built so the right order is known: three topics told apart by
their words, in both languages.
"""

from __future__ import annotations

import pytest
from digest_support import ingest, open_corpus
from test_library import listing

from bot.library.learning import Example, HashedTerms, Learner
from bot.library.ranking import TermCache
from bot.library.readinglist import Library

TEAM = "T0001"

KV = [
    ("KV Cache Compression for Long Context Inference", "长上下文推理的KV缓存压缩", "压缩KV缓存，降低长上下文推理的显存。"),
    ("KV Cache Eviction with Attention Sinks", "基于注意力汇聚的KV缓存淘汰", "淘汰KV缓存条目，节省显存。"),
    ("Paged KV Cache Memory for Serving", "面向推理服务的分页KV缓存显存管理", "分页管理KV缓存显存。"),
    ("Quantized KV Cache for Long Context", "长上下文的量化KV缓存", "量化KV缓存，压缩显存。"),
]
SPEC = [
    ("Speculative Decoding with Draft Trees", "基于草稿树的推测解码", "草稿模型构建候选树，推测解码加速生成。"),
    ("Lossless Speculative Decoding via Draft Verification", "通过草稿验证实现无损推测解码", "草稿模型生成候选，目标模型验证。"),
    ("Speculative Decoding Acceptance Rates of Draft Models", "草稿模型的推测解码接受率", "研究推测解码中草稿的接受率。"),
    ("Parallel Draft Heads for Speculative Decoding", "用于推测解码的并行草稿头", "并行草稿头提升推测解码速度。"),
]
BIO = [
    ("Protein Folding with Equivariant Diffusion", "基于等变扩散的蛋白质折叠", "用等变扩散模型预测蛋白质折叠。"),
    ("Molecular Docking over Protein Pockets", "基于蛋白口袋的分子对接", "在蛋白质口袋上做分子对接。"),
    ("Protein Structure Prediction at Scale", "大规模蛋白质结构预测", "大规模预测蛋白质结构。"),
    ("Enzyme Design with Protein Language Models", "用蛋白质语言模型设计酶", "蛋白质语言模型设计新酶。"),
]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("learning")
    corpus = open_corpus(tmp / "data")
    # Interleaved, so "newest first" alone puts no topic on top.
    rows = [paper for trio in zip(KV, SPEC, BIO, strict=True) for paper in trio]
    ingest(corpus, tmp, "topics.txt", listing([("", en, zh, summary) for en, zh, summary in rows]))
    papers = {p.title_en: p for p in corpus.store.newest(50)}
    yield corpus, papers
    corpus.close()


def topic_of(paper) -> str:
    title = paper.title_en
    return "kv" if title in {t[0] for t in KV} else "spec" if title in {t[0] for t in SPEC} else "bio"


def test_a_model_learns_both_sides_and_never_returns_a_thumbs_down(world):
    corpus, papers = world
    library = Library(corpus.store)
    user = "U_LEARN1"
    library.feedback.vote(TEAM, user, papers[KV[0][0]].id, 1)
    library.feedback.vote(TEAM, user, papers[SPEC[0][0]].id, -1)
    picks = library.foryou(user, team_id=TEAM, limit=10)
    topics = [topic_of(p.paper) for p in picks]
    assert topics[:3] == ["kv", "kv", "kv"]  # the 👍'd topic first
    assert topics[-3:] == ["spec", "spec", "spec"]  # the 👎'd topic last
    assert papers[SPEC[0][0]].id not in {p.paper.id for p in picks}  # never again
    assert all(p.reason.kind for p in picks)  # a reason on every pick
    assert picks[0].reason.kind == "liked" and picks[0].reason.paper.id == papers[KV[0][0]].id

    # A 👎 changes the very next for-you; a foreign team's votes change nothing here.
    library.feedback.vote(TEAM, user, papers[KV[1][0]].id, -1)
    assert papers[KV[1][0]].id not in {p.paper.id for p in library.foryou(user, team_id=TEAM, limit=20)}
    library.feedback.vote("T_OTHER", user, papers[BIO[0][0]].id, 1)
    assert [topic_of(p.paper) for p in library.foryou(user, team_id=TEAM, limit=2)] == ["kv", "kv"]


def test_a_personal_digest_leaves_out_what_its_reader_disliked(world):
    corpus, papers = world
    library = Library(corpus.store)
    user = "U_LEARN2"
    disliked = papers[BIO[1][0]]
    library.feedback.vote(TEAM, user, disliked.id, -1)
    arrived = corpus.store.newest(12)
    ordering = library.order_papers(arrived, order="foryou", kind="user", place_id=user)
    assert ordering.order == "foryou" and disliked.id not in {p.id for p in ordering.papers}
    assert len(ordering.papers) == len(arrived) - 1
    assert set(ordering.reasons) == {p.id for p in ordering.papers}  # every row has a reason
    assert [topic_of(p) for p in ordering.papers][-3:] == ["bio", "bio", "bio"]


def test_a_channels_thumbs_down_majority_keeps_a_paper_out_of_its_highlights(world):
    corpus, papers = world
    library = Library(corpus.store)
    channel = "C_LEARN3"
    liked, disliked = papers[SPEC[1][0]], papers[KV[2][0]]
    for user in ("U_A", "U_B", "U_C"):
        library.feedback.vote(TEAM, user, liked.id, 1, place_id=channel)
    library.feedback.vote(TEAM, "U_A", disliked.id, -1, place_id=channel)
    library.feedback.vote(TEAM, "U_B", disliked.id, -1, place_id=channel)
    library.feedback.vote(TEAM, "U_C", disliked.id, 1, place_id=channel)
    arrived = corpus.store.newest(12)
    ordering = library.order_papers(arrived, order="foryou", kind="channel", place_id=channel)
    assert ordering.papers[-1].id == disliked.id  # last: out of the highlights, still in the thread
    assert len(ordering.papers) == len(arrived)
    top = [topic_of(p) for p in ordering.papers[:4]]
    assert top.count("spec") >= 3
    reason = ordering.reasons[liked.id]
    assert (reason.kind, reason.count, reason.channel_id) == ("channel", 3, channel)  # "3 people in #ml liked it"


def test_interests_give_a_cold_start_in_either_language(world):
    corpus, papers = world
    library = Library(corpus.store)
    library.feedback.add_interests(TEAM, "U_LEARN4", ["蛋白质"])
    picks = library.foryou("U_LEARN4", team_id=TEAM, limit=4)
    assert [topic_of(p.paper) for p in picks] == ["bio"] * 4
    assert picks[0].reason.kind == "interest" and picks[0].reason.interest == "蛋白质"
    library.feedback.add_interests(TEAM, "U_LEARN5", ["speculative decoding"])
    assert [topic_of(p.paper) for p in library.foryou("U_LEARN5", team_id=TEAM, limit=4)] == ["spec"] * 4
    assert library.foryou("U_LEARN5", team_id="T_OTHER", limit=1)[0].reason.kind == "new"  # interests are per team


def test_mmr_breaks_up_near_duplicates_at_the_top(world):
    corpus, papers = world
    hashed = HashedTerms(TermCache())
    liked = [Example(1, "liked", paper=papers[KV[0][0]]), Example(1, "liked", paper=papers[BIO[0][0]])]
    candidates = [p for p in corpus.store.newest(50) if p.id not in {e.paper.id for e in liked}]
    plain = Learner(hashed, mmr_lambda=1.0).rank(candidates, liked)
    diverse = Learner(hashed).rank(candidates, liked)
    assert sorted(p.paper.id for p in plain) == sorted(p.paper.id for p in diverse)
    top_plain = {topic_of(p.paper) for p in plain[:2]}
    top_diverse = {topic_of(p.paper) for p in diverse[:2]}
    assert top_diverse == {"kv", "bio"} and len(top_plain) <= len(top_diverse)
    learner = Learner(hashed)
    assert (
        learner.diversity([p.paper for p in diverse], 4).mean_similarity
        <= learner.diversity([p.paper for p in plain], 4).mean_similarity
    )
