"""Generate a deterministic benchmark corpus in the real listing format from the seed listings.

Every piece of text comes from the seeds' own vocabulary, parsed with `bot.ingest.listing`:
English title words (a bigram chain mixed with unigram draws, so common phrases such as
"language models" recur the way they do in real titles), Chinese title segments (rjieba
words of the seed titles, same chain), author first and last names recombined, the seed
affiliation pairs (`English（中文）`), summary clauses, and the comments / journal refs with
the venue and year varied. Field lengths are drawn from the seeds' own distributions.

About one record in nine repeats an earlier paper under another feed (the seeds hold 110
records of 97 papers), so the store's merge path is exercised too. Files hold ~1,000
records each and start with a feed line, like the real listings.

    python bench/corpus.py 10000 bench/work/corpus-10000
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
from bisect import bisect
from collections import Counter
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import rjieba  # noqa: E402  (a paperbot dependency: the same segmenter the index uses)

from bot.ingest.listing import VENUES, paper_id, parse_path  # noqa: E402
from bot.models import Paper  # noqa: E402

SEED = 20260601
GENERATOR_VERSION = 1  # bump when the output changes, so cached corpora are regenerated
RECORDS_PER_FILE = 1000
DUPLICATE_RATE = 13 / 110  # records that repeat an earlier paper, as in the seeds

_CLAUSE_SPLIT = re.compile(r"[，。；！？]")
_HAN = re.compile(r"[\u3400-\u9fff]")


class Weighted:
    """Draw from a fixed list of items with fixed weights (deterministic given the rng)."""

    def __init__(self, counts: Counter | dict):
        items = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
        self.items = [k for k, _ in items]
        self.cum = list(accumulate(v for _, v in items))

    def draw(self, rng: random.Random):
        return self.items[bisect(self.cum, rng.random() * self.cum[-1])]


@dataclass
class Vocabulary:
    """What the generator draws from, all extracted from the seed listings."""

    en_start: Weighted
    en_next: dict[str, Weighted]
    en_words: Weighted
    en_len: Weighted
    zh_start: Weighted
    zh_next: dict[str, Weighted]
    zh_words: Weighted
    zh_len: Weighted
    name_parts: list[str]
    first_names: Weighted
    last_names: Weighted
    n_authors: Weighted
    affiliations: Weighted
    n_affiliations: Weighted
    clauses: Weighted
    summary_len: Weighted
    comments: Weighted
    journal_refs: Weighted
    colon_rate: float
    journal_rate: float
    feeds: Weighted = field(default=None)  # type: ignore[assignment]


def _chain(sequences: list[list[str]]) -> tuple[Weighted, dict[str, Weighted], Weighted]:
    starts: Counter = Counter()
    nexts: dict[str, Counter] = {}
    words: Counter = Counter()
    for seq in sequences:
        if not seq:
            continue
        starts[seq[0]] += 1
        words.update(seq)
        for a, b in zip(seq, seq[1:], strict=False):
            nexts.setdefault(a, Counter())[b] += 1
    return Weighted(starts), {k: Weighted(v) for k, v in sorted(nexts.items())}, Weighted(words)


def load_seed_papers(seeds: Path = ROOT / "seeds") -> list[Paper]:
    papers = []
    for path in sorted(seeds.glob("*.txt")):
        papers.extend(p for _, p in parse_path(path).records)
    return papers


def build_vocabulary(papers: list[Paper]) -> Vocabulary:
    en_titles, zh_titles, name_parts = [], [], []
    colons = 0
    for p in papers:
        title = p.title_en
        if ":" in title:
            head, _, title = title.partition(":")
            colons += 1
            name_parts.extend(re.findall(r"[A-Z][a-z]+|[A-Z]{2,}(?![a-z])", head))
        en_titles.append(title.split())
        zh = p.title_zh.split("：", 1)[-1].split(":", 1)[-1] if ("：" in p.title_zh or ":" in p.title_zh) else p.title_zh
        zh_titles.append([w for w in rjieba.cut(zh.strip(), hmm=False) if w.strip()])
    en_start, en_next, en_words = _chain(en_titles)
    zh_start, zh_next, zh_words = _chain(zh_titles)
    firsts, lasts = Counter(), Counter()
    for p in papers:
        for a in p.authors:
            parts = a.split()
            if len(parts) >= 2:
                firsts[" ".join(parts[:-1])] += 1
                lasts[parts[-1]] += 1
    affils = Counter((a.en, a.zh) for p in papers for a in p.affiliations)
    clauses = Counter(c.strip() for p in papers for c in _CLAUSE_SPLIT.split(p.summary_zh) if len(c.strip()) >= 4)
    comments = Counter(p.comments for p in papers)  # "" included: some records have none
    journals = Counter(p.journal_ref for p in papers if p.journal_ref)
    return Vocabulary(
        en_start=en_start,
        en_next=en_next,
        en_words=en_words,
        en_len=Weighted(Counter(len(t) for t in en_titles)),
        zh_start=zh_start,
        zh_next=zh_next,
        zh_words=zh_words,
        zh_len=Weighted(Counter(len("".join(t)) for t in zh_titles)),
        name_parts=sorted(set(name_parts)),
        first_names=Weighted(firsts),
        last_names=Weighted(lasts),
        n_authors=Weighted(Counter(len(p.authors) for p in papers)),
        affiliations=Weighted(affils),
        n_affiliations=Weighted(Counter(len(p.affiliations) for p in papers)),
        clauses=Weighted(clauses),
        summary_len=Weighted(Counter(len(p.summary_zh) for p in papers)),
        comments=Weighted(comments),
        journal_refs=Weighted(journals),
        colon_rate=colons / len(papers),
        journal_rate=sum(1 for p in papers if p.journal_ref) / len(papers),
    )


# Feeds: mostly venues (the seeds' ICML feed), some institutions (the seeds' Harvard feed).
VENUE_FEEDS = ["ICML", "NeurIPS", "ICLR", "ACL", "EMNLP", "CVPR", "AAAI", "KDD", "COLM", "TMLR"]
INSTITUTION_FEEDS = [
    "Harvard University（哈佛大学）",
    "Stanford University（斯坦福大学）",
    "Tsinghua University（清华大学）",
    "Peking University（北京大学）",
]
YEARS = [2023, 2024, 2025, 2026]


class Generator:
    """Make papers and records from a vocabulary with one seeded random stream."""

    def __init__(self, vocab: Vocabulary, seed: int = SEED):
        self.v = vocab
        self.rng = random.Random(seed)
        self.ids: set[str] = set()

    def _walk(self, start: Weighted, nexts: dict[str, Weighted], words: Weighted, stop) -> list[str]:
        rng = self.rng
        out = [start.draw(rng)]
        while not stop(out):
            last = out[-1]
            # Half the time follow the seeds' bigrams (real phrases), else any word (variety).
            if last in nexts and rng.random() < 0.5:
                out.append(nexts[last].draw(rng))
            else:
                out.append(words.draw(rng))
        return out

    def coined_name(self) -> str:
        rng = self.rng
        parts = self.v.name_parts
        name = "".join(rng.choice(parts)[: rng.randint(3, 6)] for _ in range(rng.choice((1, 2, 2, 3))))
        if rng.random() < 0.3:
            name += rng.choice(("", "-", "")) + rng.choice(("KV", "LM", "RL", "Net", "GPT", "X", "2", "3D"))
        return name

    def titles(self) -> tuple[str, str]:
        v, rng = self.v, self.rng
        n = v.en_len.draw(rng)
        words = self._walk(v.en_start, v.en_next, v.en_words, lambda out: len(out) >= n)
        title = " ".join(words)
        title = title[0].upper() + title[1:]
        target = v.zh_len.draw(rng)
        zh = "".join(self._walk(v.zh_start, v.zh_next, v.zh_words, lambda out: len("".join(out)) >= target))
        if rng.random() < v.colon_rate:
            name = self.coined_name()
            title = f"{name}: {title}"
            zh = f"{name}：{zh}"
        return title, zh

    def authors(self) -> list[str]:
        v, rng = self.v, self.rng
        return [f"{v.first_names.draw(rng)} {v.last_names.draw(rng)}" for _ in range(v.n_authors.draw(rng))]

    def affiliations(self) -> list[tuple[str, str]]:
        v, rng = self.v, self.rng
        seen: dict[tuple[str, str], None] = {}
        for _ in range(v.n_affiliations.draw(rng)):
            seen.setdefault(v.affiliations.draw(rng), None)
        return list(seen)

    def summary(self) -> str:
        v, rng = self.v, self.rng
        target = v.summary_len.draw(rng)
        parts: list[str] = []
        while len("，".join(parts)) < target:
            parts.append(v.clauses.draw(rng))
        return "，".join(parts) + "。"

    def venue_text(self, text: str, venue: str, year: int) -> str:
        if not text:
            return text
        long_names = VENUES.get(venue, ())
        if long_names:
            text = text.replace("International Conference on Machine Learning", long_names[0])
        return text.replace("ICML", venue).replace("2026", str(year))

    def record(self, venue: str) -> dict:
        v, rng = self.v, self.rng
        while True:
            title_en, title_zh = self.titles()
            pid = paper_id(title_en)
            if pid not in self.ids:
                self.ids.add(pid)
                break
        year = rng.choice(YEARS)
        journal = v.journal_refs.draw(rng) if rng.random() < v.journal_rate else ""
        return {
            "title_en": title_en,
            "title_zh": title_zh,
            "authors": self.authors(),
            "affiliations": self.affiliations(),
            "summary": self.summary(),
            "comments": self.venue_text(v.comments.draw(rng), venue, year),
            "journal_ref": self.venue_text(journal, venue, year),
        }


def format_record(rec: dict) -> str:
    lines = [rec["title_en"], rec["title_zh"], ", ".join(rec["authors"])]
    if rec["affiliations"]:
        pairs = " ； ".join(f"{en}（{zh}）" if zh else en for en, zh in rec["affiliations"])
        lines.append(f"机构 * {pairs} 纠错")
    lines.append(f"AI总结 {rec['summary']}")
    if rec["comments"]:
        lines.append(f"Comments {rec['comments']}")
    if rec["journal_ref"]:
        lines.append(f"Journal ref {rec['journal_ref']}")
    return "\n\n".join(lines)


def generate(papers: int, out_dir: Path, seed: int = SEED) -> dict:
    """Write `papers` distinct papers (plus repeats) as listing files; return a manifest.

    Cached: if `out_dir/manifest.json` says the same size, seed and generator version,
    nothing is written.
    """
    manifest_path = out_dir / "manifest.json"
    want = {"papers": papers, "seed": seed, "version": GENERATOR_VERSION}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if all(manifest.get(k) == v for k, v in want.items()):
            return manifest
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.txt"):
        old.unlink()
    gen = Generator(build_vocabulary(load_seed_papers()), seed)
    rng = gen.rng
    made: list[dict] = []
    digest = hashlib.sha256()
    records = files = nbytes = 0
    distinct = 0
    while distinct < papers:
        files += 1
        feed = rng.choice(VENUE_FEEDS) if rng.random() < 0.8 else rng.choice(INSTITUTION_FEEDS)
        venue = feed if feed in VENUE_FEEDS else rng.choice(VENUE_FEEDS)
        chunks = [feed]
        for _ in range(RECORDS_PER_FILE):
            if distinct >= papers:
                break
            if made and rng.random() < DUPLICATE_RATE:
                rec = dict(made[rng.randrange(len(made))])  # the same paper, listed again
            else:
                rec = gen.record(venue)
                made.append(rec)
                distinct += 1
            chunks.append(format_record(rec))
            records += 1
        text = "\n\n".join(chunks) + "\n"
        data = text.encode("utf-8")
        digest.update(data)
        nbytes += len(data)
        (out_dir / f"{files:04d}.txt").write_bytes(data)
    manifest = {**want, "records": records, "files": files, "bytes": nbytes, "sha256": digest.hexdigest()}
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str]) -> int:
    papers = int(argv[1]) if len(argv) > 1 else 1000
    out = Path(argv[2]) if len(argv) > 2 else ROOT / "bench" / "work" / f"corpus-{papers}"
    print(json.dumps(generate(papers, out), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
