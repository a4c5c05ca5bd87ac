"""From the `embed_*` settings to a `SemanticIndex` (or none when `embed_model = "off"`).

`embed_model` names the encoder: `all-MiniLM-L6-v2` (the default, installed with the
product), `fastembed:<catalogue name>` (downloaded by fastembed on first use), or
`litellm:<model>` (any embedding endpoint litellm reaches: Ollama, OpenAI, an `api_base`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from bridge.core.frontmatter import FrontmatterError
from bridge.core.language import declared, language_code
from bridge.core.properties import read as read_properties
from bridge.index.search_index import SearchIndex
from bridge.semantic import bundled
from bridge.semantic.languages import LanguageDetector
from bridge.semantic.lazy import LazyEmbedder
from bridge.semantic.model import EmbedderError
from bridge.semantic.service import SemanticIndex
from bridge.semantic.store import VectorStore
from bridge.vault.store import NoteError, VaultStore

OFF = "off"
FASTEMBED = "fastembed:"
LITELLM = "litellm:"


@dataclass(frozen=True)
class EmbedConfig:
    """What the dense channel is opened with: the `embed_*` settings and the two folders it
    keeps files in, given by the wiring (`bridge.runtime.embed_config`)."""

    model: str  # `embed_model`
    folder: Path  # `<state dir>/semantic`: this vault's vectors
    cache_dir: Path  # the user's cache dir: what is derived once per machine
    languages: list[str] | None = None
    threads: int = 1
    int8_kernels: bool = False
    fastembed_cache: Path | None = None  # `embed_cache_dir`; else under `cache_dir`
    model_path: Path | None = None  # `embed_model_path`
    api_base: str | None = None
    api_key: str | None = None  # read from `embed_api_key_env` by the wiring
    timeout_seconds: float = 60.0
    passage_words: int = 160
    passages_per_note: int = 32


def embedder_for(config: EmbedConfig) -> LazyEmbedder | None:
    """The encoder the settings name, loaded on first use; None when the channel is off."""
    name = config.model.strip()
    if name.lower() == OFF:
        return None
    languages = _languages(config.languages)
    threads = config.threads
    if name == bundled.NAME:
        cache = config.cache_dir / "models"  # its rewritten graph, one per machine
        kernels = config.int8_kernels
        earlier = config.folder  # where a rewrite was kept per vault

        def load() -> bundled.OnnxEmbedder:
            bundled.forget_vault_copies(earlier)
            return bundled.bundled_embedder(threads, languages, cache, kernels)

        return LazyEmbedder(bundled.identity(languages, kernels), load)
    if name.startswith(FASTEMBED):
        from bridge.semantic import fastembed_model

        model = name.removeprefix(FASTEMBED)
        downloads = config.fastembed_cache or config.cache_dir / "fastembed"
        folder = config.model_path
        ident = fastembed_model.identity(model, languages)
        return LazyEmbedder(
            ident, lambda: fastembed_model.load(ident, model, downloads, threads, folder)
        )
    if name.startswith(LITELLM):
        from bridge.semantic import litellm_model

        model = name.removeprefix(LITELLM)
        extra: dict[str, str] = {}
        if config.api_base:
            extra["api_base"] = config.api_base
        if config.api_key:
            extra["api_key"] = config.api_key
        remote = litellm_model.identity(model, config.api_base, languages)
        timeout = config.timeout_seconds
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
    config: EmbedConfig, index: SearchIndex, store: VaultStore
) -> SemanticIndex | None:
    """The dense channel of the vault, its vectors in `<state dir>/semantic/`."""
    embedder = embedder_for(config)
    if embedder is None:
        return None
    identity = embedder.identity
    if identity.languages == frozenset():  # "any language"
        identity = dataclasses.replace(identity, languages=None)
        embedder = LazyEmbedder(identity, embedder.model)
    vectors = VectorStore(config.folder, identity)
    return SemanticIndex(
        index,
        vectors,
        embedder,
        detector=LanguageDetector(config.cache_dir),
        declared=lambda path: declared_language(store, path),
        passage_words=config.passage_words,
        passages_per_note=config.passages_per_note,
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


def stored_status(config: EmbedConfig) -> dict[str, object]:
    """The dense channel as the vector file shows it, without a model or an index (`status`
    when `serve` is not running): the notes and passages embedded so far."""
    embedder = embedder_for(config)
    if embedder is None:
        return {"model": None, "state": "off", "sections": 0, "embedded": 0}
    path = config.folder / f"{embedder.identity.key}.sqlite"
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
