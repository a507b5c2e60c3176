"""The papers' vectors: derived data in `<data>/vectors/`, rebuildable, never the source of truth.

Files (every one written to a `.tmp` name, flushed, then renamed: a kill -9 at any moment
leaves either the old file or the new one, never half of one, and `.tmp` files are ignored):

    chunk-<ns>-<pid>.npz     rows the builder computed: ids, text keys, int8 vectors, scales
    base-<gen>.npz           the compacted rows: ids, keys, scales, and the chunks it absorbed
    base-<gen>.vecs.npy      their int8 vectors (memory-mapped, so page cache, not the heap)
    base-<gen>.usearch       an HNSW graph over them, once they are many (memory-mapped view)
    CURRENT                  {"gen": N}: which base is live

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

ANN_MIN_ROWS = 20_000  # below this an exact scan of the rows is as fast as a graph (~2 ms)
COMPACT_CHUNKS = 24  # fold the chunks into the base once there are this many
TAIL_MAX_ROWS = 20_000  # ...or once they hold this many rows (the tail is scanned exactly)
ANN_EXPANSION = 96  # HNSW search breadth: recall@10 >= 0.95 against exact (bench/RESULTS.md)
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


class VectorStore:
    """The vectors folder, and what this process has read of it (refreshed when it changes)."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.RLock()
        self._seen: tuple[int, int] | None = None  # (folder mtime_ns, CURRENT mtime_ns) last read
        self._gen = -1
        self._base_ids: list[str] = []
        self._base_row: dict[str, int] = {}
        self._base_keys: np.ndarray | None = None
        self._base_vecs: np.ndarray | None = None  # int8, memory-mapped
        self._base_scales: np.ndarray | None = None
        self._base_dense: np.ndarray | None = None  # float32 copy when small (exact scan)
        self._ann: Any = None  # usearch's Index, memory-mapped
        self._merged: frozenset[str] = frozenset()
        self._chunks_read: set[str] = set()
        self._tail_ids: list[str] = []
        self._tail_row: dict[str, int] = {}
        self._tail_keys: list[int] = []
        self._tail_vecs: list[np.ndarray] = []  # float32 rows
        self._tail_matrix: np.ndarray | None = None

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
        try:
            return int(json.loads((self.path / "CURRENT").read_text())["gen"])
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return 0

    def _load_base(self, gen: int) -> None:
        np = _np()
        self._gen = gen
        self._base_ids, self._base_row, self._merged, self._ann, self._base_dense = [], {}, frozenset(), None, None
        self._base_keys = self._base_vecs = self._base_scales = None
        if gen == 0:
            return
        with np.load(self.path / f"base-{gen}.npz") as data:
            ids, self._base_keys, self._base_scales = data["ids"], data["keys"], data["scales"]
            self._merged = frozenset(str(n) for n in data["merged"])
        self._base_ids = ids.tolist()
        self._base_row = {pid: i for i, pid in enumerate(self._base_ids)}
        self._base_vecs = np.load(self.path / f"base-{gen}.vecs.npy", mmap_mode="r")
        ann_path = self.path / f"base-{gen}.usearch"
        if ann_path.exists():
            from usearch.index import Index  # Deferred: only a large library has a graph

            self._ann = Index.restore(str(ann_path), view=True)
            self._ann.expansion_search = ANN_EXPANSION
        elif len(self._base_ids):
            self._base_dense = np.asarray(self._base_vecs, dtype=np.float32) * self._base_scales[:, None]

    def _reset_tail(self) -> None:
        self._tail_ids, self._tail_row, self._tail_keys, self._tail_vecs, self._tail_matrix = [], {}, [], [], None

    def _add_tail(self, ids: list[str], keys: list[int], vecs: np.ndarray) -> None:
        for pid, key, vec in zip(ids, keys, vecs, strict=True):
            row = self._tail_row.get(pid)
            if row is None:
                self._tail_row[pid] = len(self._tail_ids)
                self._tail_ids.append(pid)
                self._tail_keys.append(int(key))
                self._tail_vecs.append(vec)
            else:
                self._tail_keys[row] = int(key)
                self._tail_vecs[row] = vec
        self._tail_matrix = None

    # -- questions -----------------------------------------------------------------------

    def __len__(self) -> int:
        self.refresh()
        return len(self._base_ids) + sum(1 for pid in self._tail_ids if pid not in self._base_row)

    def keys(self) -> dict[str, int]:
        """{paper id: fingerprint of the text its vector was computed from}, every row."""
        self.refresh()
        with self._lock:
            found = dict(zip(self._base_ids, self._base_keys.tolist(), strict=True)) if self._base_keys is not None else {}
            found.update(zip(self._tail_ids, self._tail_keys, strict=True))
            return found

    def key_of(self, paper_id: str) -> int | None:
        self.refresh()
        row = self._tail_row.get(paper_id)
        if row is not None:
            return self._tail_keys[row]
        row = self._base_row.get(paper_id)
        return None if row is None or self._base_keys is None else int(self._base_keys[row])

    def vector(self, paper_id: str) -> np.ndarray | None:
        """The paper's vector (float32, unit length), or None without one."""
        self.refresh()
        np = _np()
        with self._lock:
            row = self._tail_row.get(paper_id)
            if row is not None:
                return self._tail_vecs[row]
            row = self._base_row.get(paper_id)
            if row is None or self._base_vecs is None or self._base_scales is None:
                return None
            return np.asarray(self._base_vecs[row], dtype=np.float32) * self._base_scales[row]

    def vectors(self, paper_ids: Iterable[str]) -> dict[str, np.ndarray]:
        """{paper id: its vector} for those of `paper_ids` that have one (one look at the folder)."""
        self.refresh()
        np = _np()
        found: dict = {}
        with self._lock:
            for pid in paper_ids:
                row = self._tail_row.get(pid)
                if row is not None:
                    found[pid] = self._tail_vecs[row]
                    continue
                row = self._base_row.get(pid)
                if row is not None and self._base_vecs is not None and self._base_scales is not None:
                    found[pid] = np.asarray(self._base_vecs[row], dtype=np.float32) * self._base_scales[row]
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
            want = k + len(skip) + len(self._tail_ids if len(self._tail_ids) < 2 * k else ())
            if self._ann is not None:
                # The graph holds the rows' own int8 (cosine ignores each row's scale): the
                # query is quantized the same way, not by usearch's fixed x127 cast.
                matches = self._ann.search(quantize(query[None, :])[0][0], min(len(self._base_ids), want + 8))
                for label, distance in zip(matches.keys.tolist(), matches.distances.tolist(), strict=True):
                    pid = self._base_ids[int(label)]
                    if pid not in skip and pid not in self._tail_row:
                        found[pid] = 1.0 - float(distance)
            elif self._base_dense is not None and len(self._base_dense):
                scores = self._base_dense @ query
                take = min(len(scores), want)
                for row in np.argpartition(-scores, take - 1)[:take]:
                    pid = self._base_ids[row]
                    if pid not in skip and pid not in self._tail_row:
                        found[pid] = float(scores[row])
        return sorted(found.items(), key=lambda item: -item[1])[:k]

    def stats(self) -> VectorStats:
        self.refresh()
        return VectorStats(
            rows=len(self), chunks=len(self._chunks_read), base_rows=len(self._base_ids), ann=self._ann is not None
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
        """
        np = _np()
        with self._lock:
            self._seen = None
            self.refresh()
            chunks = sorted(self._chunks_read | set(self._merged), key=_chunk_order)
            gen = max(self._gen, self._newest_gen()) + 1
            ids, rows_from, tail_rows = [], [], []
            for i, pid in enumerate(self._base_ids):
                if pid not in self._tail_row and (keep is None or pid in keep):
                    ids.append(pid)
                    rows_from.append(i)
            for i, pid in enumerate(self._tail_ids):
                if keep is None or pid in keep:
                    ids.append(pid)
                    tail_rows.append(i)
            n = len(ids)
            keys = np.empty(n, dtype=np.int64)
            vecs = np.lib.format.open_memmap(self.path / f"base-{gen}.vecs.npy.tmp", mode="w+", dtype=np.int8, shape=(n, DIM))
            scales = np.empty(n, dtype=np.float32)
            if rows_from and self._base_vecs is not None and self._base_keys is not None and self._base_scales is not None:
                idx = np.asarray(rows_from)
                for start in range(0, len(idx), 65536):
                    part = idx[start : start + 65536]
                    vecs[start : start + len(part)] = self._base_vecs[part]
                keys[: len(idx)] = self._base_keys[idx]
                scales[: len(idx)] = self._base_scales[idx]
            offset = len(rows_from)
            if tail_rows:
                tail = np.vstack([self._tail_vecs[i] for i in tail_rows]).astype(np.float32)
                q, s = quantize(tail)
                vecs[offset:] = q
                scales[offset:] = s
                keys[offset:] = [self._tail_keys[i] for i in tail_rows]
            vecs.flush()
            del vecs
            os.replace(self.path / f"base-{gen}.vecs.npy.tmp", self.path / f"base-{gen}.vecs.npy")
            if n >= ANN_MIN_ROWS:
                self._build_ann(gen, n, scales, threads)
            arrays = {
                "ids": np.array(ids if ids else [""])[:n],
                "keys": keys,
                "scales": scales,
                "merged": np.array(chunks or [""]),
            }
            _atomic_save(self.path / f"base-{gen}.npz", lambda fh: np.savez(fh, **arrays))
            old = self._gen
            _atomic_save(self.path / "CURRENT", lambda fh: fh.write(json.dumps({"gen": gen}).encode()))
            for name in chunks:
                (self.path / name).unlink(missing_ok=True)
            if old:
                for suffix in (".npz", ".vecs.npy", ".usearch"):
                    (self.path / f"base-{old}{suffix}").unlink(missing_ok=True)
            self._seen = None
            self.refresh()
            logger.info("vectors compacted: %d rows in base %d (%d chunks folded in)", n, gen, len(chunks))
            return n

    def _build_ann(self, gen: int, n: int, scales: np.ndarray, threads: int) -> None:
        np = _np()
        from usearch.index import Index  # Deferred: only a large library has a graph

        vecs = np.load(self.path / f"base-{gen}.vecs.npy", mmap_mode="r")
        index = Index(ndim=DIM, metric="cos", dtype="i8", connectivity=16, expansion_add=128, expansion_search=ANN_EXPANSION)
        # The int8 rows as stored: usearch's own float -> int8 cast multiplies by 127 and rounds,
        # which leaves a unit vector's small components (~0.04) a few levels each, and the graph
        # found fewer true neighbours (recall@10 of More like this 0.954 -> 0.992 at 30k rows).
        for start in range(0, n, 50_000):
            part = np.ascontiguousarray(vecs[start : start + 50_000])
            index.add(np.arange(start, start + len(part), dtype=np.uint64), part, threads=threads)
        tmp = self.path / f"base-{gen}.usearch.{os.getpid()}.tmp"
        index.save(str(tmp))
        os.replace(tmp, self.path / f"base-{gen}.usearch")

    def _newest_gen(self) -> int:
        if not self.path.is_dir():
            return 0
        return max((int(m.group(1)) for n in os.listdir(self.path) if (m := _BASE.match(n))), default=0)

    def clear(self) -> None:
        """Forget every vector (`python -m bot vectors --rebuild`): the builder computes them anew."""
        with self._lock:
            if self.path.is_dir():
                for name in os.listdir(self.path):
                    (self.path / name).unlink(missing_ok=True)
            self._seen = None
            self._gen = -1
            self.refresh()


def _chunk_order(name: str) -> tuple[int, int]:
    m = _CHUNK.match(name)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)
