"""Which note comes first: one scoring function over named features (DESIGN 3, "Which note
first").

The searches (three BM25 searches, the dense passage search, one hop of relations) find a few
dozen candidate notes; each gets the features below, computed in one place
(`bridge.query.features`), and one linear score ranks them. The weights are not chosen by
hand: `bench/fit_ranker.py` fits them on questions of several real vaults and writes
`bridge/core/ranker_weights.py`; only the weights ship. A new signal is a new feature and a
refit, never a rule layered on the last.

Pure: plain numbers in, plain numbers out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# Every feature of a (question, note) pair, in the order the weights are kept. Scores of one
# search are divided by that search's best score for the question (1.0: the best note); the
# `_abs` features keep the absolute strength, which tells a strong list from a weak one.
FEATURES: tuple[str, ...] = (
    # lexical
    "entry",  # the note's entry BM25 over the question's best entry
    "entry_abs",  # the entry BM25 as s / (2 + s)
    "block",  # its best block's BM25 over the question's best block
    "window",  # its best window's BM25 over the best window
    "coverage",  # share of the question's words, weighted by rarity, the note holds
    "title",  # share of the question's words (by rarity) in the title or an alias
    "named",  # the question holds every word of the title (or an alias): its rarity share
    "summary",  # share of the question's words (by rarity) in the summary / description
    "path",  # share of the question's words (by rarity) in the folder and file names
    "name",  # share of the question's words (by rarity) in its name: title, aliases, path
    "identifier",  # holds, verbatim, an identifier the question names (`REFRESH_TOKEN_TTL`)
    # dense
    "dense",  # its best passage's cosine minus the question's best passage's
    "dense_abs",  # its best passage's cosine
    "centre",  # cosine of the question with the mean of the note's passages
    "card",  # cosine of the question with the note's title, aliases and description
    # structure
    "spread",  # how far apart its passages' meanings are (1 - |mean of unit vectors|)
    "inlinks",  # log(1 + notes linking to it)
    "outlinks",  # log(1 + notes it links to)
    "listing",  # links per block (at most 1): a page that lists other pages, an overview
    "relation",  # joined through a relation of a better note, not found by the question
    # language and lifecycle (not fitted: see `FIXED`)
    "other_language",  # in another language than the question, where notes in it exist
    "lifecycle",  # L - 0.5, shown, weighed 0: the lifecycle reorders near-equal scores after
    # the ranker (`bridge.core.ranking.lifecycle_order`), it is not part of a note's score
)
INDEX = {name: i for i, name in enumerate(FEATURES)}
# The features only the dense channel gives: 0 without it (off, not ready, a language the
# model does not serve), when the weights fitted without them rank (`RankerWeights`).
DENSE_FEATURES = frozenset({"dense", "dense_abs", "centre", "card", "spread"})


@dataclass(frozen=True)
class RankerWeights:
    """A fitted ranker: one weight per feature, and the confidence model over the first note.

    `note` weighs `FEATURES`; `calibration` (slope, intercept) turns a note's score into the
    probability that it answers the question (`answer_probability`), what a source's `score`
    shows; `confidence` weighs `CONFIDENCE` (plus `confidence_bias`) into the log-odds that
    the first source answers the question.
    """

    note: Mapping[str, float]
    calibration: tuple[float, float]
    confidence: Mapping[str, float]
    confidence_bias: float
    source: str  # what fitted them
    # The log-odds that the question is about the vault at all (`ON_TOPIC`): what "nothing in
    # memory" reads.
    on_topic: Mapping[str, float] = field(default_factory=dict)
    on_topic_bias: float = 0.0
    # The decision's thresholds chosen with them (`bridge.core.tiers`): the confidence from
    # which tier 2 answers (`direct`) and under which the memory holds nothing (`ood`).
    thresholds: Mapping[str, float] = field(default_factory=dict)


# Features whose weights are set, not fitted, with the reason. The benches' notes all start
# with the same lifecycle (a fresh state) and in one language per vault, so no question could
# teach these; they are rules, and `bench/fit_ranker.py` holds them at these values.
FIXED: dict[str, float] = {
    # A note in another language than the question's, where notes in its language exist: a
    # German question gets the German page first (DESIGN 3, "Language"), whatever it scores.
    "other_language": -4.0,
    # The lifecycle reorders near-equals and never outranks relevance (DESIGN 3): after the
    # score, between notes within `rank_lifecycle_tolerance` of each other, not inside it.
    "lifecycle": 0.0,
}


def note_score(values: Sequence[float], weights: Sequence[float]) -> float:
    """The note's score: the weighted sum of its features."""
    return math.fsum(v * w for v, w in zip(values, weights, strict=True))


def weight_vector(weights: RankerWeights) -> tuple[float, ...]:
    """The note weights in `FEATURES` order (a feature the weights do not name weighs 0)."""
    return tuple(weights.note.get(name, 0.0) for name in FEATURES)


# What the confidence reads: the first note's features, and how far it leads the second.
CONFIDENCE: tuple[str, ...] = (
    "score",  # the first note's score
    "lead",  # its score minus the second note's
    "coverage",  # share of the question's words (by rarity) the first note holds
    "dense_abs",  # its best passage's cosine
    "entry_abs",  # its entry BM25 as s / (2 + s)
    "unknown",  # share of the question's words (by rarity) no note of the vault holds
    "held",  # the largest share of the question's words (by rarity) one candidate holds
    "closeness",  # how far the best passage is above unrelated questions' (`Probes.z`)
)


def confidence(values: Mapping[str, float], weights: RankerWeights) -> float:
    """The probability that the first source answers the question (0-1)."""
    z = weights.confidence_bias + math.fsum(
        weights.confidence.get(name, 0.0) * values.get(name, 0.0) for name in CONFIDENCE
    )
    return _sigmoid(z)


# What the on-topic model reads: how much of the question's words one note holds, how far its
# best passage is above unrelated questions', and how much of it no note holds.
ON_TOPIC: tuple[str, ...] = ("held", "closeness", "unknown")


def on_topic(values: Mapping[str, float], weights: RankerWeights) -> float:
    """The probability that the vault holds something on the question at all (0-1)."""
    z = weights.on_topic_bias + math.fsum(
        weights.on_topic.get(name, 0.0) * values.get(name, 0.0) for name in ON_TOPIC
    )
    return _sigmoid(z)


def answer_probability(score: float, weights: RankerWeights) -> float:
    """The probability that a note of this score answers the question: a source's `score`,
    which a person can read (0-1) and which orders the sources as the ranker does."""
    slope, intercept = weights.calibration
    return _sigmoid(slope * score + intercept)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)
