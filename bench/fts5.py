"""The baseline: the same listings in SQLite FTS5 with the trigram tokenizer.

Layout: one `papers` table holds every column (and the paper as JSON); an external-content
FTS5 table indexes the text columns with `tokenize='trigram'`, which needs no word
segmentation, so Chinese works as substring search. One transaction per listing file,
records parsed by the same `bot.ingest.listing` parser paperbot uses; a paper listed again is
merged (non-empty fields win, feeds are joined), its FTS row deleted and re-inserted.

Query translation (the same syntax paperbot accepts, minus what FTS5 cannot do):

* words and `"quoted phrases"` are AND-ed; `a OR b`, `-word` / `NOT word` are kept;
* `author:`, `affil:`, `venue:`, `title:`, `feed:` become FTS5 column filters
  (`{affil_en affil_zh} : "harvard"`); `year:2025` / `year:2024-2026` a SQL range;
* each word or phrase is a quoted FTS5 string: trigram matches it as a substring, so
  "model" finds "models" (a poor man's stemming) and a phrase matches the exact text;
* terms shorter than 3 characters (KV, RL, 哈佛, 推理) cannot be matched by trigram
  MATCH, so they become `LIKE '%term%'` on the content table's columns. (LIKE on the FTS
  table itself silently returns nothing for two-character CJK patterns in SQLite
  3.40, so the content table it is.) A query of only short terms is a full scan;
* ranking is bm25() with paperbot's field weights; with no MATCH part (only short
  terms) it is newest first. Like paperbot, when every-term finds nothing and there
  were several terms, it retries with any term;
* no stemming, no typo correction: "reinforcment" finds nothing.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

COLUMNS = ("title_en", "title_zh", "authors", "affil_en", "affil_zh", "summary", "venue", "comments", "feed")
# paperbot's bot/search/query.py FIELD_WEIGHTS, in COLUMNS order.
WEIGHTS = (4.0, 4.0, 2.5, 2.0, 2.0, 1.2, 1.0, 0.8, 0.5)
PREFIXES = {
    "author": ("authors",),
    "authors": ("authors",),
    "作者": ("authors",),
    "affil": ("affil_en", "affil_zh"),
    "affiliation": ("affil_en", "affil_zh"),
    "机构": ("affil_en", "affil_zh"),
    "venue": ("venue",),
    "会议": ("venue",),
    "title": ("title_en", "title_zh"),
    "标题": ("title_en", "title_zh"),
    "feed": ("feed",),
    "来源": ("feed",),
    "year": ("year",),
}

SCHEMA = f"""
PRAGMA journal_mode=WAL;
PRAGMA synchronous=NORMAL;
CREATE TABLE IF NOT EXISTS papers (
    rowid INTEGER PRIMARY KEY,
    id    TEXT NOT NULL UNIQUE,
    year  INTEGER,
    {", ".join(f"{c} TEXT NOT NULL" for c in COLUMNS)},
    data  TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    {", ".join(COLUMNS)}, content='papers', content_rowid='rowid', tokenize='trigram'
);
"""

_QUOTES = str.maketrans({c: '"' for c in "“”„‟«»「」『』"})
_YEARS = re.compile(r"^(\d{4})(?:\s*(?:-|\.\.|~)\s*(\d{4}))?$")


def _columns(paper) -> dict[str, str]:
    return {
        "title_en": paper.title_en,
        "title_zh": paper.title_zh,
        "authors": ", ".join(paper.authors),
        "affil_en": " ; ".join(a.en for a in paper.affiliations if a.en),
        "affil_zh": " ; ".join(a.zh for a in paper.affiliations if a.zh),
        "summary": paper.summary_zh,
        "venue": " ".join(x for x in (paper.venue, paper.journal_ref) if x),
        "comments": paper.comments,
        "feed": " ; ".join(paper.feeds),
    }


@dataclass
class Term:
    text: str
    columns: tuple[str, ...]
    negated: bool = False


@dataclass
class Group:
    terms: list[Term] = field(default_factory=list)  # OR-ed


def parse(text: str) -> list[Group]:
    """Split user text into AND-ed groups of OR-ed terms (words, phrases, prefix:value)."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    tokens = re.findall(r'-?(?:[^\s:"]+:)?"[^"]*"?|\S+', text)
    groups: list[Group] = []
    join_next = False
    negate_next = False
    for tok in tokens:
        if tok == "OR":
            join_next = bool(groups)
            continue
        if tok in ("AND", "&&"):
            continue
        if tok == "NOT":
            negate_next = True
            continue
        negated = negate_next
        negate_next = False
        if tok.startswith("-") and len(tok) > 1:
            negated, tok = True, tok[1:]
        columns = COLUMNS
        head, sep, rest = tok.partition(":")
        if sep and head.lower() in PREFIXES and rest:
            columns, tok = PREFIXES[head.lower()], rest
        tok = tok.strip('"').strip()
        if not tok:
            continue
        term = Term(tok.lower(), columns, negated)
        if join_next and groups:
            groups[-1].terms.append(term)
        else:
            groups.append(Group([term]))
        join_next = False
    return groups


