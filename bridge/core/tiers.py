"""Tier and out-of-domain decisions (DESIGN section 5), on normalised relevance only.

Lifecycle weights change the order of results but never the confidence: a popular note must
not make a weak match look like an answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Route(StrEnum):
    """Where a query goes after the caches."""

    NOTHING = "nothing"  # no searchable terms
    OOD = "ood"
    DIRECT = "direct"  # tier 2
    ONE_CALL = "one_call"  # tier 3
    AGENTIC = "agentic"  # tier 4


@dataclass(frozen=True)
class TierParams:
    """Thresholds of DESIGN section 5; each one is a setting."""

    direct_min: float = 0.85
    direct_sure: float = 0.93
    direct_gap: float = 0.08
    one_call_min: float = 0.7
    ood_min_entries: int = 50
    ood_rel: float = 0.6
    ood_unknown_rel: float = 0.85
    ood_unknown_share: float = 0.5
    # Below this cosine of the best passage, the dense channel says the memory holds nothing
    # on the question: a fixed line (a setting); None: the vault's own, measured by the
    # dense channel (`Evidence.dense_line`).
    ood_dense: float | None = None
    ood_coverage: float = 0.5


@dataclass(frozen=True)
class Evidence:
    """What the search found, as the decision needs it."""

    top_rel: float
    second_rel: float
    hits: int
    entries_in_vault: int
    all_terms_found: bool
    unknown_long_terms: int
    long_terms: int
    has_terms: bool = True
    dense_top: float | None = None  # the best passage's cosine; None: no dense channel
    dense_line: float | None = None  # the off-topic line that cosine is held to; None: none
    term_coverage: float = 1.0  # most of the query's IDF weight one top note holds
    names_speaker: bool = False  # the question names a speaker of the vault's transcripts


def is_out_of_domain(ev: Evidence, p: TierParams) -> bool:
    """The memory holds nothing on this: only decided once the vault is big enough to know.

    Trigger: no note has all the words, the best match is middling, and words of 4+ letters
    occur nowhere in the vault. Why a share: one unknown word in an otherwise well-matched
    question ("partake", "grandmother" where notes say "grandma") is a vocabulary gap, not
    another domain; on LoCoMo the one-word rule sent 10 of 883 answerable questions to OOD.
    Outcome: OOD needs at least half of the long words to be unknown.
    """
    if ev.dense_top is not None and ev.dense_line is not None:
        # Trigger: in a 6,500-note vault every question, "what is the capital of Australia"
        # too, had a BM25 match at relevance 0.95, so the lexical rule flagged none of 12
        # off-topic questions. Why: the best passage's similarity separates most of them
        # (off-topic 0.17-0.40, real 0.43-0.82 there; bench/hub.py), whatever the vault's
        # size; but conversation questions score lower (2% of LoCoMo's below 0.35), and
        # those still name the vault's people or hold most of a note's rare words.
        # Outcome: below the line, out of domain unless one note holds every query word
        # or `ood_coverage` of their IDF weight, or the question names a transcript speaker.
        return (
            ev.dense_top < ev.dense_line
            and not ev.all_terms_found
            and ev.term_coverage < p.ood_coverage
            and not ev.names_speaker
        )
    if ev.entries_in_vault < p.ood_min_entries:
        return False
    if ev.top_rel < p.ood_rel:
        return True
    unknown = ev.long_terms > 0 and ev.unknown_long_terms / ev.long_terms >= p.ood_unknown_share
    return not ev.all_terms_found and ev.top_rel < p.ood_unknown_rel and unknown


def route(ev: Evidence, p: TierParams) -> Route:
    """Tier 2 when one hit is clearly the answer; tier 3 when it is probably there; else 4."""
    if not ev.has_terms:
        return Route.NOTHING
    if is_out_of_domain(ev, p):
        return Route.OOD
    if ev.top_rel >= p.direct_min and (
        ev.top_rel >= p.direct_sure or ev.hits == 1 or ev.top_rel - ev.second_rel >= p.direct_gap
    ):
        return Route.DIRECT
    if ev.top_rel >= p.one_call_min:
        return Route.ONE_CALL
    return Route.AGENTIC
