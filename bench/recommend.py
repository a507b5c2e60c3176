"""Benchmark the learning for-you (bot/library/learning.py) against today's TF-IDF ranking.

    .venv/bin/python bench/recommend.py [--readers 60] [--quick] [--semantic]

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

Meaning (`--semantic`, issue 26). Every paper embedded by the bundled encoder (cached under
/tmp), the learned ranking with the vectors (likenesses by meaning, the terms breaking ties,
the vectors as weighted columns of the classifier) beside it without them; and the cold
start: a reader with only interests (its liked topics' names, in English, then in Chinese),
nothing rated, precision@5 and nDCG@10 of what it is shown first.

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
if str(ROOT / "bench") not in sys.path:
    sys.path.insert(0, str(ROOT / "bench"))

from bench.corpus import load_seed_papers  # noqa: E402
from bench.library import TOPICS  # noqa: E402
from bot.library.learning import Dense, Example, HashedTerms, Learner, make_pool  # noqa: E402
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


def evaluate(
    corpus: list[tuple[Paper, str]], readers: int, seed: int, pool: int, learners: dict[str, Learner], *, today: bool = True
) -> dict:
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
            if today:
                baseline = [x.paper for x in rank_by_profile(candidates, saves, cache=cache)] if saves else list(candidates)
                results.setdefault("today (TF-IDF, saves only)", {}).setdefault(count, []).append(scored(baseline))
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


# -- meaning (issue 26) -------------------------------------------------------------------------

GENERATED_INTERESTS = {  # topic -> (an interest in English, in Chinese) a reader might type
    "kv cache": ("KV cache", "键值缓存"),
    "speculative": ("speculative decoding", "推测解码"),
    "quantization": ("quantization", "模型量化"),
    "diffusion": ("diffusion models", "扩散模型"),
    "gan": ("generative adversarial networks", "生成对抗网络"),
    "video": ("video generation", "视频生成"),
    "rl": ("reinforcement learning", "强化学习"),
    "robotics": ("robot manipulation", "机器人操作"),
    "tool use": ("tool use", "工具调用"),
    "protein": ("protein folding", "蛋白质折叠"),
    "chemistry": ("chemical synthesis", "化学合成"),
    "materials": ("materials science", "材料科学"),
}
SEED_INTERESTS = {
    "reasoning": ("reasoning", "推理"),
    "reinforcement learning": ("reinforcement learning", "强化学习"),
    "diffusion": ("diffusion models", "扩散模型"),
    "attention": ("attention", "注意力机制"),
    "language models": ("language models", "语言模型"),
    "synthetic data": ("synthetic data", "合成数据"),
    "long context / retrieval": ("long context retrieval", "长上下文检索"),
    "hallucination": ("hallucination", "幻觉"),
    "agents": ("agents", "智能体"),
}
VECTOR_CACHE = Path("/tmp/paperbot-bench-recommend-vectors")


class MemoryDense:
    """Dense (bot/library/learning.py) over vectors computed once: the bench's Meaning."""

    def __init__(self, papers: list[Paper]):
        from bot.semantic.model import UseEncoder
        from bot.semantic.text import paper_text, text_key

        self.encoder = UseEncoder()
        texts = [paper_text(p) for p in papers]
        keys = [text_key(t) for t in texts]
        VECTOR_CACHE.mkdir(parents=True, exist_ok=True)
        cache = VECTOR_CACHE / f"{text_key(''.join(map(str, keys)))}.npy"
        if cache.exists():
            matrix = np.load(cache)
        else:
            started = time.perf_counter()
            matrix = self.encoder.encode(texts)
            np.save(cache, matrix)
            print(f"(embedded {len(texts)} papers in {time.perf_counter() - started:.1f} s)")
        self.rows = {p.id: matrix[i] for i, p in enumerate(papers)}
        self.texts: dict[str, np.ndarray] = {}

    def paper_vectors(self, paper_ids):
        return {pid: self.rows[pid] for pid in paper_ids if pid in self.rows}

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.texts]
        if missing:
            self.texts.update(zip(missing, self.encoder.encode(missing), strict=True))
        return np.vstack([self.texts[t] for t in texts])


def evaluate_interests(
    corpus: list[tuple[Paper, str]], interests: dict[str, tuple[str, str]], readers: int, seed: int, pool: int,
    learners: dict[str, Learner], language: int,
) -> dict[str, tuple[float, float]]:  # fmt: skip
    """The cold start: each reader has only its two liked topics as interests (English names
    with `language` 0, Chinese with 1); precision@5 and nDCG@10 of the fresh pool's ranking."""
    rng = random.Random(seed)
    topics = sorted({t for _, t in corpus})
    shuffled = rng.sample(corpus, len(corpus))
    split = len(shuffled) // 2 if pool <= 0 else len(shuffled) - pool
    candidates = [p for p, _ in shuffled[split:]]
    topic_of = {p.id: t for p, t in corpus}
    out: dict[str, list[tuple[float, float]]] = {}
    for r in range(readers):
        reader = Reader(topics, random.Random(seed * 1000 + r))
        examples = [Example(1, "interest", interest=interests[t][language]) for t in sorted(reader.liked)]
        for name, learner in learners.items():
            ranked = [x.paper for x in learner.rank(candidates, examples)]
            p5 = sum(1 for p in ranked[:5] if topic_of[p.id] in reader.liked) / 5
            out.setdefault(name, []).append((p5, metrics(ranked, topic_of, reader)[1]))
    return {name: (statistics.mean(m[0] for m in rows), statistics.mean(m[1] for m in rows)) for name, rows in out.items()}


