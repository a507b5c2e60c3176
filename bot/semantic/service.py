"""One object for the corpus to hold: the encoder, the vectors and their builder."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from bot.semantic.builder import VectorBuilder
from bot.semantic.dupes import Duplicates
from bot.semantic.model import Encoder, UseEncoder
from bot.semantic.vectors import VectorStore
from bot.store.database import Store

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

logger = logging.getLogger(__name__)

TEXT_CACHE = 2_000  # embedded short texts (interests) kept: each costs ~5 ms to embed again


class Meaning:
    """Search by meaning over one store: query vectors, neighbours, and the background builder."""

    def __init__(self, store: Store, path: Path, encoder: Encoder | None = None):
        self.encoder = encoder or UseEncoder()
        self.vectors = VectorStore(path)
        self.duplicates = Duplicates(store)
        self.builder = VectorBuilder(store, self.vectors, self.encoder, duplicates=self.duplicates)
        self._texts: OrderedDict[str, np.ndarray] = OrderedDict()
        self._texts_lock = threading.Lock()
        self._warming: threading.Event | None = None  # set once a background warm is done
        self._failed = False  # the background warm failed

    def has_vectors(self) -> bool:
        return len(self.vectors) > 0

    def embed_query(self, text: str) -> np.ndarray:
        return self.encoder.encode([text])[0]

    def paper_vectors(self, paper_ids: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors of those papers that have one (the for-you's dense columns)."""
        return self.vectors.vectors(paper_ids)

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """Short texts (a person's interests) embedded as a query is, remembered: a for-you
        asks for the same few every time."""
        if not texts:
            return self.encoder.encode([])
        with self._texts_lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._texts))
        if missing:
            rows = self.encoder.encode(missing)
            with self._texts_lock:
                for text, row in zip(missing, rows, strict=True):
                    self._texts[text] = row
                while len(self._texts) > TEXT_CACHE:
                    self._texts.popitem(last=False)
        import numpy as np  # Deferred: as in model.py

        with self._texts_lock:
            found = [self._texts.get(t) for t in texts]
        return np.vstack([row if row is not None else self.encoder.encode([t])[0] for row, t in zip(found, texts, strict=True)])

    def ready(self) -> bool:
        """Whether a query can be embedded now: false while serve's start loads the encoder in
        the background, and for good if that failed (searches are then by their words, as
        without vectors, and the log says why)."""
        return not self._failed and (self._warming is None or self._warming.is_set())

    def wait_ready(self, seconds: float) -> bool:
        """Wait up to `seconds` for a background load of the encoder; whether it is ready."""
        if self._warming is not None:
            self._warming.wait(seconds)
        return self.ready()

    def warm(self, *, background: bool = False) -> None:
        """Read the vectors and load the encoder's weights before the first search by meaning.

        `background` (serve's start): the weights (~2 s; 2.4 s on a loaded host) load on a
        thread, so the server answers at once, by words until they are in.
        """
        self.vectors.refresh()
        if not self.has_vectors():
            return  # the builder loads the encoder when it first has papers to embed
        if not background:
            self.encoder.encode(["warm"])
            return
        warming = self._warming = threading.Event()

        def load() -> None:
            try:
                self.encoder.encode(["warm"])
            except Exception:  # searches stay by words: better than an error for every one
                self._failed = True
                logger.exception("loading the sentence encoder failed; searching by words alone until a restart")
            finally:
                warming.set()

        threading.Thread(target=load, name="encoder-warm", daemon=True).start()
