"""The lifecycle store over a real SQLite file: views, accesses, updates, moves, forgetting."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from freezegun import freeze_time
from freezegun.api import FrozenDateTimeFactory

from bridge.core.maturity import Maturity
from bridge.state.db import StateDB
from bridge.state.lifecycle_store import LifecycleStore

START = "2026-03-01 12:00:00"


def now() -> datetime:
    return datetime.now(UTC)


@pytest.fixture
def clock() -> Iterator[FrozenDateTimeFactory]:
    with freeze_time(START) as frozen:
        yield frozen


@pytest.fixture
def lifecycle(tmp_path: Path) -> Iterator[LifecycleStore]:
    with StateDB.open(tmp_path / "state") as db:
        yield LifecycleStore(db)


def test_an_untracked_note_starts_in_the_band_of_its_status(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    updated = now() - timedelta(days=30 * math.log(2))
    views = lifecycle.view_many(
        [("d.md", "draft", None), ("s.md", "stable", updated), ("c.md", "core", None)], now()
    )
    assert {p: (v.importance, v.maturity) for p, v in views.items()} == {
        "d.md": (50.0, Maturity.DRAFT),
        "s.md": (65.0, Maturity.VALIDATED),
        "c.md": (85.0, Maturity.CORE),
    }
    assert views["s.md"].recency == pytest.approx(0.5, abs=1e-9)
    assert views["d.md"].recency == 0.0  # no update known at all: cannot win on recency
    assert not any(v.tracked for v in views.values())
    assert lifecycle.tracked_paths() == set()  # a view writes nothing


def test_accesses_add_three_on_the_decayed_value_and_count(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    lifecycle.record_access({"a.md": "draft", "b.md": "draft"}, now())
    clock.tick(timedelta(days=1))
    lifecycle.record_access({"a.md": "draft"}, now())
    views = lifecycle.view_many([("a.md", "draft", None), ("b.md", "draft", None)], now())
    assert views["a.md"].importance == pytest.approx(53 * 0.995 + 3)
    assert views["a.md"].access_count == 2
    assert views["a.md"].last_access == now()
    assert views["b.md"].importance == pytest.approx(53 * 0.995)
    assert views["b.md"].access_count == 1 and views["b.md"].tracked


def test_importance_decays_lazily_between_reads(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    lifecycle.record_access({"a.md": "stable"}, now())
    clock.tick(timedelta(days=30))
    view = lifecycle.view("a.md", "stable", None, now())
    assert view.importance == pytest.approx(68 * 0.995**30)


def test_an_update_adds_five_sets_recency_and_the_writer(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    lifecycle.record_update("a.md", "draft", now(), "agent:claude")
    view = lifecycle.view("a.md", "draft", datetime(2020, 1, 1, tzinfo=UTC), now())
    assert view.importance == 55.0 and view.update_count == 1
    assert view.recency == 1.0 and view.last_update == now()
    assert lifecycle.last_writer("a.md") == "agent:claude"
    clock.tick(timedelta(hours=1))
    lifecycle.record_update("a.md", "draft", now(), "human")
    assert lifecycle.last_writer("a.md") == "human"
    assert lifecycle.last_writer("never.md") is None
    with pytest.raises(ValueError, match="writer"):
        lifecycle.record_update("a.md", "draft", now(), "someone")


def test_accesses_promote_and_the_view_shows_the_pending_maturity(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    for _ in range(5):
        lifecycle.record_access({"a.md": "draft"}, now())
    view = lifecycle.view("a.md", "draft", None, now())
    assert view.maturity is Maturity.VALIDATED and view.status == "draft"
    [change] = lifecycle.history("a.md")
    assert (change.from_maturity, change.to_maturity, change.reason) == (
        Maturity.DRAFT,
        Maturity.VALIDATED,
        "access",
    )


def test_a_human_status_edit_shows_in_the_view_before_any_decay_run(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    lifecycle.record_access({"a.md": "draft"}, now())
    view = lifecycle.view("a.md", "core", None, now())
    assert view.maturity is Maturity.CORE and view.importance == 85.0
    assert lifecycle.history("a.md") == []  # a view records nothing


def test_view_many_is_one_select(lifecycle: LifecycleStore, clock: FrozenDateTimeFactory) -> None:
    lifecycle.record_access({f"n{i}.md": "draft" for i in range(0, 50, 2)}, now())
    statements: list[str] = []
    lifecycle.db.set_trace(statements.append)
    views = lifecycle.view_many([(f"n{i}.md", "draft", None) for i in range(50)], now())
    lifecycle.db.set_trace(None)
    assert len(views) == 50
    assert sum(v.tracked for v in views.values()) == 25
    assert len(statements) == 1 and statements[0].lstrip().upper().startswith("SELECT")


def test_record_access_is_one_transaction(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    statements: list[str] = []
    lifecycle.db.set_trace(statements.append)
    lifecycle.record_access({f"n{i}.md": "draft" for i in range(8)}, now())
    lifecycle.db.set_trace(None)
    assert sum(s.strip().upper().startswith("BEGIN") for s in statements) == 1
    assert sum(s.strip().upper() == "COMMIT" for s in statements) == 1


def test_a_moved_note_keeps_its_numbers_and_a_forgotten_one_starts_over(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    for _ in range(5):
        lifecycle.record_access({"old.md": "draft"}, now())
    lifecycle.record_access({"taken.md": "draft"}, now())
    lifecycle.move("old.md", "taken.md")
    moved = lifecycle.view("taken.md", "draft", None, now())
    assert moved.access_count == 5 and moved.maturity is Maturity.VALIDATED
    assert [c.path for c in lifecycle.history("taken.md")] == ["taken.md"]
    assert not lifecycle.view("old.md", "draft", None, now()).tracked
    lifecycle.move("missing.md", "taken.md")  # nothing to move: the target keeps its record
    assert lifecycle.view("taken.md", "draft", None, now()).access_count == 5
    lifecycle.forget("taken.md")
    gone = lifecycle.view("taken.md", "draft", None, now())
    assert (gone.tracked, gone.access_count, gone.importance) == (False, 0, 50.0)


def test_observe_records_what_it_sees_and_last_run(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    assert lifecycle.last_run() is None
    views = lifecycle.observe([("a.md", "core", None)], now())
    assert views["a.md"].tracked and lifecycle.tracked_paths() == {"a.md"}
    lifecycle.record_run(now(), 1, 0, 0)
    assert lifecycle.last_run() == now()


def test_a_reader_gets_the_state_between_the_decay_jobs_batches(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    """The decay job observes every note of the vault; a question reading lifecycle facts
    meanwhile (another thread, on the one shared connection) must not wait for all of them:
    in one transaction, 10,000 notes held every answer for ~200 ms, 100,000 for seconds."""
    items = [(f"n{i}.md", "draft", None) for i in range(1_000)]
    paused, go_on = threading.Event(), threading.Event()

    def hold_after_first_batch(paths: Sequence[str]) -> None:  # called after each commit
        if not paused.is_set():
            paused.set()
            assert go_on.wait(timeout=30)

    lifecycle.add_listener(hold_after_first_batch)
    job = threading.Thread(target=lifecycle.observe, args=(items, now()))
    job.start()
    seen: list[int] = []
    try:
        assert paused.wait(timeout=30)
        reader = threading.Thread(target=lambda: seen.append(len(lifecycle.tracked_paths())))
        reader.start()
        reader.join(timeout=30)
        assert not reader.is_alive(), "the reader waited for the whole run"
        assert 0 < seen[0] < len(items), "the reader saw the run all or nothing"
    finally:
        go_on.set()
        job.join()
    assert len(lifecycle.tracked_paths()) == len(items)


def test_the_state_survives_reopening(tmp_path: Path, clock: FrozenDateTimeFactory) -> None:
    with StateDB.open(tmp_path) as db:
        LifecycleStore(db).record_update("a.md", "draft", now(), "human")
    clock.tick(timedelta(days=2))
    with StateDB.open(tmp_path) as db:
        view = LifecycleStore(db).view("a.md", "draft", None, now())
    assert view.importance == pytest.approx(55 * 0.995**2)
    assert view.last_update == now() - timedelta(days=2)


def test_a_lagging_index_status_on_access_is_not_a_human_edit(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    # The decay job wrote `stable`; the index still says `draft` when the next query comes.
    for _ in range(5):
        lifecycle.record_access({"a.md": "draft"}, now())
    lifecycle.observe([("a.md", "draft", None)], now())
    lifecycle.confirm_status({"a.md": "stable"})
    lifecycle.record_access({"a.md": "draft"}, now())
    view = lifecycle.view("a.md", "stable", None, now())
    assert view.maturity is Maturity.VALIDATED and view.importance == pytest.approx(68.0)
    assert [c.reason for c in lifecycle.history("a.md")] == ["access"]


def test_an_update_carries_the_status_the_writer_just_set(
    lifecycle: LifecycleStore, clock: FrozenDateTimeFactory
) -> None:
    lifecycle.observe([("a.md", "draft", None)], now())
    lifecycle.record_update("a.md", "core", now(), "human")
    view = lifecycle.view("a.md", "core", None, now())
    assert view.maturity is Maturity.CORE and view.importance == 85.0
    assert [c.reason for c in lifecycle.history("a.md")] == ["human"]
