"""The review policy: which operations wait for a human, as a pure rule (DESIGN section 6).

Default: DELETE and MERGE wait, so do changes to a note whose last writer is a human (a MOVE of
a human's note included: it is where they put it) and operations whose `base_hash` no longer
matches the file. Everything else applies at once; a
high-impact one is listed as an `applied` review so a human can still reject (and undo) it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

ReviewRule = Literal[
    "add", "update", "delete", "merge", "move", "update_human", "stale_base", "all"
]
REVIEW_RULES: tuple[ReviewRule, ...] = (
    "add",
    "update",
    "delete",
    "merge",
    "move",
    "update_human",
    "stale_base",
    "all",
)
DEFAULT_RULES: tuple[ReviewRule, ...] = ("delete", "merge", "update_human", "stale_base")
EffectiveType = Literal["ADD", "UPDATE", "MERGE", "DELETE", "MOVE"]
Decision = Literal["apply", "review", "apply_listed"]


@dataclass(frozen=True)
class ReviewPolicy:
    """The `review_rules` and `review_high_impact` settings."""

    rules: frozenset[ReviewRule] = frozenset(DEFAULT_RULES)
    list_high_impact: bool = True

    @classmethod
    def of(cls, rules: Iterable[str], list_high_impact: bool = True) -> ReviewPolicy:
        """A policy from setting values; an unknown rule is a `ValueError` naming the valid ones."""
        known = set(REVIEW_RULES)
        bad = [r for r in rules if r not in known]
        if bad:
            raise ValueError(f"unknown review rules {bad}; use {', '.join(REVIEW_RULES)}")
        return cls(frozenset(r for r in REVIEW_RULES if r in set(rules)), list_high_impact)


@dataclass(frozen=True)
class Facts:
    """What the executor found out about one planned operation."""

    type: EffectiveType
    impact: Literal["high", "low"]
    touches_human_text: bool
    stale_base: bool
    stale_detail: str = ""


def decide(policy: ReviewPolicy, facts: Facts) -> tuple[Decision, str]:
    """Apply, review, or apply and list; with the reason shown to the reviewer."""
    rules = policy.rules
    if "stale_base" in rules and facts.stale_base:
        return "review", facts.stale_detail or "the note changed since the author read it"
    if "all" in rules:
        return "review", "every operation waits for review (review_rules: all)"
    by_type: dict[EffectiveType, ReviewRule] = {
        "ADD": "add",
        "UPDATE": "update",
        "DELETE": "delete",
        "MERGE": "merge",
        "MOVE": "move",
    }
    if by_type[facts.type] in rules:
        return "review", f"{facts.type} waits for review (review_rules: {by_type[facts.type]})"
    if "update_human" in rules and facts.touches_human_text and facts.type != "ADD":
        return "review", "the note was last written by a human; an agent's change waits for review"
    if facts.impact == "high" and policy.list_high_impact:
        return "apply_listed", "high-impact change, applied; reject it to restore the old note"
    return "apply", ""
