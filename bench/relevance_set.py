"""The judged relevance set over the seed papers: (kind, query, every clearly relevant paper).

Written by reading the 97 seed papers (titles, summaries, affiliations, authors); papers
are named by the start of their English title (bench/relevance.py resolves each to one
paper and fails on an ambiguous or unknown prefix). A query with no relevant paper
(`nonsense`) is judged right when the search returns nothing at all.

Kinds: literal_en / literal_zh (words as the papers write them), cross_en (an English
query for a concept the paper states only in Chinese, in its summary), cross_zh (a
Chinese query for a concept written differently or only in English), script
(traditional characters for simplified text), name (authors typed without diacritics or
hyphens), alias (abbreviations, Chinese short forms, short institution names), joined
(joined and split forms, mixed scripts without spaces), typo_en / typo_zh (a slip of the
keyboard or of the input method), question (natural-language questions), nonsense.
"""

from __future__ import annotations

LLM_PAPERS = [
    "Cost-Aware Learning", "Weight Decay Improves", "ParisKV", "Stabilizing Native", "Targeted Recovery",
    "Are we Merging", "Discovering Ordinary", "When Agents Disagree", "Not All Needles", "Evidence-Grounded",
    "Evolution Strategies", "Adaptive Testing", "Skip a Layer", "Towards Understanding Modality", "Hybrid Policy",
    "SimulCost", "HybridFlow", "OBCache", "DAPD", "On Information Self-Locking", "DyLLM", "SmartThinker",
    "Concept Heterogeneity", "Constitutional Black-Box", "IDLM", "DenseMLLM", "Principled Synthetic",
    "Prototype Transformer", "LLM4Cov", "Embedding Trust", "Step-Tagging",
]
RL_PAPERS = [
    "Cost-Aware Learning", "Tracking Drift", "Evolution Strategies", "Lagrangian Perturbation",
    "Compositional Behavioral", "On Information Self-Locking", "You Can Learn Tokenization", "SWE-rebench",
]
USTC = ["OBCache", "On Information Self-Locking", "Vision Language Models Cannot", "WorldCache", "LLM4Cov", "REAL:", "Beyond Model Base"]

