"""Wiring: the objects one vault needs (store, index, lifecycle, query engine), opened once.

The CLI opens one for a command; `serve` keeps one for its lifetime. Adapters are created
here and nowhere else, so every entry point gets the same behaviour.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from bridge.core.dialect import describe, pages_by_reference
from bridge.core.entry import Note
from bridge.core.fusion import DenseParams
from bridge.core.ranking import RankingParams
from bridge.core.tiers import TierParams
from bridge.curate.executor import CurationExecutor
from bridge.curate.git import work_message
from bridge.curate.results import BatchWritten
from bridge.curate.reviews import ReviewService
from bridge.importer.service import ImportReport, import_transcripts
from bridge.importer.transcript import AUTHOR as IMPORT_AUTHOR
from bridge.index.graph_cache import GraphCache
from bridge.index.search_index import SearchIndex
from bridge.index.sync import SyncReport, index_file, reconcile
from bridge.lifecycle.decay import DecayReport, decay_message, run_decay
from bridge.llm.answerer import LLMAnswerer
from bridge.llm.client import LLMClient, LLMConfig
from bridge.llm.context import build_context
from bridge.llm.curator import LLMCurator
from bridge.llm.tools import MemoryTools
from bridge.overviews.service import OverviewsReport, refresh_after_batch, write_overviews
from bridge.query.engine import EngineParams, QueryEngine
from bridge.query.lifecycle import StateLifecycle
from bridge.semantic.duplicates import nearest_copy
from bridge.semantic.factory import EmbedConfig, open_semantic
from bridge.semantic.languages import LanguageDetector
from bridge.semantic.model import EmbedderError
from bridge.semantic.service import SemanticIndex
from bridge.settings import Settings, user_cache_dir
from bridge.state.lifecycle_store import LifecycleStore, open_lifecycle
from bridge.state.private import private_dir
from bridge.vault.journal import WriteJournal
from bridge.vault.store import NoteError, VaultStore


@dataclass
class Bridge:
    """Everything that serves one vault."""

    settings: Settings
    store: VaultStore
    index: SearchIndex
    lifecycle: LifecycleStore
    engine: QueryEngine
    # The link graph the API shows and the ranker reads, kept current by each commit.
    graph: GraphCache
    semantic: SemanticIndex | None = None

    def sync(self, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Bring the index up to date with the files."""
        return reconcile(self.store, self.index, progress)

    def prepare_semantic(
        self, embed: bool, progress: Callable[[int, int], None] | None = None
    ) -> dict[str, object] | None:
        """The dense channel served in this thread: stored vectors loaded, and with `embed`
        every note without vectors embedded (`reindex`, benches); None when it is off."""
        if self.semantic is None:
            return None
        self.semantic.run(progress, embed)
        return self.semantic.status()

    def semantic_status(self) -> dict[str, object]:
        """The dense channel's model, state and progress (`off` when it is off)."""
        if self.semantic is None:
            return {
                "model": None,
                "state": "off",
                "sections": 0,
                "embedded": 0,
                "pending": 0,
                "languages_known": 0,
            }
        return self.semantic.status()

    def close(self) -> None:
        if isinstance(self.engine.lifecycle, StateLifecycle):
            self.engine.lifecycle.close()  # queued accesses are not lost on exit
        self.engine.retriever.close()
        if self.semantic is not None:
            self.semantic.close()
        self.index.close()
        self.lifecycle.db.close()

    def reindex(self, paths: Iterable[str]) -> None:
        """Index notes the bridge itself just wrote (the watcher ignores its own writes)."""
        for path in paths:
            try:
                index_file(self.index, self.store.read(path))
            except NoteError:
                self.index.remove(path)
        self.index.commit()

    def import_transcripts(
        self, data: object, root: str = "conversations", force: bool = False
    ) -> ImportReport:
        """Import chat transcripts under the single writer's lock, as the bridge's own writes.

        The notes are recorded as written by `agent:import` (so a later agent UPDATE of one
        is not taken for an edit of human text) and re-indexed.
        """
        now = datetime.now(UTC)

        def record(path: str, content: bytes) -> None:
            self.executor.writes.record(path, content, IMPORT_AUTHOR, now)

        with self.executor.lock, self.store.recording() as changes:
            report = import_transcripts(self.store, data, root, force, before_write=record)
            self.reindex(report.written)
            message = work_message(f"import ({len(report.written)} notes)", report.written)
            self.executor.commit(changes, message)
        return report

    def refresh_index(self) -> SyncReport:
        """Re-read every note under the writer's lock (what `reindex` asks of a running bridge)."""
        with self.executor.lock:
            return reconcile(self.store, self.index, force=True)

    def decay(self, now: datetime) -> DecayReport:
        """The decay job under the single writer's lock (its reading before it: `run_decay`),
        with the changed notes re-indexed."""
        lock = self.executor.lock
        with self.store.recording() as changes:
            report = run_decay(self.store, self.lifecycle, now, lock=lock)
        with lock:
            self.reindex(t.path for t in report.transitions)
            self.executor.commit(changes, decay_message(report))
        return report

    def write_overviews(self, under: str | None = None) -> OverviewsReport:
        """`overviews --write` as the single writer: under its lock, then re-indexed.

        The watcher ignores the bridge's own writes, so the index learns of them here.
        """
        with self.executor.lock, self.store.recording() as changes:
            report = write_overviews(self.store, self.executor.writes, under, index=self.index)
            updated = [o.path for o in report.outcomes.values() if o.state == "updated"]
            if updated:
                self.reindex(updated)
            self.executor.commit(changes, work_message("folder overviews refreshed", updated))
        return report

    @cached_property
    def executor(self) -> CurationExecutor:
        """The single writer for curation operations and review decisions.

        With `overviews_on_curate`, the folder overviews hear of each batch it writes.
        """
        s = self.settings
        executor = CurationExecutor(
            self.store,
            self.index,
            self.lifecycle,
            self.lifecycle.db,
            s.review_policy,
            status_mapping=s.status_mapping,
            git_commit=s.git_commit,
            lock_path=s.state_path / "curate.lock",
            near_duplicate=self.near_duplicate if self.semantic is not None else None,
        )
        if s.overviews_on_curate:
            executor.add_batch_listener(self._refresh_overviews)
        return executor

    def _refresh_overviews(self, batch: BatchWritten) -> list[str]:
        return refresh_after_batch(self.store, self.executor.writes, batch, self.index)

    def near_duplicate(self, path: str, head: str, text: str) -> tuple[str, float] | None:
        """The note a new note nearly repeats (cosine >= `dense_duplicate_min`): its whole
        `text` against passages, its `head` (title, summary) against the nearest notes' heads."""
        if self.semantic is None:
            return None

        def read(note_path: str) -> Note | None:
            try:
                return self.store.read(note_path).parse()
            except NoteError:
                return None

        try:
            found = nearest_copy(self.semantic, read, path, head, text)
        except EmbedderError:  # the check is advice: a model that fails must not block a write
            return None
        if found is None or found[1] < self.settings.dense_duplicate_min:
            return None
        return found

    @cached_property
    def reviews(self) -> ReviewService:
        """The review queue, deciding through the executor."""
        return ReviewService(self.executor)

    @cached_property
    def curator(self) -> LLMCurator | None:
        """Curation by the bridge's LLM; None when no `llm_model` is set."""
        client = llm_client(self.settings)
        if client is None:
            return None
        return LLMCurator(
            client,
            self.executor,
            lambda content: build_context(self.engine, self.store, content),
            self.settings.llm_correction_rounds,
            self.settings.llm_part_chars,
        )


