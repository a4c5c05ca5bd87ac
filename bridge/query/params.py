"""The query engine's sizes and defaults, with the ranking and tier parameters."""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.core.fusion import DenseParams
from bridge.core.ranking import RankingParams
from bridge.core.tiers import TierParams


@dataclass(frozen=True)
class EngineParams:
    """Search sizes and defaults; the weights and thresholds live in their own params."""

    # Candidate notes the ranker scores: this many of the best by words and as many by meaning
    # (plus the notes one relation away from the first few).
    candidates: int = 30
    # Sources less than this share as likely to answer as the first are not listed.
    source_ratio: float = 0.05
    entry_limit: int = 100
    block_limit: int = 400
    # The window search returns one window per `window_words` words of the budget, at least
    # `window_floor` and at most `window_limit` (`Retriever.window_count`).
    window_limit: int = 400
    window_words: int = 5
    window_floor: int = 100
    # From this many window documents the window search runs on a thread beside the entry
    # and block searches (`Retriever`): worth it on a large index only.
    overlap_windows: int = 500_000
    default_budget: int = 500
    llm_budget_words: int = 1500
    answer_words: int = 120
    cache_size: int = 1024
    fuzzy_threshold: float = 0.6
    ranking: RankingParams = field(default_factory=RankingParams)
    tiers: TierParams = field(default_factory=TierParams)
    dense: DenseParams = field(default_factory=DenseParams)
