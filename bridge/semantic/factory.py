"""From the `embed_*` settings to a `SemanticIndex` (or none when `embed_model = "off"`).

`embed_model` names the encoder: `all-MiniLM-L6-v2` (the default, installed with the
product), `fastembed:<catalogue name>` (downloaded by fastembed on first use), or
`litellm:<model>` (any embedding endpoint litellm reaches: Ollama, OpenAI, an `api_base`).
"""

from __future__ import annotations

import dataclasses
import os

from bridge.core.frontmatter import FrontmatterError
from bridge.core.language import declared, language_code
from bridge.core.properties import read as read_properties
from bridge.index.search_index import SearchIndex
from bridge.semantic import bundled
from bridge.semantic.lazy import LazyEmbedder
from bridge.semantic.model import EmbedderError
from bridge.semantic.service import SemanticIndex
from bridge.semantic.store import VectorStore
from bridge.settings import Settings, user_cache_dir
from bridge.vault.store import NoteError, VaultStore

OFF = "off"
FASTEMBED = "fastembed:"
LITELLM = "litellm:"


def embedder_for(settings: Settings) -> LazyEmbedder | None:
    """The encoder the settings name, loaded on first use; None when the channel is off."""
    name = settings.embed_model.strip()
    if name.lower() == OFF:
        return None
    languages = _languages(settings.embed_languages)
    threads = settings.embed_threads
    if name == bundled.NAME:
        cache = user_cache_dir() / "models"  # its rewritten graph, one per machine
        kernels = settings.embed_int8_kernels
        earlier = settings.state_path / "semantic"  # where a rewrite was kept per vault

        def load() -> bundled.OnnxEmbedder:
            bundled.forget_vault_copies(earlier)
            return bundled.bundled_embedder(threads, languages, cache, kernels)

        return LazyEmbedder(bundled.identity(languages, kernels), load)
    if name.startswith(FASTEMBED):
        from bridge.semantic import fastembed_model

        model = name.removeprefix(FASTEMBED)
        cache = settings.embed_cache_dir or fastembed_model.default_cache()
        folder = settings.embed_model_path
        ident = fastembed_model.identity(model, languages)
        return LazyEmbedder(
            ident, lambda: fastembed_model.load(ident, model, cache, threads, folder)
        )
    if name.startswith(LITELLM):
        from bridge.semantic import litellm_model

        model = name.removeprefix(LITELLM)
        extra: dict[str, str] = {}
        if settings.embed_api_base:
            extra["api_base"] = settings.embed_api_base
        if settings.embed_api_key_env:
            key = os.environ.get(settings.embed_api_key_env)
            if key:
                extra["api_key"] = key
        remote = litellm_model.identity(model, settings.embed_api_base, languages)
        timeout = settings.llm_timeout_seconds
        return LazyEmbedder(
            remote, lambda: litellm_model.LiteLLMEmbedder(remote, model, extra, timeout)
        )
    raise EmbedderError(
        f"unknown embed_model `{name}`: use `{bundled.NAME}`, `fastembed:<model>`, "
        f"`litellm:<model>` or `off` (docs/configuration.md)"
    )


def _languages(values: list[str] | None) -> frozenset[str] | None:
    """`embed_languages` as codes; `["*"]` or an empty list mean any language."""
    if values is None:
        return None
    if not values or "*" in values:
        return frozenset()
    return frozenset(code for v in values if (code := language_code(v)) is not None)


def open_semantic(
    settings: Settings, index: SearchIndex, store: VaultStore
) -> SemanticIndex | None:
    """The dense channel of the vault, its vectors in `<state dir>/semantic/`."""
    embedder = embedder_for(settings)
    if embedder is None:
        return None
    identity = embedder.identity
    if identity.languages == frozenset():  # "any language"
        identity = dataclasses.replace(identity, languages=None)
        embedder = LazyEmbedder(identity, embedder.model)
    vectors = VectorStore(settings.state_path / "semantic", identity)
    return SemanticIndex(
        index,
        vectors,
        embedder,
        declared=lambda path: declared_language(store, path),
        passage_words=settings.embed_passage_words,
        passages_per_note=settings.embed_passages_per_note,
    )


def declared_language(store: VaultStore, path: str) -> object:
    """The note's frontmatter `lang` (or `language`), if it has one."""
    try:
        text = store.read(path).text
    except NoteError:
        return None
    try:
        data = read_properties(text)
    except FrontmatterError:
        return None
    return declared(data)


def stored_status(settings: Settings) -> dict[str, object]:
    """The dense channel as the vector file shows it, without a model or an index (`status`
    when `serve` is not running): the notes and passages embedded so far."""
    embedder = embedder_for(settings)
    if embedder is None:
        return {"model": None, "state": "off", "sections": 0, "embedded": 0}
    path = settings.state_path / "semantic" / f"{embedder.identity.key}.sqlite"
    if not path.exists():
        return {
            "model": embedder.identity.name,
            "state": "not embedded",
            "sections": 0,
            "embedded": 0,
        }
    import sqlite3

    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        notes = int(db.execute("SELECT count(*) FROM notes").fetchone()[0])
        sections = int(db.execute("SELECT count(*) FROM units").fetchone()[0])
    return {
        "model": embedder.identity.name,
        "state": "stored",
        "sections": sections,
        "embedded": notes,
    }
