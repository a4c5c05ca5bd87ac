"""One folder's `_index.md`: plan the new region from the file as it is, then write it safely.

Planning and writing are two steps on purpose: between them a person may save the note in
Obsidian, and the write is a compare-and-swap on the bytes the plan read, so that edit wins
(the write is skipped and reported, and the next refresh starts from the person's text).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bridge.core.overview import (
    FolderOverview,
    MarkerError,
    index_path,
    locate_region,
    render_region,
    replace_region,
)
from bridge.state.provenance import AgentWrites
from bridge.vault.store import NoteError, VaultStore, WriteConflictError

RegionState = Literal[
    "updated",  # written now
    "would_update",  # a dry run: the region differs from the overview
    "unchanged",  # the region already shows the overview: nothing written
    "no_index",  # the folder has no `_index.md`
    "no_markers",  # its `_index.md` has no region: never written
    "bad_markers",  # markers that do not make one region: never written, reported
    "blocked",  # a note the bridge must not write (malformed frontmatter, not UTF-8...)
    "unreadable",  # the note could not be read (gone, too large, permission...)
    "conflict",  # a human edit landed between the read and the write: it stays
    "failed",  # the write itself failed (disk full...)
]
# States a person should look at: `overviews` exits 1 when one occurs.
PROBLEM_STATES: frozenset[RegionState] = frozenset(
    {"bad_markers", "blocked", "unreadable", "conflict", "failed"}
)


@dataclass(frozen=True)
class RegionOutcome:
    """What happened (or would happen) to one folder's `_index.md`."""

    folder: str
    path: str
    state: RegionState
    detail: str = ""

    @property
    def problem(self) -> bool:
        return self.state in PROBLEM_STATES

    def to_json(self) -> dict[str, Any]:
        return {
            "folder": self.folder,
            "path": self.path,
            "state": self.state,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class RegionPlan:
    """The `_index.md` bytes read (`before`) and the bytes with the new region (`after`)."""

    folder: str
    path: str
    state: RegionState
    before: bytes | None = None
    after: bytes | None = None
    detail: str = ""

    def outcome(self, state: RegionState | None = None, detail: str | None = None) -> RegionOutcome:
        return RegionOutcome(
            self.folder,
            self.path,
            state or self.state,
            self.detail if detail is None else detail,
        )


def plan_region(
    store: VaultStore,
    overview: FolderOverview,
    nested: Mapping[str, FolderOverview] | None = None,
) -> RegionPlan:
    """Read the folder's `_index.md` and work out its new bytes; writes nothing.

    `nested`: the overviews of the folders below, so those without an `_index.md` of their
    own are listed inside this region (`render_region`).

    The state is `would_update` only when the note has one well-formed region, the bridge may
    write the note, and the rendered overview differs from what the region holds.
    """
    folder = overview.folder
    path = overview.index or index_path(folder)
    if overview.index is None:
        return RegionPlan(folder, path, "no_index")
    try:
        file = store.read(path)
    except NoteError as exc:
        return RegionPlan(folder, path, "unreadable", detail=exc.problem.message)
    if (blocking := file.parse().blocking) is not None:
        return RegionPlan(folder, path, "blocked", file.data, detail=blocking.message)
    try:
        span = locate_region(file.text)
    except MarkerError as exc:
        return RegionPlan(folder, path, "bad_markers", file.data, detail=str(exc))
    if span is None:
        return RegionPlan(folder, path, "no_markers", file.data)
    text = replace_region(file.text, render_region(overview, nested))
    assert text is not None  # located above: the markers are sound
    after = text.encode("utf-8")
    state: RegionState = "unchanged" if after == file.data else "would_update"
    return RegionPlan(folder, path, state, file.data, after)


def write_region(
    store: VaultStore,
    plan: RegionPlan,
    writes: AgentWrites | None,
    now: dt.datetime,
    author: str | None = None,
) -> RegionOutcome:
    """Write a planned region if the note still holds the bytes the plan read.

    The store's journal marks the write as the bridge's own, so this process's watcher does
    not take it for a human edit. `author` (`agent:<name>`): the write is recorded as that
    agent's, before the rename as the executor does, which is also how the watcher of another
    process (a `serve` next to this one) knows it is no human edit. Without an author the
    note keeps its owner: bytes an agent wrote stay that agent's, a human's note stays human.
    """
    if plan.state != "would_update" or plan.before is None or plan.after is None:
        return plan.outcome()
    if writes is not None:
        writer = author if author is not None else writes.agent_of(plan.path, plan.before)
        if writer is not None:
            writes.record(plan.path, plan.after, writer, now)
    try:
        store.write(plan.path, plan.after, expected=plan.before)
    except WriteConflictError:
        return plan.outcome(
            "conflict", "the note changed after it was read (a human edit); it was left as is"
        )
    except (OSError, NoteError) as exc:
        return plan.outcome("failed", f"write failed: {exc}")
    return plan.outcome("updated")