def engine_params(settings: Settings) -> EngineParams:
    """Ranking weights, tier thresholds and search sizes from the settings."""
    prefix = "rank_"
    fields = {f.name for f in dataclasses.fields(RankingParams)}
    values: dict[str, Any] = {
        name.removeprefix(prefix): getattr(settings, name)
        for name in type(settings).model_fields
        if name.startswith(prefix) and name.removeprefix(prefix) in fields
    }
    fitted = TierParams()
    tiers = TierParams(
        direct=_or(settings.tier_direct_confidence, fitted.direct),
        one_call=settings.tier_one_call_confidence,
        ood=_or(settings.ood_confidence, fitted.ood),
    )
    dense = DenseParams(
        other_language=settings.dense_other_language,
    )
    return EngineParams(
        default_budget=settings.query_budget_words,
        llm_budget_words=settings.query_llm_budget_words,
        answer_words=settings.query_answer_words,
        ranking=RankingParams(**values),
        tiers=tiers,
        cache_size=settings.cache_size,
        fuzzy_threshold=settings.cache_fuzzy_jaccard,
        dense=dense,
    )


def embed_config(settings: Settings) -> EmbedConfig:
    """The dense channel's `embed_*` settings, its vectors' folder and the user's cache dir."""
    key_env = settings.embed_api_key_env
    return EmbedConfig(
        model=settings.embed_model,
        folder=settings.state_path / "semantic",
        cache_dir=user_cache_dir(),
        languages=settings.embed_languages,
        threads=settings.embed_threads,
        int8_kernels=settings.embed_int8_kernels,
        fastembed_cache=settings.embed_cache_dir,
        model_path=settings.embed_model_path,
        api_base=settings.embed_api_base,
        api_key=(os.environ.get(key_env) or None) if key_env else None,
        timeout_seconds=settings.llm_timeout_seconds,
        passage_words=settings.embed_passage_words,
        passages_per_note=settings.embed_passages_per_note,
    )


