"""The lifecycle service: note records in the state database, moved on by the pure rules.

The query engine, the curation executor, the watcher and the decay job all come here. Every
method takes `now` explicitly (entry points read the clock once), and every write is one
transaction, so a query that returned 8 sources adds 8 access bonuses or none (the decay job's
pass over the whole vault is one transaction a batch of notes: `observe`).

Callers pass each note's current `status` because the file is the truth: it is how a missing
record starts in the right band and how a human's status edit is noticed.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bridge.core import lifecycle as akl
from bridge.core.maturity import Maturity, StatusMapping
from bridge.state.db import StateDB
from bridge.state.records import (
    Change,
    Event,
    NoteRecord,
    Rules,
    advance,
    check_writer,
    fresh,
    recency_source,
)

# Far below SQLite's 32,766 variable limit; a query's ~50 candidates always fit in one batch.
_BATCH = 500
# Notes the decay job observes in one transaction: the connection is shared, so a question
# reading lifecycle facts waits for at most this many notes' work (a few milliseconds).
_OBSERVED = 100

NoteItem = tuple[str, str | None, datetime | None]
"""`(path, status, updated)`: a note as its frontmatter describes it (`status` None: none)."""


@dataclass(frozen=True)
class LifecycleView:
    """One note's lifecycle as of `now`: what ranking reads and `vault-bridge lifecycle` shows.

    `maturity` is the lifecycle's: it can be ahead of `status` when accesses promoted the note
    and the decay job has not written the new status yet. `last_update` is the latest update
    known (recorded, or the `updated` frontmatter). `tracked` is False when the state has no
    record yet and the numbers are the starting values for the note's status.
    """

    path: str
    importance: float
    recency: float
    maturity: Maturity
    status: str | None
    managed: bool
    access_count: int
    update_count: int
    last_update: datetime | None
    last_access: datetime | None
    last_writer: str | None
    stale: bool
    tracked: bool


def _ts(moment: datetime) -> str:
    """Times are stored as fixed-width ISO-8601 UTC strings: readable, sortable, exact."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _opt_ts(moment: datetime | None) -> str | None:
    return None if moment is None else _ts(moment)