def judged(learners_of) -> None:
    """The judged relevance set (bench/relevance_set.py) as for-you readers over all the seed
    papers: a cold start whose one interest is the judged query (hit@5: a relevant paper in
    the first five), and, where a query has two or more relevant papers, a reader who saved
    the first (hit@5: another of them in the first five)."""
    from relevance_set import CASES

    papers = load_seed_papers()
    by_prefix = lambda prefix: next(p for p in papers if p.title_en.startswith(prefix))  # noqa: E731
    learners = learners_of(papers)
    kinds: dict[str, dict[str, list[float]]] = {}
    for kind, query, relevant in CASES:
        if not relevant:
            continue
        wanted = {by_prefix(r).id for r in relevant}
        for name, learner in learners.items():
            top = [x.paper.id for x in learner.rank(papers, [Example(1, "interest", interest=query)])][:5]
            kinds.setdefault("interest: " + kind, {}).setdefault(name, []).append(float(bool(wanted & set(top))))
            if len(relevant) >= 2:
                saved = by_prefix(relevant[0])
                top = [x.paper.id for x in learner.rank(papers, [Example(1, "saved", paper=saved)])][:5]
                kinds.setdefault("saved: " + kind, {}).setdefault(name, []).append(float(bool((wanted - {saved.id}) & set(top))))
    names = list(learners)
    print("\njudged set as for-you readers: hit@5 (queries)")
    print("| reader: kind | n | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for group in ("interest", "saved"):
        rows = {k: v for k, v in kinds.items() if k.startswith(group)}
        for kind, by in sorted(rows.items()):
            print(f"| {kind} | {len(by[names[0]])} | " + " | ".join(f"{statistics.mean(by[n]):.3f}" for n in names) + " |")
        every = {n: [x for by in rows.values() for x in by[n]] for n in names}
        print(
            f"| **{group}: all** | {len(every[names[0]])} | "
            + " | ".join(f"{statistics.mean(every[n]):.3f}" for n in names)
            + " |"
        )


def semantic(args) -> None:
    """The learned ranking with and without the papers' vectors, rated and cold."""

    def learners_of(papers: list[Paper]) -> dict[str, Learner]:
        dense: Dense = MemoryDense(papers)
        hashed = HashedTerms(TermCache())
        out = {"terms only (PAPERBOT_SEMANTIC=off)": Learner(hashed)}
        for weight in args.weights:
            out[f"vectors, weight {weight:g}"] = Learner(hashed, dense=dense, dense_weight=weight)
        out["vectors, no tie-break, weight 1"] = Learner(hashed, dense=dense, lexical_tie=0.0)
        for gate in args.gates:  # the terms' share only where the vectors agree this much (TERMS_GATE)
            out[f"vectors, weight 1, terms gated at {gate:g}"] = Learner(hashed, dense=dense, terms_gate=gate)
        for tie in args.ties:
            out[f"vectors + {tie:g} x terms, weight 1"] = Learner(hashed, dense=dense, lexical_tie=tie)
        return out

    judged(learners_of)
    if args.judged_only:
        return
    rng = random.Random(args.seed)
    generated = generated_corpus(2400, rng)
    seeds = seed_corpus()
    for title, corpus, pool, interests in (
        (f"generated corpus ({len(generated)} papers; 600 new), {args.readers} readers", generated, 600, GENERATED_INTERESTS),
        (f"seed papers ({len(seeds)}; half new), {args.readers} readers", seeds, 0, SEED_INTERESTS),
    ):
        learners = learners_of([p for p, _ in corpus])
        print_table(title, evaluate(corpus, args.readers, args.seed, pool, learners, today=False))
        print("\ncold start, interests only: precision@5 / nDCG@10 (English interests; Chinese interests)")
        english = evaluate_interests(corpus, interests, args.readers, args.seed, pool, learners, 0)
        chinese = evaluate_interests(corpus, interests, args.readers, args.seed, pool, learners, 1)
        for name in learners:
            print(f"- {name}: {english[name][0]:.3f} / {english[name][1]:.3f}; {chinese[name][0]:.3f} / {chinese[name][1]:.3f}")
    corpus = generated_corpus(3000, random.Random(args.seed))
    dense = MemoryDense([p for p, _ in corpus])
    for label, learner in (
        ("terms only", Learner(HashedTerms(TermCache()))),
        ("with vectors", Learner(HashedTerms(TermCache()), dense=dense)),
    ):
        times = []
        pool_papers = [p for p, _ in corpus[:300]]
        history = [p for p, _ in corpus[1000:]]
        people = [[Example(1, "liked", paper=p) for p in random.Random(i).sample(history, 14)] for i in range(30)]
        learner.rank(pool_papers, people[0])
        for examples in people:
            started = time.perf_counter()
            learner.rank(pool_papers, examples)
            times.append(time.perf_counter() - started)
        times.sort()
        print(f"one /papers foryou ({label}, 300-paper pool, 14 signals): median {1000 * times[len(times) // 2]:.1f} ms,"
              f" p90 {1000 * times[int(len(times) * 0.9)]:.1f} ms (load {os.getloadavg()[0]:.1f})")  # fmt: skip


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
    parser.add_argument("--semantic", action="store_true", help="with and without the papers' vectors (issue 26)")
    parser.add_argument("--ties", type=float, nargs="*", default=[], help="terms' shares beside the vectors to try")
    parser.add_argument("--gates", type=float, nargs="*", default=[], help="vectors' cosines gating the terms' share to try")
    parser.add_argument("--judged-only", action="store_true", help="with --semantic: the judged set's readers only")
    parser.add_argument("--weights", type=float, nargs="*", default=[0.0, 0.5, 1.0, 2.0], help="classifier weights to try")
    args = parser.parse_args(argv)
    if args.semantic:
        semantic(args)
        return 0
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
