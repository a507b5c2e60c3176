"""The Whoosh index of papers: what the rest of paperbot calls (PaperIndex, IndexPage).

The SQLite store is the source of truth; this index can be thrown away and rebuilt
from it at any time, and says so (IndexUnusable) when it is missing, corrupt or built
with another schema.

PaperIndex opens, rebuilds and updates the index and decides how a search is run
(literal, then expanded through the lexicon, then a spelling correction, then any term).
Each part of the work is a module of its own, as in Whoosh itself:

    schema.py    the fields a paper becomes (paper_document) and the schema
    readers.py   the searchers lent to searches, kept fresh (SearcherPool, PaperSearcher)
    writers.py   the writers: worker processes, segments written aside, the merge policy
    snippets.py  a hit's snippet, matched terms marked
    spelling.py  the typo vocabularies (Spelling) and the corrections made from them

Concurrency: one writer at a time (a threading.Lock in this process, Whoosh's file lock
across processes). Readers never lock the index: a search borrows a searcher from the
pool, because opening one per query costs more than the query, and Whoosh searchers
are not safe to share between threads. A rebuild is written beside the live directory
and swapped in by renaming it (`_swap_in`): searches use the old one until then, and
other processes notice the swap by the directory's inode.
"""

from __future__ import annotations

import copy
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import whoosh.index
from whoosh import query as wq
from whoosh.filedb.filestore import FileStorage
from whoosh.index import LockError
from whoosh.searching import Searcher

from bot.errors import IndexBusy, IndexUnusable
from bot.models import Affiliation, Fragment, Paper
from bot.search import legacy, writers  # writers.X at each use: tests change its limits
from bot.search.analysis import forget_sections
from bot.search.lexicon import Lexicon, TermLearner, load_alias_groups, load_terms
from bot.search.locks import HolderRecord
from bot.search.query import TEXT_FIELD, BuiltQuery, build_query
from bot.search.readers import PaperSearcher, SearcherPool, column_max, segment_id
from bot.search.schema import (
    INDEX_NAME,
    SNIPPET_FIELDS,
    build_schema,
    is_paper_schema,
    paper_document,
)
from bot.search.snippets import build_snippet, matched_expansions
from bot.search.spelling import Spelling

if TYPE_CHECKING:  # numpy is loaded at the first search, not at start-up
    from bot.search.topk import SegmentCache

logger = logging.getLogger(__name__)
legacy.register()  # indexes written before bot/search/ existed open as they are

LOCK_FILE = f"{INDEX_NAME}_WRITELOCK"  # Whoosh's name for the write lock of INDEX_NAME
ALTERNATIVES_CACHE = 10_000  # texts whose alternatives() are kept (interests: a few per person)
HIDDEN_CACHE = 64  # (index version, hidden set) pairs whose document numbers are kept: a few workspaces at a time
LEXICON_FILE = "lexicon.json"  # what the index learned from its papers' parallel text
MAX_PER_PAGE = 100


@dataclass
class IndexHit:
    """One matching paper: its id, score and a snippet from the field that matched best."""

    id: str
    score: float
    snippet: list[Fragment] = field(default_factory=list)
    snippet_field: str = ""
    expanded: list[str] = field(default_factory=list)  # the lexicon's alternatives this hit matched


@dataclass
class IndexPage:
    """One page of hits and how they were found.

    `mode`: "all" (every term matched), "any" (fell back to any term) or "none".
    `suggestion`: when set, the query was corrected from the index's vocabulary and
    the hits are for the corrected text. `problem`: an i18n key for input we had to
    repair or could not use ("query_empty", "query_repaired", "query_truncated",
    "paper_not_found"). `estimated`: `total` is an estimate of the matching papers (above
    or below the truth), at least the hits up to this page plus one more page when more
    exist; renderers show it as "about N", never as an exact number.
    """

    hits: list[IndexHit]
    total: int
    mode: str
    suggestion: str | None = None
    problem: str | None = None
    expanded: list[str] = field(default_factory=list)
    estimated: bool = False  # `total` is estimated (phrases: only the shown hits are checked)


