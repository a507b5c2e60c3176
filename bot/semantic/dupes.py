"""The same paper under variant titles: found by vectors, confirmed by authors, shown once.

A paper's id is its English title's fingerprint, so a new arXiv version or another feed's
spelling ("KV-Cache" / "KV Cache") stores a second paper. Once both have vectors, the
builder asks each newly embedded paper for its nearest neighbour: a cosine of at least
DUPLICATE_COSINE (distinct seed papers top out at 0.65, a variant title with the same
summary scores 0.98) *and* shared authors *and* the same numbers in the title (not "Part II"
beside "Part I", "Model 3" beside "Model 2") make it a duplicate of the older one.

Nothing is deleted: the duplicate's row, and every save, vote, share or digest that names
its id, stay as they are. The `duplicates` table maps it to the paper it duplicates (the
canonical one); searches show the canonical paper once, with the feeds, links, summary and
arXiv record of both (Corpus.merge_duplicates), and asking for the duplicate's id gives the
canonical paper. Undone by deleting its row; recomputed from the vectors at any time.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import unicodedata
from dataclasses import replace

from bot.models import Paper
from bot.semantic.vectors import VectorStore
from bot.store.database import Store, apply_schema

logger = logging.getLogger(__name__)

DUPLICATE_COSINE = 0.85
AUTHOR_SHARE = 0.5  # of the shorter author list, and at least one name
RELOAD_SECONDS = 60.0  # another process (`python -m bot vectors`) may have found some meanwhile

SCHEMA = """
CREATE TABLE IF NOT EXISTS duplicates (
    id         TEXT PRIMARY KEY,
    canonical  TEXT NOT NULL,
    cosine     REAL NOT NULL,
    found_at   TEXT NOT NULL
)
"""

_NOT_LETTER = re.compile(r"[^a-z\u3400-\u9fff]+")


def author_key(name: str) -> str:
    """A name as spelt anywhere: no accents, case, punctuation or spaces ("Zdeborová" = "zdeborova")."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode() or name
    return _NOT_LETTER.sub("", folded.lower())


def share_authors(a: Paper, b: Paper) -> bool:
    """Whether two papers' author lists overlap enough to be the same paper's."""
    left = {author_key(n) for n in a.authors if author_key(n)}
    right = {author_key(n) for n in b.authors if author_key(n)}
    if not left or not right:
        return False
    shared = len(left & right)
    return shared >= 1 and shared >= AUTHOR_SHARE * min(len(left), len(right))


_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_ROMAN = re.compile(r"\b(?:I{1,3}|IV|VI{0,3}|IX|X)\b")


def title_numbers(paper: Paper) -> list[str]:
    """The numbers a title names ("Part II", "Llama 3", "Study 90002"), in order."""
    title = unicodedata.normalize("NFKC", paper.title_en or paper.title_zh)
    return _NUMBER.findall(title) + _ROMAN.findall(title)


def same_numbers(a: Paper, b: Paper) -> bool:
    """A variant title keeps its numbers; a title that names another number (a sequel, part
    two, the next model) is another paper, however close its vector and its authors."""
    return title_numbers(a) == title_numbers(b)


def merged(canonical: Paper, others: list[Paper]) -> Paper:
    """One paper with everything from both: the canonical fields, filled and joined from the others."""
    paper = canonical
    for other in sorted(others, key=lambda p: p.seq):
        paper = replace(
            paper,
            title_zh=paper.title_zh or other.title_zh,
            summary_zh=paper.summary_zh or other.summary_zh,
            authors=paper.authors or other.authors,
            affiliations=paper.affiliations or other.affiliations,
            comments=paper.comments or other.comments,
            journal_ref=paper.journal_ref or other.journal_ref,
            venue=paper.venue or other.venue,
            venue_name=paper.venue_name or other.venue_name,
            year=paper.year or other.year,
            track=paper.track or other.track,
            urls=list(dict.fromkeys([*paper.urls, *other.urls])),
            feeds=sorted(set(paper.feeds) | set(other.feeds)),
            arxiv=paper.arxiv or other.arxiv,
        )
    return paper


