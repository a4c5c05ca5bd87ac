"""Applies one settled batch of vault changes to the index and the lifecycle. Never writes a note.

For each path the disk is the truth, not the events: a path whose file is gone is a delete, a
file whose bytes the index already has is unchanged (a `touch`, a sync tool rewriting it), a
file with bytes the bridge itself just wrote is re-indexed if needed but is no human edit, and
anything else is a human edit: re-indexed and recorded as an update by `human`.

Moves come two ways and end the same: the file system reported a rename (of a note or of a
whole folder), or a note vanished and a new path appeared with the very same bytes in the same
batch. Either way the index follows and so does the lifecycle record (importance and counts).

A file that cannot be read right now (permission denied for a moment, a half-written binary
copy, an empty or half-written note from a slow writer) is tried again with a growing delay;
after the last try it is reported and its old text is taken out of the index.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from bridge.core.entry import Note, Problem
from bridge.core.operations import HUMAN
from bridge.core.paths import UnsafePathError
from bridge.index.search_index import SearchIndex
from bridge.state.lifecycle_store import LifecycleStore
from bridge.state.provenance import AgentWrites
from bridge.vault.journal import WriteJournal
from bridge.vault.store import NoteError, NoteFile, VaultStore
from bridge.watch.pending import Batch, resolve_moves
from bridge.watch.startup import reconcile_vault, status_is_readable

log = logging.getLogger(__name__)

# Seconds before each new try of a note that could not be read (about 4 s in all).
BACKOFF = (0.25, 0.5, 1.0, 2.0)
COMMIT_INTERVAL = 0.25  # DESIGN section 3: commits at most every 250 ms under load
_RETRYABLE = frozenset({"unreadable", "binary"})


@dataclass
class WatchStats:
    """Counters since start, for `status`, tests and the benchmark."""

    events: int = 0
    batches: int = 0
    indexed: int = 0
    removed: int = 0
    moved: int = 0
    unchanged: int = 0
    own_writes: int = 0
    human_updates: int = 0
    retries: int = 0
    failures: int = 0
    commits: int = 0


def looks_half_written(text: str) -> bool:
    """True for text a writer may not have finished: empty, or frontmatter never closed.

    Reading such a file mid-write would show the lifecycle a note without `status`, which it
    would take as a human's demotion; waiting a moment costs nothing.
    """
    body = text.lstrip("\ufeff")
    if not body.strip():
        return True
    lines = body.splitlines()
    if lines[0].rstrip() != "---":
        return False
    return not any(line.rstrip() in ("---", "...") for line in lines[1:])


@dataclass(frozen=True)
class AppliedChanges:
    """What one batch changed in the index, for listeners (the API's event stream)."""

    indexed: tuple[str, ...]
    removed: tuple[str, ...]
    moved: tuple[tuple[str, str], ...]
    generation: int


Listener = Callable[[AppliedChanges], None]


class _Later:
    """Marker: the note is being retried or was given up on; nothing more to do now."""


_LATER = _Later()


def _utcnow() -> datetime:
    return datetime.now(UTC)


class ChangeApplier:
    """The index and lifecycle side of live watching; called on the debouncer's thread only."""

    def __init__(
        self,
        store: VaultStore,
        index: SearchIndex,
        lifecycle: LifecycleStore,
        journal: WriteJournal | None,
        clock: Callable[[], datetime] = _utcnow,
        listener: Listener | None = None,
    ) -> None:
        self.store = store
        self.index = index
        self.lifecycle = lifecycle
        self.journal = journal
        self.agent_writes = AgentWrites(lifecycle.db)
        self.clock = clock
        self.listener = listener
        self.stats = WatchStats()
        self.problems: dict[str, Problem] = {}  # notes given up on, until they read again
        self._attempts: dict[str, int] = {}
        self._retries: dict[str, float] = {}
        self._by_hash: dict[bytes, list[str]] | None = None  # built once per batch, on demand
        self._indexed: list[str] = []
        self._removed: list[str] = []
        self._moved: list[tuple[str, str]] = []

    # -- entry point -------------------------------------------------------------------------

    def apply(self, batch: Batch) -> dict[str, float]:
        """Apply `batch`; returns the paths to look at again and after how many seconds."""
        self._retries = {}
        self._indexed, self._removed, self._moved = [], [], []
        self.stats.batches += 1
        try:
            if batch.rescan:
                self.reconcile()
            self._apply(batch)
        except Exception:
            # Trigger: a bug or a failing state database in the middle of a batch.
            # Why: no update may be lost, and the watcher must keep running.
            # Outcome: logged; every path of the batch is looked at again shortly.
            log.exception("could not apply %d vault changes; trying them again", batch.size)
            self.stats.failures += 1
            for path in batch.paths | {m.dest for m in batch.moves if not m.is_dir}:
                self._defer(path)
        finally:
            self._commit()
        self._tell()
        return self._retries

    def _tell(self) -> None:
        if self.listener is None or not (self._indexed or self._removed or self._moved):
            return
        changes = AppliedChanges(
            tuple(self._indexed), tuple(self._removed), tuple(self._moved), self.index.generation
        )
        try:
            self.listener(changes)
        except Exception:
            log.exception("a listener of vault changes failed")

    def reconcile(self) -> None:
        """Bring index and lifecycle in line with the whole vault (start-up, lost events)."""
        reconcile_vault(self.store, self.index, self.lifecycle, self.clock(), self.journal)
        self.stats.commits += 1

    # -- one batch ---------------------------------------------------------------------------

    def _apply(self, batch: Batch) -> None:
        now = self.clock()
        indexed = self.index.paths()
        pairs = {
            old: new
            for old, new in resolve_moves(batch.moves, indexed).items()
            if not self.store.ignore.ignores(new)
        }
        dirty: dict[str, None] = dict.fromkeys(batch.paths)
        for old, new in pairs.items():
            dirty[old] = dirty[new] = None
        for folder in sorted(batch.dirs_gone):
            prefix = folder + "/"
            dirty.update(dict.fromkeys(p for p in indexed if p.startswith(prefix)))
        for folder in sorted(batch.dirs_new):
            dirty.update(dict.fromkeys(self.store.iter_paths(folder)))

        for old, new in pairs.items():
            file = self._observe(new)
            if isinstance(file, NoteFile):
                self._move(old, new, file, now)
                dirty.pop(new, None)
                if self.store.stat(old) is None:
                    dirty.pop(old, None)  # else a new note took the old name: handled below
                self._maybe_commit()

        present: list[str] = []
        gone: list[str] = []
        for path in dirty:
            (gone if self.store.stat(path) is None else present).append(path)
        self._by_hash = None
        paired: set[str] = set()
        for path in present:
            file = self._observe(path)
            if file is None:
                gone.append(path)  # deleted between the event and the read
            elif isinstance(file, NoteFile):
                source = None if self.index.stamp(path) else self._moved_from(file, paired)
                if source is not None:
                    self._move(source, path, file, now)
                    paired.add(source)
                else:
                    self._update(path, file, now)
            self._maybe_commit()
        self._delete([p for p in gone if p not in paired])

    def _moved_from(self, file: NoteFile, taken: set[str]) -> str | None:
        """The indexed note with these exact bytes whose file is gone: `file` is that note, moved.

        Trigger: a new path whose bytes the index holds under a path that no longer exists.
        Why: a tool that renames by copy-and-delete, and also a plain `mv` into a folder created
        a moment before, which inotify reports as a create now and a delete up to 0.5 s later.
        Outcome: one move, so the lifecycle record follows instead of being forgotten.
        """
        if self._by_hash is None:
            self._by_hash = {}
            for path in self.index.paths():
                stamp = self.index.stamp(path)
                if stamp is not None:
                    self._by_hash.setdefault(stamp.hash, []).append(path)
        for path in self._by_hash.get(file.digest, ()):
            if path not in taken and path != file.path and self.store.stat(path) is None:
                return path
        return None

    # -- reading -----------------------------------------------------------------------------

    def _observe(self, path: str) -> NoteFile | _Later | None:
        """The note's bytes; None when it is gone; `_LATER` when it must wait or was given up."""
        try:
            file = self.store.read(path)
        except NoteError as exc:
            if exc.problem.code == "missing":
                return None
            if exc.problem.code in _RETRYABLE and self._defer(path):
                return _LATER
            self._give_up(path, exc.problem)
            return _LATER
        except (OSError, UnsafePathError) as exc:
            problem = Problem(path, "unreadable", f"{path}: {exc}")
            if not self._defer(path):
                self._give_up(path, problem)
            return _LATER
        if looks_half_written(file.text) and self._defer(path):
            return _LATER
        self._attempts.pop(path, None)
        self.problems.pop(path, None)
        return file

    def _defer(self, path: str) -> bool:
        """Schedule another look at `path`; False when its tries are used up."""
        tries = self._attempts.get(path, 0)
        if tries >= len(BACKOFF):
            self._attempts.pop(path, None)
            return False
        self._attempts[path] = tries + 1
        self._retries[path] = BACKOFF[tries]
        self.stats.retries += 1
        return True

    def _give_up(self, path: str, problem: Problem) -> None:
        """Report a note that stays unreadable; its old text must not be served meanwhile."""
        log.warning("not indexing %s", problem.message)
        self.problems[path] = problem
        self.stats.failures += 1
        if self.index.remove(path):
            self.stats.removed += 1
            self._removed.append(path)

    # -- effects -----------------------------------------------------------------------------

    def _update(self, path: str, file: NoteFile, now: datetime) -> None:
        stamp = self.index.stamp(path)
        if stamp is not None and stamp.hash == file.digest:
            if (stamp.size, stamp.mtime_ns) != (file.size, file.mtime_ns):
                self.index.touch(path, file.size, file.mtime_ns)  # spare the next start a read
            self.stats.unchanged += 1
            return
        note = file.parse()
        self.index.upsert(file, note)
        self.stats.indexed += 1
        self._indexed.append(path)
        self._record(path, file, note, now, created=stamp is None)

    def _move(self, old: str, new: str, file: NoteFile, now: datetime) -> None:
        before = self.index.stamp(old)
        self.index.remove(old)
        note = file.parse()
        self.index.upsert(file, note)
        self.lifecycle.move(old, new)
        self.agent_writes.move(old, new)  # still the agent's note if an agent wrote it
        self.stats.moved += 1
        self._moved.append((old, new))
        self._attempts.pop(old, None)
        self.problems.pop(old, None)
        if before is None or before.hash != file.digest:
            self._record(new, file, note, now)  # moved and edited within one batch

    def _record(
        self, path: str, file: NoteFile, note: Note, now: datetime, created: bool = False
    ) -> None:
        """An update by a human (a creation when `created`: a note the index never had),
        unless these are bytes the bridge wrote itself."""
        if self.journal is not None and self.journal.is_own(path, file.hash):
            self.stats.own_writes += 1
            return
        # Trigger: bytes this process did not write, but an agent write logged in the state DB
        # (a CLI `curate` or an MCP process next to `serve`). Why: the in-memory journal cannot
        # see other processes. Outcome: indexed, but not recorded as a human edit.
        if self.agent_writes.agent_of(path, file.data) is not None:
            self.stats.own_writes += 1
            return
        if not status_is_readable(note):
            return
        record = self.lifecycle.record_create if created else self.lifecycle.record_update
        record(path, note.entry.status, now, HUMAN)
        self.stats.human_updates += 1

    def _delete(self, paths: list[str]) -> None:
        for path in paths:
            if self.index.remove(path):
                self.stats.removed += 1
                self._removed.append(path)
            self._attempts.pop(path, None)
            self.problems.pop(path, None)
        if paths:
            self.lifecycle.forget_many(paths)

    def _maybe_commit(self) -> None:
        if self.index.has_pending and self.index.seconds_since_commit() >= COMMIT_INTERVAL:
            self._commit()

    def _commit(self) -> None:
        if self.index.commit():
            self.stats.commits += 1

    def snapshot(self) -> WatchStats:
        """A copy of the counters (safe to read from any thread)."""
        return replace(self.stats)
