"""The fixed query mix: what people type into `/papers`, by kind.

Words come from the seed listings' vocabulary (so they hit the generated corpus the way
real queries hit a real one); typos are one or two edits from real words; no-hit
queries use words that appear nowhere in the seeds.
"""

from __future__ import annotations

QUERIES: list[tuple[str, str]] = [
    # English words, the common case
    ("english", "language models"),
    ("english", "reinforcement learning"),
    ("english", "diffusion"),
    ("english", "attention"),
    ("english", "speculative decoding"),
    ("english", "knowledge distillation"),
    ("english", "grokking"),
    ("english", "efficient inference long-context"),
    ("english", "federated learning"),
    ("english", "Bayesian optimization"),
    ("english", "world models"),
    # Chinese
    ("chinese", "大语言模型"),
    ("chinese", "强化学习"),
    ("chinese", "扩散模型"),
    ("chinese", "注意力"),
    ("chinese", "知识蒸馏"),
    ("chinese", "上下文学习"),
    ("chinese", "世界模型"),
    ("chinese", "神经网络"),
    ("chinese", "多模态 对齐"),
    ("chinese", "推理"),
    # Mixed English and Chinese
    ("mixed", "LLM 推理"),
    ("mixed", "KV 缓存"),
    ("mixed", "diffusion 模型"),
    ("mixed", "Transformer 注意力"),
    ("mixed", "RL 策略"),
    ("mixed", "GPU 高效"),
    # Authors
    ("author", "author:Zhang"),
    ("author", "author:Pehlevan"),
    ("author", 'author:"Chelsea Finn"'),
    ("author", "Kevin Murphy"),
    ("author", "作者:Wang"),
    # Affiliations, both languages
    ("affiliation", "affil:哈佛"),
    ("affiliation", "affil:Harvard"),
    ("affiliation", "affil:斯坦福"),
    ("affiliation", "affil:Stanford"),
    ("affiliation", "affil:清华"),
    ("affiliation", "affil:Tsinghua"),
    ("affiliation", 'affil:"Carnegie Mellon"'),
    ("affiliation", "机构:北京大学"),
    ("affiliation", "affil:DeepMind 世界模型"),
    # Phrases
    ("phrase", '"language models"'),
    ("phrase", '"reinforcement learning" agents'),
    ("phrase", '"knowledge distillation"'),
    ("phrase", '"大语言模型"'),
    ("phrase", '"world model"'),
    # Fields, years, operators
    ("field", "venue:ICLR diffusion"),
    ("field", "year:2025 reasoning"),
    ("field", "diffusion OR flow"),
    ("field", "agents -reinforcement"),
    # Typos (paperbot corrects from its vocabulary; FTS5 cannot)
    ("typo", "reinforcment lerning"),
    ("typo", "difusion models"),
    ("typo", "langauge model"),
    ("typo", "atention mechanism"),
    ("typo", "halucination"),
    # Nothing to find
    ("nohit", "quantum chromodynamics"),
    ("nohit", "xyzzy"),
    ("nohit", "蛋白质折叠"),
    ("nohit", "blockchain consensus protocol"),
    ("nohit", "zebrafish 胚胎"),
]
