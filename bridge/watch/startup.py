"""Start-up reconciliation with the lifecycle: what changed while the bridge was not running.

`bridge.index.sync.reconcile` brings the index in line with the files (stat first, then hash,
moves found by hash). This adds what the index does not know about: the lifecycle record of a
moved note follows it (and so does the record of the agent writes that make it an agent's
note), a deleted note's record goes, and an edit made offline counts as a human
update, just as it would have if the watcher had seen it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bridge.core.entry import Note
from bridge.core.operations import HUMAN
from bridge.core.paths import UnsafePathError
from bridge.index.search_index import SearchIndex
from bridge.index.sync import SyncReport, reconcile
from bridge.state.lifecycle_store import LifecycleStore
from bridge.state.provenance import AgentWrites
from bridge.vault.journal import WriteJournal
from bridge.vault.store import NoteError, VaultStore


def status_is_readable(note: Note) -> bool:
    """False when the frontmatter cannot be read, so a missing `status` means nothing.

    Trigger: malformed YAML, typically a human mid-edit in Obsidian.
    Why: the lifecycle takes a status it has not seen as the human's choice; "no status" here
    would demote the note and move its importance, then undo it at the next save.
    Outcome: the text is indexed as usual, but no lifecycle update is recorded until it parses.
    """
    return not any(p.code == "malformed_frontmatter" for p in note.problems)


def reconcile_vault(
    store: VaultStore,
    index: SearchIndex,
    lifecycle: LifecycleStore,
    now: datetime,
    journal: WriteJournal | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SyncReport:
    """Reconcile the index with the files and the lifecycle with what reconcile found.

    Notes that appeared count as human updates only when the index already knew the vault:
    on a first start (or after the index was rebuilt, here or at open) every note looks new,
    and recording them all as edited today would make the whole vault look fresh.
    """
    knew_vault = index.note_count() > 0
    report = reconcile(store, index, progress)
    writes = AgentWrites(lifecycle.db)
    for old, new in report.moved:
        lifecycle.move(old, new)
        writes.move(old, new)  # a move is not an edit: an agent's note stays the agent's
    # `removed` also lists notes that became unreadable: they still exist, keep their record.
    lifecycle.forget_many([p for p in report.removed if not _exists(store, p)])
    edited = report.changed + (report.added if knew_vault and not report.rebuilt else [])
    for path in edited:
        try:
            file = store.read(path)
        except NoteError:
            continue
        if journal is not None and journal.is_own(path, file.hash):
            continue
        note = file.parse()
        if status_is_readable(note):
            lifecycle.record_update(path, note.entry.status, now, HUMAN)
    return report


def _exists(store: VaultStore, path: str) -> bool:
    try:
        return store.exists(path)
    except (UnsafePathError, OSError):
        return False
