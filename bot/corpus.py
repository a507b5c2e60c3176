"""The corpus: one facade over store and index that the CLI, Slack and digests call.

Data flows one way: listing -> store (one transaction per file) -> index (catches up
from the store's revs). Every way of reading a paper takes the asking workspace (`team`):
a paper another workspace uploaded privately is not there for it (bot/store/visibility.py);
`team=None` (EVERYONE, the default) reads every paper, for the CLI and the index's upkeep. The index is derived: whenever it is missing, corrupt or out of
step with the store it is brought back from the store, never the other way round.
"""

from __future__ import annotations

import gc
import logging
import re
import shutil
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from bot.config import Settings, ensure_data_dir
from bot.errors import ChildFailed, ConfigError, DataDirError, IndexBusy, IndexUnusable
from bot.ingest.intake import CHILD_BYTES, in_child, store_listing
from bot.ingest.listing import parse_bytes, parse_path, parse_paths
from bot.models import Hit, Identifier, IngestReport, Listing, Paper, SearchResult, arxiv_id_of
from bot.search.analysis import load_chinese
from bot.search.index import MAX_PER_PAGE, IndexHit, IndexPage, PaperIndex
from bot.search.lexicon import DICTIONARY
from bot.search.writers import StoredPapers
from bot.semantic.dupes import merged
from bot.semantic.hybrid import FILL, FLOOR, FUSE_DEPTH, NEIGHBOUR_FLOOR, fuse, is_meaningful, key_words, taken_as_typed
from bot.semantic.service import Meaning
from bot.store.database import Store, is_postgres_url, is_store_unavailable, open_store, read_papers, schema_location
from bot.store.visibility import EVERYONE, Visibility

logger = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None]
"""progress(bytes_done, bytes_total, path) after each file."""

ENCODER_WAIT_S = 3.0  # at serve's start, how long a search the words leave short waits for the encoder
_ID = re.compile(r"^[0-9a-f]{4,12}$")


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Turn files and folders into a sorted list of files (hidden ones skipped)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
                )
            )
        else:
            files.append(path)
    return files


class TombstonesPruned(Exception):
    """The index is older than tombstones the store has pruned (Store.prune_tombstones): the
    removals it missed can't be read any more, so it is rebuilt rather than caught up. Raised
    before anything is indexed, so the index's rev never moves past a removal it missed."""

    def __init__(self, index_rev: int, horizon: int):
        super().__init__(f"the index (rev {index_rev}) is older than the tombstones pruned up to rev {horizon}")


@dataclass
class RebuildProgress:
    """How far a rebuild of the index from the store has got (see Corpus.rebuilding)."""

    total: int
    started: float  # time.monotonic()
    done: int = 0

    def seconds_left(self, now: float | None = None) -> float | None:
        """An estimate once there is something to go on (a few seconds and papers in), else None."""
        elapsed = (time.monotonic() if now is None else now) - self.started
        if self.done < 1000 or elapsed < 5 or self.done >= self.total:
            return None
        return (self.total - self.done) * elapsed / self.done


def copy_vectors_snapshot(source: Path, target: Path) -> None:
    """The vectors beside a snapshot's index (`<data>/vectors` next to `<data>/index`) come too.

    Without them a new instance re-embeds every paper itself (about 130 papers/s on two
    cores: 13 minutes of both cores at 100k, while it serves). Vectors are keyed by the text
    they came from, so a copy taken while another builder writes is at worst a little
    behind: the builder recomputes what is missing or stale. `CURRENT` is read first and
    written last, so it never names a base newer than the files copied; `.tmp` files stay behind.
    """
    if not source.is_dir() or target.exists():
        return
    staging = target.with_name(target.name + ".copying")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        # CURRENT as it was before the files: a compaction finishing mid-copy then leaves a
        # base this copy lacks unnamed (its rows are recomputed), never a name with no file.
        current = (source / "CURRENT").read_bytes() if (source / "CURRENT").is_file() else None
        shutil.copytree(source, staging, ignore=shutil.ignore_patterns("*.tmp", "CURRENT"))
        if current is not None:
            (staging / "CURRENT").write_bytes(current)
    except OSError as exc:  # shutil.Error too: a file compacted away mid-copy; the builder embeds instead
        logger.warning("vectors not copied from the snapshot %s (%s); they are computed here instead", source, exc)
        shutil.rmtree(staging, ignore_errors=True)
        return
    staging.rename(target)
    logger.info("vectors copied from the snapshot %s", source)


