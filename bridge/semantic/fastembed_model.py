"""fastembed's catalogue models (`fastembed:<name>`), downloaded on first use or from a folder.

Install with `pip install "vault-bridge[fastembed]"`. fastembed downloads the model the first
time it is named (its progress bars show on the terminal) into `embed_cache_dir`; with
`embed_model_path` it loads the files from that folder instead and downloads nothing. The
multilingual models serve any language; the others are taken to be English.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bridge.semantic.model import EmbedderError, Kind, ModelIdentity, Vectors, normalised

# Catalogue models that read many languages; any other is taken to be English.
MULTILINGUAL = ("multilingual", "labse", "bge-m3", "jina-embeddings-v3")


def _catalogue() -> dict[str, dict[str, Any]]:
    try:
        from fastembed import TextEmbedding
    except ImportError as exc:
        raise EmbedderError(
            'fastembed is not installed: pip install "vault-bridge[fastembed]", or use the '
            "bundled model (embed_model = all-MiniLM-L6-v2)"
        ) from exc
    models = TextEmbedding.list_supported_models()
    return {str(m["model"]).lower(): dict(m) for m in models}


def identity(model: str, languages: frozenset[str] | None) -> ModelIdentity:
    """The model's identity from fastembed's catalogue (its name, files and dimension)."""
    found = _catalogue().get(model.lower())
    if found is None:
        raise EmbedderError(
            f'fastembed has no model `{model}`; `python -c "from fastembed import '
            "TextEmbedding as T; print([m['model'] for m in T.list_supported_models()])\"` "
            "lists them"
        )
    sources = found.get("sources") or {}
    weights = (
        str(sources.get("hf") or sources.get("url") or model)
        + ":"
        + str(found.get("model_file", ""))
    )
    if languages is None and not any(tag in model.lower() for tag in MULTILINGUAL):
        languages = frozenset({"en"})
    return ModelIdentity(f"fastembed:{found['model']}", weights, int(found["dim"]), languages)


class FastEmbedder:
    """A fastembed `TextEmbedding`, its query and passage forms kept apart (e5 prefixes)."""

    def __init__(self, ident: ModelIdentity, model: Any) -> None:
        self._identity = ident
        self._model = model

    @property
    def identity(self) -> ModelIdentity:
        return self._identity

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        items = list(texts)
        if not items:
            return np.zeros((0, self._identity.dim), dtype=np.float32)
        if kind == "query":
            rows = list(self._model.query_embed(items))
        else:
            rows = list(self._model.passage_embed(items, batch_size=32))
        return normalised(np.asarray(rows, dtype=np.float32))


def load(
    ident: ModelIdentity, model: str, cache: Path, threads: int, folder: Path | None = None
) -> FastEmbedder:
    """The model, from `folder` when given, else from fastembed's cache (downloading it)."""
    from fastembed import TextEmbedding

    options: dict[str, Any] = {"cache_dir": str(cache), "threads": threads}
    if folder is not None:
        options["specific_model_path"] = str(folder)
    try:
        return FastEmbedder(ident, TextEmbedding(model_name=model, **options))
    except Exception as exc:  # fastembed raises its own and the hub's errors
        raise EmbedderError(f"fastembed could not load {model}: {exc}") from exc
