"""The seam between ranking and the lifecycle: where importance, recency and maturity come from."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol

from bridge.core import lifecycle
from bridge.core.maturity import StatusMapping
from bridge.core.ranking import LifecycleFacts
from bridge.state.lifecycle_store import LifecycleStore


class NoteRef(NamedTuple):
    """What the lifecycle needs to know about a ranked note without reading it (a tuple: a
    query makes one for each of up to a few hundred notes)."""

    path: str
    status: str | None
    updated: str | None


class LifecycleProvider(Protocol):
    """Lifecycle facts for ranking, and the use counter (DESIGN 4: uses, not appearances)."""

    def facts(self, notes: Sequence[NoteRef], now: dt.datetime) -> Mapping[str, LifecycleFacts]:
        """Facts for each note (missing state: derived from the note's status)."""
        ...

    def record_access(self, notes: Mapping[str, str | None], now: dt.datetime) -> None:
        """Count one use for each note (path -> its current `status`)."""
        ...

    def flush(self) -> None:
        """Write what is queued, so a read of the state right after sees it."""
        ...


def parse_time(value: str | None) -> dt.datetime | None:
    """An `updated` frontmatter value as an aware datetime (None when absent or unreadable)."""
    if not value:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


class StatusOnlyLifecycle:
    """Lifecycle facts from the notes alone, for when no state database is attached.

    Importance starts at the lower bound of the band of the note's status and recency comes
    from its `updated` frontmatter: exactly what the state database falls back to for a note
    it has no row for.
    """

    def __init__(
        self,
        mapping: StatusMapping | None = None,
        params: lifecycle.LifecycleParams = lifecycle.DEFAULT,
    ) -> None:
        self.mapping = mapping or StatusMapping()
        self.params = params

    def facts(self, notes: Sequence[NoteRef], now: dt.datetime) -> Mapping[str, LifecycleFacts]:
        out: dict[str, LifecycleFacts] = {}
        for note in notes:
            maturity = self.mapping.effective(note.status)
            importance = lifecycle.initial_importance_for(
                self.mapping.maturity_for(note.status), self.params
            )
            recency = lifecycle.recency(parse_time(note.updated), now, self.params)
            out[note.path] = LifecycleFacts(importance, recency, maturity)
        return out

    def record_access(self, notes: Mapping[str, str | None], now: dt.datetime) -> None:
        """Nothing to record without a state database."""

    def flush(self) -> None:
        """Nothing is queued."""


class StateLifecycle:
    """Lifecycle facts from the state database, cached, with accesses written in batches.

    Every query needs facts for hundreds of candidate notes and records an access for each
    source, and computing hundreds of views and a SQLite write transaction per query would
    cost more than the search itself. So facts are cached per note and dropped the moment the
    state database changes that note (its change listener); entries also expire after
    `ttl_seconds`, which bounds what a write by another process can leave stale. Accesses are
    queued and written together at most `flush_seconds` later, and always before the facts of
    a note with a queued use are read, so ranking never misses one. One flusher thread does the
    timed writes (a `threading.Timer` per batch would start a thread per query under load).
    """

    def __init__(
        self, store: LifecycleStore, ttl_seconds: float = 60.0, flush_seconds: float = 0.25
    ) -> None:
        self.store = store
        self.ttl = dt.timedelta(seconds=ttl_seconds)
        self.flush_seconds = flush_seconds
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[dt.datetime, str | None, str | None, LifecycleFacts]] = {}
        self._pending: list[tuple[dict[str, str | None], dt.datetime]] = []
        self._wake = threading.Event()
        self._flusher: threading.Thread | None = None
        self._stop = threading.Event()  # set by close()
        self._from_status = StatusOnlyLifecycle(store.rules.mapping, store.rules.params)
        store.add_listener(self._invalidate)

    def _invalidate(self, paths: Sequence[str]) -> None:
        with self._lock:
            for path in paths:
                self._cache.pop(path, None)

    def facts(self, notes: Sequence[NoteRef], now: dt.datetime) -> Mapping[str, LifecycleFacts]:
        # A queued use changes its own note's facts only: written now when one of these notes
        # has one (ranking never misses it), else left to the flusher thread: writing every
        # query's queue here would put a SQLite transaction in every next query.
        if self._queued_for(notes):
            self.flush()
        out: dict[str, LifecycleFacts] = {}
        missing: list[NoteRef] = []
        with self._lock:
            for note in notes:
                hit = self._cache.get(note.path)
                if (
                    hit is not None
                    and hit[1] == note.status
                    and hit[2] == note.updated
                    and hit[0] <= now < hit[0] + self.ttl
                ):
                    out[note.path] = hit[3]
                else:
                    missing.append(note)
        if not missing:
            return out
        # Most notes of a big vault were never returned or written through the bridge: they
        # have no record, and their facts follow from their status alone (what a record would
        # start from), without building a full view.
        tracked = self.store.tracked([n.path for n in missing])
        items = [(n.path, n.status, parse_time(n.updated)) for n in missing if n.path in tracked]
        views = self.store.view_many(items, now) if items else {}
        untracked = self._from_status.facts([n for n in missing if n.path not in tracked], now)
        with self._lock:
            if len(self._cache) > 200_000:
                self._cache.clear()  # bounded: a cache, not a copy of the state
            for note in missing:
                v = views.get(note.path)
                facts = (
                    LifecycleFacts(v.importance, v.recency, v.maturity)
                    if v is not None
                    else untracked[note.path]
                )
                out[note.path] = facts
                self._cache[note.path] = (now, note.status, note.updated, facts)
        return out

    def _queued_for(self, notes: Sequence[NoteRef]) -> bool:
        with self._lock:
            if not self._pending:
                return False
            queued = {path for used, _ in self._pending for path in used}
        return any(note.path in queued for note in notes)

    def record_access(self, notes: Mapping[str, str | None], now: dt.datetime) -> None:
        with self._lock:
            self._pending.append((dict(notes), now))
            if self._flusher is None and not self._stop.is_set():
                self._flusher = threading.Thread(
                    target=self._flush_later, name="lifecycle-flush", daemon=True
                )
                self._flusher.start()
        self._wake.set()

    def _flush_later(self) -> None:
        """Wait for a queued access, let a batch gather for `flush_seconds`, write it."""
        while not self._stop.is_set():
            self._wake.wait()
            self._stop.wait(self.flush_seconds)  # close() cuts the wait short
            self._wake.clear()  # set again by any access queued from here on
            self.flush()

    def flush(self) -> None:
        """Write the queued accesses in one transaction (also called before facts are read)."""
        with self._lock:
            pending, self._pending = self._pending, []
        if pending:
            with self.store.db.transaction():
                for notes, now in pending:
                    self.store.record_access(notes, now)

    def close(self) -> None:
        """Write what is queued and stop the flusher thread."""
        self._stop.set()
        self._wake.set()
        flusher = self._flusher
        if flusher is not None and flusher is not threading.current_thread():
            flusher.join(timeout=self.flush_seconds + 5)
        self.flush()
