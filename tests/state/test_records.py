"""The pure record rules: starting values, human edits, accesses and the order of settling."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from bridge.core.lifecycle import DEFAULT, Importance, LifecycleParams, decayed
from bridge.core.maturity import Maturity, StatusMapping
from bridge.state.records import (
    NoteRecord,
    Rules,
    advance,
    check_writer,
    fresh,
    human_importance,
    recency_source,
)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
# Records never read the clock; the cases where time passes still run under freezegun, with
# `now` read from the frozen clock the way the service's entry points read it.


def now() -> datetime:
    return datetime.now(UTC)


RULES = Rules(StatusMapping())
D, V, C = Maturity.DRAFT, Maturity.VALIDATED, Maturity.CORE


def record(value: float, maturity: Maturity, status: str, at: datetime = T0) -> NoteRecord:
    return NoteRecord("a.md", Importance(value, at), maturity, known_status=status)


@pytest.mark.parametrize(
    ("status", "importance", "maturity"),
    [("draft", 50.0, D), ("stable", 65.0, V), ("Core", 85.0, C), (None, 50.0, D), ("x", 50.0, D)],
)
def test_a_fresh_record_starts_where_its_status_says(
    status: str | None, importance: float, maturity: Maturity
) -> None:
    rec = fresh("a.md", status, T0, RULES)
    assert (rec.importance.value, rec.maturity, rec.known_status) == (
        importance,
        maturity,
        status or "",
    )
    with freeze_time(T0) as clock:
        clock.tick(timedelta(days=1))
        after, changes = advance(rec, status, "seen", now(), RULES)
    assert after.maturity is maturity and changes == []


def test_five_accesses_promote_a_new_draft_with_an_access_reason() -> None:
    rec = fresh("a.md", "draft", T0, RULES)
    changes = []
    for _ in range(5):
        rec, found = advance(rec, "draft", "access", T0, RULES)
        changes += found
    assert rec.importance.value == pytest.approx(65.0)
    assert rec.maturity is V and rec.access_count == 5 and rec.last_access == T0
    assert [(c.from_maturity, c.to_maturity, c.reason) for c in changes] == [(D, V, "access")]


def test_a_due_demotion_is_applied_before_the_access_bonus() -> None:
    # Core at 61, decaying: below 60 after ~3.3 days. An access then lifts it to ~62.9, but
    # the demotion was already due, exactly as a daily decay run would have found it.
    rec = record(61.0, C, "core")
    with freeze_time(T0) as clock:
        clock.tick(timedelta(days=4))
        after, changes = advance(rec, "core", "access", now(), RULES)
    assert after.importance.value == pytest.approx(61 * 0.995**4 + 3)
    assert after.maturity is V
    assert [(c.to_maturity, c.reason) for c in changes] == [(V, "decay")]


def test_a_human_status_edit_wins_and_moves_importance_into_the_band() -> None:
    rec = record(90.0, C, "core")
    after, changes = advance(rec, "draft", "seen", T0, RULES)
    assert after.maturity is D and after.known_status == "draft"
    assert after.importance.value == 50.0  # a draft's starting value: as if just demoted
    assert [(c.from_maturity, c.to_maturity, c.reason) for c in changes] == [(C, D, "human")]
    # Seen again: no further change, the human's draft stays.
    with freeze_time(T0) as clock:
        clock.tick(timedelta(days=1))
        again, more = advance(after, "draft", "seen", now(), RULES)
    assert again.maturity is D and more == []


def test_the_edits_own_update_bonus_cannot_undo_a_human_demotion() -> None:
    rec = record(90.0, C, "core")
    after, _ = advance(rec, "stable", "update", T0, RULES, writer="human")
    assert after.maturity is V
    assert after.importance.value == 65.0
    assert after.update_count == 1 and after.last_writer == "human"


def test_a_status_change_by_an_agent_is_logged_as_an_update() -> None:
    rec = record(50.0, D, "draft")
    _, changes = advance(rec, "core", "update", T0, RULES, writer="agent:claude")
    assert [(c.to_maturity, c.reason) for c in changes] == [(C, "update")]


def test_case_and_spaces_in_status_are_not_a_human_edit() -> None:
    rec = record(70.0, V, "stable")
    after, changes = advance(rec, " Stable", "seen", T0, RULES)
    assert changes == [] and after.importance.value == 70.0


def test_an_unknown_status_is_draft_and_never_promoted() -> None:
    rec = fresh("a.md", "archived", T0, RULES)
    for _ in range(20):
        rec, changes = advance(rec, "archived", "access", T0, RULES)
        assert changes == []
    assert rec.maturity is D and rec.importance.value == 100.0


def test_seeing_a_record_never_rebases_its_importance() -> None:
    # Importance stays lazy, which is what makes a late run equal to many daily ones.
    rec = record(80.0, C, "core")
    with freeze_time(T0) as clock:
        clock.tick(timedelta(days=3))
        after, _ = advance(rec, "core", "seen", now(), RULES)
    assert after.importance == rec.importance


def test_params_are_used() -> None:
    rules = Rules(StatusMapping(), LifecycleParams(access_bonus=10.0))
    rec, _ = advance(record(50.0, D, "draft"), "draft", "access", T0, rules)
    assert rec.importance.value == 60.0


def test_recency_uses_the_later_of_recorded_and_frontmatter_updates() -> None:
    rec = replace(record(50, D, "draft"), last_update=T0)
    assert recency_source(rec, T0 + timedelta(days=2)) == T0 + timedelta(days=2)
    assert recency_source(rec, T0 - timedelta(days=2)) == T0
    assert recency_source(None, None) is None
    assert decayed(rec.importance, T0) == 50


@pytest.mark.parametrize("writer", ["human", "agent:claude"])
def test_valid_writers(writer: str) -> None:
    assert check_writer(writer) == writer


@pytest.mark.parametrize("writer", ["", "agent:", "bot", "Human"])
def test_invalid_writers(writer: str) -> None:
    with pytest.raises(ValueError, match="writer"):
        check_writer(writer)


@pytest.mark.parametrize(
    ("current", "target", "value", "expected"),
    [
        (D, C, 40.0, 85.0),  # promoted by a human: at least where core starts
        (D, V, 40.0, 65.0),
        (V, C, 90.0, 90.0),  # already higher: kept
        (C, D, 90.0, 50.0),  # demoted: at most where draft starts
        (C, V, 90.0, 65.0),
        (C, V, 62.0, 62.0),  # already lower: kept
        (D, D, 20.0, 20.0),  # same maturity (e.g. `archived` over `draft`): kept in the band
    ],
)
def test_human_importance_makes_the_new_status_hold(
    current: Maturity, target: Maturity, value: float, expected: float
) -> None:
    assert human_importance(current, target, value, DEFAULT) == pytest.approx(expected)


def test_a_human_promotion_to_core_survives_the_next_months() -> None:
    rec = record(40.0, D, "draft")
    promoted, _ = advance(rec, "core", "seen", T0, RULES)
    with freeze_time(T0) as clock:
        clock.tick(timedelta(days=60))
        later, changes = advance(promoted, "core", "seen", now(), RULES)
    assert later.maturity is C and changes == []
