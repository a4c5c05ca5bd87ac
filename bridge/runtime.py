"""Wiring: the objects one vault needs (store, index, lifecycle, query engine), opened once.

The CLI opens one for a command; `serve` keeps one for its lifetime. Adapters are created
here and nowhere else, so every entry point gets the same behaviour.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bridge.core.maturity import Maturity
from bridge.core.ranking import RankingParams
from bridge.core.tiers import TierParams
from bridge.index.search_index import SearchIndex
from bridge.index.sync import SyncReport, reconcile
from bridge.query.engine import EngineParams, QueryEngine
from bridge.query.lifecycle import StateLifecycle
from bridge.settings import Settings
from bridge.state.lifecycle_store import LifecycleStore, open_lifecycle
from bridge.vault.store import VaultStore


@dataclass
class Bridge:
    """Everything that serves one vault."""

    settings: Settings
    store: VaultStore
    index: SearchIndex
    lifecycle: LifecycleStore
    engine: QueryEngine

    def sync(self, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Bring the index up to date with the files."""
        return reconcile(self.store, self.index, progress)

    def close(self) -> None:
        self.index.close()
        self.lifecycle.db.close()


def engine_params(settings: Settings) -> EngineParams:
    """Ranking weights and tier thresholds from the settings."""
    ranking = RankingParams(
        relevance_weight=settings.rank_relevance_weight,
        importance_weight=settings.rank_importance_weight,
        recency_weight=settings.rank_recency_weight,
        maturity_multiplier={
            Maturity.CORE: settings.rank_core_multiplier,
            Maturity.VALIDATED: settings.rank_validated_multiplier,
            Maturity.DRAFT: settings.rank_draft_multiplier,
        },
        cutoff=settings.rank_cutoff,
        relation_factor=settings.rank_relation_factor,
    )
    tiers = TierParams(
        direct_min=settings.tier_direct_min,
        direct_sure=settings.tier_direct_sure,
        direct_gap=settings.tier_direct_gap,
        one_call_min=settings.tier_one_call_min,
        ood_min_entries=settings.ood_min_entries,
        ood_rel=settings.ood_min_relevance,
        ood_unknown_rel=settings.ood_unknown_relevance,
    )
    return EngineParams(
        default_budget=settings.query_budget_words,
        ranking=ranking,
        tiers=tiers,
        cache_size=settings.cache_size,
        fuzzy_threshold=settings.cache_fuzzy_jaccard,
    )


def open_bridge(settings: Settings) -> Bridge:
    """Open the vault and its state (creating the state dir on first use)."""
    store = VaultStore(settings.vault, settings.ignore_rules, settings.max_note_bytes)
    state = settings.state_path
    state.mkdir(parents=True, exist_ok=True)
    index = SearchIndex(state / "index")
    lifecycle = open_lifecycle(settings)
    engine = QueryEngine(index, StateLifecycle(lifecycle), engine_params(settings))
    return Bridge(settings, store, index, lifecycle, engine)
