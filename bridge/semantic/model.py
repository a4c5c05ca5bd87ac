"""The embedder port: what the dense channel needs from a sentence encoder.

Adapters (`bundled`, `fastembed_model`, `litellm_model`) implement `Embedder`; the rest of
the channel (passages, vector store, background worker, search) knows only this.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

Kind = Literal["query", "passage"]
Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True)
class ModelIdentity:
    """Which model made a vector. Vectors of two identities are never mixed (DESIGN 3).

    `weights` is the sha256 of the weights file for a local model, the provider's model name
    for a remote one; `languages` are the ISO 639-1 codes the model serves (None: any), so an
    English model is not asked to embed the Chinese half of a vault.
    """

    name: str
    weights: str
    dim: int
    languages: frozenset[str] | None = None

    @property
    def key(self) -> str:
        """A short stable name for the model's vector file."""
        text = f"{self.name}\x00{self.weights}\x00{self.dim}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def serves(self, lang: str | None) -> bool:
        """True when the model should embed text in `lang` (unknown languages are tried)."""
        return self.languages is None or lang is None or lang in self.languages


class EmbedderError(RuntimeError):
    """The model cannot be loaded or cannot embed; the message says what to do."""


class Embedder(Protocol):
    """A sentence encoder: texts in, L2-normalised float32 vectors out (one row per text)."""

    @property
    def identity(self) -> ModelIdentity: ...

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors: ...


def normalised(vectors: npt.ArrayLike) -> Vectors:
    """Rows scaled to unit length (a zero row stays zero), as float32."""
    out = np.asarray(vectors, dtype=np.float32)
    if out.ndim == 1:
        out = out.reshape(1, -1)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    unit: Vectors = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
    return unit
