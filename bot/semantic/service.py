"""One object for the corpus to hold: the encoder, the vectors and their builder."""

from __future__ import annotations

import logging
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


class Meaning:
    """Search by meaning over one store: query vectors, neighbours, and the background builder."""

    def __init__(self, store: Store, path: Path, encoder: Encoder | None = None):
        self.encoder = encoder or UseEncoder()
        self.vectors = VectorStore(path)
        self.duplicates = Duplicates(store)
        self.builder = VectorBuilder(store, self.vectors, self.encoder, duplicates=self.duplicates)

    def has_vectors(self) -> bool:
        return len(self.vectors) > 0

    def embed_query(self, text: str) -> np.ndarray:
        return self.encoder.encode([text])[0]

    def warm(self) -> None:
        """Load the weights and read the vectors before the first search (serve's start)."""
        self.vectors.refresh()
        if self.has_vectors():
            self.encoder.encode(["warm"])
