"""Start-up reconciliation: changes made while the bridge was stopped are applied before ready."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bridge.core.operations import parse_operations
from bridge.watch import LiveVault
from tests.conftest import CEILING
from tests.watch.conftest import (
    close_watched,
    found,
    leave_interrupted_commit,
    open_watched,
    wait_until,
)

JWT = "engineering/auth/jwt_expiry.md"
ROLLBACK = "engineering/deploy/rollback.md"
MIGRATIONS = "engineering/database/migrations.md"


def _status(live: LiveVault, path: str) -> str | None:
    return live.bridge.store.read(path).parse().entry.status


def test_offline_changes_are_reconciled_before_ready(template_vault: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = open_watched(template_vault, state)
    now = datetime.now(UTC)
    for path in (JWT, ROLLBACK, MIGRATIONS):
        first.bridge.lifecycle.record_access({path: _status(first, path)}, now)
    close_watched(first)

    # While stopped: create, change, move and delete.
    (template_vault / "ideas").mkdir()
    (template_vault / "ideas/offline.md").write_text("# Offline\n\nWritten offline: dugongy.\n")
    with (template_vault / MIGRATIONS).open("a", encoding="utf-8") as handle:
        handle.write("\nChanged while stopped: capybaric.\n")
    (template_vault / "archive").mkdir()
    (template_vault / JWT).rename(template_vault / "archive/jwt_expiry.md")
    (template_vault / ROLLBACK).unlink()

    second = open_watched(template_vault, state)
    try:
        assert second.ready.is_set()
        report = second.startup
        assert report is not None
        assert report.added == ["ideas/offline.md"]
        assert report.changed == [MIGRATIONS]
        assert report.moved == [(JWT, "archive/jwt_expiry.md")]
        assert report.removed == [ROLLBACK]
        bridge = second.bridge
        assert found(bridge, "dugongy") == ["ideas/offline.md"]
        assert found(bridge, "capybaric") == [MIGRATIONS]
        tracked = bridge.lifecycle.tracked_paths()
        assert ROLLBACK not in tracked and JWT not in tracked
        moved = bridge.lifecycle.view("archive/jwt_expiry.md", "core", None, datetime.now(UTC))
        assert moved.access_count == 1 and moved.last_writer is None
        assert bridge.lifecycle.last_writer(MIGRATIONS) == "human"
        assert bridge.lifecycle.last_writer("ideas/offline.md") == "human"
        assert second.wait_idle(CEILING)
        # Reconciled at start, so the watcher has nothing left to record twice.
        changed = bridge.lifecycle.view(MIGRATIONS, _status(second, MIGRATIONS), None, now)
        assert changed.update_count == 1
    finally:
        close_watched(second)


def test_first_start_does_not_count_every_note_as_edited(
    template_vault: Path, tmp_path: Path
) -> None:
    live = open_watched(template_vault, tmp_path / "state")
    try:
        assert live.startup is not None and len(live.startup.added) == 18
        assert live.bridge.lifecycle.tracked_paths() == set()
    finally:
        close_watched(live)


def test_start_up_rebuilds_an_index_that_refuses_to_commit(
    template_vault: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "state"
    close_watched(open_watched(template_vault, state))
    # Files in the index that tantivy does not know about (its clean-up cannot remove them)
    # and that its next commits would write: whatever it refuses, the files are the truth.
    leave_interrupted_commit(state / "index", registered=False)
    with (template_vault / JWT).open("a", encoding="utf-8") as handle:
        handle.write("\nChanged while stopped: wombatine.\n")
    with caplog.at_level(logging.WARNING):
        live = open_watched(template_vault, state)
    try:
        assert live.ready.is_set() and live.startup is not None and live.startup.rebuilt
        assert "rebuilding the index from the files" in caplog.text
        assert found(live.bridge, "wombatine") == [JWT]
        assert live.bridge.index.note_count() == 18
        # A rebuild sees every note as new: none of them counts as edited by a human today.
        assert live.bridge.lifecycle.tracked_paths() == set()
        # And the index works on: a live edit is searchable.
        (template_vault / ROLLBACK).write_text("# Rollback\n\nNow about echidnal steps.\n")
        wait_until(lambda: found(live.bridge, "echidnal") == [ROLLBACK])
    finally:
        close_watched(live)


def test_an_agent_note_moved_while_stopped_stays_the_agent_note(
    template_vault: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    path, moved = "research/memory/recall.md", "research/archive/recall.md"
    first = open_watched(template_vault, state)
    add = {"type": "ADD", "path": path, "title": "Recall", "narrative": "Written by an agent."}
    batch = first.bridge.executor.apply(parse_operations([add]), "agent:mover")
    assert batch.results[0].status == "applied"
    close_watched(first)
    (template_vault / "research/memory").rename(template_vault / "research/archive")
    second = open_watched(template_vault, state)
    try:
        assert second.startup is not None and second.startup.moved == [(path, moved)]
        update = {"type": "UPDATE", "path": moved, "summary": "After the move"}
        batch = second.bridge.executor.apply(parse_operations([update]), "agent:mover")
        assert batch.results[0].status == "applied", batch.results[0].message
    finally:
        close_watched(second)
