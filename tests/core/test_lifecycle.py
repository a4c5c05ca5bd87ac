"""Tests for the AKL lifecycle math (DESIGN section 4).

Time-dependent cases run under freezegun: `now` is read from the frozen clock and the clock is
moved with `tick`, the way the service will see time pass.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from bridge.core.lifecycle import (
    EXCLUSIVE_UPPER_MARGIN,
    Forecast,
    Importance,
    LifecycleParams,
    band,
    days_between,
    decayed,
    describe_forecast,
    forecast,
    importance_for_status,
    initial_importance_for,
    is_stale,
    next_maturity,
    recency,
    record_access,
    record_update,
    settle,
)
from bridge.core.maturity import Maturity

START = "2024-03-01 12:00:00"
D, V, C = Maturity.DRAFT, Maturity.VALIDATED, Maturity.CORE


def _now() -> datetime:
    return datetime.now(UTC)


# --- time and decay ---------------------------------------------------------------------------


def test_days_between_is_fractional_and_never_negative() -> None:
    with freeze_time(START) as frozen:
        t0 = _now()
        frozen.tick(timedelta(hours=36))
        t1 = _now()
    assert days_between(t0, t1) == pytest.approx(1.5, abs=1e-12)
    assert days_between(t1, t0) == 0.0


def test_naive_datetimes_are_rejected() -> None:
    naive = datetime(2024, 3, 1, 12, 0)
    with pytest.raises(ValueError, match="timezone-aware"):
        days_between(naive, datetime(2024, 3, 2, tzinfo=UTC))
    with pytest.raises(ValueError, match="timezone-aware"):
        Importance(50.0, naive)


def test_importance_untouched_for_one_day_and_thirty_days() -> None:
    with freeze_time(START) as frozen:
        imp = Importance(80.0, _now())
        assert decayed(imp, _now()) == 80.0
        frozen.tick(timedelta(days=1))
        assert decayed(imp, _now()) == pytest.approx(79.6, abs=1e-9)
        frozen.tick(timedelta(days=29))
        assert decayed(imp, _now()) == pytest.approx(80 * 0.995**30, abs=1e-9)
        assert decayed(imp, _now()) < 69.0


def test_settle_rebases_without_changing_the_value_read_later() -> None:
    with freeze_time(START) as frozen:
        imp = Importance(80.0, _now())
        frozen.tick(timedelta(days=12))
        mid = settle(imp, _now())
        assert mid.at == _now()
        assert mid.value == pytest.approx(80 * 0.995**12, abs=1e-9)
        frozen.tick(timedelta(days=18))
        assert decayed(mid, _now()) == pytest.approx(decayed(imp, _now()), abs=1e-9)


def test_clock_going_backwards_yields_no_growth() -> None:
    with freeze_time(START) as frozen:
        imp = Importance(70.0, _now())
        frozen.tick(timedelta(days=-3))
        earlier = _now()
    assert decayed(imp, earlier) == 70.0
    settled = settle(imp, earlier)
    assert settled == imp  # reference time does not move backwards either
    assert record_access(imp, earlier).value == 73.0
    assert recency(imp.at, earlier) == 1.0


# --- access and update bonuses ----------------------------------------------------------------


def test_access_and_update_add_on_top_of_the_decayed_value() -> None:
    with freeze_time(START) as frozen:
        imp = Importance(60.0, _now())
        frozen.tick(timedelta(days=10))
        now = _now()
        base = 60.0 * 0.995**10
        accessed = record_access(imp, now)
        updated = record_update(imp, now)
    assert accessed.value == pytest.approx(base + 3.0, abs=1e-9)
    assert updated.value == pytest.approx(base + 5.0, abs=1e-9)
    assert accessed.at == now and updated.at == now


def test_bonuses_cap_at_max_importance() -> None:
    with freeze_time(START):
        now = _now()
        assert record_access(Importance(98.5, now), now).value == 100.0
        assert record_update(Importance(96.0, now), now).value == 100.0
        assert record_update(Importance(94.0, now), now).value == 99.0
        small = LifecycleParams(max_importance=90.0, promote_core=85.0)
        assert record_update(Importance(88.0, now), now, small).value == 90.0


# --- recency ----------------------------------------------------------------------------------


def test_recency_half_life_is_thirty_ln_two_days() -> None:
    with freeze_time(START) as frozen:
        updated_at = _now()
        assert recency(updated_at, _now()) == 1.0
        frozen.tick(timedelta(days=21))
        assert recency(updated_at, _now()) < 0.5
        frozen.move_to(updated_at + timedelta(days=30 * math.log(2)))
        assert recency(updated_at, _now()) == pytest.approx(0.5, abs=1e-9)


def test_recency_of_a_never_updated_entry_is_zero() -> None:
    with freeze_time(START):
        assert recency(None, _now()) == 0.0


# --- maturity with hysteresis -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("current", "importance", "expected"),
    [
        (C, 30.0, D),
        (D, 90.0, C),
        (D, 70.0, V),
        (D, 64.9, D),
        (C, 62.0, C),
        (C, 59.9, V),
        (V, 40.0, V),
        (V, 34.9, D),
        (V, 85.0, C),
        (V, 84.9, V),
    ],
)
def test_next_maturity_rules(current: Maturity, importance: float, expected: Maturity) -> None:
    assert next_maturity(current, importance) is expected


def _walk(
    frozen: FrozenDateTimeFactory, maturity: Maturity, start: float, days: int
) -> list[tuple[float, Maturity]]:
    """Run the decay job once a day from START; return (importance, maturity) after each run."""
    frozen.move_to(START)
    imp = Importance(start, _now())
    path = []
    for _ in range(days):
        frozen.tick(timedelta(days=1))
        imp = settle(imp, _now())
        maturity = next_maturity(maturity, imp.value)
        path.append((imp.value, maturity))
    return path


def _daily_walk(maturity: Maturity, start: float, days: int) -> list[tuple[float, Maturity]]:
    with freeze_time(START) as frozen:
        return _walk(frozen, maturity, start, days)


def test_core_entry_crosses_85_without_demotion_and_demotes_only_below_60() -> None:
    path = _daily_walk(C, 86.0, 120)
    below_85 = [m for value, m in path if 60.0 <= value < 85.0]
    assert below_85 and all(m is C for m in below_85)
    first_validated = next(i for i, (_, m) in enumerate(path) if m is V)
    assert path[first_validated][0] < 60.0
    assert path[first_validated - 1][0] >= 60.0


def test_validated_entry_at_64_is_not_demoted_until_below_35() -> None:
    path = _daily_walk(V, 64.0, 200)
    assert all(m is V for value, m in path if value >= 35.0)
    first_draft = next(i for i, (_, m) in enumerate(path) if m is D)
    assert path[first_draft][0] < 35.0 <= path[first_draft - 1][0]


def test_draft_reaching_85_jumps_to_core() -> None:
    with freeze_time(START):
        now = _now()
        imp = Importance(84.0, now)
        assert next_maturity(D, imp.value) is V
        bumped = record_access(imp, now)
    assert bumped.value == 87.0
    assert next_maturity(D, bumped.value) is C


def test_core_at_30_after_downtime_goes_straight_to_draft() -> None:
    assert next_maturity(C, 30.0) is D


def test_ten_missed_days_equal_ten_daily_runs() -> None:
    daily = _daily_walk(C, 63.0, 10)
    assert [m for _, m in daily][8:] == [C, V]  # the threshold is crossed on day 10
    with freeze_time(START) as frozen:
        imp = Importance(63.0, _now())
        frozen.tick(timedelta(days=10))
        late = next_maturity(C, decayed(imp, _now()))
    assert late is daily[-1][1] is V


@pytest.mark.parametrize("days", [1, 10, 45, 200])
def test_catch_up_matches_daily_runs_from_any_settled_state(days: int) -> None:
    mismatches = []
    checked = 0
    with freeze_time(START) as frozen:
        for start in [x / 2 for x in range(201)]:
            for maturity in Maturity:
                if next_maturity(maturity, start) is not maturity:
                    continue  # only settled states: what every run leaves behind
                daily = _walk(frozen, maturity, start, days)[-1][1]
                frozen.move_to(START)
                imp = Importance(start, _now())
                frozen.tick(timedelta(days=days))
                late = next_maturity(maturity, decayed(imp, _now()))
                checked += 1
                if late is not daily:
                    mismatches.append((start, maturity, daily, late))
    assert checked > 300
    assert mismatches == []


def test_params_that_would_flap_are_rejected() -> None:
    with pytest.raises(ValueError, match="demote_validated"):
        LifecycleParams(demote_validated=70.0)
    with pytest.raises(ValueError, match="demote_core"):
        LifecycleParams(demote_core=90.0, promote_core=85.0)
    with pytest.raises(ValueError, match="daily_decay"):
        LifecycleParams(daily_decay=1.5)


# --- bands and the human status override ------------------------------------------------------


def test_bands() -> None:
    assert band(D) == (0.0, 65.0)
    assert band(V) == (35.0, 85.0)
    assert band(C) == (60.0, 100.0)


@pytest.mark.parametrize(
    ("maturity", "importance", "expected"),
    [
        (D, 90.0, 65.0 - EXCLUSIVE_UPPER_MARGIN),
        (D, 65.0, 65.0 - EXCLUSIVE_UPPER_MARGIN),
        (D, 20.0, 20.0),
        (V, 10.0, 35.0),
        (V, 85.0, 85.0 - EXCLUSIVE_UPPER_MARGIN),
        (V, 50.0, 50.0),
        (C, 40.0, 60.0),
        (C, 100.0, 100.0),
        (C, 70.0, 70.0),
    ],
)
def test_importance_for_status_moves_into_the_band(
    maturity: Maturity, importance: float, expected: float
) -> None:
    moved = importance_for_status(maturity, importance)
    assert moved == pytest.approx(expected, abs=1e-12)
    assert next_maturity(maturity, moved) is maturity  # the lifecycle now agrees with the human


def test_initial_importance_reproduces_the_status() -> None:
    assert initial_importance_for(D) == 50.0
    assert initial_importance_for(None) == 50.0
    assert initial_importance_for(V) == 65.0
    assert initial_importance_for(C) == 85.0
    for maturity in Maturity:
        assert next_maturity(maturity, initial_importance_for(maturity)) is maturity


# --- staleness --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("importance", "recency_value", "stale"),
    [(34.9, 0.09, True), (35.0, 0.09, False), (34.9, 0.1, False), (80.0, 0.0, False)],
)
def test_stale_needs_low_importance_and_low_recency(
    importance: float, recency_value: float, stale: bool
) -> None:
    assert is_stale(importance, recency_value) is stale


def test_entry_untouched_for_months_becomes_stale() -> None:
    with freeze_time(START) as frozen:
        updated_at = _now()
        imp = Importance(40.0, updated_at)
        frozen.tick(timedelta(days=30))
        assert not is_stale(decayed(imp, _now()), recency(updated_at, _now()))
        frozen.tick(timedelta(days=50))  # recency exp(-80/30) = 0.07, importance 26.8
        assert is_stale(decayed(imp, _now()), recency(updated_at, _now()))


# --- forecast ---------------------------------------------------------------------------------


def test_forecast_core_at_63_demotes_in_about_9_73_days() -> None:
    with freeze_time(START):
        now = _now()
        f = forecast(C, Importance(63.0, now), now)
    assert f is not None
    assert f.to is V and not f.promotes
    assert f.in_days == pytest.approx(math.log(60 / 63) / math.log(0.995), abs=1e-9)
    assert f.in_days == pytest.approx(9.734, abs=1e-3)
    assert describe_forecast(f) == "demotes to stable in 9 days"


def test_forecast_uses_the_decayed_value_at_now() -> None:
    with freeze_time(START) as frozen:
        imp = Importance(70.0, _now())
        frozen.tick(timedelta(days=5))
        f = forecast(C, imp, _now())
    assert f is not None
    assert f.in_days == pytest.approx(math.log(60 / 70) / math.log(0.995) - 5, abs=1e-9)


def test_forecast_matches_the_simulated_demotion() -> None:
    f = forecast(
        V, Importance(50.0, datetime(2024, 3, 1, tzinfo=UTC)), datetime(2024, 3, 1, tzinfo=UTC)
    )
    assert f is not None and f.to is D
    path = _daily_walk(V, 50.0, 120)
    first_draft = next(i for i, (_, m) in enumerate(path) if m is D) + 1  # day number
    assert math.floor(f.in_days) + 1 == first_draft


def test_forecast_none_for_draft_and_without_decay() -> None:
    with freeze_time(START):
        now = _now()
        assert forecast(D, Importance(40.0, now), now) is None
        no_decay = LifecycleParams(daily_decay=1.0)
        assert forecast(C, Importance(70.0, now), now, no_decay) is None


def test_forecast_reports_a_transition_already_due() -> None:
    with freeze_time(START):
        now = _now()
        demotion = forecast(C, Importance(30.0, now), now)
        promotion = forecast(D, Importance(90.0, now), now)
    assert demotion == Forecast(to=D, in_days=0.0, promotes=False)
    assert promotion == Forecast(to=C, in_days=0.0, promotes=True)
    assert describe_forecast(promotion) == "promotes to core now (at the next decay run)"


@pytest.mark.parametrize(
    ("f", "text"),
    [
        (Forecast(V, 9.73), "demotes to stable in 9 days"),
        (Forecast(D, 0.4), "demotes to draft in less than a day"),
        (Forecast(D, 0.99), "demotes to draft in less than a day"),
        (Forecast(D, 1.9), "demotes to draft in 1 day"),
        (Forecast(V, 0.0), "demotes to stable now (at the next decay run)"),
    ],
)
def test_describe_forecast(f: Forecast, text: str) -> None:
    assert describe_forecast(f) == text


def test_describe_forecast_uses_the_vault_status_names() -> None:
    names = {D: "wip", V: "final", C: "canon"}
    assert describe_forecast(Forecast(V, 3.2), names) == "demotes to final in 3 days"
    assert describe_forecast(None, names, current=D) == (
        "stays wip: decay never goes below wip; uses and updates promote it"
    )


def test_describe_no_forecast() -> None:
    assert describe_forecast(None, current=D) == (
        "stays draft: decay never goes below draft; uses and updates promote it"
    )
    assert describe_forecast(None) == "no change expected from decay alone"
