"""The decay job: bring every note's `status` in line with its lifecycle, once a day.

Importance decays lazily (it is exact whenever read), so the job has no numbers to rewrite. It
looks at every note once, lets the state record what it sees (new notes, human status edits,
demotions now due), and writes `status` only where the lifecycle's maturity differs from it,
with the surgical frontmatter edit. Every other file keeps its bytes and mtime. Because maturity
is settled at every access and update (see `bridge.state.records`), a run after 10 missed days
reaches the same statuses as 10 daily runs, and a second run the same day changes nothing.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bridge.core.entry import Properties
from bridge.core.maturity import Maturity
from bridge.core.paths import UnsafePathError
from bridge.state.lifecycle_store import LifecycleStore, NoteItem
from bridge.vault.store import NoteError, VaultStore


@dataclass(frozen=True)
class StatusChange:
    """A `status` the run wrote: the file's old and new words and the maturities behind them."""

    path: str
    from_status: str | None
    to_status: str
    from_maturity: Maturity
    to_maturity: Maturity
    importance: float


@dataclass(frozen=True)
class StaleCandidate:
    """Unimportant and long untouched: a human may want to archive it (never automatic)."""

    path: str
    importance: float
    recency: float


@dataclass(frozen=True)
class Skipped:
    """A note the run could not look at or write, with the reason a human can act on."""

    path: str
    code: str
    message: str


@dataclass(frozen=True)
class DecayReport:
    """What one run saw and did."""

    ran_at: datetime
    notes_seen: int
    transitions: tuple[StatusChange, ...]
    stale: tuple[StaleCandidate, ...]
    skipped: tuple[Skipped, ...]
    forgotten: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The `vault-bridge decay --json` document."""
        return {
            "ran_at": self.ran_at.isoformat(),
            "notes_seen": self.notes_seen,
            "transitions": [
                {
                    "path": t.path,
                    "from": t.from_status,
                    "to": t.to_status,
                    "from_maturity": t.from_maturity.value,
                    "to_maturity": t.to_maturity.value,
                    "importance": round(t.importance, 4),
                }
                for t in self.transitions
            ],
            "stale": [
                {
                    "path": s.path,
                    "importance": round(s.importance, 4),
                    "recency": round(s.recency, 4),
                }
                for s in self.stale
            ],
            "skipped": [
                {"path": s.path, "code": s.code, "message": s.message} for s in self.skipped
            ],
            "forgotten": list(self.forgotten),
        }


Stamp = tuple[int, int]  # a note file's size and mtime (ns) when it was read


def _readable(store: VaultStore, path: str) -> tuple[Properties | Skipped, Stamp | None]:
    """The note's properties, or why the run must leave it alone this time; and the file's
    stamp when it was read.

    Only the frontmatter is read (status, `updated`, whether the note may be written):
    reading each whole note's Markdown too would make the run far longer, holding the
    writer's lock. `path` comes from `iter_paths`, so the folders are not resolved again.
    """
    try:
        file = store.read_listed(path)
    except NoteError as exc:
        return Skipped(path, exc.problem.code, exc.problem.message), None
    props = file.properties()
    stamp = (file.size, file.mtime_ns)
    blocking = props.blocking
    if blocking is not None:
        # Trigger: e.g. malformed YAML while a human is mid-edit.
        # Why: its status cannot be read, and "no status" would look like a human removing it.
        # Outcome: skipped and reported; its record is kept and keeps decaying lazily.
        return Skipped(path, blocking.code, blocking.message), stamp
    return props, stamp


def _unchanged(store: VaultStore, path: str, stamp: Stamp | None) -> bool:
    """The file still has the size and mtime it was read with (one `lstat`)."""
    return stamp is not None and store.stat_listed(path) == stamp


def _vanished(store: VaultStore, lifecycle: LifecycleStore, seen: set[str]) -> list[str]:
    """Records whose note file is gone (deleted while no watcher ran)."""
    gone = []
    for path in sorted(lifecycle.tracked_paths() - seen):
        try:
            exists = store.exists(path)
        except (UnsafePathError, OSError):
            exists = False
        if not exists:
            gone.append(path)
    return gone


def run_decay(
    store: VaultStore,
    lifecycle: LifecycleStore,
    now: datetime,
    lock: AbstractContextManager[object] | None = None,
) -> DecayReport:
    """Run the decay job over the whole vault at `now`. Never raises for one bad note.

    With `lock` (the single writer's), the notes are read before taking it, and under it
    only the notes whose size or mtime changed since (and new ones) are read again: what the
    job observes and writes is the vault as it is under the lock, but the lock is held for a
    walk and a stat per note, not for reading them all (curation waits behind it).
    """
    first: dict[str, tuple[Properties | Skipped, Stamp | None]] = {}
    if lock is not None:
        for path in store.iter_paths():
            first[path] = _readable(store, path)
            # In `serve` questions are answered on another thread meanwhile: holding the
            # interpreter for whole switch intervals, this pass would make every answer wait;
            # it lets go after each note.
            time.sleep(0)
    with lock or nullcontext():
        return _decay(store, lifecycle, now, first)


def _decay(
    store: VaultStore,
    lifecycle: LifecycleStore,
    now: datetime,
    first: dict[str, tuple[Properties | Skipped, Stamp | None]],
) -> DecayReport:
    items: list[NoteItem] = []
    skipped: list[Skipped] = []
    listed: set[str] = set()
    for path in store.iter_paths():
        listed.add(path)
        seen = first.get(path)
        if seen is None or not _unchanged(store, path, seen[1]):
            seen = _readable(store, path)
        note = seen[0]
        if isinstance(note, Skipped):
            skipped.append(note)
            continue
        items.append((path, note.status, note.updated))

    views = lifecycle.observe(items, now)
    mapping = lifecycle.rules.mapping
    changes: list[StatusChange] = []
    written: dict[str, str] = {}
    stale: list[StaleCandidate] = []
    for path, view in views.items():
        if view.stale:
            stale.append(StaleCandidate(path, view.importance, view.recency))
        if not view.managed or mapping.maturity_for(view.status) is view.maturity:
            continue
        new_status = mapping.status_for(view.maturity)
        try:
            store.set_frontmatter(path, "status", new_status)
        except NoteError as exc:
            skipped.append(Skipped(path, exc.problem.code, exc.problem.message))
            continue
        except (OSError, UnsafePathError) as exc:
            # The known status stays the old one, so the next run tries again.
            skipped.append(Skipped(path, "unwritable", f"{path}: could not write status: {exc}"))
            continue
        written[path] = new_status
        changes.append(
            StatusChange(
                path,
                view.status,
                new_status,
                mapping.effective(view.status),
                view.maturity,
                view.importance,
            )
        )
    lifecycle.confirm_status(written)

    forgotten = _vanished(store, lifecycle, listed)
    lifecycle.forget_many(forgotten)
    lifecycle.record_run(now, len(items), len(changes), len(stale))
    return DecayReport(
        ran_at=now,
        notes_seen=len(items),
        transitions=tuple(changes),
        stale=tuple(sorted(stale, key=lambda s: (s.importance, s.path))),
        skipped=tuple(skipped),
        forgotten=tuple(forgotten),
    )


def decay_message(report: DecayReport) -> str:
    """The git commit message of a decay run's status changes (one line per note)."""
    count = len(report.transitions)
    lines = [f"- {t.path}: {t.from_status} -> {t.to_status}" for t in report.transitions]
    head = f"vault-bridge: decay run ({count} status change{'s' if count != 1 else ''})"
    return "\n".join([head, "", *lines]) + "\n"
