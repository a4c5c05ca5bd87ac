"""The query path's lifecycle facts agree with the state database's views."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bridge.query.lifecycle import NoteRef, StateLifecycle, parse_time
from bridge.state.db import StateDB
from bridge.state.lifecycle_store import LifecycleStore

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
REFS = [
    NoteRef(f"a/{i}.md", status, updated)
    for i, (status, updated) in enumerate(
        [
            ("draft", None),
            ("stable", "2026-11-01T10:00:00Z"),
            ("core", "2026-06-01"),
            (None, "2026-11-28T10:00:00+02:00"),
            ("archived", "not a date"),
            ("Stable", None),
        ]
    )
]


@pytest.fixture
def store(tmp_path: Path) -> LifecycleStore:
    return LifecycleStore(StateDB.open(tmp_path))


def expected(store: LifecycleStore, refs: list[NoteRef]) -> dict[str, tuple[float, float, str]]:
    views = store.view_many([(r.path, r.status, parse_time(r.updated)) for r in refs], NOW)
    return {
        p: (round(v.importance, 9), round(v.recency, 9), v.maturity.value) for p, v in views.items()
    }


def got(seam: StateLifecycle, refs: list[NoteRef]) -> dict[str, tuple[float, float, str]]:
    facts = seam.facts(refs, NOW)
    return {
        p: (round(f.importance, 9), round(f.recency, 9), f.maturity.value) for p, f in facts.items()
    }


def test_untracked_notes_get_the_facts_a_view_would_give(store: LifecycleStore) -> None:
    assert got(StateLifecycle(store), REFS) == expected(store, REFS)


def test_tracked_notes_and_cache_invalidation(store: LifecycleStore) -> None:
    seam = StateLifecycle(store)
    before = got(seam, REFS)
    store.record_update("a/1.md", "stable", NOW, "human")  # +5, recency 1.0
    after = got(seam, REFS)
    assert after["a/1.md"] != before["a/1.md"]
    assert after == expected(store, REFS)


def test_accesses_are_queued_then_flushed_once(store: LifecycleStore) -> None:
    seam = StateLifecycle(store, flush_seconds=60)
    seam.record_access({"a/0.md": "draft"}, NOW)
    seam.record_access({"a/0.md": "draft", "a/2.md": "core"}, NOW)
    assert store.tracked(["a/0.md", "a/2.md"]) == set()  # not yet written
    facts = got(seam, REFS)  # reading facts writes the queue first
    assert store.view("a/0.md", "draft", None, NOW).access_count == 2
    assert facts == expected(store, REFS)


def test_a_queued_use_is_written_before_its_own_note_is_ranked(store: LifecycleStore) -> None:
    """Ranking sees every use of the notes it ranks; other notes' uses wait for the flusher."""
    seam = StateLifecycle(store, flush_seconds=60)
    seam.record_access({"elsewhere/x.md": "draft"}, NOW)
    got(seam, REFS)  # none of these notes has a queued use: nothing is written yet
    assert store.tracked(["elsewhere/x.md"]) == set()
    seam.record_access({"a/1.md": "draft"}, NOW)
    facts = got(seam, REFS)  # a/1.md is ranked: the queue is written first
    assert store.view("a/1.md", "draft", None, NOW).access_count == 1
    assert store.tracked(["elsewhere/x.md"]) == {"elsewhere/x.md"}
    assert facts == expected(store, REFS)
    seam.close()
