"""Copies are one source: notes whose text nearly repeats another's (pure).

A vault holds copies: a sandbox copy of a page, an export, an older version kept in another
folder, a tutorial in several variants. Listed side by side they take the places of other
answers and repeat the same sentences. Two notes are copies when their texts share nearly all
their word pairs; a meaning search alone cannot tell, since two short notes about "go to the
next sibling" and "go to the previous sibling" are as close in meaning as two copies.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import pairwise
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

_WORD = re.compile(r"\w+", re.UNICODE)
# Word pairs two texts must share (Jaccard) to be copies: one changed word changes two pairs,
# so a 100-word version with a word fixed stays above (0.96), while two short notes that
# differ in one word of ten ("next" and "previous" sibling) fall below (0.67).
COPY_OVERLAP = 0.9
# Sizes (bytes) two copies can differ by, at most: a cheap test before any text is read.
SIZE_RATIO = 0.8


def word_pairs(text: str) -> frozenset[tuple[str, str]]:
    """The text's adjacent word pairs (lower case), what copies share."""
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) == 1:
        return frozenset({(words[0], "")})
    return frozenset(pairwise(words))


# How far two copies' scores for the question may be apart: the same text scores the same.
SIGNAL_GAP = 0.02


def maybe_copies(
    sizes: Mapping[K, int],
    order: Sequence[K],
    signals: Mapping[K, Sequence[float]] | None = None,
) -> list[tuple[K, K]]:
    """Pairs of `order` (best first) that may be copies: their sizes are close, and so are
    what the question's searches found in their text (`signals`, e.g. the best block's BM25
    and the best passage's cosine: the same text gets the same), when given."""
    pairs = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            small, large = sorted((sizes[a], sizes[b]))
            if large <= 0 or small / large < SIZE_RATIO:
                continue
            if signals is not None and any(
                abs(x - y) > SIGNAL_GAP for x, y in zip(signals[a], signals[b], strict=True)
            ):
                continue
            pairs.append((a, b))
    return pairs


def copy_groups(
    order: Sequence[K],
    pairs: Sequence[tuple[K, K]],
    pairs_of: Callable[[K], frozenset[tuple[str, str]]],
    overlap: float = COPY_OVERLAP,
) -> dict[K, list[K]]:
    """Each group of copies among `order` (best first), as {first: [the others]}.

    `pairs` are the candidates (`maybe_copies`); `pairs_of` gives a note's `word_pairs`,
    asked only for the notes of a pair (the caller may keep them: a note's text changes
    less often than the questions that list it). A note joins the group of the best note it
    copies.
    """
    shingles: dict[K, frozenset[tuple[str, str]]] = {}

    def of(key: K) -> frozenset[tuple[str, str]]:
        if key not in shingles:
            shingles[key] = pairs_of(key)
        return shingles[key]

    leader: dict[K, K] = {}
    for a, b in pairs:
        if b in leader or a == b:
            continue
        x, y = of(a), of(b)
        if not x or not y:
            continue
        if len(x & y) / len(x | y) >= overlap:
            leader[b] = leader.get(a, a)
    groups: dict[K, list[K]] = {}
    rank = {key: i for i, key in enumerate(order)}
    for member, first in sorted(leader.items(), key=lambda item: rank[item[0]]):
        groups.setdefault(first, []).append(member)
    return groups
