"""The papers' vectors: derived data in `<data>/vectors/`, rebuildable, never the source of truth.

Files (every one written to a `.tmp` name, flushed, then renamed: a kill -9 at any moment
leaves either the old file or the new one, never half of one, and `.tmp` files are ignored):

    chunk-<ns>-<pid>.npz     rows the builder computed: ids, text keys, int8 vectors, scales
    base-<gen>.npz           the compacted rows: ids (bytes, and their sorted order), keys,
                             scales, and the chunks it absorbed
    base-<gen>.vecs.npy      their int8 vectors, read a row at a time (pread: page cache, not
                             this process's memory)
    base-<gen>.usearch       an HNSW graph, once they are many (a memory-mapped view), over
                             each row's projection on its base's first PCA_DIM principal
                             axes; its candidates are re-scored exactly from the int8 rows
    CURRENT                  {"gen": N, "last": M}: which base is live, and the highest
                             number ever written (never reused, even after a clear)

Why a projection (bench/RESULTS.md, "Vectors at 1M"): the encoder's papers share one large
common direction (the mean of their vectors has length ~0.71), and a question sits nearly at
right angles to it (cosine ~0.02), where a graph over the raw rows finds few of a question's
true nearest (recall@10 0.71 over 57k real vectors). A paper's cosine to a query is that
common part, the same for every paper, plus the query against what is left of the paper, so
ranking by the rest ranks as the cosine does. Over the rest's first 128 axes (91% of what
varies), in 128 bytes a row instead of 512, a graph's 300 nearest at breadth 1536, re-scored
exactly, hold 0.98 of a question's true ten and 0.99 of a paper's (60k real vectors; 0.95 and
1.00 over 1M made ones). The ids are two numpy arrays (not a million strings in a list
and a dict), and opening the folder takes milliseconds. A base written before (an int8 graph over the raw rows, ids as text) still
loads and is searched as it was written.

A row is keyed by paper id and the fingerprint of the text it was computed from: a paper
whose text changed (an arXiv abstract arrived) is stale until recomputed, and meanwhile it
is searched lexically as every paper without a vector is. A later chunk overrides an
earlier one and the base. Several processes may read and write the folder (the server's
builder, `python -m bot vectors`): names are unique and a reader re-lists on a missing file.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.semantic.model import DIM

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

MAX_SKIPPED = 200  # excluded papers a search makes room for among the graph's candidates
ANN_MIN_ROWS = 20_000  # below this an exact scan of the rows is as fast as a graph (~2 ms)
ANN_CANDIDATES = 300  # the graph's nearest, re-scored exactly from the int8 rows
PCA_DIM = 128  # the principal axes the graph's rows are projected on (bench/RESULTS.md: 91% of what varies)
PCA_SAMPLE = 20_000  # rows the axes are fitted on
COMPACT_CHUNKS = 24  # fold the chunks into the base once there are this many
TAIL_MAX_ROWS = 20_000  # ...or once they hold this many rows (the tail is scanned exactly)
ANN_EXPANSION = 1536  # HNSW search breadth: at 1M, 768 held 0.91 of a question's true ten, 1536 0.95 (bench/RESULTS.md)
_CHUNK = re.compile(r"^chunk-(\d+)-(\d+)\.npz$")
_BASE = re.compile(r"^base-(\d+)\.npz$")


@dataclass
class VectorStats:
    rows: int
    chunks: int
    base_rows: int
    ann: bool


def _np():
    import numpy as np  # Deferred: numpy loads at the first search, not at start-up

    return np


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 rows -> int8 rows and one scale each (a quarter of the bytes; cosine within ~0.01)."""
    np = _np()
    peak = np.maximum(np.abs(vectors).max(axis=1), 1e-9).astype(np.float32)
    scales = peak / 127.0
    return np.round(vectors / scales[:, None]).astype(np.int8), scales


