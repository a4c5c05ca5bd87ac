"""The seam between ranking and the lifecycle: where importance, recency and maturity come from."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bridge.core import lifecycle
from bridge.core.maturity import StatusMapping
from bridge.core.ranking import LifecycleFacts
from bridge.state.lifecycle_store import LifecycleStore


@dataclass(frozen=True)
class NoteRef:
    """What the lifecycle needs to know about a ranked note without reading it."""

    path: str
    status: str | None
    updated: str | None


class LifecycleProvider(Protocol):
    """Lifecycle facts for ranking, and the access counter every returned source bumps."""

    def facts(self, notes: Sequence[NoteRef], now: dt.datetime) -> Mapping[str, LifecycleFacts]:
        """Facts for each note (missing state: derived from the note's status)."""
        ...

    def record_access(self, notes: Mapping[str, str | None], now: dt.datetime) -> None:
        """Count one access for each note (path -> its current `status`)."""
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


class StateLifecycle:
    """Lifecycle facts from the state database (importance decayed to now, access counts)."""

    def __init__(self, store: LifecycleStore) -> None:
        self.store = store

    def facts(self, notes: Sequence[NoteRef], now: dt.datetime) -> Mapping[str, LifecycleFacts]:
        items = [(n.path, n.status, parse_time(n.updated)) for n in notes]
        views = self.store.view_many(items, now)
        return {
            path: LifecycleFacts(v.importance, v.recency, v.maturity) for path, v in views.items()
        }

    def record_access(self, notes: Mapping[str, str | None], now: dt.datetime) -> None:
        self.store.record_access(notes, now)