class Duplicates:
    """The duplicates table, and finding new ones among freshly embedded papers."""

    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()
        self._canonical: dict[str, str] | None = None
        self._members: dict[str, list[str]] = {}
        self._loaded_at = 0.0
        with store.transaction() as db:
            apply_schema(db, SCHEMA)

    def _load(self) -> dict[str, str]:
        with self._lock:
            if self._canonical is None or time.monotonic() - self._loaded_at > RELOAD_SECONDS:
                first = self._canonical is None
                self._loaded_at = time.monotonic()
                rows = self.store.read("SELECT id, canonical FROM duplicates")
                if first and rows:
                    rows = self._without_different_numbers(rows)
                self._canonical = {r[0]: r[1] for r in rows}
                members: dict[str, list[str]] = {}
                for dup, canon in self._canonical.items():
                    members.setdefault(canon, []).append(dup)
                self._members = members
            return self._canonical

    def _without_different_numbers(self, rows: list) -> list:
        """Pairs recorded before titles had to name the same numbers ("Part 2" is not "Part 1")
        are taken apart, once a process: they were two papers all along."""
        papers = {p.id: p for p in self.store.get_many(list({i for row in rows for i in row}))}
        wrong = [
            row[0] for row in rows
            if row[0] in papers and row[1] in papers and not same_numbers(papers[row[0]], papers[row[1]])
        ]  # fmt: skip
        if not wrong:
            return rows
        with self.store.transaction() as db:
            db.executemany("DELETE FROM duplicates WHERE id = ?", [(dup,) for dup in wrong])
        logger.info("duplicates: %d pairs whose titles name other numbers taken apart", len(wrong))
        return [row for row in rows if row[0] not in set(wrong)]

    def canonical(self, paper_id: str) -> str:
        """The id to show for `paper_id`: its canonical paper's, or its own."""
        return self._load().get(paper_id, paper_id)

    def members(self, canonical_id: str) -> list[str]:
        """The duplicates folded into `canonical_id`."""
        self._load()
        return list(self._members.get(canonical_id, ()))

    def count(self) -> int:
        return len(self._load())

    def find(self, papers: list[Paper], vectors: VectorStore, now: str) -> int:
        """Record the duplicates among `papers` (just embedded); return how many were found."""
        known = self._load()
        found: list[tuple[str, str, float]] = []
        for paper in papers:
            if paper.id in known:
                continue
            vector = vectors.vector(paper.id)
            if vector is None:
                continue
            for other_id, cosine in vectors.nearest(vector, 3, exclude={paper.id}):
                if cosine < DUPLICATE_COSINE:
                    break
                other = self.store.get(self.canonical(other_id))
                if other is None or other.id == paper.id or not share_authors(paper, other) or not same_numbers(paper, other):
                    continue
                older, newer = (other, paper) if (other.seq, other.id) < (paper.seq, paper.id) else (paper, other)
                if newer.id in known or any(f[0] == newer.id for f in found):
                    continue
                found.append((newer.id, self.canonical(older.id), cosine))
                logger.info("duplicate: %r is %r (cosine %.3f, shared authors)", newer.title_en, older.title_en, cosine)
                break
        if found:
            with self.store.transaction() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO duplicates (id, canonical, cosine, found_at) VALUES (?, ?, ?, ?)",
                    [(dup, canon, cos, now) for dup, canon, cos in found],
                )
                # A paper that others pointed to and is now a duplicate itself: they follow it.
                for dup, canon, _ in found:
                    db.execute("UPDATE duplicates SET canonical = ? WHERE canonical = ?", (canon, dup))
            with self._lock:
                self._canonical = None
        return len(found)
