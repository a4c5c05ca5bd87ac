"""Embeddings through litellm: Ollama, OpenAI or any endpoint litellm reaches (`litellm:<model>`).

The same key handling as the LLM settings: `embed_api_base`, and the API key read from the
variable `embed_api_key_env` names. The model's dimension is learned from its first answer
(the identity's `dim` 0), and it is assumed to serve any language unless `embed_languages`
says otherwise: remote models are most often multilingual.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bridge.llm.loader import import_litellm
from bridge.semantic.model import EmbedderError, Kind, ModelIdentity, Vectors, normalised

_BATCH = 64  # texts per request


def identity(model: str, api_base: str | None, languages: frozenset[str] | None) -> ModelIdentity:
    """The identity of a litellm model: its name and endpoint (no local weights to hash)."""
    return ModelIdentity(f"litellm:{model}", api_base or "default", 0, languages)


class LiteLLMEmbedder:
    """Vectors from `litellm.embedding`, normalised to unit length."""

    def __init__(
        self, ident: ModelIdentity, model: str, extra: dict[str, str], timeout: float
    ) -> None:
        self._identity = ident
        self.model = model
        self.extra = extra
        self.timeout = timeout
        self._litellm: Any = import_litellm()

    @property
    def identity(self) -> ModelIdentity:
        return self._identity

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        rows: list[list[float]] = []
        for start in range(0, len(texts), _BATCH):
            part = list(texts[start : start + _BATCH])
            try:
                answer = self._litellm.embedding(
                    model=self.model, input=part, timeout=self.timeout, **self.extra
                )
            except Exception as exc:  # litellm raises provider-specific errors
                raise EmbedderError(f"{self.model} did not embed: {exc}") from exc
            rows.extend(_vector(item) for item in answer.data)
        if len(rows) != len(texts):
            raise EmbedderError(f"{self.model} returned {len(rows)} vectors for {len(texts)} texts")
        return normalised(np.asarray(rows, dtype=np.float32))


def _vector(item: Any) -> list[float]:
    value = item["embedding"] if isinstance(item, dict) else item.embedding
    return [float(x) for x in value]