class PaperIndex:
    """The papers' full-text index in one directory, safe to use from many threads."""

    def __init__(
        self,
        path: Path,
        *,
        writer_timeout: float = 10.0,
        procs: int = 1,
        limitmb: int | None = None,
        batch_size: int = 5000,
        segment_docs: int | None = None,
        aliases_path: Path | None = None,
    ):
        self.path = Path(path)
        self.aliases_path = aliases_path
        self.writer_timeout = writer_timeout
        self.procs = procs
        # Writer processes (the CLI, procs > 1) hold a bulk segment's postings in memory;
        # the server (procs == 1) must stay small while it serves (a rebuild after an
        # upgrade, a big catch-up), so it writes smaller segments with a smaller pool.
        bulk = procs > 1
        self.limitmb = limitmb if limitmb is not None else (writers.LIMIT_MB if bulk else writers.SERVER_LIMIT_MB)
        if segment_docs is None:
            segment_docs = writers.SEGMENT_DOCS if bulk else writers.SERVER_SEGMENT_DOCS
        self.batch_size = max(1, batch_size)
        # A bulk write commits once per `segment_docs` papers a worker: few, large segments
        # (a query pays ~0.3 ms a segment per term), each held in memory until its commit.
        self.segment_docs = segment_docs
        self.commit_docs = max(self.batch_size, segment_docs * max(1, procs))
        self._ix: whoosh.index.Index | None = None
        self._write_lock = threading.Lock()
        self._open_lock = threading.RLock()
        self._pool = SearcherPool(self.path, self._open_lock)  # the searchers lent to searches, and the epoch
        self._segment_revs: dict[str, int] = {}  # segment id -> highest rev in it
        self._lexicon_key: _LexiconKey | None = None
        self._lexicon: Lexicon | None = None
        self._alternatives: dict[tuple, tuple[str, ...]] = {}  # (text, lexicon, state) -> alternatives()
        self._hidden: dict[tuple, object] = {}  # (segments, hidden ids) -> their document numbers (_hidden_docnums)
        # The ids of papers private to a workspace, which teach no typo correction (the corpus
        # sets it: Visibility.private); none by default.
        self.private_ids: Callable[[], frozenset[str]] = frozenset
        self._spelling = Spelling(self._pool, lambda: self.private_ids())  # the typo vocabularies (bot/search/spelling.py)
        # Per-segment lengths and columns for bot/search/topk.py, made at the first search:
        # bot/search/topk.py imports numpy (~0.1 s of a CLI command's start; a digest never needs it).
        self._segments: SegmentCache | None = None  # bot/search/topk.py's, made at the first search

    # -- lifecycle ------------------------------------------------------------------------

    def open(self) -> None:
        """Open the index; raise IndexUnusable if it is missing, corrupt or of another schema."""
        with self._open_lock:
            # Other threads' searchers stay open until their next search: closing them
            # here could pull a reader from under a search in flight.
            self._ix = _open_checked(self.path)
            writers.sweep_scratch(self.path)
            self._pool.opened(_inode(self.path))  # another directory than before: a new epoch

    def close(self) -> None:
        """Close every searcher and the index (at shutdown: searches in flight may fail)."""
        with self._open_lock:
            self._close_all()

    def state(self) -> tuple[int, int]:
        """Return (documents, highest rev indexed) so the corpus can tell if it is stale.

        Each segment's highest rev is read from its rev column (one read and a max) and
        remembered (segments never change once written), so the check costs one column
        read per new segment instead of a walk over every rev ever indexed (at 1M papers
        that walk was most of cold start and of an upsert's lock hold).
        """
        with self._searcher() as searcher:
            return self._state(searcher)

    def _state(self, searcher: Searcher) -> tuple[int, int]:
        try:
            reader = searcher.reader()
            leaves = [leaf for leaf, _ in reader.leaf_readers()] if not reader.is_atomic() else [reader]
            max_rev = max((self._segment_rev(leaf) for leaf in leaves), default=0)
            return searcher.doc_count(), max_rev
        except Exception as exc:  # Whoosh reports damage as any of a dozen types
            raise IndexUnusable(f"cannot read the index at {self.path}: {exc!r}") from exc

    def _segment_rev(self, leaf) -> int:
        """Return the highest rev in one segment's reader, remembered by segment id."""
        key = segment_id(leaf)
        rev = self._segment_revs.get(key) if key is not None else None
        if rev is None:
            rev = column_max(leaf, "rev")
            if key is not None:
                self._segment_revs[key] = rev
        return rev

    def rebuild(self, papers: Iterable[Paper]) -> int:
        """Build a fresh index from `papers` beside the old one, then swap it in.

        One commit per `commit_docs` papers (one segment a worker): per-document commits
        are orders of magnitude slower, and each commit forks workers and leaves a
        segment every search pays for. Searches keep using the old index until the swap,
        and other processes notice the swap because the directory's inode changes.
        """
        with self._write_lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tag = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
            fresh = self.path.parent / f".{self.path.name}.new-{tag}"
            fresh.mkdir()
            try:
                ix = whoosh.index.create_in(str(fresh), build_schema(), indexname=INDEX_NAME)
                learner = TermLearner()
                count = 0
                seen: set[str] = set()
                late: dict[str, Paper] = {}
                writer = self._writer(ix)
                try:
                    for paper in papers:
                        if paper.id in seen:
                            # Changed while the store was being read page by page: the
                            # later version wins, written over the first after the loop.
                            late[paper.id] = paper
                            continue
                        seen.add(paper.id)
                        if not paper.teams:  # a private upload teaches no other workspace's searches
                            learner.observe(paper)
                        writer.add_document(**paper_document(paper))
                        count += 1
                        if count % self.commit_docs == 0:
                            writer.commit(merge=False)
                            writer = self._writer(ix)
                except BaseException:
                    writer.cancel()
                    raise
                writer.commit(merge=False)
                if late:
                    writer = self._writer(ix, large=False)
                    for paper in late.values():
                        writer.update_document(**paper_document(paper))
                    writer.commit()
                ix.close()
                learner.save(fresh / LEXICON_FILE)
                self._swap_in(fresh, tag)
            except BaseException:
                shutil.rmtree(fresh, ignore_errors=True)
                raise
            finally:
                forget_sections()
            return count

    def upsert(self, papers: Iterable[Paper]) -> int:
        """Add or replace `papers` by id; return how many were written.

        Commits every `commit_docs` papers, like rebuild(): give papers in rev order (as
        Store.iter_papers does) and an interrupted upsert leaves the index consistent up
        to some rev, which state() reports and the corpus catches up from.
        Raises IndexBusy if another process holds the write lock past `writer_timeout`.
        """
        written = 0
        batch: dict[str, Paper] = {}
        for paper in papers:
            batch[paper.id] = paper  # Whoosh cannot replace a doc added in the same commit
            if len(batch) >= self.commit_docs:
                written += self._upsert_batch(batch)
                batch = {}
        if batch:
            written += self._upsert_batch(batch)
        return written

    def remove(self, papers: list[tuple[str, int]]) -> int:
        """Delete the indexed versions of `papers` (id, seq); return how many there were.

        One commit that adds nothing; the segments keep their revs, so state() reports
        the rev the store keeps for removed papers (Store.remove_papers).
        Raises IndexBusy if another process holds the write lock past `writer_timeout`.
        """
        if not papers:
            return 0
        with self._write_lock:
            ix = self._index()
            before = self.state()[0]
            self._commit(ix, papers, lambda writer: lambda writer, segments: segments, large=False)
            return before - self.state()[0]

    def share_size(self, backlog: int) -> int:
        """Papers a share of `backlog` holds in upsert_stored: commits of `procs` equal
        shares of at most `segment_docs` each (equal, so no worker waits on another)."""
        per_commit = self.segment_docs * max(1, self.procs)
        shares = max(1, self.procs) * max(1, -(-backlog // per_commit))
        return max(1, -(-backlog // shares))

    def upsert_stored(self, papers: writers.StoredPapers) -> int:
        """upsert() for a backlog of whole segments (`segment_docs` papers a share), with
        worker processes (`procs` > 1) that read their shares from the store themselves
        and count what the lexicon learns from them; return how many were written.

        One commit per `procs` shares, in rev order, so an interrupted write leaves the
        index consistent up to some rev, as upsert() does. What a commit's workers counted
        joins the lexicon while the next commit's workers index (this process would
        otherwise keep them waiting: ~3 s a commit at 1M papers, for loading and saving it).
        """
        written = 0
        pending: list[Path] = []  # the last commit's counts, not yet in the lexicon
        scratch = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.learn-{os.getpid()}-", dir=self.path.parent))

        def absorb_pending() -> None:
            nonlocal pending
            if pending:
                writers.absorb_counts(self.path / LEXICON_FILE, pending)
                pending = []

        try:
            for start in range(0, len(papers.ranges), self.procs):
                shares = papers.ranges[start : start + self.procs]
                counts = [scratch / f"{start + i}.pickle" for i in range(len(shares))]
                written += self._upsert_shares(papers, shares, counts, absorb_pending)
                pending = counts
        finally:
            try:
                absorb_pending()  # the last commit's, or the last one that went through
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
        return written

    def _upsert_shares(
        self, papers: writers.StoredPapers, shares: list[tuple[int, int]], counts: list[Path], meanwhile: Callable
    ) -> int:
        """Commit `shares` (a worker each, counting into `counts`); run `meanwhile` as they index.

        The versions replaced are those of the papers the workers did write, deleted once
        they are done: a paper changed in the store meanwhile (moved above every share) is
        neither deleted here nor written, so its indexed version stays until the next
        catch-up replaces it, instead of leaving the index without it.
        """
        written: list[tuple[str, int]] = []
        with self._write_lock:
            ix = self._index()

            def add(writer) -> Callable:
                for (after, upto), out in zip(shares, counts, strict=True):
                    writer.add_share(after, upto, out)
                writer.before_merge = delete_written
                meanwhile()
                return writers.merge_tiny_segments

            def delete_written(writer) -> None:
                written.extend(writers.written_by(counts))
                with ix.searcher() as searcher:
                    writers.delete_replaced(writer, searcher, written, self._segment_rev)

            self._commit(ix, [], add, large=True, reader=papers.read)
        return len(written)

    def _upsert_batch(self, latest: dict[str, Paper]) -> int:
        large = len(latest) >= self.batch_size
        lexicon = self.path / LEXICON_FILE
        with self._write_lock:
            ix = self._index()
            # A day's file is analysed and written as a segment of its own beside the
            # index, before the lock: under it, only the replaced papers are deleted and
            # the segment joins the index. Written under the lock as before: a batch
            # smaller than a tiny segment (the next upsert would fold it in anyway), one
            # that has tiny segments to fold in, and large catch-ups (worker processes).
            aside = None
            if len(latest) >= writers.TINY_SEGMENT_DOCS and not large and not self._has_tiny_segments():
                documents = [paper_document(paper) for paper in latest.values()]
                aside = writers.write_aside(self.path, ix, documents, limitmb=self.limitmb, serving=self.procs == 1)
            try:
                self._commit_batch(ix, latest, aside, large)
            finally:
                if aside is not None:
                    shutil.rmtree(aside.folder, ignore_errors=True)
            # A replaced paper is counted again: pairs only ever gain evidence between
            # rebuilds, which is what a growing corpus does anyway.
            # Only shared papers teach the lexicon: a private upload's titles never reach another
            # workspace's expansions (bot/store/visibility.py).
            shared = [paper for paper in latest.values() if not paper.teams]
            if shared:
                writers.learn(lexicon, shared, serving=self.procs == 1)
            forget_sections()
            return len(latest)

    def _commit_batch(self, ix: whoosh.index.Index, latest: dict[str, Paper], aside: writers.Aside | None, large: bool) -> None:
        """Delete the papers' indexed versions, add them (or move their segment in), commit."""

        def add(writer) -> Callable:
            if aside is None:
                for paper in latest.values():
                    writer.add_document(**paper_document(paper))
                return writers.merge_tiny_segments
            # Joins as written. Tiny segments another process committed since
            # the check above wait for the next upsert: copying the new segment
            # to fold them in would requantize its field lengths (Whoosh keeps
            # one byte a length), and so change its scores.
            segment = writers.move_segment(aside.folder, aside.segment, self.path)
            return lambda writer, segments: [*segments, segment]

        self._commit(ix, [(paper.id, paper.seq) for paper in latest.values()], add, large=large)

    def _commit(
        self, ix: whoosh.index.Index, replaced: list[tuple[str, int]], add: Callable, *, large: bool, reader=None
    ) -> None:
        """Open a writer, let `add(writer)` add the new papers and say how to merge, delete
        the `replaced` papers' (id, seq) indexed versions, and commit. (Adding first: a bulk
        write's workers start indexing at once.)"""
        record = self._holder_record()
        try:
            writer = self._writer(ix, large=large, record=record, reader=reader)
        except LockError:
            # Busy: first see whether its holder is gone (then free it), then wait.
            record.reclaim()
            try:
                writer = self._writer(ix, timeout=self.writer_timeout, large=large, record=record, reader=reader)
            except LockError as exc:
                raise IndexBusy(f"index {self.path} is being written by another process") from exc
        try:
            mergetype = add(writer)
            with ix.searcher() as searcher:
                writers.delete_replaced(writer, searcher, replaced, self._segment_rev)
        except BaseException:
            writer.cancel()
            record.release()
            raise
        # Only tiny segments are folded together (an inbox file's worth each): Whoosh's
        # own merge policy rewrote the whole index on a commit after a bulk load
        # (52k papers at 444/s instead of 1,267/s).
        try:
            writer.commit(mergetype=mergetype)
        finally:
            record.release()

    def _has_tiny_segments(self) -> bool:
        with self._searcher() as searcher:
            return any(leaf.reader().doc_count_all() < writers.TINY_SEGMENT_DOCS for leaf, _ in searcher.leaf_searchers())

    def _holder_record(self) -> HolderRecord:
        return HolderRecord(self.path, self.path / LOCK_FILE)

    def _writer(
        self, ix: whoosh.index.Index, *, timeout: float = 0.0, large: bool = True, record: HolderRecord | None = None, reader=None
    ):
        """A writer with this index's memory budget (writers.open_writer): `procs` processes
        for a large write, where the caller said forking is safe (the CLI), else this one."""
        return writers.open_writer(
            ix, procs=self.procs if large else 1, limitmb=self.limitmb, timeout=timeout, record=record, reader=reader
        )

    # -- searching ------------------------------------------------------------------------

    def search(
        self,
        text: str,
        *,
        page: int = 1,
        per_page: int = 5,
        min_seq: int = 0,
        max_seq: int | None = None,
        limit: int | None = None,
        expand: bool = True,
        correct: bool = True,
        lang: str | None = None,
        hidden: frozenset[str] = frozenset(),
        any_limit: int | None = None,
    ) -> IndexPage:
        """Search for `text`: literal, then expanded, then a spelling correction, then any term.

        Literal matches (every term as typed, short names resolved) always come first;
        only when they do not fill the page are papers that match through the lexicon
        (translations, aliases, joined/split forms) added after them, so the common
        query costs one search. `expand=False` and `correct=False` take the text
        literally (digest filters; "search instead for"). `min_seq` keeps only papers
        with seq > min_seq and, given `max_seq`, seq <= max_seq (a digest's range: papers
        stored meanwhile must not take its slots). `limit=N` returns up to N hits on one page instead
        of paging. `lang` picks the snippet in the reader's language on a tie. Bad input
        never raises: it comes back as a `problem`. `hidden`: ids of papers the asker may
        not see (bot/store/visibility.py), left out before counting, so a correction or an
        expansion that only they would match is never offered. `any_limit=N`: if it comes to
        the any-term fallback, its first N hits on one page (what search by meaning fuses
        with its neighbours: bot/corpus.py), so that the fallback is not searched twice.
        """
        with self._searcher() as searcher:
            return self._search(
                searcher, text, page=page, per_page=per_page, min_seq=min_seq, max_seq=max_seq, limit=limit,
                expand=expand, correct=correct, lang=lang, hidden=hidden, any_limit=any_limit,
            )  # fmt: skip

    def _search(
        self,
        searcher: Searcher,
        text: str,
        *,
        page: int,
        per_page: int,
        min_seq: int,
        limit: int | None,
        max_seq: int | None = None,
        expand: bool = True,
        correct: bool = True,
        lang: str | None = None,
        hidden: frozenset[str] = frozenset(),
        any_limit: int | None = None,
    ) -> IndexPage:
        page, per_page = max(1, int(page)), max(1, min(int(per_page), MAX_PER_PAGE))
        window = (0, max(0, int(limit))) if limit is not None else ((page - 1) * per_page, page * per_page)
        only = wq.NumericRange("seq", min_seq + 1, max_seq) if min_seq > 0 or max_seq is not None else None
        reader = searcher.reader()
        lexicon = self._lexicon_for(reader) if expand else None

        def is_known(token: str) -> bool:
            return (TEXT_FIELD, token) in reader

        def find(query_text: str, mode: str, window: tuple[int, int] = window) -> _Found:
            literal = build_query(query_text, mode=mode, lexicon=lexicon, is_known=is_known)
            if literal.query is None:
                return _Found(IndexPage([], 0, "none", problem=literal.problem), literal)
            found = self._run(searcher, literal.terms, literal.query, window, only, lang=lang, hidden=hidden)
            # Literal hits past this page: the expansions' papers come on later pages. Exactly
            # filled (no literal hit after this page), they are counted here, so the pager
            # offers the page they are on (else they could never be reached).
            if lexicon is None or found.total > window[1]:
                return _Found(found, literal)
            wide = build_query(query_text, mode=mode, lexicon=lexicon, expand=True, is_known=is_known)
            if wide.query is None or wide.impossible or wide.query == literal.query:
                return _Found(found, literal)
            literal_total = found.total
            extra_window = (max(0, window[0] - literal_total), window[1] - literal_total)
            extra = self._run(
                searcher,
                wide.terms,
                wide.query,
                extra_window,
                only,
                literal.query if literal_total else None,
                lang=lang,
                expansions=wide.expanded_terms,
                hidden=hidden,
            )
            if not extra.total:
                return _Found(found, literal)
            page_ = IndexPage(
                found.hits + extra.hits, literal_total + extra.total, "all", expanded=list(wide.expanded),
                estimated=found.estimated or extra.estimated,
            )  # fmt: skip
            return _Found(page_, literal)

        found, built = find(text, "all")
        if built.query is None:
            return IndexPage([], 0, "none", problem=built.problem)
        problem = built.problem
        if found.total:
            return _with(found, "all", None, problem)

        suggestion = self._spelling.suggest(reader, text, lexicon, self._live_segments) if correct else None
        if suggestion:
            fixed, _ = find(suggestion, "all")
            if fixed.total:
                return _with(fixed, "all", suggestion, problem)

        loose, _ = find(text, "any", (0, max(0, int(any_limit))) if any_limit is not None else window)
        if loose.total:
            return _with(loose, "any", None, problem)
        return IndexPage([], 0, "none", problem=problem)

    def ids_after(self, rev: int) -> frozenset[str]:
        """Ids of the papers indexed at a rev above `rev`: those a store that can't be read just
        now can't say who may see (Corpus.search while it is away). Only the segments whose
        highest rev is above it are read, so normally none."""
        found: set[str] = set()
        with self._searcher() as searcher:
            reader = searcher.reader()
            for leaf in [leaf for leaf, _ in reader.leaf_readers()] if not reader.is_atomic() else [reader]:
                if not leaf.doc_count_all() or self._segment_rev(leaf) <= rev:
                    continue
                revs = leaf.column_reader("rev")
                found.update(
                    str(leaf.stored_fields(docnum)["id"])
                    for docnum in range(leaf.doc_count_all())
                    if revs[docnum] > rev and not leaf.is_deleted(docnum)
                )
        return frozenset(found)

    def stored_papers(self, ids: list[str]) -> list[Paper]:
        """The papers with these ids as the index holds them, in order (those it holds): titles,
        authors, affiliations, summary, comments, seq and rev, but no links, venue, feeds or
        arXiv record, which only the store has. What a search shows while the store is away."""
        papers = []
        with self._searcher() as searcher:
            for paper_id in ids:
                docnum = searcher.document_number(id=paper_id)
                if docnum is None:
                    continue
                stored = searcher.stored_fields(docnum)
                en = [name.strip() for name in (stored.get("affil_en") or "").split(";") if name.strip()]
                zh = [name.strip() for name in (stored.get("affil_zh") or "").split("；") if name.strip()]
                if len(en) == len(zh):  # the index keeps each language's list in the listing's order: pairs again
                    affiliations = [Affiliation(en=e, zh=z) for e, z in zip(en, zh, strict=True)]
                else:
                    affiliations = [Affiliation(en=e, zh="") for e in en] + [Affiliation(en="", zh=z) for z in zh]
                papers.append(
                    Paper(
                        id=str(stored["id"]), title_en=stored.get("title_en") or "", title_zh=stored.get("title_zh") or "",
                        authors=[a.strip() for a in (stored.get("authors") or "").split(", ") if a.strip()],
                        affiliations=[a for a in affiliations if a.en or a.zh], summary_zh=stored.get("summary") or "",
                        comments=stored.get("comments") or "", seq=int(stored.get("seq") or 0), rev=int(stored.get("rev") or 0),
                    )
                )  # fmt: skip
        return papers

    def more_like(self, paper_id: str, *, page: int = 1, per_page: int = 5, hidden: frozenset[str] = frozenset()) -> IndexPage:
        """Find papers like `paper_id` from its key terms (titles, summary, authors), not itself
        nor the `hidden` ones (see search)."""
        with self._searcher() as searcher:
            return self._more_like(searcher, paper_id, page=page, per_page=per_page, hidden=hidden)

    def _more_like(
        self, searcher: Searcher, paper_id: str, *, page: int, per_page: int, hidden: frozenset[str] = frozenset()
    ) -> IndexPage:
        page, per_page = max(1, int(page)), max(1, min(int(per_page), MAX_PER_PAGE))
        docnum = searcher.document_number(id=paper_id)
        if docnum is None:
            return IndexPage([], 0, "none", problem="paper_not_found")
        stored = searcher.stored_fields(docnum)
        text = "\n".join(stored.get(name) or "" for name in ("title_en", "title_zh", "summary", "authors"))
        keys = searcher.key_terms_from_text(TEXT_FIELD, text, numterms=20) if text.strip() else []
        clauses = [wq.Term(TEXT_FIELD, term, boost=weight) for term, weight in keys]
        terms = frozenset((name, term) for term, _ in keys for name in SNIPPET_FIELDS)
        if not clauses:
            return IndexPage([], 0, "none")
        window = ((page - 1) * per_page, page * per_page)
        found = self._run(searcher, terms, wq.Or(clauses), window, None, wq.Term("id", paper_id), hidden=hidden)
        return _with(found, "any" if found.total else "none", None, None)

    # -- new papers (digests) ---------------------------------------------------------------

    def score_new(
        self,
        text: str,
        *,
        after_seq: int,
        upto_seq: int | None = None,
        aliases: bool = False,
        hidden: frozenset[str] = frozenset(),
    ) -> list[tuple[str, float]]:
        """Return (id, score) of the papers first stored after `after_seq` that match `text`, best first.

        What search(text, min_seq=after_seq, max_seq=upto_seq, expand=False, correct=False)
        finds when every term matches, with the same scores (BM25 still uses the whole
        index's statistics), but only the segments that can hold such papers are read:
        a paper's seq is at most its rev, and each segment's highest rev is known (see
        state()). A search walks every match of the filter in the whole index, and its
        seq range filter holds every document in the range: a digest at 1M papers took
        seconds. `aliases=True` lets short names search as the names they stand for, as
        search() does when it expands (the literal part of its query, no translations).
        `hidden`: ids left out (see search).
        """
        found = self._score_new(text, after_seq=after_seq, upto_seq=upto_seq, aliases=aliases)
        return [item for item in found if item[0] not in hidden] if hidden else found

    def _score_new(self, text: str, *, after_seq: int, upto_seq: int | None, aliases: bool) -> list[tuple[str, float]]:
        with self._searcher() as searcher:
            reader = searcher.reader()
            lexicon = self._lexicon_for(reader) if aliases else None
            built = build_query(text, mode="all", lexicon=lexicon, is_known=lambda token: (TEXT_FIELD, token) in reader)
            if built.query is None:
                return []
            recent = self._newer_than(searcher, after_seq)
            if after_seq <= 0 and upto_seq is None:
                results = recent.search(built.query, limit=None, optimize=False)
                return [(recent.stored_fields(docnum)["id"], float(score or 0.0)) for docnum, score in results.items()]
            # The seq range as a filter is a set of every document in it (from each segment's
            # seq column); reading each match's stored seq costs a stored-field read per
            # match. The new segments mostly hold the new papers, so their matches are the
            # cheaper way unless the segments are much bigger than the range (a freshly
            # rebuilt index).
            leaves = recent.leaf_searchers()
            docs = sum(leaf.doc_count_all() for leaf, _ in leaves)
            top = (
                upto_seq
                if upto_seq is not None
                else max((self._segment_rev(leaf.reader()) for leaf, _ in leaves), default=after_seq)
            )
            if docs > 4 * max(top - after_seq, 1):
                only = self._range_filter(recent, wq.NumericRange("seq", after_seq + 1, upto_seq))
                if not only:  # (Whoosh reads an empty filter as none)
                    return []
                results = recent.search(built.query, limit=None, filter=only, optimize=False)
                return [(recent.stored_fields(docnum)["id"], float(score or 0.0)) for docnum, score in results.items()]
            found = []
            for docnum, score in recent.search(built.query, limit=None, optimize=False).items():
                stored = recent.stored_fields(docnum)
                if after_seq < stored["seq"] and (upto_seq is None or stored["seq"] <= upto_seq):
                    found.append((stored["id"], float(score or 0.0)))
            return found

    def alternatives(self, text: str) -> tuple[str, ...]:
        """The tokens a search for `text` also looks for, beyond its own analysed words: the
        lexicon's aliases, translations and joined/split forms that the index holds (what
        search() adds when it expands). `KV cache` -> 键值 缓存, `推测解码` -> specul decod.

        The for-you reads an interest through this (bot/library/recommend.py), so it matches
        papers in the other language as a search would. Cached per text until the index or
        the lexicon changes: a digest morning asks for every subscriber's interests.
        """
        with self._searcher() as searcher:
            reader = searcher.reader()
            lexicon = self._lexicon_for(reader)
            key = (text, self._lexicon_key, self._state(searcher))
            with self._open_lock:
                cached = self._alternatives.get(key)
            if cached is not None:
                return cached
            built = build_query(
                text, mode="all", lexicon=lexicon, expand=True, is_known=lambda token: (TEXT_FIELD, token) in reader
            )
        found = tuple(token for _, target in built.expanded_terms for token in target)
        with self._open_lock:
            if len(self._alternatives) >= ALTERNATIVES_CACHE:
                self._alternatives.clear()
            self._alternatives[key] = found
        return found

    def query_problem(self, text: str) -> str | None:
        """Return the `problem` search(text, expand=False) would report (an i18n key), without searching."""
        with self._searcher() as searcher:
            reader = searcher.reader()
            return build_query(text, mode="all", is_known=lambda token: (TEXT_FIELD, token) in reader).problem

    def _range_filter(self, searcher: Searcher, q: wq.NumericRange) -> set[int]:
        """A seq range as a filter for Whoosh's own search: the documents, from the column."""
        # Deferred: numpy, at the first search rather than at start-up (see _segment_cache).
        from bot.search import topk

        return topk.range_docnums(searcher, q, cache=self._segment_cache(), segment_key=segment_id)

    def _newer_than(self, searcher: Searcher, after_seq: int) -> Searcher:
        """Return a view of `searcher` that searches only segments holding a rev above `after_seq`.

        The view shares the searcher's readers and statistics (its leaves keep the full
        searcher as their parent, which is what BM25 asks), so a match scores the same.
        """
        if searcher.is_atomic() or after_seq <= 0:
            return searcher
        view = copy.copy(searcher)
        view.subsearchers = [
            (leaf, offset) for leaf, offset in searcher.leaf_searchers() if self._segment_rev(leaf.reader()) > after_seq
        ]
        return view

    # -- internals ------------------------------------------------------------------------

    def _run(
        self,
        searcher: Searcher,
        terms: frozenset[tuple[str, str]],
        q: wq.Query,
        window: tuple[int, int],
        only: wq.Query | None,
        mask: wq.Query | None = None,
        *,
        lang: str | None = None,
        expansions: tuple[tuple[str, tuple[str, ...]], ...] = (),
        hidden: frozenset[str] = frozenset(),
    ) -> IndexPage:
        # Deferred: numpy, at the first search rather than at start-up (see _segment_cache).
        from bot.search import topk

        # Papers the asker may not see: their document numbers, left out like deleted ones.
        exclude = self._hidden_docnums(searcher, hidden) if hidden else None
        start, end = window
        top = topk.search(
            searcher, q, limit=max(end, 1), cache=self._segment_cache(), segment_key=segment_id, filter=only, mask=mask,
            exclude=exclude,
        )  # fmt: skip
        if top is not None:
            total, estimated = top.total, top.estimated
            shown = list(zip(top.docnums, top.scores, strict=True))[start:end]
            found = [(docnum, score, searcher.stored_fields(docnum)) for docnum, score in shown]
        else:
            # What bot/search/topk.py does not evaluate: Whoosh scores every match (same ranking).
            # optimize=False: the exact total block-quality skipping cannot give would cost
            # a second full pass over the matches.
            if isinstance(only, wq.NumericRange):
                only = self._range_filter(searcher, only)
                if not only:  # (Whoosh reads an empty filter as none)
                    return IndexPage([], 0, "all")
            if exclude is not None and len(exclude):
                hide = {int(docnum) for docnum in exclude}
                if mask is not None:
                    hide |= {docnum for docnum, _ in searcher.search(mask, limit=None).items()}
                mask = hide  # (Whoosh takes a set of document numbers as a mask)
            results = searcher.search(q, limit=max(end, 1), filter=only, mask=mask, optimize=False)
            total, estimated = len(results), False
            found = [(hit.docnum, hit.score, hit.fields()) for hit in results[start:end]]
        hits = []
        for _, score, stored in found:
            snippet, snippet_field = build_snippet(stored, terms, lang=lang)
            matched = matched_expansions(stored, expansions) if expansions else []
            hits.append(IndexHit(stored["id"], float(score or 0.0), snippet, snippet_field, matched))
        return IndexPage(hits, total, "all", estimated=estimated)

    def _hidden_docnums(self, searcher: Searcher, hidden: frozenset[str]):
        """The sorted document numbers of the `hidden` papers in `searcher`, cached per index
        version: masking them as 300 id terms made each search 6x slower (bench in the commit)."""
        # Deferred: numpy, at the first search rather than at start-up (see _segment_cache).
        import numpy as np

        reader = searcher.reader()
        leaves = [leaf for leaf, _ in reader.leaf_readers()] if not reader.is_atomic() else [reader]
        key = (tuple(segment_id(leaf) for leaf in leaves), hidden)
        with self._open_lock:
            found = self._hidden.get(key)
        if found is not None:
            return found
        docnums = sorted(d for d in (searcher.document_number(id=pid) for pid in hidden) if d is not None)
        found = np.asarray(docnums, dtype=np.int64)
        with self._open_lock:
            if len(self._hidden) >= HIDDEN_CACHE:
                self._hidden.clear()
            self._hidden[key] = found
        return found

    def _segment_cache(self):
        """bot/search/topk.py's cache of per-segment arrays, made (with numpy's import) at the first search."""
        cache = self._segments
        if cache is None:
            # Deferred: numpy, loaded at the first search, not at start-up.
            from bot.search import topk

            with self._open_lock:
                if self._segments is None:
                    self._segments = topk.SegmentCache()
                cache = self._segments
        return cache

    def _lexicon_for(self, reader) -> Lexicon:
        """Return the lexicon: curated + admin aliases and what this index learned (cached)."""
        path = self.path / LEXICON_FILE
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            stamp = 0
        admin = self.aliases_path
        try:
            admin_stamp = admin.stat().st_mtime_ns if admin is not None else 0
        except OSError:
            admin_stamp = 0
        key = _LexiconKey(self._pool.epoch, stamp, admin_stamp)
        with self._open_lock:
            if self._lexicon_key == key and self._lexicon is not None:
                return self._lexicon
        lexicon = Lexicon(load_alias_groups(admin), load_terms(path))
        with self._open_lock:
            self._lexicon_key, self._lexicon = key, lexicon
        return lexicon

    def warm(self) -> None:
        """Build the typo vocabularies (English words, Chinese words by pinyin) now: the
        server does it before it says it is ready. Built at the first typo instead, they
        cost that request 2-6 s at 1M papers, and held the interpreter from the others."""
        with self._searcher() as searcher:
            reader = searcher.reader()
            self._spelling.english_vocabulary(reader)
            self._spelling.pinyin_vocabulary(reader, self._live_segments)
        self._segment_cache()  # and numpy, which every search needs
        import rapidfuzz.distance  # noqa: F401  (and what typo correction needs: ~20 ms at the first typo)
        import rapidfuzz.process  # noqa: F401

    def lexicon(self) -> Lexicon:
        """The lexicon searches expand with (for the CLI and tests)."""
        with self._searcher() as searcher:
            return self._lexicon_for(searcher.reader())

    def _live_segments(self) -> set[str]:
        """The ids of the segments in the live index's latest version."""
        return {segment.segment_id() for segment in self._index()._segments()}

    def _index(self) -> whoosh.index.Index:
        with self._open_lock:
            if self._ix is None:
                self.open()
            assert self._ix is not None
            return self._ix

    @contextmanager
    def _searcher(self) -> Iterator[PaperSearcher]:
        """Lend a searcher of the latest version from the pool (bot/search/readers.py); take it back afterwards."""
        with self._pool.lend(self._index, self.open) as searcher:
            yield searcher

    def _swap_in(self, fresh: Path, tag: str) -> None:
        """Replace the live directory with `fresh`, holding the live index's write lock.

        Another process may be writing the live index (a CLI ingest beside the server):
        renaming the directory under its writer would lose its commit. We wait for its
        lock like any writer does, and give up with IndexBusy after `writer_timeout`.
        """
        lock = None
        record = self._holder_record()
        if self.path.exists():
            lock = FileStorage(str(self.path)).lock(LOCK_FILE)
            deadline = time.monotonic() + self.writer_timeout
            acquired = lock.acquire(blocking=False)
            if not acquired:
                record.reclaim()  # its holder may be gone, leaving workers that hold it
            while not acquired:
                if time.monotonic() >= deadline:
                    raise IndexBusy(f"index {self.path} is being written by another process")
                time.sleep(0.05)
                acquired = lock.acquire(blocking=False)
            record.take()
        old = self.path.parent / f".{self.path.name}.old-{tag}"
        try:
            with self._open_lock:
                if self.path.exists():
                    os.rename(self.path, old)
                os.rename(fresh, self.path)
                self.open()
        finally:
            if lock is not None:
                record.release()
                lock.release()
        shutil.rmtree(old, ignore_errors=True)

    def _close_all(self) -> None:
        self._pool.close()
        if self._ix is not None:
            self._ix.close()
            self._ix = None


def _open_checked(path: Path) -> whoosh.index.Index:
    if not path.is_dir():
        raise IndexUnusable(f"no index at {path}")
    try:
        if not whoosh.index.exists_in(str(path), indexname=INDEX_NAME):
            raise IndexUnusable(f"no {INDEX_NAME} index at {path}")
        ix = whoosh.index.open_dir(str(path), indexname=INDEX_NAME)
        if not is_paper_schema(ix.schema):
            ix.close()
            raise IndexUnusable(f"the index at {path} was built with another schema")
        # Touch the segments now so damage shows here, not in the middle of a search.
        # Each segment's first and last stored document: searching Every() for one hit
        # collected all of them (a million matches, most of a 1M index's cold start).
        with ix.searcher() as searcher:
            searcher.doc_count()
            reader = searcher.reader()
            for leaf in [leaf for leaf, _ in reader.leaf_readers()] if not reader.is_atomic() else [reader]:
                if leaf.doc_count_all():
                    leaf.stored_fields(0)
                    leaf.stored_fields(leaf.doc_count_all() - 1)
        return ix
    except IndexUnusable:
        raise
    except Exception as exc:  # Whoosh reports damage as any of a dozen types
        raise IndexUnusable(f"cannot open the index at {path}: {exc!r}") from exc


class _Found(NamedTuple):
    """A page of hits and the query that was built for them (its `problem`, if any)."""

    page: IndexPage
    built: BuiltQuery


class _LexiconKey(NamedTuple):
    """What the lexicon was loaded from: rebuilt when any of it changes."""

    epoch: int  # the directory (SearcherPool.epoch)
    learned_mtime_ns: int  # LEXICON_FILE's modification time (0: none)
    aliases_mtime_ns: int  # the admin's alias file's (0: none)


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def _with(found: IndexPage, mode: str, suggestion: str | None, problem: str | None) -> IndexPage:
    return IndexPage(found.hits, found.total, mode, suggestion, problem, found.expanded, found.estimated)
