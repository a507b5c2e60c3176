"""Benchmark the learning for-you (bot/library/learning.py) against today's TF-IDF ranking.

    .venv/bin/python bench/recommend.py [--readers 60] [--quick]

Quality. Simulated readers with known interests rate papers the way their interests
dictate: 👍 a paper on a topic they like, 👎 one on the topic they dislike (neutral papers
get no vote). After 3, 10 and 30 such feedback events, each method ranks a fresh pool of
new papers; precision@10 and nDCG@10 count the papers on a liked topic, and "👎 topic in
top 10" the papers on the disliked one. Today's ranking (bot.library.ranking.rank_by_profile)
can only use positives (saves), so it gets the 👍 papers as saves; the learned ranking gets
the 👍 and the 👎. Two corpora:

- generated: 12 topics, each with its own English and Chinese words, papers drawing most
  words from one topic and some from another and from common words (deterministic);
- seeds: the seed listings' papers (real titles and Chinese summaries), by the topic
  groups of bench/library.py (title keywords); new papers are a held-out half.

Speed. A digest morning: 1,000 new papers ranked for 500 people with 20 signals each.
One person's `/papers foryou` at 1M papers: the for-you ranks the newest FORYOU_POOL papers
(it never reads the whole corpus), so its cost is the pool's, plus reading the newest
from the store; measured on the pool here, the store's part by bench/run.py.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.corpus import load_seed_papers  # noqa: E402
from bench.library import TOPICS  # noqa: E402
from bot.library.learning import Example, HashedTerms, Learner, make_pool  # noqa: E402
from bot.library.ranking import TermCache, rank_by_profile  # noqa: E402
from bot.models import Paper  # noqa: E402

EVENTS = (3, 10, 30)
K = 10

# -- corpora --------------------------------------------------------------------------------

FAMILIES = {  # family -> its shared words (en, zh), and its topics' own words (en, zh)
    "llm inference": (
        ("inference decoding latency llm", "推理 解码 延迟 大模型"),
        {
            "kv cache": ("cache eviction compression memory", "缓存 驱逐 压缩 显存"),
            "speculative": ("speculative draft verification acceptance", "推测 草稿 验证 接受率"),
            "quantization": ("quantization bits integer outlier", "量化 比特 整数 离群值"),
        },
    ),
    "generation": (
        ("generative image sampling quality", "生成 图像 采样 质量"),
        {
            "diffusion": ("diffusion denoising score noise", "扩散 去噪 分数 噪声"),
            "gan": ("adversarial discriminator generator mode", "对抗 判别器 生成器 模式"),
            "video": ("video temporal frames motion", "视频 时序 帧 运动"),
        },
    ),
    "agents": (
        ("agent environment planning tasks", "智能体 环境 规划 任务"),
        {
            "rl": ("reinforcement policy reward exploration", "强化 策略 奖励 探索"),
            "robotics": ("robot manipulation grasping embodied", "机器人 操作 抓取 具身"),
            "tool use": ("tools api calling web", "工具 接口 调用 网页"),
        },
    ),
    "science": (
        ("molecular biology scientific discovery", "分子 生物 科学 发现"),
        {
            "protein": ("protein folding structure binding", "蛋白质 折叠 结构 结合"),
            "chemistry": ("chemistry reaction synthesis catalyst", "化学 反应 合成 催化"),
            "materials": ("materials crystal property lattice", "材料 晶体 性质 晶格"),
        },
    ),
}
GENERATED_TOPICS = {topic: (fam, own) for fam, (_, topics) in FAMILIES.items() for topic, own in topics.items()}
COMMON = "model learning method efficient large scale training benchmark results novel framework"
COMMON_ZH = "模型 学习 方法 高效 大规模 训练 基准 结果 新颖 框架"


def generated_corpus(n: int, rng: random.Random) -> list[tuple[Paper, str]]:
    """`n` papers, each about one topic (returned with it): two of its own words, two of its
    family's (shared with its sibling topics), one of another topic's, two common words."""
    names = list(GENERATED_TOPICS)
    out = []
    for i in range(n):
        main = rng.choice(names)
        family, own = GENERATED_TOPICS[main]
        shared = FAMILIES[family][0]
        _, other = GENERATED_TOPICS[rng.choice(names)]
        en = [
            rng.sample(own[0].split(), 2),
            rng.sample(shared[0].split(), 2),
            rng.sample(other[0].split(), 1),
            rng.sample(COMMON.split(), 2),
        ]
        zh = [
            rng.sample(own[1].split(), 1),
            rng.sample(shared[1].split(), 2),
            rng.sample(other[1].split(), 1),
            rng.sample(COMMON_ZH.split(), 1),
        ]
        title = [w for part in en for w in part]
        rng.shuffle(title)
        summary = "，".join(
            rng.sample(own[1].split(), 2)
            + rng.sample(shared[1].split(), 3)
            + rng.sample(other[1].split(), 2)
            + rng.sample(COMMON_ZH.split(), 3)
        )
        title_zh = "".join(w for part in zh for w in part)
        out.append((Paper(id=f"g{i:05d}", title_en=" ".join(title).title(), title_zh=title_zh, summary_zh=summary, seq=i), main))
    return out


def seed_corpus() -> list[tuple[Paper, str]]:
    """The seed papers that bench/library.py's topic groups name (one topic each)."""
    out = []
    for paper in load_seed_papers():
        topics = [t for t, words in TOPICS.items() if any(w.lower() in paper.title_en.lower() for w in words)]
        if len(topics) == 1:
            out.append((paper, topics[0]))
    return out


