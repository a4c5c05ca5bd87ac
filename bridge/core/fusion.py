"""The dense channel in DESIGN 3's block rule, and the language rule (pure).

The dense search returns the passages most similar to the question with their cosine. Like
each BM25 search is normalised by its own top score, the dense list is normalised within the
query, but between its top and its last hit (`depth` passages down), not from zero: cosines
of unrelated text sit around 0.1-0.3, so `cos / top` would give the hundredth passage most of
the top one's weight. A block's dense part is its passage's normalised similarity; a note's
is its best passage's. When the word budget is filled, both channels add:
`block + 0.4 window + 0.5 entry + 0.6 dense`. Which note comes first is the ranker's
(`bridge.core.ranker`).

Not reciprocal-rank fusion: RRF gives the top of each list the same weight whatever the gap,
which buries an exact lexical hit under a vague dense one (basic-memory#577).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
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
    """Sizes and weights of the dense channel (docs/configuration.md)."""

    # The dense part's weight in a block's score when the word budget is filled (DESIGN 3's
    # block rule: `block + 0.4 window + 0.5 entry + 0.6 dense`).
    block_weight: float = 0.6
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


def dense_parts(hits: Sequence[PassageHit]) -> tuple[dict[BlockKey, float], dict[int, float]]:
    """(block -> dense part, note -> dense part) from the dense hits.

    A passage's part goes to every block of its span; a block in two hits (it cannot be,
    passages do not overlap) would keep the better part.
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


def language_factors(
    languages: Mapping[int, str | None], question: str | None, factor: float
) -> dict[int, float]:
    """Notes in another language than the question's, when some are in its language: x`factor`.

    On a vault in many languages a page in another language can otherwise outrank the one in
    the question's. Only when some candidate is in the question's language: a question about
    a page that exists only in German still gets the German page. Notes of unknown language
    are never demoted.
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
    `fr/Obsidian Sync/Version history.md` in English. A short question ("backup vault",
    "Canvas") is in no language a detector can be sure of, so no note is demoted for its
    language, and a copy can tie with, or beat, the page it copies (a shorter, older version
    scores higher). The page it copies is the original, wherever the asker reads: copies
    x`factor`, when some candidate is not one.
    """
    if factor >= 1.0 or not copies or all(nid in copies for nid in candidates):
        return {}
    return {nid: factor for nid in copies}
