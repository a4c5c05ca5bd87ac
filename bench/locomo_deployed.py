"""LoCoMo through the product as it runs: uses recorded, caches on, decay, a clock that moves.

Used by `bench/locomo.py --deployed [--variants ...]`. Every variant starts from a fresh vault
per budget with the product's default engine (`open_bridge`: lifecycle from the state
database, uses credited as the product credits them, caches on, the dense channel as
configured) and runs passes over all questions in dataset order; the client opens the first
source of every answer with its `query_id` (as a person clicks the top result), which is a use
too. Recall, and which tier answered, are reported for every pass.

- `deployed`: three passes on one day, the daily decay job run between them (it writes the
  maturity changes the uses earned, which re-indexes those notes and so empties the caches);
  its first pass is the "deployed" row and its third the "3rd pass" row.
- `repeat`: two passes with no decay between: the second asks every question again, so the
  caches (tier 0, and tier 1 for a rephrased one) answer.
- `days`: passes on day 0, 7 and 30, the engine's clock at noon of that day and the decay job
  run at 03:00 of every day in between (as `serve` runs it): importance decays, maturity moves.
- `unscoped`: one pass, every question asked of the whole vault (as people ask) instead of
  its conversation's folder.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.locomo_common import BUDGETS, Question, Setup, imported, recall, summarise
from bridge.query.engine import QueryEngine
from bridge.query.models import QueryResult
from bridge.runtime import Bridge


@dataclass(frozen=True)
class Pass:
    """One pass over every question."""

    day: int = 0  # days after the first pass: the engine's clock, and the decay job's
    decay: bool = False  # the decay job runs before this pass (daily since the last pass)
    scoped: bool = True  # each question scoped to its conversation's folder


VARIANTS: dict[str, tuple[Pass, ...]] = {
    "deployed": (Pass(), Pass(decay=True), Pass(decay=True)),
    "repeat": (Pass(), Pass()),
    "days": (Pass(0), Pass(7, decay=True), Pass(30, decay=True)),
    "unscoped": (Pass(scoped=False),),
}


@dataclass
class Clock:
    """The engine's clock: real time, or a day the bench moved it to."""

    at: dt.datetime | None = None

    def __call__(self) -> dt.datetime:
        return self.at if self.at is not None else dt.datetime.now(dt.UTC)


@dataclass
class PassLog:
    """What one pass measured, over all budgets."""

    scores: dict[int, list[tuple[int, float]]] = field(default_factory=lambda: defaultdict(list))
    tiers: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    decay_changes: int = 0
    tier1: int = 0
    tier1_mismatches: int = 0
    tier1_other_question: int = 0

    def result(self, spec: Pass) -> dict[str, Any]:
        return summarise(self.scores) | {
            "day": spec.day,
            "scoped": spec.scoped,
            "decay_changes_before": self.decay_changes,
            "tiers": dict(sorted(self.tiers.items())),
            "tier1_answers": self.tier1,
            "tier1_mismatches": self.tier1_mismatches,
            "tier1_other_question": self.tier1_other_question,
        }


def run_variant(
    name: str,
    data: object,
    texts: dict[tuple[str, str], str],
    questions: list[Question],
    setup: Setup,
) -> list[dict[str, Any]]:
    """Every pass of variant `name` (`VARIANTS`), one result per pass."""
    passes = VARIANTS[name]
    logs = [PassLog() for _ in passes]
    for budget in BUDGETS:
        with imported(data, setup) as bridge:
            clock = Clock()
            # The engine `open_bridge` builds (no LLM is configured), with a clock the bench moves.
            engine = QueryEngine(
                bridge.index, bridge.engine.lifecycle, bridge.engine.params,
                clock=clock, dense=bridge.semantic,
            )  # fmt: skip
            start = dt.datetime.now(dt.UTC).replace(hour=12, minute=0, second=0, microsecond=0)
            last_day = 0
            for spec, log in zip(passes, logs, strict=True):
                if spec.decay:
                    log.decay_changes += _decay(bridge, start, last_day, spec.day)
                last_day = spec.day
                clock.at = start + dt.timedelta(days=spec.day) if spec.day else None
                _ask_all(engine, questions, texts, budget, spec.scoped, log)
    return [log.result(spec) for spec, log in zip(passes, logs, strict=True)]


def _decay(bridge: Bridge, start: dt.datetime, last_day: int, day: int) -> int:
    """The daily decay job: once now on the same day, else at 03:00 of every day since."""
    if day == last_day:
        return len(bridge.decay(dt.datetime.now(dt.UTC)).transitions)
    changes = 0
    for n in range(last_day + 1, day + 1):
        at = (start + dt.timedelta(days=n)).replace(hour=3)
        changes += len(bridge.decay(at).transitions)
    return changes


def _ask_all(
    engine: QueryEngine,
    questions: Sequence[Question],
    texts: dict[tuple[str, str], str],
    budget: int,
    scoped: bool,
    log: PassLog,
) -> None:
    for q in questions:
        scope = f"conversations/{q.conversation}" if scoped else None
        result = engine.query(q.text, budget_words=budget, limit=100, scope=scope)
        if result.tier == 1:
            log.tier1 += 1
            options: dict[str, Any] = {"budget_words": budget, "limit": 100, "scope": scope}
            fresh = _paths(engine.search(q.text, **options))
            if fresh != _paths(result):
                log.tier1_mismatches += 1
                # Uses since the answer was cached can reorder near-equals; a different
                # question is one whose own fresh search differs.
                if fresh != _paths(engine.search(result.reused_from or "", **options)):
                    log.tier1_other_question += 1
        if result.sources:  # the client opens the top result
            engine.use(result.query_id, result.sources[0].path)
        log.tiers[_tier_label(result)] += 1
        excerpts = "\n".join(b.text for s in result.sources for b in s.blocks)
        log.scores[budget].append((q.category, recall(q, excerpts, texts)))


def _paths(result: QueryResult) -> list[str]:
    return [s.path for s in result.sources]


def _tier_label(result: QueryResult) -> str:
    if result.ood:
        return "ood"
    if result.tier >= 3 and result.answer is None:
        return f"{result.tier} (excerpts, no LLM)"
    return str(result.tier)


def run_variants(
    names: Sequence[str],
    data: object,
    texts: dict[tuple[str, str], str],
    questions: list[Question],
    setup: Setup,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, list[dict[str, Any]]]:
    """The named variants' passes (see the module doc)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        progress(name)
        out[name] = run_variant(name, data, texts, questions, setup)
    return out
