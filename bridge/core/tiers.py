"""Tier and out-of-domain decisions (DESIGN section 5), from one confidence.

Lifecycle weights change the order of results but never the decision: a popular note must not
make a weak match look like an answer. The confidence is the ranker's (`bridge.core.ranker`):
the probability that the first source answers, fitted on questions of real vaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bridge.core.ranker_weights import FITTED


class Route(StrEnum):
    """Where a query goes after the caches."""

    NOTHING = "nothing"  # no searchable terms
    OOD = "ood"
    DIRECT = "direct"  # tier 2
    ONE_CALL = "one_call"  # tier 3
    AGENTIC = "agentic"  # tier 4


@dataclass(frozen=True)
class TierParams:
    """Where the confidence sends a question; each one is a setting (docs/configuration.md).

    `direct` and `one_call` are the confidences from which tier 2 answers, and from which one
    LLM call (tier 3) rather than the agentic loop (tier 4) does; under `ood` the memory holds
    nothing on the question (`Evidence.on_topic`).
    """

    direct: float = FITTED.thresholds["direct"]
    one_call: float = 0.2  # a one-in-five chance the first source answers: worth one call
    ood: float = FITTED.thresholds["ood"]


@dataclass(frozen=True)
class Evidence:
    """What the decision knows about a question, and what tier 1 needs to decide it again for
    another question that retrieves the same notes (`EvidenceReader.for_words`)."""

    has_terms: bool
    confidence: float  # the probability that the first source answers (0-1)
    held: float  # the largest share of the question's words (by rarity) one candidate holds
    on_topic: float = 1.0  # the probability that the vault holds anything on it (0-1)
    # It names something the vault holds: a name or a term written as one ("Maya", "JWT",
    # "Dataview"), or a speaker of its transcripts.
    names_held: bool = False
    top_rel: float = 0.0  # the first entry's BM25 as s / (2 + s): shown as `relevance`
    # For deciding again for another question's words (tier 1): the confidence's inputs (in
    # `bridge.core.ranker.CONFIDENCE` order), the question's words' summed rarity, and whether
    # the dense channel ranked (which weights gave the confidence).
    inputs: tuple[float, ...] = ()
    words_weight: float = 0.0
    dense_ranked: bool = False


# Held by one note, the question's words name it (an error code, a name the encoder cannot
# read): never "nothing in memory", whatever the confidence.
EVERY_WORD = 0.99


def is_out_of_domain(ev: Evidence, p: TierParams) -> bool:
    """The memory holds nothing on this: so unlikely is the vault to be about it
    (`Evidence.on_topic`: how much of its words one note holds, how far its best passage is
    above unrelated questions', how much of it no note holds). A question one note holds
    every word of, or that names something a note holds (`Evidence.names_held`), is never
    refused."""
    if not ev.has_terms or ev.held >= EVERY_WORD or ev.names_held:
        return False
    return ev.on_topic < p.ood


def route(ev: Evidence, p: TierParams) -> Route:
    """Tier 2 when the first source is likely the answer; tier 3 when the notes are probably
    there; else tier 4; "nothing in memory" when no note is likely to answer at all."""
    if not ev.has_terms:
        return Route.NOTHING
    if is_out_of_domain(ev, p):
        return Route.OOD
    if ev.confidence >= p.direct:
        return Route.DIRECT
    if ev.confidence >= p.one_call:
        return Route.ONE_CALL
    return Route.AGENTIC
