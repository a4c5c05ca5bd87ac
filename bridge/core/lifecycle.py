"""Adaptive Knowledge Lifecycle (DESIGN section 4): importance, decay, recency and maturity.

Pure math only. Nothing here reads a clock or touches storage: every function takes `now`
explicitly, so the decay job, the query path and the tests all agree on one instant and time
can be simulated exactly. Importance is stored as a value plus the time it was true and decayed
lazily on read, which is why a missed decay run loses nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from bridge.core.maturity import DEFAULT_STATUS_NAMES, Maturity

SECONDS_PER_DAY = 86_400.0

# An exclusive band upper bound (draft < 65, validated < 85) cannot be reached, so an override
# that has to pull importance down moves it this far below the bound: clearly inside the band,
# yet near enough to the threshold that one access or update can move the entry on.
EXCLUSIVE_UPPER_MARGIN = 0.01


@dataclass(frozen=True)
class LifecycleParams:
    """The AKL constants (ByteRover's defaults); each one is a setting.

    The thresholds are checked on construction because a demotion threshold above its promotion
    threshold would make maturity flip back and forth forever instead of showing hysteresis.
    """

    initial_importance: float = 50.0
    access_bonus: float = 3.0
    update_bonus: float = 5.0
    max_importance: float = 100.0
    daily_decay: float = 0.995
    recency_days: float = 30.0
    promote_validated: float = 65.0
    promote_core: float = 85.0
    demote_core: float = 60.0
    demote_validated: float = 35.0
    stale_importance: float = 35.0
    stale_recency: float = 0.1

    def __post_init__(self) -> None:
        checks = {
            "max_importance must be positive": self.max_importance > 0,
            "daily_decay must be in (0, 1]": 0 < self.daily_decay <= 1,
            "recency_days must be positive": self.recency_days > 0,
            "bonuses must not be negative": self.access_bonus >= 0 and self.update_bonus >= 0,
            "initial_importance must be in [0, max_importance]": (
                0 <= self.initial_importance <= self.max_importance
            ),
            "need 0 <= demote_validated <= promote_validated < promote_core <= max_importance": (
                0 <= self.demote_validated <= self.promote_validated < self.promote_core
                and self.promote_core <= self.max_importance
            ),
            "need demote_validated <= demote_core <= promote_core": (
                self.demote_validated <= self.demote_core <= self.promote_core
            ),
        }
        failed = [message for message, ok in checks.items() if not ok]
        if failed:
            raise ValueError("invalid lifecycle parameters: " + "; ".join(failed))


DEFAULT = LifecycleParams()


def _require_aware(moment: datetime, name: str) -> None:
    """Reject naive datetimes: their meaning depends on the machine's zone, so decay would drift."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware (UTC), got naive {moment.isoformat()}")


@dataclass(frozen=True)
class Importance:
    """Importance as stored: the value that was true at `at`. Read it with `decayed`."""

    value: float
    at: datetime

    def __post_init__(self) -> None:
        if not math.isfinite(self.value) or self.value < 0:
            raise ValueError(f"importance must be a finite number >= 0, got {self.value}")
        _require_aware(self.at, "Importance.at")


def days_between(earlier: datetime, later: datetime) -> float:
    """Fractional days from `earlier` to `later`, never negative.

    A clock that went backwards (skew between machines, a restored backup) counts as no time
    at all: it must not make importance grow or an entry look fresher than "just now".
    """
    _require_aware(earlier, "earlier")
    _require_aware(later, "later")
    return max(0.0, (later - earlier).total_seconds() / SECONDS_PER_DAY)


def decayed(imp: Importance, now: datetime, params: LifecycleParams = DEFAULT) -> float:
    """`I(t0) * daily_decay ** days`: decay is continuous, so it is exact whenever it is read."""
    return imp.value * math.pow(params.daily_decay, days_between(imp.at, now))


def settle(imp: Importance, now: datetime, params: LifecycleParams = DEFAULT) -> Importance:
    """The decayed value re-based at `now`, so the stored reference stays recent.

    If `now` is before the stored reference time (clock skew) the reference is kept: it never
    moves backwards, so the skewed span can neither be decayed twice nor undo past decay.
    """
    return Importance(decayed(imp, now, params), max(imp.at, now))


def _bump(imp: Importance, now: datetime, bonus: float, params: LifecycleParams) -> Importance:
    """Add a bonus on top of the decayed value, capped at the maximum importance."""
    settled = settle(imp, now, params)
    return Importance(min(params.max_importance, settled.value + bonus), settled.at)


def record_access(imp: Importance, now: datetime, params: LifecycleParams = DEFAULT) -> Importance:
    """A query returned the entry as a source: +access_bonus on the decayed value, capped."""
    return _bump(imp, now, params.access_bonus, params)


def record_update(imp: Importance, now: datetime, params: LifecycleParams = DEFAULT) -> Importance:
    """An agent or a human changed the entry: +update_bonus on the decayed value, capped."""
    return _bump(imp, now, params.update_bonus, params)


def recency(
    last_update: datetime | None, now: datetime, params: LifecycleParams = DEFAULT
) -> float:
    """`exp(-days / recency_days)`, 1.0 right after an update; 0.0 for a never-updated entry.

    A missing update time scores as infinitely old rather than fresh so it cannot win rankings.
    """
    if last_update is None:
        return 0.0
    return math.exp(-days_between(last_update, now) / params.recency_days)


def _step(current: Maturity, importance: float, params: LifecycleParams) -> Maturity:
    """One application of the hysteresis rules; promotion to core is checked first."""
    if importance >= params.promote_core:
        return Maturity.CORE
    if current is Maturity.DRAFT and importance >= params.promote_validated:
        return Maturity.VALIDATED
    if current is Maturity.CORE and importance < params.demote_core:
        return Maturity.VALIDATED
    if current is Maturity.VALIDATED and importance < params.demote_validated:
        return Maturity.DRAFT
    return current


def next_maturity(
    current: Maturity, importance: float, params: LifecycleParams = DEFAULT
) -> Maturity:
    """The maturity `current` settles at for `importance`, with hysteresis.

    Promotion and demotion thresholds differ so an entry hovering at one does not flap. The rules
    are applied until stable (core at 30 goes straight to draft) so one late decay run equals many
    daily ones: decay only lowers importance, so from a settled maturity the daily path crosses
    the same demotion thresholds the single jump does. Promotions come only from accesses and
    updates, so callers should settle maturity right after those for the catch-up to stay exact.
    """
    maturity = current
    for _ in Maturity:  # each step moves one level; validated params forbid cycles
        following = _step(maturity, importance, params)
        if following is maturity:
            break
        maturity = following
    return maturity


def band(maturity: Maturity, params: LifecycleParams = DEFAULT) -> tuple[float, float]:
    """The importance range a maturity can hold: draft [0, 65), validated [35, 85), core [60, 100].

    The upper bound is exclusive for draft and validated (reaching it promotes) and inclusive for
    core (the cap). The lower bounds are the demotion thresholds.
    """
    if maturity is Maturity.DRAFT:
        return (0.0, params.promote_validated)
    if maturity is Maturity.VALIDATED:
        return (params.demote_validated, params.promote_core)
    return (params.demote_core, params.max_importance)


def importance_for_status(
    maturity: Maturity, importance: float, params: LifecycleParams = DEFAULT
) -> float:
    """Move importance into the band of the maturity a human set, so the lifecycle agrees.

    Inside the band: unchanged. Below it: the lower bound. At or above an exclusive upper bound:
    `upper - EXCLUSIVE_UPPER_MARGIN` (64.99 for draft, 84.99 for validated); above core's
    inclusive bound: the bound itself. `next_maturity` then keeps the human's choice.
    """
    lower, upper = band(maturity, params)
    if importance < lower:
        return lower
    if maturity is Maturity.CORE:
        return min(importance, upper)
    if importance >= upper:
        return max(lower, upper - EXCLUSIVE_UPPER_MARGIN)
    return importance


def initial_importance_for(maturity: Maturity | None, params: LifecycleParams = DEFAULT) -> float:
    """Starting importance when the state row is missing (new entry or lost state database).

    DESIGN says "the lower bound of the band of the note's status"; read that as the lowest
    importance at which the maturity is *reached*, so the lifecycle reproduces the status with no
    immediate transition: validated starts at its promotion threshold (65), core at its (85).
    Draft starts at `initial_importance` (50, a new entry's value): its band's literal lower
    bound, 0, would make every new draft worthless. A missing or unknown status counts as draft.
    """
    if maturity is Maturity.VALIDATED:
        return params.promote_validated
    if maturity is Maturity.CORE:
        return params.promote_core
    return importance_for_status(Maturity.DRAFT, params.initial_importance, params)


def is_stale(importance: float, recency_value: float, params: LifecycleParams = DEFAULT) -> bool:
    """Unimportant *and* long untouched: a candidate a human may archive (never automatic)."""
    return importance < params.stale_importance and recency_value < params.stale_recency


@dataclass(frozen=True)
class Forecast:
    """The next maturity change if nothing happens but decay.

    `in_days` is measured from the `now` the forecast was made at; 0 means the change is already
    due (the maturity is out of date with its importance) and the next decay run applies it.
    `promotes` tells the two directions apart, since validated can be reached either way.
    """

    to: Maturity
    in_days: float
    promotes: bool = False


_ORDER = {maturity: rank for rank, maturity in enumerate(Maturity)}


def forecast(
    current: Maturity, imp: Importance, now: datetime, params: LifecycleParams = DEFAULT
) -> Forecast | None:
    """When decay alone will change `current`, or None if it never will.

    Decay only lowers importance, so the answer is a demotion: core at 70 reaches validated once
    I < 60, after `ln(60 / 70) / ln(daily_decay)` days. Draft has nothing below it, and with a
    decay of 1.0 (or a threshold of 0) the threshold is never crossed: both give None.
    """
    value = decayed(imp, now, params)
    due = next_maturity(current, value, params)
    if due is not current:
        return Forecast(to=due, in_days=0.0, promotes=_ORDER[due] > _ORDER[current])
    if current is Maturity.CORE:
        target, threshold = Maturity.VALIDATED, params.demote_core
    elif current is Maturity.VALIDATED:
        target, threshold = Maturity.DRAFT, params.demote_validated
    else:
        return None
    if params.daily_decay >= 1.0 or threshold <= 0.0:
        return None
    days = math.log(threshold / value) / math.log(params.daily_decay)
    return Forecast(to=target, in_days=max(0.0, days))


def describe_forecast(
    f: Forecast | None,
    status_names: Mapping[Maturity, str] | None = None,
    *,
    current: Maturity | None = None,
) -> str:
    """A forecast in words, using the `status` names a human sees ("stable", not "validated").

    Days are rounded down (9.73 -> "9 days"): the whole days the entry is sure to keep its
    maturity, so the text never promises more time than is left. Under one day reads "less than
    a day". Pass `current` so a None forecast can say why nothing changes.
    """
    names = DEFAULT_STATUS_NAMES if status_names is None else status_names
    if f is None:
        if current is Maturity.DRAFT:
            draft = names[Maturity.DRAFT]
            return f"stays {draft}: decay never goes below {draft}; uses and updates promote it"
        return "no change expected from decay alone"
    verb = "promotes" if f.promotes else "demotes"
    target = names[f.to]
    if f.in_days <= 0.0:
        return f"{verb} to {target} now (at the next decay run)"
    if f.in_days < 1.0:
        return f"{verb} to {target} in less than a day"
    whole = math.floor(f.in_days)
    return f"{verb} to {target} in {whole} day{'' if whole == 1 else 's'}"