class Corpus:
    """Papers you can ingest, search and read, backed by SQLite and a Whoosh index."""

    def __init__(self, settings: Settings, store: Store, index: PaperIndex, meaning: Meaning | None = None):
        self.settings = settings
        self.store = store
        self.index = index
        # Search by meaning (bot/semantic/): None with PAPERBOT_SEMANTIC=off, the search of before
        self.meaning = meaning
        self.visibility = Visibility(store)  # which papers each workspace may not see
        index.private_ids = self.visibility.private  # their words correct no other workspace's typos
        self._sync_lock = threading.Lock()
        self._ready = False
        self._progress: RebuildProgress | None = None
        self._behind_since: float | None = None  # when this instance first saw the store ahead of its index
        # The store's rev up to which this process made the index hold every change, removals
        # included: a removal's rev is a tombstone, not a document, so the index's own rev
        # (its documents' highest) stays below it (Store.remove_papers).
        self._followed = 0

    @classmethod
    def load(cls, settings: Settings, *, writer_procs: int = 1) -> Corpus:
        """Open the store, but not yet the index: `prepare()` does that (it may take a while).

        `writer_procs` > 1 lets large index writes fork worker processes: about 2x faster
        on two cores, but only safe in a process without other threads (the CLI).
        """
        ensure_data_dir(settings.data_dir)
        snapshot = settings.index_snapshot_dir
        if snapshot is not None and not settings.index_dir.exists() and snapshot.is_dir():
            # A new instance starts from a copy of another's index and catches up from its rev,
            # instead of rebuilding from the whole store (ensure_index checks it like any index).
            shutil.copytree(snapshot, settings.index_dir)
            logger.info("index copied from the snapshot %s", snapshot)
            copy_vectors_snapshot(snapshot.parent / "vectors", settings.vectors_dir)
        try:
            store = open_store(settings.database_location)
        except sqlite3.OperationalError as exc:  # the folder is writable, the database file is not; or no PostgreSQL
            if settings.database_url:
                raise ConfigError(
                    f"cannot open the database at {schema_location(settings.database_url)} ({exc}); check "
                    "PAPERBOT_DATABASE_URL and that PostgreSQL is running and reachable."
                ) from None
            raise DataDirError.of(settings.db_path, str(exc)) from None
        index = PaperIndex(settings.index_dir, procs=writer_procs, aliases_path=settings.aliases_path)
        meaning = Meaning(store, settings.vectors_dir) if settings.semantic_enabled else None
        return cls(settings, store, index, meaning)

    @classmethod
    def open(cls, settings: Settings, *, writer_procs: int = 1) -> Corpus:
        """Open the store and index under the data folder, repairing the index if needed."""
        corpus = cls.load(settings, writer_procs=writer_procs)
        corpus.ensure_index()
        corpus._ready = True
        return corpus

    def prepare(self) -> None:
        """Make the corpus ready to serve: index in step with the store, seeds on first start.

        An index another process is writing (IndexBusy) does not stop the server: it
        serves what the index has, and the periodic inbox scan catches it up.
        """
        try:
            self.ensure_index()
        except IndexBusy as exc:
            logger.warning("%s; serving the index as it is until the next scan catches it up", exc)
        self.ingest_seeds_if_empty()
        # CC-CEDICT loads in ~1 s (7 s on a loaded machine), once per process. Loaded on a
        # thread, the first translated searches waited for it past Slack's ack budget and
        # answered "searching…" instead: so the server is ready only once it is loaded.
        DICTIONARY.load()
        load_chinese()  # jieba's dictionary and OpenCC: a CLI loads them at its first Chinese text
        try:
            self.index.lexicon().segment_all()  # what the index learned (its small terms file: ~10 ms), before the first search
            self.index.warm()  # the typo vocabularies (~2 s at 1M papers)
        except IndexUnusable as exc:  # searches will say the library is not ready, as before
            logger.warning("%s", exc)
        if self.meaning is not None:
            self.meaning.warm(background=True)  # searches are by words until the encoder is in (~2 s)
        self._ready = True

    def close(self) -> None:
        self._ready = False
        self.index.close()
        self.store.close()

    def is_ready(self) -> bool:
        return self._ready

    def is_caught_up(self, *, grace_s: float | None = None) -> bool:
        """Ready, and the index holds what the store holds (GET /readyz).

        The store changes through other instances too (PAPERBOT_DATABASE_URL): an index a
        follow or two behind (`grace_s`, two follow intervals) still counts as caught up, so
        an instance is not taken out of a load balancer at every paper another one stores.
        """
        if not self._ready or self._progress is not None:
            return False
        count, rev = self.store.state()
        index_count, index_rev = self._index_state()
        if index_rev >= rev and index_count == count:
            self._behind_since = None
            return True
        if index_rev < self.store.pruned_rev():  # it must be rebuilt: no grace (ensure_index)
            return False
        now = time.monotonic()
        if self._behind_since is None:
            self._behind_since = now
        grace = 2 * self.settings.follow_interval_seconds if grace_s is None else grace_s
        return now - self._behind_since < grace

    def follow(self) -> str | None:
        """Bring the index in step with a store other instances (or the CLI) also write to.

        One cheap query when nothing changed (the store's count and rev, kept in `meta`);
        otherwise what `ensure_index` does: papers stored elsewhere are indexed, papers
        removed elsewhere deleted from the index in place (their tombstones). Run every few
        seconds (services).
        """
        if not self._ready or self._progress is not None:
            return None
        try:
            if self.store.state() == self._index_state():
                return None
            return self.ensure_index()
        except IndexBusy as exc:
            logger.warning("%s; following the store again shortly", exc)
            return None
        except sqlite3.OperationalError as exc:
            if not is_store_unavailable(exc):
                raise
            # PostgreSQL restarting: searches go on from this index; the next follow catches up.
            logger.warning("following the store: it is unavailable (%s); trying again shortly", exc)
            return None

    def _index_state(self) -> tuple[int, int]:
        """The index's (documents, rev) as the store's state() compares: its rev counts the
        removals this process deleted from it (`_followed`)."""
        count, rev = self.index.state()
        return count, max(rev, self._followed)

    def rebuilding(self) -> RebuildProgress | None:
        """The rebuild under way in this process (after an upgrade, or of a damaged index), if any:
        what a request that comes before the corpus is ready is told."""
        return self._progress

    # -- keeping the index in step -----------------------------------------------------

    def ensure_index(self) -> str | None:
        """Make the index match the store; return why it had to be rebuilt or caught up.

        Missing or corrupt: rebuild. Ahead of the store (another store's index) or with a
        different document count at the same rev: rebuild. Behind: index the changes.
        """
        with self._sync_lock:
            count, rev = self.store.state()
            try:
                self.index.open()
                index_count, index_rev = self.index.state()
            except IndexUnusable as exc:
                if not self.index.path.exists():
                    return self._rebuild("no index yet; building it from the store", level=logging.INFO)
                return self._rebuild(f"index unusable ({exc}); rebuilding from the store")
            known = max(index_rev, self._followed)
            if index_rev > rev or (known == rev and index_count != count):
                return self._rebuild(
                    f"index out of date ({index_count} docs at rev {known}, store has {count} at rev {rev}); rebuilding"
                )
            if known < rev:
                try:
                    changed = self._catch_up(index_rev)
                    index_count, caught_up = self._index_state()
                    count, rev_now = self.store.state()
                    if caught_up < rev_now:  # changed in the store meanwhile (the server, an upload)
                        changed += self._catch_up(self.index.state()[1])
                        index_count, _ = self.index.state()
                        count = self.store.state()[0]
                except TombstonesPruned as behind:
                    return self._rebuild(f"{behind}; rebuilding from the store")
                if index_count != count:
                    return self._rebuild(f"index count {index_count} != store count {count} after catching up; rebuilding")
                if not changed:
                    return None
                reason = f"index was behind the store (rev {known} < {rev}); indexed or removed {changed} changed papers"
                logger.info(reason)
                return reason
            return None

    def _rebuild(self, reason: str, level: int = logging.WARNING) -> str:
        logger.log(level, reason)
        total, started_at = self.store.state()
        progress = self._progress = RebuildProgress(total=total, started=time.monotonic())
        self._followed = 0  # a new index: what was deleted from the old one says nothing of it
        try:
            count = self.index.rebuild(_counted(self.store.iter_papers(), progress))
        finally:
            self._progress = None
        logger.info("index rebuilt: %d papers", count)
        # Papers stored or removed while it ran (an upload, the inbox, another instance) after
        # its last read: index or delete them now.
        index_count, index_rev = self.index.state()
        count, rev = self.store.state()
        if index_rev < rev:
            try:
                self._catch_up(index_rev, removed_after=started_at)
                index_count = self.index.state()[0]
                count = self.store.state()[0]
            except (IndexBusy, TimeoutError) as exc:
                logger.warning("%s; the papers stored during the rebuild are indexed at the next scan", exc)
        if index_count != count and (actual := self.store.recount()) != count:
            # The count kept in meta had drifted (a store written by hand, or by a version that
            # did not keep it): counted again, or every check would rebuild once more.
            logger.warning("the store's kept paper count was %d, counted %d; corrected", count, actual)
        return reason

    def reindex(self) -> int:
        """Rebuild the index from the store, whatever its state; return the paper count."""
        with self._sync_lock:
            self._rebuild("reindex requested")
            return self.index.state()[0]

    def _sync_index(self) -> None:
        """Index what the store has that the index lacks; never fails an ingest.

        If another process (a CLI ingest beside the server) holds the index's write
        lock, the store keeps the papers and the index catches up at the next ingest,
        the next inbox scan (which calls ensure_index) or the next start.
        """
        with self._sync_lock:
            _, index_rev = self.index.state()
            try:
                self._catch_up(index_rev)
            except (IndexBusy, TimeoutError, TombstonesPruned) as exc:  # (a child process writing a day's segment that hung)
                logger.warning("%s; the index will catch up from the store later", exc)

    def _catch_up(self, index_rev: int, *, removed_after: int | None = None) -> int:
        """Delete the papers removed since (their tombstones), then index the papers changed
        after `index_rev`; return how many changed.

        Removals first: a paper removed and stored again is in the index at the end. The
        store's rev is read before anything else: every change up to it has committed
        (PAPERS writers take revs in turn), so once both are done the index holds them all,
        and `_followed` says so. A backlog of a batch or more, where worker processes may be
        forked (the CLI), is written by workers that each read their share from the store
        (StoredPapers).

        An index older than pruned tombstones (TombstonesPruned) may have missed removals it
        can't read any more, unless nothing but removals came after its newest document and,
        those it can read deleted, it holds as many papers as the store: it holds every paper
        the store holds up to its rev, so it missed a removal exactly when it holds more. That
        is a restarted index that was up to date, when the newest papers were all removed
        since the prune (the index's rev is its documents' highest: the removals it followed
        after them are not remembered); it is followed in place, not rebuilt at every start.
        """
        upto = self.store.state()[1]
        after = max(index_rev, self._followed) if removed_after is None else removed_after
        removed = self.store.removed_since(after, upto) if upto > after else []
        # Read after the tombstones: a prune between the two would otherwise go unseen.
        behind = removed_after is None and upto > after and after < (horizon := self.store.pruned_rev())
        count = self.store.state()[0] if behind else 0  # (before count_since: a paper stored between is seen there)
        if behind and self.store.count_since(index_rev):
            raise TombstonesPruned(after, horizon)
        if removed:
            self.index.remove(removed)
        if behind and self.index.state()[0] != count:
            raise TombstonesPruned(after, horizon)
        changed = self._index_changed(index_rev)
        self._followed = max(self._followed, upto)
        return changed + len(removed)

    def _index_changed(self, index_rev: int) -> int:
        index = self.index
        backlog = self.store.count_since(index_rev) if index.procs > 1 else 0
        if backlog >= index.batch_size:
            size = index.share_size(backlog)
            return index.upsert_stored(
                StoredPapers(
                    ranges=self.store.rev_ranges(since_rev=index_rev, size=size),
                    read=partial(read_papers, self.store.path),
                )
            )
        return index.upsert(self.store.iter_papers(since_rev=index_rev))

    # -- ingest ------------------------------------------------------------------------

    def ingest_listing(self, listing: Listing, *, sync: bool = True) -> IngestReport:
        """Store one parsed listing (one transaction), then bring the index up to date."""
        return self._stored(store_listing(self.store, listing), sync)

    def _stored(self, report: IngestReport, sync: bool) -> IngestReport:
        # During a rebuild (it holds the sync lock for minutes) the papers are stored and
        # the answer comes at once: the rebuild, or the next scan after it, indexes them.
        if sync and (report.new or report.updated) and self._progress is None:
            self._sync_index()
        return report

    def index_stored(self, report: IngestReport) -> IngestReport:
        """A listing was stored by other means (a feed's, by a child process): bring the index up to date."""
        return self._stored(report, True)

    def remove_papers(self, paper_ids: list[str]) -> int:
        """Delete papers from the store, then from the index; return how many were stored.

        The index deletes them as every instance following the store does, from their
        tombstones (with anything else changed meanwhile); an index another process is
        writing (IndexBusy) deletes them at its next check (ensure_index, follow).
        """
        removed = self.store.remove_papers(paper_ids)
        if removed:
            with self._sync_lock:
                try:
                    self._catch_up(self.index.state()[1])  # their tombstones: deleted as any instance deletes them
                except (IndexBusy, TimeoutError, TombstonesPruned) as exc:
                    logger.warning("%s; the index drops the removed papers at its next check", exc)
        return len(removed)

    def ingest_paths(self, paths: Iterable[str | Path], progress: Progress | None = None) -> list[IngestReport]:
        """Ingest files and folders, one transaction per file; the index is synced once.

        With `writer_procs` > 1 (the CLI) and several files, worker processes parse the
        files ahead while this one stores them, still in order, one transaction each.
        The server (`writer_procs` 1) has a child process parse and store a large file
        (bot/ingest/intake.py): searches run beside it.
        """
        files = expand_paths(paths)
        sizes = [_size(f) for f in files]
        total, done = sum(sizes), 0
        reports: list[IngestReport] = []

        def stored(path: Path, size: int, report: IngestReport) -> None:
            nonlocal done
            reports.append(report)
            done += size
            if progress:
                progress(done, total, str(path))

        try:
            if self.index.procs > 1:
                with parse_paths(files, self.index.procs) as listings:
                    for path, size, listing in zip(files, sizes, listings, strict=True):
                        stored(path, size, store_listing(self.store, listing))
            else:
                for path, size in zip(files, sizes, strict=True):
                    report = self._in_child(str(path), path=path) if size >= CHILD_BYTES else None
                    stored(path, size, report if report is not None else store_listing(self.store, parse_path(path)))
        finally:
            if any(r.new or r.updated for r in reports):
                self._sync_index()
        return reports

    def ingest_bytes(self, name: str, data: bytes, *, team: str | None = None) -> IngestReport:
        """Ingest a listing that arrived as bytes (a Slack upload), named `name` in reports.

        `team`: the workspace that uploaded it, to which the papers it brings are private
        (Store.ingest_listing); None: a shared listing.
        """
        report = None
        if self.index.procs == 1 and len(data) >= CHILD_BYTES:  # the server: see ingest_paths
            report = self._in_child(name, name=name, data=data, team=team)
        if report is None:
            report = store_listing(self.store, parse_bytes(name, data), team=team)
        return self._stored(report, True)

    def _in_child(
        self, what: str, *, path: Path | None = None, name: str = "", data: bytes | None = None, team: str | None = None
    ) -> IngestReport | None:
        """Store a listing through bot/ingest/intake.py's child process; None if it did not store it
        (then the caller does it here).

        A child that stored it but whose answer was lost (it died or hung after its commit)
        is told by the token its ingest was recorded under: the report is then made from
        that record and the listing's own errors, and nothing is stored twice.
        """
        token = uuid.uuid4().hex
        try:
            return in_child(self.store.path, now=self.store.now(), token=token, path=path, name=name, data=data, team=team)
        except (OSError, ChildFailed) as exc:  # (TimeoutError is an OSError) the child is gone by now
            counts = self.store.ingested(token)
            if counts is None:
                logger.warning("could not store %s in a child process (%s); storing it here", what, exc)
                return None
            logger.warning("the child process stored %s, but its answer was lost (%s)", what, exc)
            listing = parse_path(path) if path is not None else parse_bytes(name, data or b"")
            new, updated, unchanged = counts
            return IngestReport(
                path=listing.path, feed=listing.feed, new=new, updated=updated, unchanged=unchanged, errors=list(listing.errors)
            )

    def ingest_seeds_if_empty(self) -> list[IngestReport]:
        """On first start, ingest the sample listings so the bot is never empty."""
        if self.store.state()[0]:
            return []
        seeds = self.settings.seeds_dir
        if not seeds.is_dir():
            logger.warning("store is empty and the seeds folder %s does not exist; starting empty", seeds)
            return []
        reports = self.ingest_paths([seeds])
        logger.info("first start: ingested %d papers from %s", self.store.state()[0], seeds)
        return reports

    def save_arxiv(self, found: dict, now: str, *, sync: bool = True) -> int:
        """Keep arXiv lookups ({paper id: ArxivRecord or None}); re-index the papers that changed.

        `sync=False` leaves the index to one catch-up after a whole run (the enricher):
        each upsert commits a segment and rewrites what the index learned (lexicon.json),
        which every search then reloads.
        """
        changed = self.store.save_arxiv(found, now)
        if changed and sync:
            self._sync_index()
        return changed

    # -- reading -----------------------------------------------------------------------

    def search(
        self,
        text: str,
        *,
        page: int = 1,
        per_page: int = 5,
        lang: str | None = None,
        correct: bool = True,
        expand: bool = True,
        team: str | None = EVERYONE,
    ) -> SearchResult:
        """Search the corpus; never raises on odd input (the worst case is a message).

        `lang` picks snippets in the reader's language; `correct=False` searches the text
        as typed ("Search instead for ..."); `expand=False` adds no translations or
        aliases (digest filters, which are taken literally). `team`: the asking workspace.

        With the store away (PostgreSQL restarting) the answer comes from this instance's
        index alone (`store_away`, see _search_away); a workspace whose hidden set was never
        read here gets the store's error, as every other answer does.
        """
        try:
            return self._search(text, page=page, per_page=per_page, lang=lang, correct=correct, expand=expand, team=team)
        except sqlite3.OperationalError as exc:
            # Only a PostgreSQL that can't be reached: on SQLite the same error class is also a
            # missing table or a bad statement, which an answer by the index would hide.
            if not is_store_unavailable(exc) or not is_postgres_url(self.settings.database_location):
                raise
            away = self._search_away(text, page=page, per_page=per_page, lang=lang, expand=expand, team=team)
            if away is None:
                raise
            logger.warning("searching with the store away (%s): answered from the index", exc)
            return away

    def _search_away(
        self, text: str, *, page: int, per_page: int, lang: str | None, expand: bool, team: str | None
    ) -> SearchResult | None:
        """A search by the index alone, the store away: lexical matches only (the vectors'
        neighbours and duplicates are the store's), each paper as the index holds it (no
        links, venue or year). Hidden: what was last read for `team` (Visibility.remembered),
        and every paper indexed since, which may be another workspace's private upload; None
        (fail closed) if nothing was ever read for `team` here."""
        hidden: frozenset[str] = frozenset()
        if team is not EVERYONE:
            remembered = self.visibility.remembered(team)
            if remembered is None:
                return None
            rev, hidden = remembered
            hidden = hidden | self.index.ids_after(rev)
        # No spelling correction: its vocabulary's private words are read from the store.
        result = self.index.search(text, page=page, per_page=per_page, lang=lang, correct=False, expand=expand, hidden=hidden)
        return self._result(text, result, page, per_page, hidden=hidden, store_away=True)

    def _search(
        self, text: str, *, page: int, per_page: int, lang: str | None, correct: bool, expand: bool, team: str | None
    ) -> SearchResult:
        hidden = self.visibility.hidden(team)
        wanted = self.meaning is not None and expand and not taken_as_typed(text)
        hybrid = wanted and self.meaning is not None and self.meaning.has_vectors() and self.meaning.ready()
        # With meaning, an any-term fallback is fused from its first FUSE_DEPTH hits: asked
        # for here, not by a second search (which cost ~40 ms at 1M papers).
        fused = hybrid and (max(1, int(page)) - 1) * max(1, min(int(per_page), MAX_PER_PAGE)) < FUSE_DEPTH
        result = self.index.search(
            text, page=page, per_page=per_page, lang=lang, correct=correct, expand=expand, hidden=hidden,
            any_limit=FUSE_DEPTH if fused else None,
        )  # fmt: skip
        if wanted and not hybrid and self._meaning_loading(result, page, per_page):
            # Serve's first seconds: the encoder is still loading and the words don't fill the
            # page. Wait for it (the ack already said "searching…" past 1.5 s) rather than
            # answer "no papers" to a query only meaning can answer.
            return self._search(text, page=page, per_page=per_page, lang=lang, correct=correct, expand=expand, team=team)
        if not hybrid or result.problem == "query_empty":
            return self._result(text, result, page, per_page, hidden=hidden)
        return self._hybrid(text, result, page=page, per_page=per_page, lang=lang, correct=correct, hidden=hidden)

    def _meaning_loading(self, result: IndexPage, page: int, per_page: int) -> bool:
        """Whether the encoder is still loading in the background for a search the words leave
        short, and becomes ready within ENCODER_WAIT_S (then the search is run again)."""
        meaning = self.meaning
        if meaning is None or meaning.ready() or not meaning.has_vectors():
            return False
        end = max(1, int(page)) * max(1, min(int(per_page), MAX_PER_PAGE))
        if result.mode == "all" and (result.total >= end or result.estimated):
            return False
        return meaning.wait_ready(ENCODER_WAIT_S)

    def _hybrid(
        self,
        text: str,
        result: IndexPage,
        *,
        page: int,
        per_page: int,
        lang: str | None,
        correct: bool,
        hidden: frozenset[str] = frozenset(),
    ) -> SearchResult:
        """Lexical matches with dense neighbours where they help (bot/semantic/hybrid.py says where)."""
        page, window = max(1, int(page)), max(1, min(int(per_page), MAX_PER_PAGE))
        start, end = (page - 1) * window, page * window
        found = {h.id: ("expanded" if h.expanded or result.suggestion else "literal") for h in result.hits}
        if result.mode == "all":
            if result.total >= end or result.estimated:
                return self._result(text, result, page, per_page, found, hidden=hidden)
            # The matches end on this page: every one of them is known, the neighbours follow.
            lexical = result.hits
            if page > 1:
                lexical = self.index.search(text, per_page=max(1, result.total), lang=lang, correct=correct, hidden=hidden).hits
            known = {h.id for h in lexical}
            neighbours = self._neighbours(text, FILL + len(known), exclude=known | hidden)[:FILL]
            extra = neighbours[max(0, start - result.total) : max(0, end - result.total)]
            hits = result.hits + [IndexHit(pid, score) for pid, score in extra]
            found.update((pid, "meaning") for pid, _ in extra)
            return self._result(text, _paged(result, hits, result.total + len(neighbours)), page, per_page, found, hidden=hidden)
        if result.mode == "any":
            if start >= FUSE_DEPTH:
                return self._result(text, result, page, per_page, {h.id: "partial" for h in result.hits}, hidden=hidden)
            top = result  # its first FUSE_DEPTH hits (any_limit, in search)
            by_id = {h.id: h for h in top.hits}
            neighbours = self._neighbours(text, FUSE_DEPTH, exclude=hidden)
            fused = fuse([h.id for h in top.hits], [pid for pid, _ in neighbours])
            cosine = dict(neighbours)
            ranked = [by_id.get(pid) or IndexHit(pid, cosine[pid]) for pid in fused]
            found = {pid: "partial" if pid in by_id else "meaning" for pid in fused}
            rest = max(0, top.total - FUSE_DEPTH)
            if end > len(ranked) and rest:  # past the fused papers: the lexical order, after them
                more = self.index.search(
                    text, limit=min(MAX_PER_PAGE, FUSE_DEPTH + end), lang=lang, correct=correct, hidden=hidden
                )
                shown = set(fused)
                ranked += [h for h in more.hits if h.id not in shown]
                found.update((h.id, "partial") for h in more.hits if h.id not in shown)
            return self._result(text, _paged(top, ranked[start:end], len(fused) + rest), page, per_page, found, hidden=hidden)
        if not is_meaningful(text):
            return self._result(text, result, page, per_page, hidden=hidden)
        neighbours = self._neighbours(text, FILL, exclude=hidden)
        hits = [IndexHit(pid, score) for pid, score in neighbours[start:end]]
        found = {h.id: "meaning" for h in hits}
        return self._result(text, _paged(result, hits, len(neighbours), mode="meaning"), page, per_page, found, hidden=hidden)

    def _neighbours(
        self, text: str, k: int, *, exclude: set[str] | frozenset[str] = frozenset(), floor: float = FLOOR
    ) -> list[tuple[str, float]]:
        """The papers nearest `text` by meaning, above the floor below which nothing is related."""
        meaning = self.meaning
        assert meaning is not None
        found = [
            (pid, score)
            for pid, score in meaning.vectors.nearest(meaning.embed_query(text), k, exclude=exclude)
            if score >= floor
        ]
        return self._still_stored(found)

    def _still_stored(self, found: list[tuple[str, float]]) -> list[tuple[str, float]]:
        """A removed paper's vector stays until the next compaction: only stored papers are neighbours."""
        stored = {p.id for p in self.store.get_many([pid for pid, _ in found])}
        return [(pid, score) for pid, score in found if pid in stored]

    def more_like(self, paper_id: str, *, page: int = 1, per_page: int = 5, team: str | None = EVERYONE) -> SearchResult:
        """Papers similar to `paper_id` (excluding itself): by meaning, shared key terms only breaking ties.

        Without a vector for it yet (or with PAPERBOT_SEMANTIC=off), by its key terms as before.
        `team`: the asking workspace; a paper it may not see has no papers like it.
        """
        hidden = self.visibility.hidden(team)
        if paper_id in hidden:
            return self._result(paper_id, IndexPage([], 0, "none", problem="paper_not_found"), page, per_page)
        vector = self.meaning.vectors.vector(paper_id) if self.meaning is not None else None
        if self.meaning is None or vector is None:
            result = self.index.more_like(paper_id, page=page, per_page=per_page, hidden=hidden)
            return self._result(paper_id, result, page, per_page, hidden=hidden)
        page, window = max(1, int(page)), max(1, min(int(per_page), MAX_PER_PAGE))
        start, end = (page - 1) * window, page * window
        # The paper is not like itself: nor are its duplicates, or the paper it duplicates.
        duplicates = self.meaning.duplicates
        canonical = duplicates.canonical(paper_id)
        itself = {paper_id, canonical, *duplicates.members(canonical)}
        nearest = self.meaning.vectors.nearest(vector, max(FUSE_DEPTH, end), exclude=itself | hidden)
        near = [(pid, score) for pid, score in nearest if score >= NEIGHBOUR_FLOOR]
        # One read of the papers: only stored ones are neighbours (a removed paper's vector stays
        # until the next compaction), and ties by meaning (the same to 0.01) go to the paper
        # sharing more of its words (titles, authors).
        papers = {p.id: p for p in self.store.get_many([paper_id, *(pid for pid, _ in near)])}
        neighbours = [(pid, score) for pid, score in near if pid in papers]
        mine = key_words(papers[paper_id]) if paper_id in papers else frozenset()
        shared = {pid: len(mine & key_words(paper)) for pid, paper in papers.items()}
        ordered = sorted(neighbours, key=lambda item: (-round(item[1], 2), -shared.get(item[0], 0)))
        hits = [IndexHit(pid, score) for pid, score in ordered[start:end]]
        found = {h.id: "meaning" for h in hits}
        return self._result(
            paper_id, IndexPage(hits, len(ordered), "meaning" if ordered else "none"), page, per_page, found, hidden=hidden
        )

    def new_papers(
        self,
        *,
        after_seq: int,
        upto_seq: int | None = None,
        filter_text: str = "",
        limit: int | None = None,
        team: str | None = EVERYONE,
    ) -> list[Paper]:
        """Papers first stored with after_seq < seq <= upto_seq matching `filter_text`, oldest first.

        A digest filter is taken literally: no any-term fallback, no spelling correction.
        `team`: the workspace the digest is for (its subscription's): only papers it may see.
        """
        upto = self.store.last_seq() if upto_seq is None else upto_seq
        if upto <= after_seq:
            return []
        hidden = self.visibility.hidden(team)
        if not filter_text.strip():
            if not hidden and (self.meaning is None or not self.meaning.duplicates.count()):
                return self.store.papers_between(after_seq, upto, limit)
            shown = [p for p in self.store.papers_between(after_seq, upto) if p.id not in hidden]
        else:
            found = self.index.score_new(filter_text, after_seq=after_seq, upto_seq=upto, hidden=hidden)
            shown = sorted(
                (p for p in self.store.get_many([paper_id for paper_id, _ in found]) if p.seq <= upto), key=lambda p: p.seq
            )
        # A paper and its duplicate once; a duplicate of a paper an earlier digest had, not at all.
        shown = self.shown_once(shown, team=team, after_seq=after_seq)
        return shown[:limit] if limit is not None else shown

    def alternatives(self, text: str) -> tuple[str, ...]:
        """What else a search for `text` looks for: the lexicon's translations and aliases
        (PaperIndex.alternatives); none while the index is unusable (being rebuilt)."""
        try:
            return self.index.alternatives(text)
        except IndexUnusable:
            return ()

    def query_problem(self, text: str) -> str | None:
        """What a search for `text` taken literally would report as its problem (an i18n key), without searching."""
        return self.index.query_problem(text)

    def _result(
        self,
        query: str,
        page: IndexPage,
        number: int,
        per_page: int,
        found: dict[str, str] | None = None,
        *,
        hidden: frozenset[str] = frozenset(),
        store_away: bool = False,
    ) -> SearchResult:
        total, estimated = page.total, page.estimated
        window = max(1, min(per_page, MAX_PER_PAGE))  # the index's page size
        if estimated and page.hits and len(page.hits) < window:
            # A page the matches did not fill is the last: every match is counted now.
            total, estimated = (max(1, number) - 1) * window + len(page.hits), False
        hit_list = page.hits
        if store_away:  # (the papers as the index holds them: nothing merged from duplicates)
            papers = {p.id: p for p in self.index.stored_papers([h.id for h in hit_list if h.id not in hidden])}
        else:
            if self.meaning is not None and self.meaning.duplicates.count():
                hit_list = self._canonical_hits(hit_list, hidden)
            papers = {p.id: p for p in self._papers([h.id for h in hit_list], hidden)}
        hits = [
            Hit(
                paper=papers[h.id],
                score=h.score,
                snippet=h.snippet,
                snippet_field=h.snippet_field,
                expanded=h.expanded,
                found=(found or {}).get(h.id, "partial" if page.mode == "any" else "expanded" if h.expanded else "literal"),
            )  # fmt: skip
            for h in hit_list
            if h.id in papers
        ]
        return SearchResult(
            query=query,
            hits=hits,
            total=total,
            page=number,
            per_page=per_page,
            mode=page.mode,
            suggestion=page.suggestion,
            problem=page.problem,
            expanded=page.expanded,
            estimated=estimated,
            store_away=store_away,
        )

    def get(self, paper_id: str, *, team: str | None = EVERYONE) -> Paper | None:
        """Return a paper by id, or by an unambiguous id prefix (at least 4 characters).

        A duplicate's id (bot/semantic/dupes.py) gives the paper it duplicates, with both's fields.
        `team`: the asking workspace; a paper it may not see is not there (None), as if unknown.
        """
        paper_id = paper_id.strip().lower()
        paper = self.store.get(paper_id)
        if not paper and _ID.match(paper_id):
            ids = self.store.find_ids(paper_id)
            paper = self.store.get(ids[0]) if len(ids) == 1 else None
        if paper is not None and not self.visibility.sees(team, paper):
            return None
        if paper is None or self.meaning is None or not self.meaning.duplicates.count():
            return paper
        found = self._papers([paper.id], self.visibility.hidden(team))
        return found[0] if found else paper

    def _canonical_hits(self, hits: list[IndexHit], hidden: frozenset[str] = frozenset()) -> list[IndexHit]:
        """Each duplicate's hit becomes its canonical paper's, shown once (at the better place);
        not a canonical paper the asker may not see (`hidden`)."""
        duplicates = self.meaning.duplicates if self.meaning is not None else None
        if duplicates is None:
            return hits
        out, seen = [], set()
        for hit in hits:
            canonical = duplicates.canonical(hit.id)
            if canonical in hidden:
                canonical = hit.id
            if canonical in seen:
                continue
            seen.add(canonical)
            out.append(hit if canonical == hit.id else IndexHit(canonical, hit.score, [], "", hit.expanded))
        return out

    def _papers(self, ids: list[str], hidden: frozenset[str] = frozenset()) -> list[Paper]:
        """The papers with these ids, each canonical one with everything from its duplicates
        (but nothing from a paper in `hidden`, which the asker may not see)."""
        papers = self.store.get_many([pid for pid in ids if pid not in hidden])
        duplicates = self.meaning.duplicates if self.meaning is not None else None
        if duplicates is None or not duplicates.count():
            return papers
        out = []
        for paper in papers:
            canonical = duplicates.canonical(paper.id)
            if canonical != paper.id and canonical not in hidden:
                found = self.store.get(canonical)
                paper = found if found is not None else paper
            members = [pid for pid in duplicates.members(paper.id) if pid not in hidden]
            out.append(merged(paper, self.store.get_many(members)) if members else paper)
        return out

    def canonical_ids(self, paper_ids: Iterable[str], *, team: str | None = EVERYONE) -> dict[str, str]:
        """Each id -> the id it is shown under in `team`: its canonical paper's when it is a
        duplicate of a paper `team` may see, else its own (a private upload of another workspace
        never stands in for a shared copy of it, nor takes its votes)."""
        ids = list(dict.fromkeys(paper_ids))
        if self.meaning is None or not ids or not self.meaning.duplicates.count():
            return {pid: pid for pid in ids}
        out: dict[str, str] = {}
        hidden: frozenset[str] | None = None
        for pid in ids:
            canonical = self.meaning.duplicates.canonical(pid)
            if canonical != pid:
                hidden = self.visibility.hidden(team) if hidden is None else hidden
                if canonical in hidden:
                    canonical = pid
            out[pid] = canonical
        return out

    def canonical_id(self, paper_id: str, *, team: str | None = EVERYONE) -> str:
        """The id a paper is shown under in `team` (canonical_ids, for one)."""
        return self.canonical_ids([paper_id], team=team)[paper_id]

    def shown_once(self, papers: list[Paper], *, team: str | None = EVERYONE, after_seq: int | None = None) -> list[Paper]:
        """`papers` as a list a person sees them: each duplicate as its canonical paper, with
        everything from both (bot/semantic/dupes.py), once, at the first place either had.

        Every list a person is shown passes through here (saved, for you, Home, popular, a
        digest's papers, exports); searches and More like this do the same on their hits
        (`_canonical_hits`). `after_seq` (a digest's): a canonical paper stored at or before
        it was in an earlier digest, so its duplicate, new now, is not new. `team`: the
        asking workspace; a canonical paper it may not see leaves the duplicate as it is.
        """
        if self.meaning is None or not papers or not self.meaning.duplicates.count():
            return list(papers)
        hidden = self.visibility.hidden(team)
        shown_ids: list[str] = []
        for paper in papers:
            canonical = self.meaning.duplicates.canonical(paper.id)
            shown_ids.append(paper.id if canonical in hidden else canonical)
        found = {p.id: p for p in self._papers(list(dict.fromkeys(shown_ids)), hidden)}
        out, seen = [], set()
        for paper, shown_id in zip(papers, shown_ids, strict=True):
            if shown_id in seen or shown_id in hidden:  # never a paper the workspace may not see
                continue
            seen.add(shown_id)
            shown = found.get(shown_id, paper)
            if after_seq is not None and shown.id != paper.id and shown.seq <= after_seq:
                continue
            out.append(shown)
        return out

    def resolve(self, query_or_id: str, *, team: str | None = EVERYONE) -> Paper | None:
        """Return the paper with this id, else the best search match, else None (as `team` sees them)."""
        paper = self.get(query_or_id, team=team)
        if paper:
            return paper
        result = self.search(query_or_id, per_page=1, team=team)
        return result.hits[0].paper if result.hits else None

    def find_identifier(self, identifier: Identifier, *, team: str | None = EVERYONE) -> Paper | None:
        """The paper a pasted identifier names exactly (bot.models.read_identifier), else None.

        An arXiv id or DOI is looked up in the arXiv records, then among the links papers
        give (the index finds the few that mention it; each is checked: a paper whose
        Comments say "extends arXiv:2507.07996" is not that paper). A URL must be one of a
        paper's own links. `team`: the asking workspace (a paper it may not see is not found).
        """
        kind, value = identifier.kind, identifier.value
        if kind == "paper":
            return self.get(value, team=team)
        found_id = None
        if kind == "arxiv":
            found_id = self.store.paper_id_for_arxiv(value)
        elif kind == "doi":
            found_id = self.store.paper_id_for_doi(value)
        if found_id:
            return self.get(found_id, team=team)
        page = self.index.search(
            f'"{value}"', per_page=MAX_PER_PAGE, expand=False, correct=False, hidden=self.visibility.hidden(team)
        )
        for paper in self.store.get_many([hit.id for hit in page.hits]):
            if _names(paper, identifier):
                return paper
        return None

    def newest(self, limit: int = 5, *, team: str | None = EVERYONE) -> list[Paper]:
        """The papers stored last, newest first, of those `team` may see."""
        hidden = self.visibility.hidden(team)
        duplicates = self.meaning.duplicates.count() if self.meaning is not None else 0
        if not hidden and not duplicates:
            return self.store.newest(limit)
        newest = [p for p in self.store.newest(limit + len(hidden) + min(duplicates, limit)) if p.id not in hidden]
        return self.shown_once(newest, team=team)[:limit]

    def visible(self, papers: list[Paper], *, team: str | None = EVERYONE) -> list[Paper]:
        """`papers` without those `team` may not see (a pool a caller gathered by other means:
        saves, votes, a for-you candidate list), in order."""
        return self.visibility.visible(team, papers)

    def hidden_from(self, team: str | None) -> frozenset[str]:
        """Ids of the papers `team` may not see (bot/store/visibility.py); empty for EVERYONE."""
        return self.visibility.hidden(team)

    def stats(self) -> dict:
        stats = self.store.stats()
        docs, rev = self.index.state()
        stats["index"] = {"documents": docs, "rev": rev, "path": str(self.settings.index_dir)}
        stats["arxiv"] = self.store.arxiv_stats()
        if self.meaning is not None:
            progress = self.meaning.builder.progress(count=True)
            left = progress.seconds_left()
            stats["vectors"] = {
                "papers": progress.papers,
                "with_vectors": progress.with_vectors,
                "missing": progress.missing,
                "model": self.meaning.encoder.name,
                "path": str(self.settings.vectors_dir),
                "seconds_left": None if left is None else round(left),
            }
        else:
            stats["vectors"] = None
        return stats

    def get_user_lang(self, user_id: str, team_id: str | None = None) -> str | None:
        """The person's `/papers lang` in workspace `team_id` (None: the home workspace)."""
        return self.store.get_user_lang(user_id, team_id)

    def set_user_lang(self, user_id: str, lang: str, team_id: str | None = None) -> None:
        self.store.set_user_lang(user_id, lang, team_id)

    def claim_event(self, event_id: str, team_id: str | None = None) -> bool:
        """Record that a Slack event is being handled; False if it already was (see Store.claim_event)."""
        return self.store.claim_event(event_id, team_id=team_id)


