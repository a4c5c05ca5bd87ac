"""The state database: created when missing, migrated in order, recovered when corrupted."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

import pytest

from bridge.state import db as state_db
from bridge.state.db import DB_NAME, MIGRATIONS, StateDB
from tests.conftest import CEILING


def tables(db: StateDB) -> set[str]:
    rows = db.query("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {row["name"] for row in rows}


def test_a_missing_database_and_folder_are_created(tmp_path: Path) -> None:
    state = tmp_path / "deep" / "state"
    with StateDB.open(state) as db:
        assert (state / DB_NAME).is_file()
        assert db.schema_version == len(MIGRATIONS) >= 1
        assert {"notes", "decay_runs", "transitions"} <= tables(db)
        assert db.query("PRAGMA journal_mode")[0][0] == "wal"


def test_reopening_keeps_the_data_and_does_not_migrate_again(tmp_path: Path) -> None:
    with StateDB.open(tmp_path) as db, db.transaction() as conn:
        conn.execute(
            "INSERT INTO decay_runs (ran_at, day, notes_seen, transitions, stale) "
            "VALUES ('2026-01-01T00:00:00.000000+00:00', '2026-01-01', 3, 0, 0)"
        )
    with StateDB.open(tmp_path) as db:
        assert db.schema_version == len(MIGRATIONS)
        assert db.query("SELECT notes_seen FROM decay_runs")[0][0] == 3


def test_an_appended_migration_runs_once_on_an_existing_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    StateDB.open(tmp_path).close()
    calls: list[int] = []

    def add_table(conn: sqlite3.Connection) -> None:
        calls.append(1)
        conn.execute("CREATE TABLE future_feature (id INTEGER PRIMARY KEY)")

    monkeypatch.setattr(state_db, "MIGRATIONS", [*MIGRATIONS, add_table])
    with StateDB.open(tmp_path) as db:
        assert db.schema_version == len(MIGRATIONS) + 1
        assert "future_feature" in tables(db)
    StateDB.open(tmp_path).close()
    assert calls == [1]


def test_a_failing_migration_leaves_the_previous_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    StateDB.open(tmp_path).close()

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (id INTEGER)")
        raise RuntimeError("boom")

    monkeypatch.setattr(state_db, "MIGRATIONS", [*MIGRATIONS, broken])
    with pytest.raises(RuntimeError, match="boom"):
        StateDB.open(tmp_path)
    monkeypatch.setattr(state_db, "MIGRATIONS", list(MIGRATIONS))
    with StateDB.open(tmp_path) as db:
        assert db.schema_version == len(MIGRATIONS)
        assert "half_done" not in tables(db)


def test_a_corrupted_file_is_moved_aside_and_recreated(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    garbage = b"this is not sqlite at all\n" * 200
    (tmp_path / DB_NAME).write_bytes(garbage)
    with caplog.at_level(logging.WARNING, logger="bridge.state.db"), StateDB.open(tmp_path) as db:
        assert db.schema_version == len(MIGRATIONS)
        assert "notes" in tables(db)
    aside = [
        p for p in tmp_path.glob(f"{DB_NAME}.corrupt-*") if not p.name.endswith(("-wal", "-shm"))
    ]
    assert len(aside) == 1
    assert aside[0].read_bytes() == garbage
    assert "moved it to" in caplog.text


def test_a_database_from_a_newer_version_is_moved_aside(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.close()
    with StateDB.open(tmp_path) as db:
        assert db.schema_version == len(MIGRATIONS)
    assert len(list(tmp_path.glob(f"{DB_NAME}.corrupt-*"))) == 1


def test_a_transaction_rolls_back_on_error_and_nests(tmp_path: Path) -> None:
    insert = (
        "INSERT INTO decay_runs (ran_at, day, notes_seen, transitions, stale) "
        "VALUES ('t', 'd', 1, 0, 0)"
    )
    with StateDB.open(tmp_path) as db:
        with pytest.raises(ValueError), db.transaction() as conn:
            conn.execute(insert)
            with db.transaction() as inner:
                inner.execute(insert)
            raise ValueError("undo both")
        assert db.query("SELECT COUNT(*) FROM decay_runs")[0][0] == 0
        with db.transaction() as conn, db.transaction() as inner:
            inner.execute(insert)
        assert db.query("SELECT COUNT(*) FROM decay_runs")[0][0] == 1


def test_threads_share_one_connection_safely(tmp_path: Path) -> None:
    with StateDB.open(tmp_path) as db:
        errors: list[BaseException] = []

        def work(n: int) -> None:
            try:
                for i in range(50):
                    with db.transaction() as conn:
                        conn.execute(
                            "INSERT INTO decay_runs (ran_at, day, notes_seen, transitions, stale)"
                            " VALUES (?, 'd', ?, 0, 0)",
                            (f"{n}-{i}", i),
                        )
                    db.query("SELECT COUNT(*) FROM decay_runs")
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=CEILING)
        assert errors == []
        assert db.query("SELECT COUNT(*) FROM decay_runs")[0][0] == 200


def test_review_state_filters_are_named_one_way() -> None:
    from bridge.state.reviews import OPEN_STATES, REVIEW_STATES, states_named

    assert states_named(None) == states_named("open") == OPEN_STATES
    assert set(states_named("all")) == set(REVIEW_STATES)
    assert states_named("conflict") == ("conflict",)
    with pytest.raises(ValueError, match="use open, all, or one of"):
        states_named("closed")
