"""The review queue in the state database: operations waiting for a human, and applied ones that
can still be rejected.

Reviews are side state (DESIGN section 7): they survive restarts, and losing the database loses
only pending reviews, never a note. State changes are conditional updates (`WHERE state IN ...`)
so two people approving at once cannot both win.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, cast

from bridge.state.db import StateDB

ReviewState = Literal["pending", "approved", "rejected", "conflict", "applied"]
REVIEW_STATES: tuple[ReviewState, ...] = ("pending", "approved", "rejected", "conflict", "applied")
OPEN_STATES: tuple[ReviewState, ...] = ("pending", "conflict", "applied")
MAX_REVIEW_ID = 2**62  # ids are SQLite integers; a bigger number cannot name a review


def states_named(name: str | None) -> tuple[ReviewState, ...]:
    """A state filter as users spell it: `open` (the default), `all`, or one state name.

    Raises `ValueError` naming the accepted words, for the CLI, the API and MCP alike.
    """
    if name is None or name == "open":
        return OPEN_STATES
    if name == "all":
        return REVIEW_STATES
    for state in REVIEW_STATES:
        if name == state:
            return (state,)
    raise ValueError(f"unknown state `{name}`; use open, all, or one of {', '.join(REVIEW_STATES)}")


@dataclass(frozen=True)
class Snapshot:
    """One file an applied operation changed: its bytes before and the hash it left behind.

    `before` None: the file did not exist. `after_hash` None: the operation removed it.
    """

    path: str
    before: bytes | None
    after_hash: str | None


@dataclass(frozen=True)
class Review:
    """A reviewed (or reviewable) operation."""

    id: int
    state: ReviewState
    type: str
    path: str
    author: str
    operation: Mapping[str, Any]
    bases: Mapping[str, str | None]
    diff: str
    why: str
    note: str | None
    created: datetime
    decided: datetime | None
    decided_by: str | None

    @property
    def base_hash(self) -> str | None:
        """The content hash the target had when the review was made (None: it did not exist)."""
        return self.bases.get(self.path)

    def summary(self) -> dict[str, Any]:
        """The short form `review list --json` prints."""
        return {
            "id": self.id,
            "state": self.state,
            "path": self.path,
            "type": self.type,
            "author": self.author,
            "why": self.why,
            "created": self.created.isoformat(),
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything, for `review show --json` and the API."""
        return {
            **self.summary(),
            "operation": dict(self.operation),
            "base_hash": self.base_hash,
            "bases": dict(self.bases),
            "diff": self.diff,
            "note": self.note,
            "decided": self.decided.isoformat() if self.decided else None,
            "decided_by": self.decided_by,
        }


def _ts(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _review(row: sqlite3.Row) -> Review:
    return Review(
        id=int(row["id"]),
        state=cast(ReviewState, row["state"]),
        type=row["type"],
        path=row["path"],
        author=row["author"],
        operation=json.loads(row["operation"]),
        bases=json.loads(row["bases"]),
        diff=row["diff"],
        why=row["why"],
        note=row["note"],
        created=datetime.fromisoformat(row["created"]),
        decided=datetime.fromisoformat(row["decided"]) if row["decided"] else None,
        decided_by=row["decided_by"],
    )


class ReviewStore:
    """Reviews and their snapshots."""

    def __init__(self, db: StateDB) -> None:
        self.db = db

    def add(
        self,
        *,
        state: ReviewState,
        operation: Mapping[str, Any],
        author: str,
        bases: Mapping[str, str | None],
        diff: str,
        why: str,
        now: datetime,
        snapshots: Sequence[Snapshot] = (),
    ) -> Review:
        """Queue a review (or list an applied operation) and return it."""
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO reviews (state, type, path, author, operation, bases, diff, why, "
                "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    state,
                    operation["type"],
                    operation["path"],
                    author,
                    json.dumps(operation, ensure_ascii=False),
                    json.dumps(dict(bases)),
                    diff,
                    why,
                    _ts(now),
                ),
            )
            review_id = int(cursor.lastrowid or 0)
            conn.executemany(
                "INSERT INTO review_snapshots (review_id, path, before, after_hash) "
                "VALUES (?, ?, ?, ?)",
                [(review_id, s.path, s.before, s.after_hash) for s in snapshots],
            )
        found = self.get(review_id)
        assert found is not None
        return found

    def get(self, review_id: int) -> Review | None:
        """One review, None when there is no such id."""
        rows = self.db.query("SELECT * FROM reviews WHERE id = ?", (review_id,))
        return _review(rows[0]) if rows else None

    def list(self, states: Sequence[str] | None = None, limit: int = 1000) -> builtins.list[Review]:
        """Reviews in the given states (default: all), oldest first."""
        if states:
            marks = ",".join("?" * len(states))
            rows = self.db.query(
                f"SELECT * FROM reviews WHERE state IN ({marks}) ORDER BY id LIMIT ?",
                (*states, limit),
            )
        else:
            rows = self.db.query("SELECT * FROM reviews ORDER BY id LIMIT ?", (limit,))
        return [_review(row) for row in rows]

    def counts(self) -> dict[str, int]:
        """How many reviews are in each state."""
        rows = self.db.query("SELECT state, COUNT(*) AS n FROM reviews GROUP BY state")
        return {str(row["state"]): int(row["n"]) for row in rows}

    def snapshots(self, review_id: int) -> builtins.list[Snapshot]:
        """The files an applied review changed, in the order they were recorded."""
        rows = self.db.query(
            "SELECT path, before, after_hash FROM review_snapshots WHERE review_id = ? "
            "ORDER BY rowid",
            (review_id,),
        )
        return [
            Snapshot(
                row["path"],
                bytes(row["before"]) if row["before"] is not None else None,
                row["after_hash"],
            )
            for row in rows
        ]

    def follow_up(self, review_ids: Sequence[int], path: str, after_hash: str | None) -> None:
        """The batch of these applied reviews wrote `path` again after them (a folder overview
        refreshed): a reject restores from what the batch left, not from what the operation
        alone left, which the refresh had replaced."""
        marks = ",".join("?" * len(review_ids))
        with self.db.transaction() as conn:
            conn.execute(
                f"UPDATE review_snapshots SET after_hash = ? WHERE path = ? "
                f"AND review_id IN ({marks})",
                (after_hash, path, *review_ids),
            )

    def decide(
        self,
        review_id: int,
        state: ReviewState,
        *,
        expected: Sequence[ReviewState],
        now: datetime,
        by: str,
        note: str | None = None,
    ) -> bool:
        """Move a review to `state` if it is still in one of `expected`; False if it was not."""
        marks = ",".join("?" * len(expected))
        with self.db.transaction() as conn:
            cursor = conn.execute(
                f"UPDATE reviews SET state = ?, decided = ?, decided_by = ?, "
                f"note = COALESCE(?, note) WHERE id = ? AND state IN ({marks})",
                (state, _ts(now), by, note, review_id, *expected),
            )
            return cursor.rowcount == 1

    def mark_conflict(
        self, review_id: int, bases: Mapping[str, str | None], diff: str, note: str
    ) -> None:
        """The target changed since the review was made: record the new base and diff."""
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE reviews SET state = 'conflict', bases = ?, diff = ?, note = ? WHERE id = ?",
                (json.dumps(dict(bases)), diff, note, review_id),
            )
