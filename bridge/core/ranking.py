"""Ranking (DESIGN section 3): block scores, the fused lifecycle score, packing, cut-off.

Pure functions over plain numbers. The query engine feeds them BM25 hits from the index and
lifecycle facts from the state database; nothing here knows where those come from.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from bridge.core.maturity import Maturity

K = TypeVar("K")
BlockKey = tuple[int, int]  # (note id, block ordinal)


@dataclass(frozen=True)
class RankingParams:
    """Weights of DESIGN section 3; each one is a setting."""

    relevance_weight: float = 0.6
    importance_weight: float = 0.2
    recency_weight: float = 0.2
    maturity_multiplier: Mapping[Maturity, float] = field(
        default_factory=lambda: {Maturity.CORE: 1.15, Maturity.VALIDATED: 1.0, Maturity.DRAFT: 0.85}
    )
    window_weight: float = 0.4
    entry_weight: float = 0.5
    neighbour_weight: float = 0.4
    speaker_boost: float = 1.6
    relations_block_weight: float = 0.5
    relation_factor: float = 0.5
    relation_sources: int = 3
    cutoff: float = 0.7


@dataclass(frozen=True)
class LifecycleFacts:
    """What ranking needs from the lifecycle: importance (0-100), recency (0-1), maturity."""

    importance: float
    recency: float
    maturity: Maturity


NEUTRAL = LifecycleFacts(50.0, 0.5, Maturity.VALIDATED)


def normalised_relevance(score: float) -> float:
    """BM25 `s` mapped to [0, 1) as `s / (1 + s)`: comparable across queries for thresholds."""
    return score / (1.0 + score) if score > 0 else 0.0


def fused_score(rel: float, facts: LifecycleFacts, params: RankingParams) -> float:
    """`(0.6 rel + 0.2 importance/100 + 0.2 recency) * maturity multiplier`."""
    base = (
        params.relevance_weight * rel
        + params.importance_weight * facts.importance / 100.0
        + params.recency_weight * facts.recency
    )
    return base * params.maturity_multiplier.get(facts.maturity, 1.0)


def _normalised(scores: Mapping[K, float]) -> dict[K, float]:
    top = max(scores.values(), default=0.0)
    return {k: v / top for k, v in scores.items()} if top > 0 else {}


def block_scores(
    blocks: Mapping[BlockKey, float],
    windows: Mapping[BlockKey, float],
    entries: Mapping[int, float],
    params: RankingParams,
    speaker_blocks: Collection[BlockKey] = (),
    relation_blocks: Collection[BlockKey] = (),
) -> dict[BlockKey, float]:
    """The block-ranking rule: block + 0.4 window + 0.5 entry, then + 0.4 best neighbour.

    Each of the three searches is normalised by its own top score first. Candidates are the
    blocks found by the block or window search; a neighbour that was not found itself still
    lends its window and entry parts. A named speaker's own turns are boosted (x1.6).
    Blocks of a Relations or Raw Concept section count half: they describe the note they link
    to or where this one came from, and should not outrank the knowledge itself.
    """
    b, w, e = _normalised(blocks), _normalised(windows), _normalised(entries)
    window_weight, entry_weight = params.window_weight, params.entry_weight
    memo: dict[BlockKey, float] = {}  # each block's first stage is needed up to three times

    def stage1(key: BlockKey) -> float:
        score = memo.get(key)
        if score is None:
            score = b.get(key, 0.0) + window_weight * w.get(key, 0.0)
            score += entry_weight * e.get(key[0], 0.0)
            if key in speaker_blocks:
                score *= params.speaker_boost
            if key in relation_blocks:
                score *= params.relations_block_weight
            memo[key] = score
        return score

    neighbour_weight = params.neighbour_weight
    out: dict[BlockKey, float] = {}
    for key in set(b) | set(w):
        nid, ord_ = key
        best_neighbour = max(stage1((nid, ord_ - 1)) if ord_ > 0 else 0.0, stage1((nid, ord_ + 1)))
        out[key] = stage1(key) + neighbour_weight * best_neighbour
    return out


def pack(order: Iterable[K], words: Mapping[K, int], budget: int) -> list[K]:
    """Whole items in order under a word budget, skipping any that would overflow it and going
    on with smaller ones (skip-fill), so a long block never wastes the rest of the budget."""
    chosen: list[K] = []
    used = 0
    for key in order:
        cost = words.get(key, 0)
        if cost <= 0 or used + cost > budget:
            continue
        chosen.append(key)
        used += cost
        if used >= budget:
            break
    return chosen


def above_cutoff(scores: Mapping[K, float], ratio: float) -> list[K]:
    """Keys scoring at least `ratio` x the top score, best first."""
    if not scores:
        return []
    top = max(scores.values())
    kept = [k for k, v in scores.items() if v >= ratio * top]
    return sorted(kept, key=lambda k: -scores[k])


@dataclass(frozen=True)
class Expansion(Generic[K]):
    """A note that joins the candidates through a relation of a top hit."""

    target: K
    referrer: K
    score: float


def expand_relations(
    ranked: Sequence[tuple[K, float]],
    related: Mapping[K, Sequence[K]],
    params: RankingParams,
) -> list[Expansion[K]]:
    """One hop from the top hits: related notes join with half their referrer's score.

    Notes already among the candidates keep their own (direct) score.
    """
    present = {key for key, _ in ranked}
    joined: dict[K, Expansion[K]] = {}
    for key, score in ranked[: params.relation_sources]:
        for target in related.get(key, ()):
            if target in present:
                continue
            candidate = Expansion(target, key, score * params.relation_factor)
            if target not in joined or joined[target].score < candidate.score:
                joined[target] = candidate
    return sorted(joined.values(), key=lambda x: -x.score)