CASES: list[tuple[str, str, list[str]]] = [
    # -- literal, English ------------------------------------------------------------------
    ("literal_en", "speculative decoding", ["MineDraft", "LK Losses"]),
    ("literal_en", "grokking ridge regression", ["To Grok Grokking"]),
    ("literal_en", "weight decay plasticity", ["Weight Decay Improves"]),
    ("literal_en", "KV cache pruning", ["OBCache"]),
    ("literal_en", "credit assignment", ["Score Broadcast"]),
    ("literal_en", "whistleblowers", ["Plausible Deniability"]),
    ("literal_en", "steganography", ["Training-Free Coverless"]),
    ("literal_en", "federated learning", ["BESplit"]),
    ("literal_en", "conformal prediction fairness", ["Beyond Procedure"]),
    ("literal_en", "world models", ["World Action Verifier", "Flow Equivariant", "WorldCache"]),
    ("literal_en", "knowledge distillation", ["Symbiosis-Inspired"]),
    ("literal_en", "hallucination", ["Not All Needles", "Evidence-Grounded", "Hallucination is a Consequence"]),
    ("literal_en", "optimal transport", ["AvAtar", "Concept Heterogeneity"]),
    ("literal_en", "synthetic data", ["Hierarchical Synthetic", "PluRel", "Principled Synthetic"]),
    # -- literal, Chinese ------------------------------------------------------------------
    ("literal_zh", "推测解码", ["MineDraft", "LK Losses"]),
    ("literal_zh", "上下文学习", ["Algorithmic Recourse", "Fine-Tuning Without Forgetting", "Symmetry Reveals"]),
    ("literal_zh", "世界模型", ["World Action Verifier", "Flow Equivariant", "WorldCache"]),
    ("literal_zh", "隐写术", ["Training-Free Coverless"]),
    ("literal_zh", "因果发现", ["Skewness-Robust"]),
    ("literal_zh", "知识蒸馏", ["Symbiosis-Inspired"]),
    ("literal_zh", "扩散语言模型", ["IDLM", "DyLLM", "DAPD"]),
    ("literal_zh", "幻觉", ["Not All Needles", "Evidence-Grounded", "Hallucination is a Consequence"]),
    ("literal_zh", "联邦学习", ["BESplit"]),
    ("literal_zh", "奖励模型", ["One Bias After Another"]),
    # -- English query, concept only in the Chinese summary ----------------------------------
    ("cross_en", "differential privacy", ["Plausible Deniability"]),
    ("cross_en", "overfitting", ["Weight Decay Improves", "To Grok Grokking"]),
    ("cross_en", "eigenvalues", ["How the Hessian-Spectrum"]),
    ("cross_en", "throughput", ["ParisKV", "MineDraft", "DyLLM"]),
    ("cross_en", "interpretability", ["Neuro-Symbolic ODE", "Faster Query-Key", "Prototype Transformer"]),
    ("cross_en", "power law", ["Universal One-third", "Principled Synthetic"]),
    ("cross_en", "denoising", ["DyLLM", "You Don't Need All"]),
    ("cross_en", "carbon emissions", ["Position: Stop Preaching"]),
    ("cross_en", "regression", ["To Grok Grokking", "The Perplexity Trap"]),
    ("cross_en", "Kalman filter", ["Two-Layer Linear"]),
    ("cross_en", "semantic segmentation", ["DenseMLLM"]),
    ("cross_en", "species", ["MetaPerch"]),
    ("cross_en", "logistic regression", ["The Perplexity Trap"]),
    ("cross_en", "gradient norm", ["Cost-Aware Learning", "Local Redundancy"]),
    ("cross_en", "hypergraph convolution", ["DisPOSE"]),
    ("cross_en", "cross entropy", ["Universal One-third"]),
    ("cross_en", "sycophancy", ["One Bias After Another"]),
    ("cross_en", "early stopping", ["Step-Tagging"]),
    ("cross_en", "software engineering", ["SWE-rebench"]),
    # -- Chinese query, concept written otherwise or only in English --------------------------
    ("cross_zh", "变换器", ["How Many Different Outputs", "Symmetry Reveals", "Prototype Transformer", "Targeted Recovery"]),
    ("cross_zh", "投机解码", ["MineDraft", "LK Losses"]),
    ("cross_zh", "键值缓存", ["ParisKV", "OBCache"]),
    ("cross_zh", "代理", ["When Agents Disagree", "AgentPSO", "Constitutional Black-Box", "On Information Self-Locking", "LLM4Cov", "Evidence-Grounded", "Discovering Ordinary", "Knowing Isn't Understanding"]),
    ("cross_zh", "碳排放", ["Position: Stop Preaching"]),
    ("cross_zh", "早停", ["Step-Tagging"]),
    ("cross_zh", "吹哨人", ["Plausible Deniability"]),
    # -- traditional Chinese for simplified text ---------------------------------------------
    ("script", "推測解碼", ["MineDraft", "LK Losses"]),
    ("script", "強化學習", RL_PAPERS),
    ("script", "知識蒸餾", ["Symbiosis-Inspired"]),
    ("script", "聯邦學習", ["BESplit"]),
    ("script", "隱寫術", ["Training-Free Coverless"]),
    ("script", "世界模型 記憶", ["Flow Equivariant"]),
    ("script", "幻覺", ["Not All Needles", "Evidence-Grounded", "Hallucination is a Consequence"]),
    ("script", "因果發現", ["Skewness-Robust"]),
    ("script", "視覺語言模型", ["Vision Language Models Cannot", "Visual Persuasion"]),
    ("script", "擴散語言模型", ["IDLM", "DyLLM", "DAPD"]),
    # -- names without diacritics or hyphens --------------------------------------------------
    ("name", "Gudmundsdottir", ["Position: Stop Preaching"]),
    ("name", "Gudrun Fjola", ["Position: Stop Preaching"]),
    ("name", "Zdeborova", ["A solvable high-dimensional"]),
    ("name", "Cedric Koller", ["A solvable high-dimensional"]),
    ("name", "Burgin", ["Beyond Structural Symmetries"]),
    ("name", "Maynard Zhang", ["Two-Layer Linear"]),
    ("name", "MaynardZhang", ["Two-Layer Linear"]),
    ("name", "Allen Blanchette", ["A Hypertoroidal Covering"]),
    ("name", "Mariaflorina Balcan", ["What Does Preference Learning"]),
    ("name", "Barton Cooper", ["Constitutional Black-Box"]),
    # -- aliases and abbreviations -----------------------------------------------------------
    ("alias", "LLM", LLM_PAPERS),
    ("alias", "大模型", LLM_PAPERS),
    ("alias", "RL", RL_PAPERS),
    ("alias", "VLM", ["Vision Language Models Cannot", "Visual Persuasion"]),
    ("alias", "ICL", ["Algorithmic Recourse", "Fine-Tuning Without Forgetting", "Symmetry Reveals"]),
    ("alias", "CoT", ["SmartThinker"]),
    ("alias", "ODE", ["Discovering Ordinary", "Neuro-Symbolic ODE"]),
    ("alias", "MIT", ["Evolution Strategies", "MineDraft", "Visual Persuasion"]),
    ("alias", "CMU", ["World Action Verifier", "Flow Equivariant", "What Does Preference Learning"]),
    ("alias", "清华", ["SmartThinker", "REAL:", "Beyond Model Base"]),
    ("alias", "北大", ["JADE", "SimulCost"]),
    ("alias", "港科大", ["Algorithmic Recourse", "DenseMLLM"]),
    ("alias", "中科大", USTC),
    ("alias", "USTC", USTC),
    ("alias", "DeepMind", ["World Action Verifier", "Beyond Structural Symmetries"]),
    ("alias", "KAIST diffusion", ["DAPD"]),
    # -- joined and split forms, scripts typed together ----------------------------------------
    ("joined", "KVCache", ["ParisKV", "OBCache"]),
    ("joined", "kv-cache", ["ParisKV", "OBCache"]),
    ("joined", "KV cache", ["ParisKV", "OBCache"]),
    ("joined", "multiagent", ["AgentPSO", "Discovering Ordinary"]),
    ("joined", "multi agent", ["AgentPSO", "Discovering Ordinary"]),
    ("joined", "longcontext", ["ParisKV", "Not All Needles", "OBCache"]),
    ("joined", "long-context", ["ParisKV", "Not All Needles", "OBCache"]),
    ("joined", "selfattention", ["Robust Filter Attention", "Faster Query-Key", "DAPD", "Prototype Transformer"]),
    ("joined", "finetuning", ["Evolution Strategies", "Fine-Tuning Without Forgetting"]),
    ("joined", "大模型RL训练", ["Evolution Strategies", "Cost-Aware Learning", "SWE-rebench", "On Information Self-Locking"]),
    ("joined", "KV缓存检索", ["ParisKV"]),
    # -- typos ---------------------------------------------------------------------------------
    ("typo_en", "speculativ decodng", ["MineDraft", "LK Losses"]),
    ("typo_en", "steganografy", ["Training-Free Coverless"]),
    ("typo_en", "whistleblowrs", ["Plausible Deniability"]),
    ("typo_en", "Pehlvan", ["Universal One-third"]),
    ("typo_en", "hallucinaton", ["Not All Needles", "Evidence-Grounded", "Hallucination is a Consequence"]),
    ("typo_en", "distilation", ["Symbiosis-Inspired", "Hybrid Policy", "IDLM"]),
    ("typo_en", "tokenizaton", ["You Can Learn Tokenization", "Bend the Basics"]),
    ("typo_zh", "推测截码", ["MineDraft", "LK Losses"]),
    ("typo_zh", "隐写数", ["Training-Free Coverless"]),
    ("typo_zh", "因果发线", ["Skewness-Robust"]),
    ("typo_zh", "知识蒸流", ["Symbiosis-Inspired"]),
    ("typo_zh", "联邦雪习", ["BESplit"]),
    ("typo_zh", "世界魔性", ["World Action Verifier", "Flow Equivariant", "WorldCache"]),
    ("typo_zh", "幻决", ["Not All Needles", "Evidence-Grounded", "Hallucination is a Consequence"]),
    # -- questions -------------------------------------------------------------------------------
    ("question", "papers about making LLM inference faster", ["HybridFlow", "OBCache", "DyLLM", "MineDraft", "LK Losses", "ParisKV", "IDLM", "SmartThinker", "DAPD"]),
    ("question", "如何减少KV缓存的内存", ["ParisKV", "OBCache"]),
    ("question", "有哪些关于世界模型的论文", ["World Action Verifier", "Flow Equivariant", "WorldCache"]),
    ("question", "what are the papers on speculative decoding", ["MineDraft", "LK Losses"]),
    ("question", "how to detect hallucination", ["Not All Needles", "Evidence-Grounded", "Hallucination is a Consequence"]),
    ("question", "有没有关于知识蒸馏的论文", ["Symbiosis-Inspired"]),
    ("question", "which papers study grokking", ["To Grok Grokking"]),
    ("question", "关于联邦学习的研究", ["BESplit"]),
    ("question", "找一些关于扩散语言模型的论文", ["IDLM", "DyLLM", "DAPD"]),
    ("question", "any work on causal discovery?", ["Skewness-Robust"]),
    # -- nonsense: nothing is right ---------------------------------------------------------------
    ("nonsense", "asdfghjkl qwerty", []),
    ("nonsense", "zxcvbnm", []),
    ("nonsense", "nihao shijie xiexie", []),
    ("nonsense", "<script>alert(1)</script>", []),
    ("nonsense", "lorem ipsum dolor", []),
    ("nonsense", "qqqq wwww", []),
    ("nonsense", "aaaa bbbb cccc", []),
    ("nonsense", "啊啊啊啊", []),
]
