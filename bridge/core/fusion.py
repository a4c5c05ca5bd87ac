"""The dense channel in DESIGN 3's ranking rule: a weighted term, and the language rule (pure).

The dense search returns the passages most similar to the question with their cosine. Like
each BM25 search is normalised by its own top score, the dense list is normalised within the
query, but between its top and its last hit (`depth` passages down), not from zero: cosines
of unrelated text sit around 0.1-0.3, so `cos / top` would give the hundredth passage most of
the top one's weight. A block's dense part is its passage's normalised similarity; a note's
is its best passage's. Both channels then add: `block + 0.4 window + 0.5 entry + w_d dense`,
and a note's relevance for the cut-off is a weighted mean of its lexical and dense ones.

Not reciprocal-rank fusion: RRF gives the top of each list the same weight whatever the gap,
which buried an exact lexical hit under a vague dense one in basic-memory#577; measured here
too (docs/benchmarks.md, "Semantic channel").
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

BlockKey = tuple[int, int]


class PassageHit(NamedTuple):
    """A passage the dense search found: note id, block span and cosine similarity."""

    nid: int
    first: int
    last: int
    score: float


@dataclass(frozen=True)
class DenseParams:
    """Weights of the dense channel; each one is a setting (docs/configuration.md)."""

    block_weight: float = 0.6
    # The dense share moves with the lexical match's strength: from `share_exact` when the
    # best lexical notes hold all the question's rare words, to `share_vague` when they hold
    # none (`channel_weights`); equal, a fixed share.
    share_exact: float = 0.35
    share_vague: float = 0.8
    depth: int = 100
    other_language: float = 0.5
    # How many of the channel's own best notes keep a place among the first sources
    # (`leader_places`).
    leaders: int = 2
    # The channel's best note takes the first place when the fused note relevance also puts
    # it this far above the note holding that place (`leader_places`); from 1 + the title
    # boost (no relevance is higher), never.
    lead_margin: float = 0.1


def passage_relevance(hits: Sequence[PassageHit]) -> list[float]:
    """Each hit's similarity mapped to [0, 1] between the last hit (0) and the top (1)."""
    if not hits:
        return []
    top = max(h.score for h in hits)
    floor = min(h.score for h in hits)
    span = top - floor
    if span <= 1e-9:
        return [1.0 for _ in hits]
    return [(h.score - floor) / span for h in hits]


def dense_parts(
    hits: Sequence[PassageHit], blocks_of: Mapping[int, Iterable[int]] | None = None
) -> tuple[dict[BlockKey, float], dict[int, float]]:
    """(block -> dense part, note -> dense part) from the dense hits.

    A passage's part goes to every block of its span (`blocks_of`, when given, lists a note's
    blocks that exist, so a span over metadata blocks can skip them); a block in two hits
    (it cannot be, passages do not overlap) would keep the better part.
    """
    blocks: dict[BlockKey, float] = {}
    notes: dict[int, float] = {}
    for hit, part in zip(hits, passage_relevance(hits), strict=True):
        if part > notes.get(hit.nid, -1.0):
            notes[hit.nid] = part
        for ord_ in range(hit.first, hit.last + 1):
            key = (hit.nid, ord_)
            if part > blocks.get(key, -1.0):
                blocks[key] = part
    return blocks, notes


@dataclass(frozen=True)
class ChannelWeights:
    """How much each channel counts for one question."""

    share: float  # the dense channel's share of a note's relevance
    lexical_scale: float  # factor on the lexical parts of a block's score
    dense_weight: float  # weight of the dense part of a block's score