def _atomic_save(path: Path, write) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        write(fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class _Rows:
    """A base's int8 rows, read by pread: they stay in the page cache, not in this process's
    memory (a memory map of 1M rows counted 512 MB towards the server's RSS)."""

    def __init__(self, path: Path):
        np = _np()
        view = np.load(path, mmap_mode="r")
        self.offset, (self.count, self.dim) = int(view.offset), view.shape
        del view
        self.path = path
        self._fd = os.open(path, os.O_RDONLY)

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The int8 rows at `rows`, in that order."""
        np = _np()
        out = np.empty((len(rows), self.dim), dtype=np.int8)
        width = self.dim
        for i, row in enumerate(rows.tolist()):
            out[i] = np.frombuffer(os.pread(self._fd, width, self.offset + row * width), dtype=np.int8)
        return out

    def all(self) -> np.ndarray:
        np = _np()
        return np.fromfile(self.path, dtype=np.int8, offset=self.offset).reshape(self.count, self.dim)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self):
        self.close()


class VectorStore:
    """The vectors folder, and what this process has read of it (refreshed when it changes)."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.RLock()
        self._compacting = threading.Lock()  # one compaction at a time in this process
        self._seen: tuple[int, int] | None = None  # (folder mtime_ns, CURRENT mtime_ns) last read
        self._gen = -1
        self._base_ids: np.ndarray | None = None  # bytes, by row
        self._base_sorted: np.ndarray | None = None  # the ids sorted (a lookup is a binary search)
        self._base_order: np.ndarray | None = None  # row of each sorted id
        self._base_keys: np.ndarray | None = None
        self._base_rows: _Rows | None = None
        self._base_scales: np.ndarray | None = None
        self._base_dense: np.ndarray | None = None  # float32 copy when small (exact scan)
        self._ann: Any = None  # usearch's Index over the projected rows (or, written before, int8), memory-mapped
        self._axes: np.ndarray | None = None  # (PCA_DIM, DIM): the projection, None for a graph over raw int8
        self._merged: frozenset[str] = frozenset()
        self._chunks_read: set[str] = set()
        self._tail_ids: list[str] = []
        self._tail_row: dict[str, int] = {}
        self._tail_keys: list[int] = []
        self._tail_vecs: list[np.ndarray] = []  # float32 rows
        self._tail_matrix: np.ndarray | None = None
        self._count = 0  # rows, the tail's new papers and the base's

    # -- reading -------------------------------------------------------------------------

    def refresh(self) -> None:
        """Read what changed in the folder since the last look (a stat when nothing did)."""
        try:
            seen = (self.path.stat().st_mtime_ns, (self.path / "CURRENT").stat().st_mtime_ns)
        except FileNotFoundError:
            seen = (0, 0) if not self.path.exists() else (self.path.stat().st_mtime_ns, 0)
        if seen == self._seen:
            return
        with self._lock:
            for _ in range(5):  # a compaction in another process may delete what we listed
                try:
                    self._read()
                    self._seen = seen
                    return
                except FileNotFoundError:
                    time.sleep(0.05)
            logger.warning("the vectors folder %s kept changing while being read; reading it later", self.path)

    def _read(self) -> None:
        np = _np()
        gen = self._current_gen()
        if gen != self._gen:
            self._load_base(gen)
            self._chunks_read = set()
            self._reset_tail()
        if not self.path.is_dir():
            return
        names = sorted((n for n in os.listdir(self.path) if _CHUNK.match(n)), key=_chunk_order)
        for name in names:
            if name in self._chunks_read or name in self._merged:
                continue
            with np.load(self.path / name) as data:
                ids, keys, vecs, scales = data["ids"], data["keys"], data["vecs"], data["scales"]
            self._add_tail([str(i) for i in ids], keys.tolist(), vecs.astype(np.float32) * scales[:, None])
            self._chunks_read.add(name)

    def _current_gen(self) -> int:
        return self._current().get("gen", 0)

    def _current(self) -> dict[str, int]:
        """CURRENT: {"gen": the live base, "last": the highest ever written (after a clear)}."""
        try:
            found = json.loads((self.path / "CURRENT").read_text())
            return {"gen": int(found["gen"]), "last": int(found.get("last", found["gen"]))}
        except (FileNotFoundError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def _load_base(self, gen: int) -> None:
        np = _np()
        self._gen = gen
        if self._base_rows is not None:
            self._base_rows.close()
        self._base_ids = self._base_sorted = self._base_order = None
        self._merged, self._ann, self._axes, self._base_dense, self._base_rows = frozenset(), None, None, None, None
        self._base_keys = self._base_scales = None
        if gen == 0:
            return
        with np.load(self.path / f"base-{gen}.npz") as data:
            ids, self._base_scales = data["ids"], data["scales"]
            self._merged = frozenset(str(n) for n in data["merged"] if str(n))  # "" stands for none
            order = data["order"] if "order" in data.files else None
            axes = data["axes"] if "axes" in data.files else None
        if ids.dtype.kind == "U":  # a base written before the ids were bytes
            ids = np.char.encode(ids, "utf-8")
        if order is None:
            order = np.argsort(ids, kind="stable")
        order = order.astype(np.int32)  # (4 MB at 1M rows, not 8)
        self._base_ids, self._base_order, self._base_sorted = ids, order, ids[order]
        self._base_rows = _Rows(self.path / f"base-{gen}.vecs.npy")
        ann_path = self.path / f"base-{gen}.usearch"
        if ann_path.exists():
            from usearch.index import Index  # Deferred: only a large library has a graph

            self._ann = Index.restore(str(ann_path), view=True)
            self._ann.expansion_search = ANN_EXPANSION
            self._axes = axes
        elif len(ids):
            self._base_dense = self._base_rows.all().astype(np.float32) * self._base_scales[:, None]

    def _reset_tail(self) -> None:
        self._tail_ids, self._tail_row, self._tail_keys, self._tail_vecs, self._tail_matrix = [], {}, [], [], None
        self._count = len(self._base_ids) if self._base_ids is not None else 0

    def _add_tail(self, ids: list[str], keys: list[int], vecs: np.ndarray) -> None:
        fresh = []
        for pid, key, vec in zip(ids, keys, vecs, strict=True):
            row = self._tail_row.get(pid)
            if row is None:
                self._tail_row[pid] = len(self._tail_ids)
                self._tail_ids.append(pid)
                self._tail_keys.append(int(key))
                self._tail_vecs.append(vec)
                fresh.append(pid)
            else:
                self._tail_keys[row] = int(key)
                self._tail_vecs[row] = vec
        self._tail_matrix = None
        self._count += int((self._base_lookup(fresh) < 0).sum()) if fresh else 0

    def _base_lookup(self, paper_ids: list[str]) -> np.ndarray:
        """Each id's row in the base, or -1 (one binary search for them all)."""
        np = _np()
        if self._base_sorted is None or not len(self._base_sorted) or not paper_ids:
            return np.full(len(paper_ids), -1, dtype=np.int64)
        wanted = np.array([pid.encode("utf-8") for pid in paper_ids])
        at = np.minimum(np.searchsorted(self._base_sorted, wanted), len(self._base_sorted) - 1)
        assert self._base_order is not None
        return np.where(self._base_sorted[at] == wanted, self._base_order[at], -1).astype(np.int64)

    def _keys(self) -> np.ndarray | None:
        """The base's text fingerprints, read when first asked (the builder asks; a search never does)."""
        if self._base_keys is None and self._base_ids is not None and self._gen > 0:
            np = _np()
            with np.load(self.path / f"base-{self._gen}.npz") as data:
                keys = data["keys"]
            self._base_keys = keys if len(keys) == len(self._base_ids) else None  # (another base's: none)
        return self._base_keys

    def _base_id(self, row: int) -> str:
        assert self._base_ids is not None
        return self._base_ids[row].decode("utf-8")

    def _base_vectors(self, rows: np.ndarray) -> np.ndarray:
        """The base's rows as float32 (unit length, to ~0.01)."""
        np = _np()
        assert self._base_rows is not None and self._base_scales is not None
        return self._base_rows.take(rows).astype(np.float32) * self._base_scales[rows][:, None]

    # -- questions -----------------------------------------------------------------------

    def __len__(self) -> int:
        self.refresh()
        return self._count

    def keys(self) -> dict[str, int]:
        """{paper id: fingerprint of the text its vector was computed from}, every row."""
        self.refresh()
        with self._lock:
            found: dict[str, int] = {}
            base_keys = self._keys()
            if self._base_ids is not None and base_keys is not None:
                for pid, key in zip(self._base_ids.tolist(), base_keys.tolist(), strict=True):
                    found[pid.decode("utf-8")] = key
            found.update(zip(self._tail_ids, self._tail_keys, strict=True))
            return found

    def key_of(self, paper_id: str) -> int | None:
        self.refresh()
        with self._lock:
            row = self._tail_row.get(paper_id)
            if row is not None:
                return self._tail_keys[row]
            base = int(self._base_lookup([paper_id])[0])
            base_keys = self._keys() if base >= 0 else None
            return None if base_keys is None else int(base_keys[base])

    def vector(self, paper_id: str) -> np.ndarray | None:
        """The paper's vector (float32, unit length), or None without one."""
        return self.vectors([paper_id]).get(paper_id)

    def vectors(self, paper_ids: Iterable[str]) -> dict[str, np.ndarray]:
        """{paper id: its vector} for those of `paper_ids` that have one (one look at the folder)."""
        self.refresh()
        found: dict = {}
        with self._lock:
            rest = []
            for pid in paper_ids:
                row = self._tail_row.get(pid)
                if row is not None:
                    found[pid] = self._tail_vecs[row]
                else:
                    rest.append(pid)
            if rest and self._base_rows is not None:
                rows = self._base_lookup(rest)
                have = rows >= 0
                if have.any():
                    taken = self._base_vectors(rows[have])
                    for pid, vec in zip([p for p, h in zip(rest, have.tolist(), strict=True) if h], taken, strict=True):
                        found[pid] = vec
        return found

    def nearest(self, query: np.ndarray, k: int, *, exclude: Iterable[str] = ()) -> list[tuple[str, float]]:
        """The `k` papers whose vectors are nearest `query` by cosine, best first: [(id, cosine)]."""
        self.refresh()
        np = _np()
        skip = set(exclude)
        with self._lock:
            found: dict[str, float] = {}
            if self._tail_ids:
                if self._tail_matrix is None:
                    self._tail_matrix = np.vstack(self._tail_vecs).astype(np.float32)
                scores = self._tail_matrix @ query
                take = min(len(scores), k + len(skip))
                for row in np.argpartition(-scores, take - 1)[:take]:
                    pid = self._tail_ids[row]
                    if pid not in skip:
                        found[pid] = float(scores[row])
            base = len(self._base_ids) if self._base_ids is not None else 0
            # (the skipped, a workspace's hidden papers, may be thousands: the graph is asked for a few more, not all)
            want = min(base, k + min(len(skip), MAX_SKIPPED) + len(self._tail_ids if len(self._tail_ids) < 2 * k else ()))
            rows = scores = None
            if self._ann is not None and want:
                if self._axes is not None:
                    # The graph's nearest by the projection (an inner product: the common part
                    # left out is the same for every paper), then each one's exact cosine from
                    # its int8 row: the graph only has to hold the true ten among its hundred.
                    asked = min(base, max(ANN_CANDIDATES, 4 * want))
                    self._ann.expansion_search = max(ANN_EXPANSION, asked)
                    projected = self._axes @ query
                    code = np.round(projected * (127.0 / max(float(np.abs(projected).max()), 1e-9))).astype(np.int8)
                    rows = self._ann.search(code, asked).keys.astype(np.int64)
                    if skip:  # not read for nothing: a workspace's hidden papers can be thousands
                        rows = np.array([r for r in rows.tolist() if self._base_id(r) not in skip], dtype=np.int64)
                    scores = self._base_vectors(rows) @ query
                else:
                    # A graph written before the sign bits holds the rows' own int8 (cosine
                    # ignores each row's scale): the query is quantized the same way.
                    matches = self._ann.search(quantize(query[None, :])[0][0], min(base, want + 8))
                    rows, scores = matches.keys.astype(np.int64), 1.0 - matches.distances.astype(np.float32)
            elif self._base_dense is not None and want:
                dense = self._base_dense @ query
                rows = np.argpartition(-dense, want - 1)[:want]
                scores = dense[rows]
            if rows is not None and scores is not None:
                for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
                    pid = self._base_id(row)
                    if pid not in skip and pid not in self._tail_row:
                        found[pid] = float(score)
        return sorted(found.items(), key=lambda item: -item[1])[:k]

    def stats(self) -> VectorStats:
        self.refresh()
        return VectorStats(
            rows=len(self),
            chunks=len(self._chunks_read),
            base_rows=len(self._base_ids) if self._base_ids is not None else 0,
            ann=self._ann is not None,
        )

    # -- writing -------------------------------------------------------------------------

    def add(self, ids: list[str], keys: list[int], vectors: np.ndarray) -> None:
        """Keep computed rows: one new chunk file, whole or not at all."""
        if not ids:
            return
        np = _np()
        self.path.mkdir(parents=True, exist_ok=True)
        q, scales = quantize(vectors)
        name = f"chunk-{time.time_ns():020d}-{os.getpid()}.npz"
        arrays = {"ids": np.array(ids), "keys": np.array(keys, dtype=np.int64), "vecs": q, "scales": scales}
        _atomic_save(self.path / name, lambda fh: np.savez(fh, **arrays))
        with self._lock:
            self._add_tail(ids, keys, q.astype(np.float32) * scales[:, None])
            self._chunks_read.add(name)

    def needs_compacting(self) -> bool:
        self.refresh()
        return len(self._chunks_read) >= COMPACT_CHUNKS or len(self._tail_ids) >= TAIL_MAX_ROWS

    def compact(self, *, keep: set[str] | None = None, threads: int = 1) -> int:
        """Fold the chunks into a new base (and its HNSW graph when large); return its rows.

        `keep`, when given, drops the rows of papers no longer in the store (merged
        duplicates). The new base is live once CURRENT names it; the old files go after.
        What is folded is read under the lock; the files are written without it (at 1M rows
        the graph takes minutes, and every search would wait on refresh() meanwhile).
        """
        np = _np()
        with self._compacting:
            with self._lock:
                self._seen = None
                self.refresh()
                chunks = sorted(self._chunks_read | set(self._merged), key=_chunk_order)
                # Never a number used before, even after a clear: a reader holding base N must
                # not take a new base N for the one it read.
                gen = max(self._gen, self._newest_gen(), self._current().get("last", 0)) + 1
                old_gen = self._gen
                base_ids = [pid.decode("utf-8") for pid in self._base_ids.tolist()] if self._base_ids is not None else []
                ids: list[str] = []
                rows_from, tail_rows = [], []
                for i, pid in enumerate(base_ids):
                    if pid not in self._tail_row and (keep is None or pid in keep):
                        ids.append(pid)
                        rows_from.append(i)
                for i, pid in enumerate(self._tail_ids):
                    if keep is None or pid in keep:
                        ids.append(pid)
                        tail_rows.append(i)
                base_keys, base_scales = self._keys(), self._base_scales
                tail = quantize(np.vstack([self._tail_vecs[i] for i in tail_rows]).astype(np.float32)) if tail_rows else None
                tail_keys = [self._tail_keys[i] for i in tail_rows]
            n = len(ids)
            keys = np.empty(n, dtype=np.int64)
            vecs = np.lib.format.open_memmap(self.path / f"base-{gen}.vecs.npy.tmp", mode="w+", dtype=np.int8, shape=(n, DIM))
            scales = np.empty(n, dtype=np.float32)
            if rows_from and base_keys is not None and base_scales is not None:
                idx = np.asarray(rows_from)
                old = np.load(self.path / f"base-{old_gen}.vecs.npy", mmap_mode="r")
                for start in range(0, len(idx), 65536):
                    part = idx[start : start + 65536]
                    vecs[start : start + len(part)] = old[part]
                del old
                keys[: len(idx)] = base_keys[idx]
                scales[: len(idx)] = base_scales[idx]
            offset = len(rows_from)
            if tail is not None:
                vecs[offset:], scales[offset:] = tail
                keys[offset:] = tail_keys
            vecs.flush()
            del vecs
            os.replace(self.path / f"base-{gen}.vecs.npy.tmp", self.path / f"base-{gen}.vecs.npy")
            axes = self._build_ann(gen, n, scales, threads) if n >= ANN_MIN_ROWS else None
            encoded = np.array([pid.encode("utf-8") for pid in ids] or [b""])[:n]
            arrays = {
                "ids": encoded,
                "order": np.argsort(encoded, kind="stable"),
                "keys": keys,
                "scales": scales,
                "merged": np.array(chunks or [""]),
            }
            if axes is not None:
                arrays["axes"] = axes
            _atomic_save(self.path / f"base-{gen}.npz", lambda fh: np.savez(fh, **arrays))
            _atomic_save(self.path / "CURRENT", lambda fh: fh.write(json.dumps({"gen": gen, "last": gen}).encode()))
            for name in chunks:
                (self.path / name).unlink(missing_ok=True)
            if old_gen:
                for suffix in (".npz", ".vecs.npy", ".usearch"):
                    (self.path / f"base-{old_gen}{suffix}").unlink(missing_ok=True)
            with self._lock:
                self._seen = None
                self.refresh()
            logger.info("vectors compacted: %d rows in base %d (%d chunks folded in)", n, gen, len(chunks))
            return n

    def _build_ann(self, gen: int, n: int, scales: np.ndarray, threads: int) -> np.ndarray:
        """Write the base's HNSW graph; return the projection its rows were put through."""
        np = _np()
        from usearch.index import Index  # Deferred: only a large library has a graph

        vecs = np.load(self.path / f"base-{gen}.vecs.npy", mmap_mode="r")
        blocks = range(0, n, 50_000)

        def block(start: int):
            return np.asarray(vecs[start : start + 50_000], dtype=np.float32) * scales[start : start + 50_000, None]

        mean = sum((block(start).sum(axis=0) for start in blocks), np.zeros(DIM, dtype=np.float64)) / n
        sample = np.asarray(vecs[np.linspace(0, n - 1, min(n, PCA_SAMPLE)).astype(np.int64)], dtype=np.float32)
        sample = sample * scales[np.linspace(0, n - 1, min(n, PCA_SAMPLE)).astype(np.int64), None] - mean
        _, axes = np.linalg.eigh(sample.T @ sample)  # ascending: the last are the principal axes
        axes = np.ascontiguousarray(axes[:, ::-1][:, :PCA_DIM].T, dtype=np.float32)
        # One scale for every row (an inner product must not lose each row's length): the
        # sample's largest component with a margin; a row beyond it is clipped, its exact
        # cosine is taken from its int8 row anyway.
        scale = 127.0 / (1.25 * max(float(np.abs(sample @ axes.T).max()), 1e-9))
        index = Index(
            ndim=PCA_DIM, metric="ip", dtype="i8", connectivity=16, expansion_add=128,
            expansion_search=ANN_EXPANSION, enable_key_lookups=False,
        )  # fmt: skip
        for start in blocks:
            rows = block(start)
            codes = np.clip(np.round((rows - mean) @ axes.T * scale), -127, 127).astype(np.int8)
            index.add(np.arange(start, start + len(rows), dtype=np.uint64), codes, threads=threads)
        tmp = self.path / f"base-{gen}.usearch.{os.getpid()}.tmp"
        index.save(str(tmp))
        os.replace(tmp, self.path / f"base-{gen}.usearch")
        return axes

    def _newest_gen(self) -> int:
        if not self.path.is_dir():
            return 0
        return max((int(m.group(1)) for n in os.listdir(self.path) if (m := _BASE.match(n))), default=0)

    def clear(self) -> None:
        """Forget every vector (`python -m bot vectors --rebuild`): the builder computes them anew."""
        with self._lock:
            last = max(self._gen, self._newest_gen(), self._current().get("last", 0))
            if self.path.is_dir():
                for name in os.listdir(self.path):
                    (self.path / name).unlink(missing_ok=True)
                _atomic_save(self.path / "CURRENT", lambda fh: fh.write(json.dumps({"gen": 0, "last": last}).encode()))
            self._seen = None
            self._gen = -1
            self.refresh()


def _chunk_order(name: str) -> tuple[int, int]:
    m = _CHUNK.match(name)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)
