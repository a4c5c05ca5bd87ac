"""Bringing the index in line with the files: at start-up, on `reindex`, after a burst.

Cheap first: a note whose size and mtime match the manifest is not read at all. A note whose
stat changed is read and hashed; if the bytes are the same (a `touch`, a sync tool rewriting
the file) only the manifest is updated. Deleted notes whose bytes reappear under a new path are
reported as moves, so lifecycle state can follow them.
"""

from __future__ import annotations

import logging
import os
import stat as stat_mode
from collections.abc import Callable
from dataclasses import dataclass, field

from bridge.core.entry import Problem
from bridge.index.manifest import NoteRecord
from bridge.index.search_index import IndexCommitError, SearchIndex
from bridge.vault.store import NoteError, NoteFile, VaultStore

log = logging.getLogger(__name__)


@dataclass
class SyncReport:
    """What a reconciliation changed."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0
    problems: list[Problem] = field(default_factory=list)
    # The index was thrown away and rebuilt from the files: every note is `added`, and what
    # changed, moved or went since the last run is unknown.
    rebuilt: bool = False

    def summary(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "changed": len(self.changed),
            "removed": len(self.removed),
            "moved": len(self.moved),
            "unchanged": self.unchanged,
            "problems": len(self.problems),
        }


def _stat_matches(store: VaultStore, path: str, stamp: NoteRecord) -> bool:
    """True when the file still has the size and mtime the manifest recorded.

    `path` comes from the store's walk, which never descends into a linked folder, and the
    manifest only holds paths the store has read safely before, so a regular file found by
    `lstat` is that note: its stat answers directly. Anything else (a symlink, a vanished
    file) goes through the store's own checked `stat`.
    """
    try:
        info = os.lstat(f"{store.root}/{path}")
    except OSError:
        info = None
    if info is not None and stat_mode.S_ISREG(info.st_mode):
        return info.st_size == stamp.size and info.st_mtime_ns == stamp.mtime_ns
    return store.stat(path) == (stamp.size, stamp.mtime_ns)


def index_file(index: SearchIndex, file: NoteFile) -> None:
    """Index one read note (parse + documents)."""
    index.upsert(file, file.parse())


def reconcile(
    store: VaultStore,
    index: SearchIndex,
    progress: Callable[[int, int], None] | None = None,
    commit_every: int = 20_000,
    force: bool = False,
) -> SyncReport:
    """Make the index match the vault; returns what changed. Commits at the end.

    `force` re-reads every note instead of trusting size and mtime (a note whose indexed
    content did not change keeps its documents, see `SearchIndex.upsert`).
    """
    try:
        return _reconcile(store, index, progress, commit_every, force)
    except IndexCommitError as exc:
        reason = str(exc)
    # Trigger: tantivy refused to commit (files a crash left behind, a damaged segment).
    # Why: the files are the truth and the index only a cache of them; a start-up that stops
    # here would keep the bridge from starting at all. Outcome: the index starts over empty
    # and is filled again from the files, and the log says so. (Outside the `except`: its
    # traceback would keep the refused writers, and their locks, alive.)
    log.warning("%s; rebuilding the index from the files", reason)
    index.start_over()
    report = _reconcile(store, index, progress, commit_every, force)
    report.rebuilt = True
    return report


def _reconcile(
    store: VaultStore,
    index: SearchIndex,
    progress: Callable[[int, int], None] | None,
    commit_every: int,
    force: bool,
) -> SyncReport:
    report = SyncReport()
    paths = list(store.iter_paths())
    # With nothing indexed yet (a cold start) no note can have gone or moved: the sets that
    # find them are not kept.
    indexed_before = index.note_count() > 0
    seen: set[str] = set()
    new_hashes: dict[bytes, str] = {}
    for done, path in enumerate(paths, 1):
        if progress:
            progress(done, len(paths))
        if indexed_before:
            seen.add(path)
        stamp = index.stamp(path)
        # A note not in the manifest is read whatever its stat says: no stat call for it.
        if stamp is not None and not force and _stat_matches(store, path, stamp):
            report.unchanged += 1
            continue
        try:
            file = store.read_listed(path)
        except NoteError as exc:
            report.problems.append(exc.problem)
            if stamp is not None:
                index.remove(path)  # unreadable now: its old text must not be served
                report.removed.append(path)
            continue
        if stamp is not None and stamp.hash == file.digest and not force:
            index.touch(path, file.size, file.mtime_ns)
            report.unchanged += 1
            continue
        index_file(index, file)
        (report.changed if stamp is not None else report.added).append(path)
        if stamp is None and indexed_before:
            new_hashes[file.digest] = path
        if index.has_pending and (len(report.added) + len(report.changed)) % commit_every == 0:
            index.commit()
    gone = [p for p in index.paths() if p not in seen] if indexed_before else []
    for path in gone:
        stamp = index.stamp(path)
        index.remove(path)
        target = new_hashes.pop(stamp.hash, None) if stamp else None
        if target is not None:
            report.moved.append((path, target))
            report.added.remove(target)
        else:
            report.removed.append(path)
    index.commit()
    return report