def channel_weights(coverage: float, params: DenseParams) -> ChannelWeights:
    """The channels' weights for a question whose best lexical notes hold `coverage` (0-1) of
    its words, weighted by rarity.

    Trigger: on the hub questions the best lexical note held 73% of the rare words of a
    question asked in the page's words, 20% of one asked in the asker's own words; a fixed
    share either buried the exact matches (dense share 0.7: page-word questions first 84.6% ->
    69.2%) or the paraphrases (0.5: own-word questions 15.4% first). Why: a lexical match on a
    question's rare words is strong evidence, a match on its common words is noise, which
    BM25's normalised scores alone do not tell apart. Outcome: the dense share goes from
    `share_exact` (coverage 1) to `share_vague` (coverage 0); at a share of 0.5 the block
    rule is the fixed one (`block + 0.4 window + 0.5 entry` and `block_weight x` dense).
    """
    coverage = min(max(coverage, 0.0), 1.0)
    share = params.share_exact + (params.share_vague - params.share_exact) * (1.0 - coverage)
    return ChannelWeights(share, 2.0 * (1.0 - share), 2.0 * share * params.block_weight)


LEXICAL = ChannelWeights(0.0, 1.0, 0.0)
"""The weights without the dense channel: the lexical rule alone, unchanged."""


def fused_note_scores(
    lexical: Mapping[int, float], dense: Mapping[int, float], share: float
) -> dict[int, float]:
    """A note's relevance from both channels: `(1 - share) L + share D`.

    `L` is the note's lexical relevance over the best note's, `D` its dense part (already in
    [0, 1] within the query). Without dense hits (the channel is off, or the question's
    language is not the model's) this is the lexical relevance alone, unchanged.
    """
    if not dense:
        return dict(lexical)
    top = max(lexical.values(), default=0.0)
    out: dict[int, float] = {}
    for nid in set(lexical) | set(dense):
        lex = lexical.get(nid, 0.0) / top if top > 0 else 0.0
        out[nid] = (1.0 - share) * lex + share * dense.get(nid, 0.0)
    return out


def language_factors(
    languages: Mapping[int, str | None], question: str | None, factor: float
) -> dict[int, float]:
    """Notes in another language than the question's, when some are in its language: x`factor`.

    Trigger: on a vault in 30 languages a Chinese page outranked the English one for an
    English question. Why only when some candidate is in the question's language: a question
    about a page that exists only in German still gets the German page. Notes of unknown
    language are never demoted.
    """
    if question is None or factor >= 1.0:
        return {}
    if not any(lang == question for lang in languages.values()):
        return {}
    return {nid: factor for nid, lang in languages.items() if lang is not None and lang != question}


def copy_factors(
    copies: Collection[int], candidates: Collection[int], factor: float
) -> dict[int, float]:
    """Untranslated copies after the pages they copy, when the question's language is unknown.

    A copy is a note whose edition (its language folder) is not the language its text is in:
    `fr/Obsidian Sync/Version history.md` in English. Trigger: a short question ("backup
    vault", "Canvas") is in no language a detector can be sure of, so no note is demoted for
    its language, and a copy tied with, or beat, the English page it copies (a shorter, older
    version scores higher). Why: the page it copies is the original, wherever the asker reads.
    Outcome: copies x`factor`, when some candidate is not one.
    """
    if factor >= 1.0 or not copies or all(nid in copies for nid in candidates):
        return {}
    return {nid: factor for nid in copies}


def dense_leaders(notes: Mapping[int, float], count: int) -> list[int]:
    """The channel's own `count` best notes (`notes`: each note's dense part, from
    `dense_parts`), in the order of their best passage."""
    return sorted(notes, key=notes.__getitem__, reverse=True)[:count]  # stable on ties