def _paged(like: IndexPage, hits: list[IndexHit], total: int, mode: str | None = None) -> IndexPage:
    """A page of hybrid hits that keeps what the lexical search said (suggestion, problem, expansions)."""
    return IndexPage(hits, total, mode or like.mode, suggestion=like.suggestion, problem=like.problem, expanded=like.expanded)


def _names(paper: Paper, identifier: Identifier) -> bool:
    """Whether `identifier` is the paper's own (its arXiv id, its DOI, one of its links)."""
    value = identifier.value.casefold()
    if identifier.kind == "arxiv":
        return arxiv_id_of(paper).casefold() == value
    if identifier.kind == "doi":
        doi = paper.arxiv.doi.casefold() if paper.arxiv else ""
        return doi == value or any(url.casefold().endswith("doi.org/" + value) for url in paper.urls)
    wanted = value.rstrip("/")
    return any(url.casefold().rstrip("/") == wanted for url in paper.urls)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _counted(papers: Iterable[Paper], progress: RebuildProgress) -> Iterator[Paper]:
    for paper in papers:
        progress.done += 1
        yield paper


def settle_heap() -> None:
    """Leave what start-up loaded out of the cyclic garbage collector's full passes.

    A prepared corpus holds a few hundred thousand containers for as long as the
    process lives (dictionaries, vocabularies, the lexicon). Each of the collector's full
    passes walked them all, holding the interpreter: 0.1-0.4 s at 1M papers, at a moment
    set by whatever allocates (a day's file did), and every search waited. Frozen, they
    are never walked again; reference counting still frees them, and only a cycle among
    them that became garbage later would stay (collected first, so none is frozen now).
    """
    gc.collect()
    gc.freeze()