def _dt(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _chunks(items: Sequence[str], size: int = _BATCH) -> Iterator[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class LifecycleStore:
    """Importance, counts and maturity of every note, kept in the state database."""

    def __init__(
        self,
        db: StateDB,
        mapping: StatusMapping | None = None,
        params: akl.LifecycleParams = akl.DEFAULT,
    ) -> None:
        self.db = db
        self.rules = Rules(mapping or StatusMapping(), params)
        self._listeners: list[Callable[[Sequence[str]], None]] = []

    def add_listener(self, listener: Callable[[Sequence[str]], None]) -> None:
        """Call `listener(paths)` after every write that changes those notes' records.

        Lets a cache of lifecycle facts (the query path's) drop exactly what changed.
        """
        self._listeners.append(listener)

    def _changed(self, paths: Sequence[str]) -> None:
        for listener in list(self._listeners):
            listener(paths)

    # -- reading -----------------------------------------------------------------------------

    def view(
        self, path: str, status: str | None, updated: datetime | None, now: datetime
    ) -> LifecycleView:
        """One note's lifecycle at `now`; nothing is written."""
        return self.view_many([(path, status, updated)], now)[path]

    def view_many(self, items: Iterable[NoteItem], now: datetime) -> dict[str, LifecycleView]:
        """Lifecycles of many notes at `now` with one SELECT per 500 notes; nothing is written.

        A human status edit the state has not seen yet is already applied here (in memory), so
        ranking agrees with the file before the next decay run records it.
        """
        wanted = {path: (status, updated) for path, status, updated in items}
        records = self._load(list(wanted))
        views = {}
        for path, (status, updated) in wanted.items():
            record = records.get(path)
            base = record if record is not None else fresh(path, status, now, self.rules)
            current, _ = advance(base, status, "seen", now, self.rules)
            views[path] = self._view(current, status, updated, now, tracked=record is not None)
        return views

    def last_writer(self, path: str) -> str | None:
        """Who last changed the note (`human` or `agent:<name>`), None when no update is known."""
        rows = self.db.query("SELECT last_writer FROM notes WHERE path = ?", (path,))
        return rows[0]["last_writer"] if rows else None

    def tracked(self, paths: Sequence[str]) -> set[str]:
        """Which of `paths` the state has a record for (one SELECT per 500 paths)."""
        found: set[str] = set()
        for chunk in _chunks(paths):
            marks = ",".join("?" * len(chunk))
            rows = self.db.query(f"SELECT path FROM notes WHERE path IN ({marks})", chunk)
            found.update(row["path"] for row in rows)
        return found

    def tracked_paths(self) -> set[str]:
        """Every path the state has a record for."""
        return {row["path"] for row in self.db.query("SELECT path FROM notes")}

    def history(self, path: str, limit: int = 10) -> list[Change]:
        """The note's latest maturity changes, newest first."""
        rows = self.db.query(
            "SELECT * FROM transitions WHERE path = ? ORDER BY at DESC, id DESC LIMIT ?",
            (path, limit),
        )
        return [
            Change(
                row["path"],
                Maturity(row["from_maturity"]),
                Maturity(row["to_maturity"]),
                row["importance"],
                datetime.fromisoformat(row["at"]),
                row["reason"],
            )
            for row in rows
        ]

    def forecast(self, view: LifecycleView, now: datetime) -> akl.Forecast | None:
        """The next maturity change if only decay happens; None for notes never rewritten."""
        if not view.managed:
            return None
        return akl.forecast(
            view.maturity, akl.Importance(view.importance, now), now, self.rules.params
        )

    # -- events ------------------------------------------------------------------------------

    def record_access(self, notes: Mapping[str, str | None], now: datetime) -> None:
        """Each note (path -> its status) was a query source: +access_bonus, in one transaction.

        The status only starts a note the state has never seen. It usually comes from the
        search index, which can lag behind the file for a moment (say, right after the decay
        job wrote a new status), so it is never taken as a human's status edit; those come from
        authoritative reads (`record_update`, the decay job).
        """
        self._apply(notes, "access", now)

    def record_update(self, path: str, status: str | None, now: datetime, writer: str) -> None:
        """The note was written (`writer`: `human` or `agent:<name>`): +update_bonus.

        Pass the status the note has after the write: a status changed by the writer is taken
        as the note's maturity (with `human` it is logged as a human override).
        """
        self._apply({path: status}, "update", now, check_writer(writer))

    def record_create(self, path: str, status: str | None, now: datetime, writer: str) -> None:
        """The note was just created by `writer`: it starts as a new note does (DESIGN: 50 for
        a draft), with no update bonus; an ADD had started at 55 with one update counted."""
        self._apply({path: status}, "create", now, check_writer(writer))

    def observe(self, items: Iterable[NoteItem], now: datetime) -> dict[str, LifecycleView]:
        """Like `view_many`, but records what was seen: new records, human edits, demotions.

        The decay job calls this for every note, then writes `status` where the returned
        maturity differs from it and confirms each write with `confirm_status`. One
        transaction a batch of notes (`_OBSERVED`), each note's read and write in one: the
        connection is shared, and one transaction for the whole vault would hold every
        question reading lifecycle facts until it ended.
        """
        wanted = {path: (status, updated) for path, status, updated in items}
        views: dict[str, LifecycleView] = {}
        for chunk in _chunks(list(wanted), _OBSERVED):
            with self.db.transaction():
                records = self._load(chunk)
                to_save, changes = [], []
                for path in chunk:
                    status, updated = wanted[path]
                    old = records.get(path)
                    record, found = advance(
                        old or fresh(path, status, now, self.rules), status, "seen", now, self.rules
                    )
                    if old != record:
                        to_save.append(record)
                    changes += found
                    views[path] = self._view(record, status, updated, now, tracked=True)
                self._save(to_save, changes)
            self._changed([r.path for r in to_save])  # after the commit: readers see the rows
            time.sleep(0)  # a reader waiting for the connection gets it before the next chunk
        return views

    def confirm_status(self, written: Mapping[str, str]) -> None:
        """The decay job wrote these `status` values (path -> status): now the known ones."""
        with self.db.transaction() as conn:
            conn.executemany(
                "UPDATE notes SET known_status = ? WHERE path = ?",
                [(status, path) for path, status in written.items()],
            )
        self._changed(list(written))

    def move(self, old: str, new: str) -> None:
        """A note was renamed: its record and history follow it (replacing any at `new`)."""
        if old == new:
            return
        with self.db.transaction() as conn:
            if conn.execute("SELECT 1 FROM notes WHERE path = ?", (old,)).fetchone() is None:
                return
            conn.execute("DELETE FROM notes WHERE path = ?", (new,))
            conn.execute("UPDATE notes SET path = ? WHERE path = ?", (new, old))
            conn.execute("UPDATE transitions SET path = ? WHERE path = ?", (new, old))
        self._changed([old, new])

    def forget(self, path: str) -> None:
        """The note was deleted: drop its record (the transition log keeps its history)."""
        self.forget_many([path])

    def forget_many(self, paths: Iterable[str]) -> None:
        """Drop the records of several deleted notes in one transaction."""
        gone = list(paths)
        with self.db.transaction() as conn:
            conn.executemany("DELETE FROM notes WHERE path = ?", [(p,) for p in gone])
        self._changed(gone)

    # -- decay runs --------------------------------------------------------------------------

    def record_run(self, ran_at: datetime, notes_seen: int, transitions: int, stale: int) -> None:
        """Log one decay run (the scheduler's catch-up reads the latest)."""
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO decay_runs (ran_at, day, notes_seen, transitions, stale) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    _ts(ran_at),
                    ran_at.astimezone(UTC).date().isoformat(),
                    notes_seen,
                    transitions,
                    stale,
                ),
            )

    def last_run(self) -> datetime | None:
        """When the decay job last ran, None if never (or the state was lost)."""
        rows = self.db.query("SELECT MAX(ran_at) FROM decay_runs")
        return _dt(rows[0][0])

    # -- internals ---------------------------------------------------------------------------

    def _view(
        self,
        record: NoteRecord,
        status: str | None,
        updated: datetime | None,
        now: datetime,
        *,
        tracked: bool,
    ) -> LifecycleView:
        params = self.rules.params
        importance = akl.decayed(record.importance, now, params)
        last_update = recency_source(record, updated)
        recency = akl.recency(last_update, now, params)
        return LifecycleView(
            path=record.path,
            importance=importance,
            recency=recency,
            maturity=record.maturity,
            status=status,
            managed=self.rules.managed(status),
            access_count=record.access_count,
            update_count=record.update_count,
            last_update=last_update,
            last_access=record.last_access,
            last_writer=record.last_writer,
            stale=akl.is_stale(importance, recency, params),
            tracked=tracked,
        )

    def _apply(
        self,
        notes: Mapping[str, str | None],
        event: Event,
        now: datetime,
        writer: str | None = None,
    ) -> None:
        with self.db.transaction():
            records = self._load(list(notes))
            to_save, changes = [], []
            for path, given in notes.items():
                old = records.get(path)
                written = event in ("update", "create")
                status = given if old is None or written else old.known_status
                base = old or fresh(path, status, now, self.rules)
                record, found = advance(base, status, event, now, self.rules, writer)
                to_save.append(record)
                changes += found
            self._save(to_save, changes)
        self._changed(list(notes))

    def _load(self, paths: Sequence[str]) -> dict[str, NoteRecord]:
        found: dict[str, NoteRecord] = {}
        for chunk in _chunks(paths):
            marks = ",".join("?" * len(chunk))
            rows = self.db.query(f"SELECT * FROM notes WHERE path IN ({marks})", chunk)
            for row in rows:
                found[row["path"]] = _record(row)
        return found

    def _save(self, records: Sequence[NoteRecord], changes: Sequence[Change]) -> None:
        with self.db.transaction() as conn:
            conn.executemany(
                """
                INSERT INTO notes (path, importance, importance_at, maturity, access_count,
                    update_count, last_access, last_update, last_writer, known_status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (path) DO UPDATE SET
                    importance = excluded.importance, importance_at = excluded.importance_at,
                    maturity = excluded.maturity, access_count = excluded.access_count,
                    update_count = excluded.update_count, last_access = excluded.last_access,
                    last_update = excluded.last_update, last_writer = excluded.last_writer,
                    known_status = excluded.known_status
                """,
                [
                    (
                        r.path,
                        r.importance.value,
                        _ts(r.importance.at),
                        r.maturity.value,
                        r.access_count,
                        r.update_count,
                        _opt_ts(r.last_access),
                        _opt_ts(r.last_update),
                        r.last_writer,
                        r.known_status,
                    )
                    for r in records
                ],
            )
            conn.executemany(
                "INSERT INTO transitions (path, from_maturity, to_maturity, importance, at, "
                "reason) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        c.path,
                        c.from_maturity.value,
                        c.to_maturity.value,
                        c.importance,
                        _ts(c.at),
                        c.reason,
                    )
                    for c in changes
                ],
            )


def open_lifecycle(
    state_dir: Path, mapping: StatusMapping, params: akl.LifecycleParams
) -> LifecycleStore:
    """The lifecycle store on the vault's `state.sqlite`, with the configured words and constants.

    Raises `StateDBError` when the state folder cannot be used. Close it with `store.db.close()`.
    """
    return LifecycleStore(StateDB.open(state_dir), mapping, params)


def _record(row: sqlite3.Row) -> NoteRecord:
    at = datetime.fromisoformat(row["importance_at"])
    return NoteRecord(
        path=row["path"],
        importance=akl.Importance(row["importance"], at),
        maturity=Maturity(row["maturity"]),
        known_status=row["known_status"],
        access_count=row["access_count"],
        update_count=row["update_count"],
        last_access=_dt(row["last_access"]),
        last_update=_dt(row["last_update"]),
        last_writer=row["last_writer"],
    )
