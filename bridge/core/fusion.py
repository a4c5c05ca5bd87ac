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

from collections.abc import Collection, Iterable, Mapping, Sequence
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
