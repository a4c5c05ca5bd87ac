"""Ranking (DESIGN section 3): block scores, the bounded lifecycle factor, packing, cut-off.

Pure functions over plain numbers. The query engine feeds them BM25 hits from the index and
lifecycle facts from the state database; nothing here knows where those come from.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from bridge.core.maturity import Maturity

K = TypeVar("K")
BlockKey = tuple[int, int]  # (note id, block ordinal)


@dataclass(frozen=True)
class RankingParams:
    """Weights of DESIGN section 3; each one is a setting (docs/configuration.md).

    The lifecycle weights say how importance, recency and maturity make up the lifecycle value
    `L` in [0, 1]; `L` only reorders results whose relevance is within `lifecycle_tolerance`,
    and only when their `L` differ by more than `lifecycle_margin` (`lifecycle_order`).
    """

    importance_weight: float = 0.2
    recency_weight: float = 0.6
    maturity_weight: float = 0.2
    lifecycle_tolerance: float = 0.05
    lifecycle_margin: float = 0.02
    relevance_scale: float = 2.0
    maturity_value: Mapping[Maturity, float] = field(
        default_factory=lambda: {Maturity.CORE: 1.0, Maturity.VALIDATED: 0.5, Maturity.DRAFT: 0.0}
    )
    window_weight: float = 0.4
    entry_weight: float = 0.5
    neighbour_weight: float = 0.4
    speaker_boost: float = 1.6
    relations_block_weight: float = 0.5
    relation_sources: int = 3


@dataclass(frozen=True)
class LifecycleFacts:
    """What ranking needs from the lifecycle: importance (0-100), recency (0-1), maturity."""

    importance: float
    recency: float
    maturity: Maturity


NEUTRAL = LifecycleFacts(50.0, 0.5, Maturity.VALIDATED)


def normalised_relevance(score: float, scale: float = 1.0) -> float:
    """BM25 `s` mapped to [0, 1) as `s / (scale + s)`: comparable across queries for thresholds.

    DESIGN writes `s / (1 + s)`. An entry's BM25 sums each term over five boosted fields
    (title x3, path x1.5, tags x2, summary x2, body x1), so a word in a note's title and body
    scores about twice what one field gives, and with `scale` 1 a one-word query ("team")
    matching several notes would look as sure as a full question; `relevance_scale` (default
    2) corrects for the fields (docs/query.md, "Confidence").
    """
    return score / (scale + score) if score > 0 else 0.0


def lifecycle_value(facts: LifecycleFacts, params: RankingParams) -> float:
    """`L` in [0, 1]: the weighted mean of importance/100, recency and the maturity's value."""
    total = params.importance_weight + params.recency_weight + params.maturity_weight
    if total <= 0:
        return 0.5
    importance = min(max(facts.importance / 100.0, 0.0), 1.0)
    recency = min(max(facts.recency, 0.0), 1.0)
    maturity = params.maturity_value.get(facts.maturity, 0.0)
    weighted = (
        params.importance_weight * importance
        + params.recency_weight * recency
        + params.maturity_weight * maturity
    )
    return weighted / total


def lifecycle_order(
    ranked: Sequence[K],
    relevance: Mapping[K, float],
    lifecycle: Mapping[K, float],
    params: RankingParams,
) -> list[K]:
    """Relevance order, with near-equal results reordered by the lifecycle.

    `ranked` is in descending `relevance`. Each result moves up past the results before it
    while theirs is within `lifecycle_tolerance` (5%) of its own relevance and their lifecycle
    value `L` is lower than its own by more than `lifecycle_margin`.

    Why not a product (ByteRover's `(0.6 rel + 0.2 imp + 0.2 rec) x maturity`): a popular note
    would outrank a clearly better match, and gain more use by it. Why not a bounded multiplier
    `rel x (1 + lambda (L - 0.5))`: an old fact and the note that supersedes it differ by a few
    percent in block relevance from one extra word, and the multiplier moves them by
    `lambda x (difference in L)`, less than that unless `lambda` is large enough to outrank
    real relevance as well (`bench/updates.py`). So a result never passes one more than
    `lifecycle_tolerance` more relevant than it, and between near-equals any clear lifecycle
    difference decides. `L` is a note's, used once per note: blocks of one note keep their
    relevance order.
    """
    tolerance, margin = params.lifecycle_tolerance, params.lifecycle_margin
    if tolerance <= 0:
        return list(ranked)
    out: list[K] = []
    for key in ranked:
        _place(out, key, relevance, lifecycle, tolerance, margin)
    return out


def _place(
    out: list[K],
    key: K,
    relevance: Mapping[K, float],
    lifecycle: Mapping[K, float],
    tolerance: float,
    margin: float,
) -> None:
    """Put `key` (less relevant than every result in `out`) as far up as the rule lets it go."""
    ceiling = relevance[key] * (1.0 + tolerance)
    value = lifecycle[key]
    at = len(out)
    while at > 0:
        before = out[at - 1]
        if relevance[before] > ceiling or lifecycle[before] + margin >= value:
            break
        at -= 1
    out.insert(at, key)