# -- readers ------------------------------------------------------------------------------------


class Reader:
    """Likes two topics, dislikes one; votes on what it sees by those alone."""

    def __init__(self, topics: list[str], rng: random.Random):
        self.liked = set(rng.sample(topics, 2))
        # The hard case where there is one: a sibling of a liked topic ("LLM inference, but not KV caches").
        siblings = [t for t in topics if t not in self.liked and GENERATED_TOPICS.get(t, ("",))[0] in
                    {GENERATED_TOPICS.get(x, ("?",))[0] for x in self.liked}]  # fmt: skip
        self.disliked = rng.choice(siblings or [t for t in topics if t not in self.liked])

    def vote(self, topic: str) -> int:
        return 1 if topic in self.liked else -1 if topic == self.disliked else 0


def events(reader: Reader, history: list[tuple[Paper, str]], count: int, rng: random.Random) -> list[tuple[Paper, int]]:
    """The reader's first `count` votes on history papers shown in a random order."""
    out = []
    for paper, topic in rng.sample(history, len(history)):
        vote = reader.vote(topic)
        if vote:
            out.append((paper, vote))
            if len(out) == count:
                break
    return out


def metrics(ranked: list[Paper], topic_of: dict[str, str], reader: Reader) -> tuple[float, float, float]:
    """precision@10, nDCG@10 (binary), and the share of the top 10 on the disliked topic."""
    top = ranked[:K]
    gains = [1.0 if topic_of[p.id] in reader.liked else 0.0 for p in top]
    relevant = sum(1 for t in topic_of.values() if t in reader.liked)
    ideal = sum(1.0 / np.log2(i + 2) for i in range(min(K, relevant)))
    dcg = sum(g / np.log2(i + 2) for i, g in enumerate(gains))
    bad = sum(1 for p in top if topic_of[p.id] == reader.disliked)
    return sum(gains) / K, (dcg / ideal if ideal else 0.0), bad / K


def evaluate(corpus: list[tuple[Paper, str]], readers: int, seed: int, pool: int, learners: dict[str, Learner]) -> dict:
    rng = random.Random(seed)
    topics = sorted({t for _, t in corpus})
    shuffled = rng.sample(corpus, len(corpus))
    split = len(shuffled) // 2 if pool <= 0 else len(shuffled) - pool
    history, new = shuffled[:split], shuffled[split:]
    candidates = [p for p, _ in new]
    topic_of = {p.id: t for p, t in corpus}
    cache = TermCache()
    measure = Learner(HashedTerms(cache))
    results: dict[str, dict[int, list[tuple[float, ...]]]] = {}

    def scored(ranked: list[Paper]) -> tuple[float, ...]:
        alike = measure.diversity(ranked, 5)
        return (*metrics(ranked, topic_of, reader), alike.mean_similarity, alike.near_duplicates)

    for r in range(readers):
        reader = Reader(topics, random.Random(seed * 1000 + r))
        votes = events(reader, history, max(EVENTS), random.Random(seed * 7 + r))
        for count in EVENTS:
            given = votes[:count]
            saves = [p for p, v in given if v > 0]
            today = [x.paper for x in rank_by_profile(candidates, saves, cache=cache)] if saves else list(candidates)
            results.setdefault("today (TF-IDF, saves only)", {}).setdefault(count, []).append(scored(today))
            examples = [Example(v, "liked" if v > 0 else "disliked", paper=p) for p, v in given]
            disliked = {p.id for p, v in given if v < 0}
            for name, learner in learners.items():
                picks = learner.rank(candidates, examples, exclude=disliked)
                results.setdefault(name, {}).setdefault(count, []).append(scored([x.paper for x in picks]))
    return {
        name: {count: tuple(statistics.mean(m[i] for m in rows) for i in range(5)) for count, rows in by.items()}
        for name, by in results.items()
    }


