"""Interests match across languages as a search does (issue 27, point 2), over real HTTP.

A corpus this test builds, where the right answer is known: a paper that exists only in
Chinese about KV caches, one only in English about speculative decoding, both the oldest,
under newer papers on other topics. A person with nothing saved who follows `KV cache`
(or `推测解码`) must get the paper in the other language first, with the interest as its
reason: the search's lexicon (aliases, learned pairs, the dictionary) reads the interest,
not the analyzer alone.
"""

from __future__ import annotations

import pytest
from slack_helpers import SlackSender, all_text

from bot.config import Settings
from bot.corpus import Corpus
from bot.models import Listing, Paper
from bot.slack.server import start_app_server

PAPERS = [
    # The oldest two: each exists in one language only.
    Paper(
        id="bi_zh_only",
        title_en="",
        title_zh="面向长上下文推理的键值缓存压缩",
        summary_zh="提出一种键值缓存压缩方法，显著降低长上下文推理的显存占用。",
    ),
    Paper(id="bi_en_only", title_en="Speculative Decoding with Draft Trees", title_zh=""),
    # Newer, on other topics: what a for-you that matched nothing would show first.
    Paper(
        id="bi_f1", title_en="Protein Folding with Diffusion", title_zh="用扩散模型预测蛋白质折叠", summary_zh="蛋白质结构预测。"
    ),
    Paper(id="bi_f2", title_en="Robot Grasping from Video", title_zh="从视频中学习机器人抓取", summary_zh="机器人操作。"),
    Paper(
        id="bi_f3", title_en="Graph Neural Networks for Molecules", title_zh="用于分子的图神经网络", summary_zh="分子性质预测。"
    ),
    Paper(id="bi_f4", title_en="Weather Forecasting at Scale", title_zh="大规模天气预报", summary_zh="全球中期天气预报。"),
    Paper(id="bi_f5", title_en="Sparse Autoencoders for Vision", title_zh="视觉稀疏自编码器", summary_zh="可解释的视觉特征。"),
    Paper(id="bi_f6", title_en="Federated Learning on Phones", title_zh="手机上的联邦学习", summary_zh="隐私保护训练。"),
]


@pytest.fixture(scope="module")
def bilingual_slack(slack_settings, fake_slack_server, tmp_path_factory):
    root = tmp_path_factory.mktemp("bilingual")
    (root / "seeds").mkdir()
    corpus = Corpus.load(Settings(data_dir=root / "data", seeds_dir=root / "seeds"))
    corpus.prepare()
    corpus.ingest_listing(Listing(path="bilingual.txt", feed="test", records=[(i + 1, p) for i, p in enumerate(PAPERS)]))
    running = start_app_server(slack_settings, corpus)
    sender = SlackSender(running.url, fake_slack_server)
    yield sender
    sender.close()
    running.shutdown()
    corpus.close()


def hits(body: dict) -> list[str]:
    return [b["block_id"].split(":")[2] for b in body["blocks"] if b.get("block_id", "").startswith("hit:")]


def reason_of(body: dict, paper_id: str) -> str:
    blocks = body["blocks"]
    (row,) = [i for i, b in enumerate(blocks) if b.get("block_id", "").startswith("hit:") and paper_id in b["block_id"]]
    return all_text([blocks[row + 1]])


def test_an_english_interest_ranks_a_paper_that_exists_only_in_chinese_first(bilingual_slack, fake_slack):
    bilingual_slack.command("lang en", user_id="U_BI1")
    bilingual_slack.command("interests add KV cache", user_id="U_BI1")
    _, body = bilingual_slack.command("foryou", user_id="U_BI1")
    assert hits(body)[0] == "bi_zh_only"
    assert "matches your interest “KV cache”" in reason_of(body, "bi_zh_only")


def test_a_chinese_interest_ranks_a_paper_that_exists_only_in_english_first(bilingual_slack, fake_slack):
    bilingual_slack.command("lang zh", user_id="U_BI2")
    bilingual_slack.command("兴趣 添加 推测解码", user_id="U_BI2")
    _, body = bilingual_slack.command("foryou", user_id="U_BI2")
    assert hits(body)[0] == "bi_en_only"
    assert "符合你关注的“推测解码”" in reason_of(body, "bi_en_only")
