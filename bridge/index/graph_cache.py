"""The vault's link graph, kept current by each index commit's changed notes.

The API shows it (backlinks, unresolved links, the whole graph) and the ranker reads how many
notes link to each candidate. Rebuilt for each new generation, the graph made the first
question after every write pay a pass over the whole vault, and an agent curating writes
several times a second; so one graph per bridge follows the commits instead.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from bridge.core.link_graph import LinkGraph
from bridge.core.relations import LinkResolver
from bridge.index.manifest import NoteRecord
from bridge.index.search_index import SearchIndex


@dataclass(frozen=True)
class GraphSnapshot:
    """The whole graph at one generation, for the routes that show all of it."""

    generation: int
    records: dict[str, NoteRecord]
    edges: list[tuple[str, str]]
    unresolved: int
    backlinks: dict[str, list[str]]
    resolver: LinkResolver


# A batch this large (or a commit not heard) rebuilds the graph instead of updating it.
_REBUILD_FROM = 2_000


class GraphCache:
    """The link graph, updated by the notes each index commit changed.

    The index announces every commit with its changed paths; they wait here until someone
    asks, then only their links (and the links spelling a name that came or went) are
    resolved again (`LinkGraph`). A generation whose announcement was not heard yet, or a bulk
    change, rebuilds the graph whole, as before.
    """

    def __init__(self, index: SearchIndex, pages_by_reference: bool = False) -> None:
        """`pages_by_reference`: a link to a note that has no file is no broken link (a
        Logseq page exists from its first reference: `dialect.pages_by_reference`)."""
        self.index = index
        self._pages_by_reference = pages_by_reference
        self._lock = threading.Lock()
        self._graph = LinkGraph()
        self._built: int | None = None  # the generation the graph reflects
        self._heard = index.generation  # the last generation announced
        self._changed: set[str] = set()  # paths changed by commits since `_built`
        self._snapshot: GraphSnapshot | None = None
        index.add_commit_listener(self._committed)

    def _committed(self, generation: int, paths: list[str]) -> None:
        with self._lock:
            self._changed.update(paths)
            self._heard = generation

    def _current(self) -> int:
        """Bring the graph to the index's generation (call with the lock held)."""
        generation = self.index.generation
        if self._built == generation:
            return generation
        resolver = self.index.link_resolver()
        if self._built is None or self._heard != generation or len(self._changed) > _REBUILD_FROM:
            self._graph.build({r.path: r.links for r in self.index.all_records()}, resolver)
        else:
            changed: dict[str, tuple[str, ...] | None] = {}
            for path in self._changed:
                stamp = self.index.stamp(path)
                rec = None if stamp is None else self.index.records([stamp.nid]).get(stamp.nid)
                changed[path] = None if rec is None else tuple(rec.links)
            self._graph.update(changed, resolver)
        self._changed.clear()
        self._built = generation
        return generation

    def unresolved(self) -> int:
        """Links that resolve to no note, now."""
        with self._lock:
            self._current()
            return 0 if self._pages_by_reference else self._graph.unresolved

    def backlinks(self, path: str) -> list[str]:
        """The notes linking to `path`, now, sorted."""
        with self._lock:
            self._current()
            return self._graph.backlinks(path)

    def snapshot(self) -> GraphSnapshot:
        """All of it (records, edges, backlinks), made at most once per generation."""
        with self._lock:
            generation = self._current()
            if self._snapshot is None or self._snapshot.generation != generation:
                self._snapshot = GraphSnapshot(
                    generation,
                    {r.path: r for r in self.index.all_records()},
                    self._graph.edges(),
                    0 if self._pages_by_reference else self._graph.unresolved,
                    self._graph.all_backlinks(),
                    self.index.link_resolver(),
                )
            return self._snapshot

    def inbound_counts(self, paths: Iterable[str]) -> dict[str, int]:
        """How many notes link to each of `paths`, now (0 for a note nothing links to)."""
        with self._lock:
            self._current()
            return {path: self._graph.backlink_count(path) for path in paths}