def print_table(title: str, table: dict) -> None:
    print(f"\n{title}")
    header = " | ".join(f"P@10 / nDCG@10 / 👎@10 after {n}" for n in EVENTS)
    print(f"| method | {header} |")
    print("|---|" + "---|" * len(EVENTS))
    for name, by in table.items():
        cells = " | ".join(f"{by[n][0]:.3f} / {by[n][1]:.3f} / {by[n][2]:.3f}" for n in EVENTS)
        print(f"| {name} | {cells} |")
    print("\ndiversity of the top 5 (mean pairwise cosine / pairs over 0.5), after 10 and 30 events")
    for name, by in table.items():
        print(f"- {name}: {by[10][3]:.3f} / {by[10][4]:.2f}; {by[30][3]:.3f} / {by[30][4]:.2f}")


# -- speed ----------------------------------------------------------------------------------------


def speed(rng: random.Random) -> None:
    corpus = generated_corpus(3000, rng)
    new = [p for p, _ in corpus[:1000]]
    history = [p for p, _ in corpus[1000:]]
    hashed = HashedTerms(TermCache())
    learner = Learner(hashed)
    started = time.perf_counter()
    hashed.rows(new)
    hashing = time.perf_counter() - started
    people = []
    for _ in range(500):
        liked = rng.sample(history, 14)
        disliked = rng.sample(history, 6)
        people.append([Example(1, "liked", paper=p) for p in liked] + [Example(-1, "disliked", paper=p) for p in disliked])
    hashed.rows(history)  # the people's signals were rated before: hashed already
    started, cpu = time.perf_counter(), time.process_time()
    shared = make_pool(new, hashed)
    for examples in people:
        learner.rank_pool(shared, examples, exclude=set())
    morning, morning_cpu = time.perf_counter() - started, time.process_time() - cpu
    # CPU time beside wall time: this host is shared, and its load is printed with them.
    load = os.getloadavg()[0]
    print(f"\ndigest morning (load {load:.1f} on {os.cpu_count()} cores): hashing 1,000 new papers {hashing:.2f} s,"
          f" then ranking them for 500 people {morning:.2f} s wall, {morning_cpu:.2f} s CPU")  # fmt: skip
    pool = new[:300]
    times, cpus = [], []
    for examples in people[:50]:
        started, cpu = time.perf_counter(), time.process_time()
        learner.rank(pool, examples, exclude=set())
        times.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    times.sort()
    cpus.sort()
    print(f"one /papers foryou (300-paper pool, 20 signals): median {1000 * times[len(times) // 2]:.1f} ms wall"
          f" ({1000 * cpus[len(cpus) // 2]:.1f} ms CPU), p90 {1000 * times[int(len(times) * 0.9)]:.1f} ms wall")  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=60)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--quick", action="store_true", help="quality only, fewer readers")
    parser.add_argument("--no-speed", action="store_true")
    args = parser.parse_args(argv)
    hashed = HashedTerms(TermCache())
    learners = {
        "learned (LR + similarity, MMR)": Learner(hashed),
        "learned, no MMR": Learner(hashed, mmr_lambda=1.0),
        "LR alone, no MMR": Learner(hashed, similarity_share=0.0, mmr_lambda=1.0),
        "similarity with 👎, no LR, no MMR": Learner(hashed, use_model=False, mmr_lambda=1.0),
    }
    rng = random.Random(args.seed)
    generated = generated_corpus(2400, rng)
    print_table(
        f"generated corpus ({len(generated)} papers, 12 topics; 600 new), {args.readers} readers",
        evaluate(generated, args.readers, args.seed, 600, learners),
    )
    seeds = seed_corpus()
    print_table(
        f"seed papers ({len(seeds)} on one topic group of {len(TOPICS)}; half new), {args.readers} readers",
        evaluate(seeds, args.readers, args.seed, 0, learners),
    )
    if not args.no_speed:
        speed(random.Random(args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
