"""Relevance on the seed corpus: each query must put the paper people mean in the top 5."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ingest.listing import parse_path
from bot.models import Paper
from bot.search.index import PaperIndex

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


def read_seed_papers() -> list[Paper]:
    """Parse every seed listing and merge papers listed by several feeds (feeds unioned)."""
    papers: dict[str, Paper] = {}
    for path in sorted(SEEDS.glob("*.txt")):
        listing = parse_path(path)
        for _, paper in listing.records:
            feeds = set(paper.feeds) | ({listing.feed} if listing.feed else set())
            if paper.id in papers:
                papers[paper.id].feeds = sorted(set(papers[paper.id].feeds) | feeds)
            else:
                paper.feeds = sorted(feeds)
                paper.seq = paper.rev = len(papers) + 1
                papers[paper.id] = paper
    return list(papers.values())


@pytest.fixture(scope="session")
def seed_papers() -> list[Paper]:
    return read_seed_papers()


@pytest.fixture(scope="session")
def seed_index(tmp_path_factory: pytest.TempPathFactory, seed_papers: list[Paper]):
    index = PaperIndex(tmp_path_factory.mktemp("relevance") / "index")
    index.rebuild(seed_papers)
    yield index
    index.close()


@pytest.fixture(scope="session")
def titles(seed_papers: list[Paper]) -> dict[str, str]:
    return {p.id: p.title_en for p in seed_papers}


def test_seed_corpus_shape(seed_papers: list[Paper]) -> None:
    assert len(seed_papers) == 97
    assert {f for p in seed_papers for f in p.feeds} == {"ICML", "Harvard University（哈佛大学）"}


CASES = [
    # English topics
    ("speculative decoding", "MineDraft: A Framework for Batch Parallel Speculative Decoding"),
    ("speculative decoding", "LK Losses: Direct Acceptance Rate Optimization for Speculative Decoding"),
    ("grokking ridge regression", "To Grok Grokking: Provable Grokking in Ridge Regression"),
    ("weight decay plasticity", "Weight Decay Improves Language Model Plasticity"),
    ("KV cache pruning", "OBCache: Optimal Brain KV Cache Pruning for Efficient Long-Context LLM Inference"),
    ("credit assignment", "Score Broadcast and Decorrelation: A General Framework for Broadcast-Based Credit Assignment"),
    ("whistleblowers", "Plausible Deniability Guarantees for Whistleblowers"),
    ("steganography", "Training-Free Coverless Multi-Image Steganography with Access Control"),
    ("federated learning", "BESplit: Bias-Compensated Split Federated Learning with Evidential Aggregation"),
    ("conformal prediction fairness", "Beyond Procedure: Substantive Fairness in Conformal Prediction"),
    ("diffusion LLM", "DAPD: Dependency-Aware Parallel Decoding via Attention for Diffusion LLMs"),
    ("world models", "WorldCache: Accelerating World Models for Free via Heterogeneous Token Caching"),
    # Chinese topics
    ("推测解码", "MineDraft: A Framework for Batch Parallel Speculative Decoding"),
    ("上下文学习", "Fine-Tuning Without Forgetting In-Context Learning: A Theoretical Analysis of Linear Attention Models"),
    ("世界模型", "Flow Equivariant World Models: Memory for Partially Observed Dynamic Environments"),
    ("大语言模型 预训练", "Stabilizing Native Low-Rank LLM Pretraining"),
    ("隐写术", "Training-Free Coverless Multi-Image Steganography with Access Control"),
    ("因果发现", "Skewness-Robust Causal Discovery in Location-Scale Noise Models"),
    ("知识蒸馏", "Symbiosis-Inspired Knowledge Distillation for Incremental Object Detection"),
    ("强化学习 分词", "You Can Learn Tokenization End-to-End with Reinforcement Learning"),
    # Authors
    ("author:Pehlevan", "Universal One-third Time Scaling in Learning Peaked Distributions"),
    ('author:"Chelsea Finn"', "World Action Verifier: Self-Improving World Models via Forward-Inverse Asymmetry"),
    ("Globerson", "Cost-Aware Learning"),
    ("Wattenhofer tokenization", "You Can Learn Tokenization End-to-End with Reinforcement Learning"),
    # Affiliations, both languages
    ("affil:Harvard", "Cost-Aware Learning"),
    ("affil:哈佛", "Cost-Aware Learning"),
    ("affil:麻省理工学院", "MineDraft: A Framework for Batch Parallel Speculative Decoding"),
    ("affil:Massachusetts decoding", "MineDraft: A Framework for Batch Parallel Speculative Decoding"),
    ("affil:KAIST diffusion", "DAPD: Dependency-Aware Parallel Decoding via Attention for Diffusion LLMs"),
    ("清华大学", "SmartThinker: Progressive Chain-of-Thought Length Calibration for Efficient Large Language Model Reasoning"),
    # Venues, tracks, feeds, years
    ("venue:workshop whistleblowers", "Plausible Deniability Guarantees for Whistleblowers"),
    ('venue:"ICML 2026 Workshop" perplexity', "The Perplexity Trap: When Patent Law Makes Human Writing Look Like AI"),
    (
        "venue:MLMI",
        "Is the Statistical Advantage Worth the Cost? An Empirical Comparison of KANs and MLPs for Structured Data Classification",
    ),
    ("venue:ICMLCN", "Reduced-latency DL-based Fractional Channel Estimation in OTFS Receivers"),
    ("feed:哈佛 world", "World Action Verifier: Self-Improving World Models via Forward-Inverse Asymmetry"),
    ("feed:Harvard accountability", "Who Gets Credit or Blame? Attributing Accountability in Modern AI Systems"),
    ("year:2025 channel", "Reduced-latency DL-based Fractional Channel Estimation in OTFS Receivers"),
    # Phrases, OR, mixed language
    ('"speculative decoding" batch', "MineDraft: A Framework for Batch Parallel Speculative Decoding"),
    ('"上下文学习" 表格', "Algorithmic Recourse of In-Context Learning for Tabular Data"),
    ("steganography OR whistleblowers", "Plausible Deniability Guarantees for Whistleblowers"),
    ("steganography OR whistleblowers", "Training-Free Coverless Multi-Image Steganography with Access Control"),
    ("KV缓存 OR speculative decoding", "ParisKV: Fast and Drift-Robust KV-Cache Retrieval for Long-Context LLMs"),
    ("KV缓存 OR speculative decoding", "MineDraft: A Framework for Batch Parallel Speculative Decoding"),
    ("KV缓存 retrieval", "ParisKV: Fast and Drift-Robust KV-Cache Retrieval for Long-Context LLMs"),
    ("扩散 pose", "DisPOSE: Projected Polystochastic Diffusion for Self-Supervised Multi-View 3D Human Pose Estimation"),
    ("ＫＶ－Ｃａｃｈｅ", "ParisKV: Fast and Drift-Robust KV-Cache Retrieval for Long-Context LLMs"),
    # Typos
    ("speculativ decodng", "MineDraft: A Framework for Batch Parallel Speculative Decoding"),
    ("steganografy", "Training-Free Coverless Multi-Image Steganography with Access Control"),
    ("whistleblowrs", "Plausible Deniability Guarantees for Whistleblowers"),
    ("Pehlvan", "Universal One-third Time Scaling in Learning Peaked Distributions"),
]


@pytest.mark.parametrize(("query", "title"), CASES, ids=[f"{q}->{t[:30]}" for q, t in CASES])
def test_expected_paper_in_top_five(seed_index: PaperIndex, titles: dict[str, str], query: str, title: str) -> None:
    assert title in titles.values(), f"fixture title not in seeds: {title}"
    page = seed_index.search(query, per_page=5)
    top = [titles[h.id] for h in page.hits]
    assert title in top, f"{query!r}: mode={page.mode} suggestion={page.suggestion} top={top}"


@pytest.mark.parametrize(("en", "zh"), [("Harvard", "哈佛"), ("Stanford", "斯坦福"), ("Tsinghua", "清华")])
def test_affiliation_in_either_language_finds_the_same_papers(seed_index: PaperIndex, en: str, zh: str) -> None:
    english = {h.id for h in seed_index.search(f"affil:{en}", limit=100).hits}
    chinese = {h.id for h in seed_index.search(f"affil:{zh}", limit=100).hits}
    assert english and english == chinese


@pytest.mark.parametrize(("query", "count"), [("venue:workshop", 11), ("feed:哈佛", 7), ("feed:Harvard", 7)])
def test_filters_find_exactly_their_papers(seed_index: PaperIndex, seed_papers: list[Paper], query: str, count: int) -> None:
    page = seed_index.search(query, limit=200)
    assert page.mode == "all" and page.total == count


def test_titles_outrank_summaries(seed_index: PaperIndex, titles: dict[str, str]) -> None:
    top = titles[seed_index.search("tokenization").hits[0].id]
    assert "Tokenization" in top


def test_typo_reports_the_correction_it_ran(seed_index: PaperIndex) -> None:
    page = seed_index.search("speculativ decodng")
    assert page.suggestion == "speculative decoding"
    assert page.mode == "all" and page.total == 2


def test_any_term_fallback_is_reported(seed_index: PaperIndex, titles: dict[str, str]) -> None:
    page = seed_index.search("steganography quasicrystals")
    assert page.mode == "any"
    assert titles[page.hits[0].id].startswith("Training-Free Coverless")


def test_snippets_mark_matches_in_chinese_and_english(seed_index: PaperIndex) -> None:
    zh = seed_index.search("隐写术").hits[0]
    assert any(f.hit and "隐写" in f.text for f in zh.snippet)
    en = seed_index.search("steganography").hits[0]
    assert en.snippet_field == "title_en"
    assert [f.text for f in en.snippet if f.hit] == ["Steganography"]
    assert all(sum(len(f.text) for f in h.snippet) <= 202 for h in seed_index.search("模型", limit=50).hits)


def test_more_like_finds_the_other_speculative_decoding_paper(seed_index: PaperIndex, titles: dict[str, str]) -> None:
    minedraft = next(i for i, t in titles.items() if t.startswith("MineDraft"))
    similar = [titles[h.id] for h in seed_index.more_like(minedraft).hits]
    assert any(t.startswith("LK Losses") for t in similar), similar
