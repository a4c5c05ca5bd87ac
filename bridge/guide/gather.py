"""The facts of a live bridge, for `compose_guide`: notes, lifecycle, settings, a few files.

What it costs: one pass over the index manifest (already in memory in `serve`), one lifecycle
read of the notes the state database tracks (untracked notes' numbers follow from their status,
as everywhere else), and at most `EXAMPLE_READS + top` note files read. Nothing is written; in
particular the reads are not uses of the notes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Protocol

from bridge.core.dialect import Obsidian
from bridge.core.paths import stem
from bridge.guide.compose import (
    TOP_ENTRIES,
    GuideFacts,
    NoteFact,
    VaultExample,
    compose_guide,
    rank,
)
from bridge.guide.dialect import SAMPLE_MAX_CHARS, sample_flaws
from bridge.guide.example import EXAMPLE_MAX_CHARS, example_flaws, example_order
from bridge.guide.models import Guide
from bridge.index.manifest import NoteRecord
from bridge.open_vault import OpenVault
from bridge.query.engine import QueryEngine
from bridge.query.lifecycle import NoteRef, StatusOnlyLifecycle, parse_time
from bridge.vault.store import NoteError, NoteFile

EXAMPLE_READS = 40
"""Candidates read while looking for the example before falling back to the built-in one."""


class Served(OpenVault, Protocol):
    """The vault a guide describes, with the engine whose queued uses count too."""

    @property
    def engine(self) -> QueryEngine: ...


def note_facts(bridge: Served, records: Iterable[NoteRecord], now: datetime) -> list[NoteFact]:
    """Every indexed note with its importance and recency as of `now`."""
    bridge.engine.lifecycle.flush()  # uses queued by the query path count too
    store = bridge.lifecycle
    recs = list(records)
    tracked = store.tracked_paths()
    views = store.view_many(
        ((r.path, r.status, parse_time(r.updated)) for r in recs if r.path in tracked), now
    )
    starting = StatusOnlyLifecycle(store.rules.mapping, store.rules.params).facts(
        [NoteRef(r.path, r.status, r.updated) for r in recs if r.path not in tracked], now
    )
    out = []
    for r in recs:
        view = views.get(r.path)
        importance, recency = (
            (view.importance, view.recency)
            if view is not None
            else (starting[r.path].importance, starting[r.path].recency)
        )
        out.append(NoteFact(r.path, r.title or stem(r.path), r.status, importance, recency, r.size))
    return out


def _read(bridge: Served, path: str) -> NoteFile | None:
    try:
        return bridge.store.read(path)
    except NoteError:
        return None


def find_example(bridge: Served, notes: list[NoteFact]) -> VaultExample | None:
    """The best-formed entry of the vault (`example.RULE`), or None."""
    mapping = bridge.settings.status_mapping
    dialect = bridge.store.dialect
    for note in example_order(notes)[:EXAMPLE_READS]:
        if note.size > 4 * EXAMPLE_MAX_CHARS:  # UTF-8: at most 4 bytes a character
            continue
        file = _read(bridge, note.path)
        if file is not None and not example_flaws(note.path, file.text, mapping, dialect):
            return VaultExample(note.path, file.text)
    return None


def find_sample(bridge: Served, notes: list[NoteFact]) -> VaultExample | None:
    """A real note that shows the vault's dialect (`dialect.SAMPLE_RULE`), or None; none
    for an Obsidian vault, whose format the entry example shows."""
    dialect = bridge.store.dialect
    if isinstance(dialect, Obsidian):
        return None
    for note in example_order(notes)[:EXAMPLE_READS]:
        if note.size > 4 * SAMPLE_MAX_CHARS:
            continue
        file = _read(bridge, note.path)
        if file is not None and not sample_flaws(dialect, note.path, file.text):
            return VaultExample(note.path, file.text)
    return None


def gather_guide(
    bridge: Served,
    records: Iterable[NoteRecord] | None = None,
    now: datetime | None = None,
    top: int = TOP_ENTRIES,
) -> Guide:
    """The guide of the vault `bridge` serves.

    `records`: the index manifest's notes when the caller has them at hand (the API's graph
    snapshot); read from the index otherwise.
    """
    now = now or datetime.now(UTC)
    notes = note_facts(bridge, bridge.index.all_records() if records is None else records, now)
    summaries = {}
    for note in rank(notes)[:top]:
        file = _read(bridge, note.path)
        if file is not None:
            summaries[note.path] = file.parse().entry.summary
    settings = bridge.settings
    facts = GuideFacts(
        vault=settings.vault_path.name,
        notes=notes,
        summaries=summaries,
        example=find_example(bridge, notes),
        policy=settings.review_policy,
        status_names=settings.status_mapping.names,
        lifecycle=settings.lifecycle_params,
        exclude=tuple(settings.exclude),
        max_note_bytes=settings.max_note_bytes,
        top=top,
        dialect=bridge.store.dialect,
        dialect_sample=find_sample(bridge, notes),
    )
    return compose_guide(facts)