def llm_client(settings: Settings) -> LLMClient | None:
    """The LLM client of the `llm_*` settings; None when no model is configured."""
    if not settings.llm_model:
        return None
    extra: dict[str, Any] = {}
    if settings.llm_api_base:
        extra["api_base"] = settings.llm_api_base
    if settings.llm_api_key_env:
        key = os.environ.get(settings.llm_api_key_env)
        if key:
            extra["api_key"] = key
    config = LLMConfig(
        settings.llm_model,
        timeout_seconds=settings.llm_timeout_seconds,
        budget_seconds=settings.llm_budget_seconds,
        retries=settings.llm_retries,
        extra=extra,
    )
    return LLMClient(config)


def open_bridge(settings: Settings) -> Bridge:
    """Open the vault and its state (creating the state dir on first use)."""
    # Every write of this process is journaled, so a watcher never mistakes it for a human's.
    dialect = settings.vault_dialect
    store = VaultStore(
        settings.vault,
        settings.ignore_rules_for(dialect),
        settings.max_note_bytes,
        journal=WriteJournal(),
        dialect=dialect,
    )
    state = private_dir(settings.state_path)
    index = SearchIndex(state / "index", reading=describe(dialect))
    lifecycle = open_lifecycle(
        settings.state_path, settings.status_mapping, settings.lifecycle_params
    )
    semantic = open_semantic(embed_config(settings), index, store)
    params = engine_params(settings)
    # The questions' own detector on the model unpacked once per machine: loaded by the
    # first question that needs it, apart from the dense channel's.
    detector = LanguageDetector(user_cache_dir())
    graph = GraphCache(index, pages_by_reference(dialect))
    engine = QueryEngine(
        index, StateLifecycle(lifecycle), params, dense=semantic, detector=detector, graph=graph
    )
    client = llm_client(settings)
    if client is not None:
        # Tiers 3-4; the tools search through the same engine, hence attached after creation.
        engine.answerer = LLMAnswerer(
            client,
            MemoryTools(engine, store),
            settings.llm_agent_rounds,
            budget_seconds=settings.llm_query_budget_seconds,
        )
    return Bridge(settings, store, index, lifecycle, engine, graph, semantic)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value