def _fts_string(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _match_term(term: Term) -> str:
    expr = _fts_string(term.text)
    if term.columns != COLUMNS:
        return "{" + " ".join(term.columns) + "} : " + expr
    return expr


def _like_term(term: Term, args: list) -> str:
    if term.columns == ("year",):
        m = _YEARS.match(term.text)
        if m:
            lo, hi = sorted((int(m.group(1)), int(m.group(2) or m.group(1))))
            args.extend((lo, hi))
            return "p.year BETWEEN ? AND ?"
        term = Term(term.text, COLUMNS, term.negated)
    pattern = "%" + term.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    parts = []
    for c in term.columns:
        parts.append(f"p.{c} LIKE ? ESCAPE '\\'")
        args.append(pattern)
    return "(" + " OR ".join(parts) + ")"


def _is_short(term: Term) -> bool:
    return len(term.text) < 3 or term.columns == ("year",)


def translate(groups: list[Group], any_mode: bool = False) -> tuple[str | None, str, list]:
    """Return (FTS5 MATCH expression or None, extra SQL condition, its arguments).

    In `any_mode` the MATCH terms are OR-ed; LIKE conditions (short terms, years) stay
    required, as paperbot keeps its prefixed clauses required in its any-term fallback.
    """
    match_pos: list[str] = []
    match_neg: list[str] = []
    sql: list[str] = []
    args: list = []
    for group in groups:
        if all(not _is_short(t) for t in group.terms) and not any(t.negated for t in group.terms):
            expr = " OR ".join(_match_term(t) for t in group.terms)
            match_pos.append(f"({expr})" if len(group.terms) > 1 else expr)
        elif len(group.terms) == 1 and group.terms[0].negated and not _is_short(group.terms[0]):
            match_neg.append(_match_term(group.terms[0]))
        else:
            parts = []
            for t in group.terms:
                cond = _like_term(t, args)
                parts.append(f"NOT {cond}" if t.negated else cond)
            sql.append("(" + " OR ".join(parts) + ")")
    if any_mode and match_pos:
        match_pos = ["(" + " OR ".join(match_pos) + ")"]
    match = " AND ".join(match_pos) if match_pos else None
    if match and match_neg:
        match += " NOT " + " NOT ".join(match_neg)
    return match, " AND ".join(sql), args


class Fts5Corpus:
    """Ingest listings into SQLite FTS5 (trigram) and search them."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def ingest_paths(self, paths: list[Path]) -> dict:
        from bot.ingest.listing import parse_path  # the same parser paperbot uses

        totals = {"new": 0, "updated": 0, "records": 0}
        for path in paths:
            listing = parse_path(path)
            if not listing.feed:
                continue
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                for _, paper in listing.records:
                    totals["records"] += 1
                    self._upsert(db, paper, totals)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        return totals

    def _upsert(self, db: sqlite3.Connection, paper, totals: dict) -> None:
        row = db.execute("SELECT rowid, data FROM papers WHERE id = ?", (paper.id,)).fetchone()
        data = paper.to_dict()
        if row is not None:
            old = json.loads(row[1])
            merged = {k: (old[k] if v in ("", [], None) else v) for k, v in data.items()}
            merged["feeds"] = list(dict.fromkeys(old["feeds"] + data["feeds"]))
            if merged == old:
                return
            from bot.models import Paper

            paper, data = Paper.from_dict(merged), merged
            cols = [r for r in db.execute(f"SELECT {', '.join(COLUMNS)} FROM papers WHERE rowid = ?", (row[0],)).fetchone()]
            db.execute(
                f"INSERT INTO fts (fts, rowid, {', '.join(COLUMNS)}) VALUES ('delete', ?, {', '.join('?' * len(COLUMNS))})",
                (row[0], *cols),
            )
            rowid = row[0]
            values = _columns(paper)
            db.execute(
                f"UPDATE papers SET year = ?, data = ?, {', '.join(f'{c} = ?' for c in COLUMNS)} WHERE rowid = ?",
                (paper.year, json.dumps(data, ensure_ascii=False), *values.values(), rowid),
            )
            totals["updated"] += 1
        else:
            values = _columns(paper)
            cur = db.execute(
                f"INSERT INTO papers (id, year, data, {', '.join(COLUMNS)}) VALUES (?, ?, ?, {', '.join('?' * len(COLUMNS))})",
                (paper.id, paper.year, json.dumps(data, ensure_ascii=False), *values.values()),
            )
            rowid = cur.lastrowid
            totals["new"] += 1
        db.execute(
            f"INSERT INTO fts (rowid, {', '.join(COLUMNS)}) VALUES (?, {', '.join('?' * len(COLUMNS))})",
            (rowid, *values.values()),
        )

    def optimize(self) -> None:
        """Merge FTS5 segments (what a real deployment would do after a bulk load)."""
        self.db.execute("INSERT INTO fts (fts) VALUES ('optimize')")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM papers").fetchone()[0]

    def search(self, text: str, *, page: int = 1, per_page: int = 5) -> dict:
        """Return {"total", "mode", "hits": [{id, title_en, ..., snippet}]} like paperbot's page."""
        groups = parse(text)
        if not any(not t.negated for g in groups for t in g.terms):
            return {"total": 0, "mode": "none", "hits": []}
        total, hits = self._run(groups, False, page, per_page)
        mode = "all"
        if total == 0 and len(groups) > 1:
            total, hits = self._run(groups, True, page, per_page)
            mode = "any"
        return {"total": total, "mode": mode if total else "none", "hits": hits}

    def _run(self, groups: list[Group], any_mode: bool, page: int, per_page: int) -> tuple[int, list[dict]]:
        match, cond, args = translate(groups, any_mode)
        offset = (page - 1) * per_page
        if match:
            where = "fts MATCH ?" + (f" AND {cond}" if cond else "")
            params = [match, *args]
            total = self.db.execute(
                f"SELECT COUNT(*) FROM fts JOIN papers p ON p.rowid = fts.rowid WHERE {where}", params
            ).fetchone()[0]
            weights = ", ".join(str(w) for w in WEIGHTS)
            rows = self.db.execute(
                f"SELECT p.data, snippet(fts, -1, '\x02', '\x03', '…', 16) FROM fts JOIN papers p ON p.rowid = fts.rowid "
                f"WHERE {where} ORDER BY bm25(fts, {weights}) LIMIT ? OFFSET ?",
                [*params, per_page, offset],
            ).fetchall()
        else:
            total = self.db.execute(f"SELECT COUNT(*) FROM papers p WHERE {cond}", args).fetchone()[0]
            rows = self.db.execute(
                f"SELECT p.data, substr(p.title_en, 1, 60) FROM papers p WHERE {cond} ORDER BY p.rowid DESC LIMIT ? OFFSET ?",
                [*args, per_page, offset],
            ).fetchall()
        hits = []
        for data, snippet in rows:
            paper = json.loads(data)
            paper["snippet"] = snippet
            hits.append(paper)
        return total, hits