def leader_places(
    ranked: Sequence[BlockKey],
    priority: Mapping[BlockKey, float],
    leaders: Sequence[int],
    lifecycle_of: Callable[[Collection[int]], Mapping[int, float]] | None = None,
    tolerance: float = 0.0,
    margin: float = 0.0,
    relevance_of: Mapping[int, float] | None = None,
    lead_margin: float = DenseParams.lead_margin,
) -> list[tuple[int, list[BlockKey]]]:
    """Where the dense channel's best notes must be at the latest: the i-th leader's best
    block by the (i + 2)-th note place, for `with_leaders`; the first leader by the first
    place when its note relevance (`relevance_of`, the fused one) is at least `lead_margin`
    above that of the note whose block leads. `ranked` is the blocks in descending
    `priority`, as retrieval sorted them: a note's first block there is its best.

    Trigger: on the help vault the channel alone had the answering page within the first 3
    for 24 of 28 English questions, the fused ranking for 21: near-equal cosines of pages
    that share the question's words ("published", "site") weigh little beside one lexical
    word, and the channel's first page fell to 7th or 9th. Why a place, not a weight: the
    first place stays the fusion's (it is right more often than the channel's, on both
    vaults), and a lexical hit goes down one place per leader that passes it. Why after the
    lifecycle, not a raised priority: a raised block became near-equal to the first note
    and the lifecycle moved it there (on vault-template/ a fresher session note passed the
    on-call page). The lifecycle still decides between near-equals: a note within
    `tolerance` of the leader's relevance that the lifecycle prefers (`lifecycle_of`, by more
    than `margin`) comes with it, just above, so an old fact the channel ranks first does not
    pass the note that supersedes it. Outcome: docs/benchmarks.md, "The dense channel's
    leaders among the first three".
    """
    best: dict[int, BlockKey] = {}
    for key in ranked:
        best.setdefault(key[0], key)
    order = list(best)  # notes by their best block
    places: list[tuple[int, list[BlockKey]]] = []
    for i, nid in enumerate(leaders):
        slot = i + 2  # the 1-based note place the i-th leader must reach
        if i == 0 and relevance_of is not None and order and nid in relevance_of:
            head = relevance_of.get(order[0], 0.0)
            if relevance_of[nid] >= head + lead_margin:
                slot = 1
        if nid not in best or order.index(nid) < slot:
            continue  # no block of it is a candidate, or relevance already puts it there
        relevance = {n: priority[best[n]] for n in order[slot - 1 :]}
        near = _preferred_near_equals(nid, relevance, lifecycle_of, tolerance, margin)
        moved = [*near, nid]
        places.append((slot, [best[n] for n in moved]))
        # The next leader's place is counted in the order with this one placed: a note it
        # passed went down, and may now need placing itself.
        rest = [n for n in order if n not in moved]
        order = [*rest[: slot - 1], *moved, *rest[slot - 1 :]]
    return places


def with_leaders(
    order: Iterable[BlockKey], places: Sequence[tuple[int, Sequence[BlockKey]]]
) -> Iterator[BlockKey]:
    """`order` (blocks, best first) with each group of `places` put before the note that
    would take its place, unless its notes came earlier; a block put earlier is not
    repeated where it was."""
    pending = sorted(places, key=lambda place: place[0])
    moved: set[BlockKey] = set()
    seen: set[int] = set()
    for key in order:
        if key in moved:
            continue
        if key[0] not in seen:
            while pending and pending[0][0] <= len(seen) + 1:
                for block in pending.pop(0)[1]:
                    if block[0] not in seen:
                        moved.add(block)
                        seen.add(block[0])
                        yield block
            if key in moved:
                continue  # it was this very block
            seen.add(key[0])
        yield key


def _preferred_near_equals(
    nid: int,
    relevance: Mapping[int, float],
    lifecycle_of: Callable[[Collection[int]], Mapping[int, float]] | None,
    tolerance: float,
    margin: float,
) -> list[int]:
    """The notes of `relevance` (those from `nid`'s place down, with their best block's
    priority) within `tolerance` of `nid`'s whose lifecycle value beats its own by more
    than `margin`: those the lifecycle would put before it."""
    if lifecycle_of is None or tolerance <= 0:
        return []
    value = relevance[nid]
    near = [
        n
        for n, r in relevance.items()
        if n != nid and value / (1.0 + tolerance) <= r <= value * (1.0 + tolerance)
    ]
    if not near:
        return []
    values = lifecycle_of([nid, *near])
    own = values.get(nid, 0.0)
    return [n for n in near if values.get(n, 0.0) > own + margin]
