"""What is indexed, held in memory: each note's stamp and id, the committed manifest records,
the link resolver over the paths, and the transcript speakers.

A query looks up a few hundred notes, which must not cost a few hundred SQLite rows; the
graph, the tree and the guide want every record. The index's writer keeps this in line with
what it writes; the manifest on disk stays the record that survives a restart.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable

from bridge.core.paths import top_folder
from bridge.core.relations import LinkResolver
from bridge.index.manifest import NoteRecord
from bridge.index.memory import collector_paused

_PATH_LOG = 2_000  # path changes applied to the link resolver one by one; more: a rebuild


class Catalog:
    """The notes of the index by path and by id.

    `stamps` and `paths` follow every upsert and remove at once (pending ones too); `records`
    mirrors the manifest rows of the last commit. A note's stamp (what is known of its file
    without reading it: id, size, mtime, hash) is its newest record, the same object as in
    `records` once committed, not a tuple of its own per note.
    """

    def __init__(self, records: Iterable[NoteRecord]) -> None:
        self.stamps: dict[str, NoteRecord] = {}
        self.paths: dict[int, str] = {}
        self.records: dict[int, NoteRecord] = {}
        with collector_paused():
            for rec in records:
                self.stamps[rec.path] = rec
                self.paths[rec.nid] = rec.path
                self.records[rec.nid] = rec
        self._next_nid = max(self.paths, default=0) + 1
        # Notes under each top-level folder (`de/`, `en/`...): which editions a vault has.
        self._tops: Counter[str] = Counter(top_folder(path) for path in self.stamps)
        # Bumped when a path appears or disappears (not on edits): link resolution depends on
        # the set of paths only, so resolvers change just when this does, by the logged changes.
        self.paths_version = 0
        self._path_changes: list[tuple[str, bool]] = []  # (path, added) since the resolver
        self._paths_lock = threading.Lock()
        self._resolver: tuple[int, LinkResolver] | None = None
        self.speakers = self._load_speakers()

    def clear(self) -> None:
        """Forget every note (the index starts over); ids go on from where they were."""
        for known in (self.stamps, self.paths, self.records):
            known.clear()
        self.speakers = frozenset()
        with self._paths_lock:
            self.paths_version += 1
            self._path_changes = []
            self._resolver = None
            self._tops.clear()

    def allocate(self) -> int:
        """A note id never given before in this index."""
        nid = self._next_nid
        self._next_nid += 1
        return nid

    def names_changed(self, path: str) -> None:
        """The names links find a note by changed (a new alias): resolvers are out of date."""
        with self._paths_lock:
            self.paths_version += 1
            if self._resolver is not None and len(self._path_changes) <= _PATH_LOG:
                self._path_changes.append((path, True))

    def path_changed(self, path: str, added: bool) -> None:
        """A path appeared or went: resolvers made so far are out of date."""
        with self._paths_lock:
            self.paths_version += 1
            if self._resolver is not None and len(self._path_changes) <= _PATH_LOG:
                self._path_changes.append((path, added))
            top = top_folder(path)
            self._tops[top] += 1 if added else -1
            if self._tops[top] <= 0:
                del self._tops[top]

    def top_folders(self) -> list[str]:
        """The vault's top-level folders that hold notes ("" for notes at the root)."""
        with self._paths_lock:
            return list(self._tops)

    def link_resolver(self) -> LinkResolver:
        """See `SearchIndex.link_resolver`."""
        with self._paths_lock:  # held while updating: a second caller waits, then reuses it
            version = self.paths_version
            cached = self._resolver
            if cached is not None and cached[0] == version:
                return cached[1]
            changes, self._path_changes = self._path_changes, []
            if cached is None or len(changes) > _PATH_LOG:
                names = {path: rec.names for path, rec in self.stamps.items() if rec.names}
                resolver = LinkResolver(list(self.stamps), names)
            else:
                added = [path for path, adding in changes if adding]
                removed = [path for path, adding in changes if not adding]
                stamps = self.stamps
                names = {p: stamps[p].names for p in added if p in stamps}
                resolver = cached[1].updated(added, removed, names)
            self._resolver = (version, resolver)
            return resolver

    def add_speakers(self, participants: Iterable[str]) -> None:
        self.speakers = self.speakers | frozenset(participants)

    def _load_speakers(self) -> frozenset[str]:
        found: set[str] = set()
        for rec in self.records.values():
            found.update(rec.participants)
        return frozenset(found)

    def mirror(self, upserts: list[NoteRecord], retired: list[int]) -> None:
        """Apply to the in-memory records what `Manifest.apply` just wrote: the records of the
        notes removed since the last commit go (`retired`, by id: a path removed and written
        again has a new id, so its old record goes too), the upserted ones take their place.

        By id, not by path: a map from path to id for this would be one more map per note.
        """
        records = self.records
        for nid in retired:
            records.pop(nid, None)
        for rec in upserts:
            records[rec.nid] = rec
