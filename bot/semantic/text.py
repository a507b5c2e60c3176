"""What of a paper is embedded: both titles and its summary, or arXiv's abstract without one.

Measured on the judged set (bench/RESULTS.md): titles with the summary found more right
papers by meaning than the English title alone or both titles; authors and affiliations
are left out (names carry no meaning, and "Paris" in an affiliation is not ParisKV's topic).
"""

from __future__ import annotations

import hashlib

from bot.models import Paper

MAX_CHARS = 1200  # the summary's first ~250 words say what the paper is about; the rest costs time


def paper_text(paper: Paper) -> str:
    abstract = paper.arxiv.abstract if paper.arxiv is not None else ""
    body = paper.summary_zh or abstract
    parts = [paper.title_en, paper.title_zh, body]
    return "\n".join(p.strip() for p in parts if p and p.strip())[:MAX_CHARS]


def text_key(text: str) -> int:
    """A 63-bit fingerprint of the embedded text: a vector is stale when its paper's text changed."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big") >> 1
