"""A model loaded on first use: commands that never embed (curate, status) never pay for it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from bridge.semantic.model import Embedder, Kind, ModelIdentity, Vectors


class LazyEmbedder:
    """`Embedder` whose model is made by `load` the first time something is embedded.

    The identity is known without loading (the bundled model's is its pinned hash), so the
    vector file can be opened and stored vectors served before the model is in memory.
    """

    def __init__(self, identity: ModelIdentity, load: Callable[[], Embedder]) -> None:
        self._identity = identity
        self._load = load
        self._model: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def identity(self) -> ModelIdentity:
        return self._identity

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def model(self) -> Embedder:
        """The model, loaded now if it was not (`EmbedderError` when it cannot be)."""
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        return self.model().embed(texts, kind)