def lifecycle_stream(
    ranked: Sequence[K],
    relevance: Mapping[K, float],
    values_of: Callable[[Sequence[K]], Mapping[K, float]],
    params: RankingParams,
    chunk: int = 32,
) -> Iterator[K]:
    """`lifecycle_order`, yielded lazily: lifecycle values are asked for `chunk` results at
    a time, and a result is yielded as soon as no result still to come can move above it.

    Lifecycle facts cost a state-database read per batch of notes, and packing usually stops
    well before the end of the head a budget might reach: only the chunks the consumer pulls
    are read. The order is exact: results come in descending relevance, and a result moves up
    only past results at most `lifecycle_tolerance` more relevant than itself; once the next
    result's relevance x (1 + tolerance) is below a placed result's, nothing still to come can
    pass it, nor anything before it (a property test checks it against `lifecycle_order`).
    """
    tolerance, margin = params.lifecycle_tolerance, params.lifecycle_margin
    if tolerance <= 0:
        yield from ranked
        return
    pending: list[K] = []  # placed, not final yet
    values: dict[K, float] = {}
    for start in range(0, len(ranked), chunk):
        part = ranked[start : start + chunk]
        values.update(values_of(part))
        for key in part:
            _place(pending, key, relevance, values, tolerance, margin)
        if start + chunk >= len(ranked):
            break
        bound = relevance[ranked[start + chunk]] * (1.0 + tolerance)
        final = 0
        for i, key in enumerate(pending):
            if relevance[key] > bound:
                final = i + 1
        yield from pending[:final]
        del pending[:final]
    yield from pending


def block_scores(
    blocks: Mapping[BlockKey, float],
    windows: Mapping[BlockKey, float],
    entries: Mapping[int, float],
    params: RankingParams,
    speaker_blocks: Collection[BlockKey] = (),
    relation_blocks: Collection[BlockKey] = (),
    notes: Collection[int] | None = None,
    dense: Mapping[BlockKey, float] | None = None,
    dense_weight: float = 0.0,
) -> dict[BlockKey, float]:
    """The block-ranking rule: block + 0.4 window + 0.5 entry, then + 0.4 best neighbour.

    Each of the three searches is normalised by its own top score first. Candidates are the
    blocks found by the block or window search; a neighbour that was not found itself still
    lends its window and entry parts. Blocks of a Relations or Raw Concept section count half:
    they describe the note they link to or where this one came from, and should not outrank
    the knowledge itself.

    A named speaker's turns are boosted (`speaker_boost`) *after* the neighbour step, so the
    whole score of the speaker's own turns is boosted: boosted before, the boost would flow
    into the other speaker's turns through their neighbour part, and the question's partner
    turn would outrank the named speaker's answer.

    With `dense` (each block's dense part, `bridge.core.fusion`), the blocks of the passages
    the dense search found are candidates too, and `dense_weight x` their part joins the
    first stage: `block + 0.4 window + 0.5 entry + w_d dense`.

    With `notes`, only the blocks of those notes are scored. A block's score depends on its
    own note's blocks and on the three searches' top scores only, so each score is the same
    either way; the caller that keeps only the blocks of its candidate notes need not score
    the rest. Scores come in the order the searches found the blocks (block hits first), so
    equal scores keep the search's order.
    """
    # Each search normalised by its own top score: folded into the weights, not new dicts.
    top_block, top_window, top_entry = (
        max(m.values(), default=0.0) for m in (blocks, windows, entries)
    )
    block_weight = 1.0 / top_block if top_block > 0 else 0.0
    window_weight = params.window_weight / top_window if top_window > 0 else 0.0
    entry_weight = params.entry_weight / top_entry if top_entry > 0 else 0.0
    neighbour_weight, speaker_boost = params.neighbour_weight, params.speaker_boost
    # Block hits first, then the blocks only the window search found; each once.
    candidates = [k for k in blocks if notes is None or k[0] in notes] if top_block > 0 else []
    if top_window > 0:
        candidates += [
            k
            for k in windows
            if (notes is None or k[0] in notes) and (top_block <= 0 or k not in blocks)
        ]
    dense = dense if dense and dense_weight > 0 else {}
    if dense:
        seen = set(candidates)
        candidates += [k for k in dense if (notes is None or k[0] in notes) and k not in seen]
    related = relation_blocks if notes is None else [k for k in relation_blocks if k[0] in notes]
    # Each candidate's first stage (and a Relations block's, which counts half even as a
    # neighbour), computed once, without a function call per key: this runs over a few
    # hundred candidates a query. A neighbour neither search found has only its entry part,
    # the same as the candidate's own (one note): it needs no entry of its own here.
    block_part, window_part, entry_part = blocks.get, windows.get, entries.get
    scored = set(candidates).union(related)
    stage1 = {
        k: block_weight * block_part(k, 0.0)
        + window_weight * window_part(k, 0.0)
        + entry_weight * entry_part(k[0], 0.0)
        for k in scored
    }
    if dense:
        for k in scored:
            part = dense.get(k)
            if part:
                stage1[k] += dense_weight * part
    for key in related:
        stage1[key] *= params.relations_block_weight
    out: dict[BlockKey, float] = {}
    first_stage_of = stage1.get
    for key in candidates:
        nid, ord_ = key
        alone = entry_weight * entry_part(nid, 0.0)  # a neighbour found by neither search
        after = first_stage_of((nid, ord_ + 1), alone)
        before = first_stage_of((nid, ord_ - 1), alone) if ord_ > 0 else 0.0
        score = stage1[key] + neighbour_weight * (after if after > before else before)
        out[key] = score * speaker_boost if key in speaker_blocks else score
    return out


def pack(order: Iterable[K], words: Mapping[K, int], budget: int, min_left: int = 1) -> list[K]:
    """Whole items in order under a word budget, skipping any that would overflow it and going
    on with smaller ones (skip-fill), so a long block never wastes the rest of the budget; it
    stops once fewer than `min_left` words are left (1: when the budget is full)."""
    chosen: list[K] = []
    used = 0
    for key in order:
        cost = words.get(key, 0)
        if cost <= 0 or used + cost > budget:
            continue
        chosen.append(key)
        used += cost
        if budget - used < min_left:
            break
    return chosen
