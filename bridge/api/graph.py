"""The vault's link graph and folder tree from the index manifest, kept per generation.

Built from what the index already knows (titles, statuses, raw link targets), so serving
`/tree`, `/graph` or a backlink list never re-reads the vault.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from bridge.core.link_graph import LinkGraph
from bridge.core.paths import link_target, parent, stem
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


def folder_tree(
    records: dict[str, NoteRecord],
    root: str,
    depth: int,
    tree_of: Callable[[str], str] | None = None,
) -> dict[str, object]:
    """Nested folders and notes under `root`, `depth` levels deep, with note counts.

    `tree_of` gives a note's place in the tree (`dialect.tree_path`) where the vault's
    dialect builds it from names, not folders; a note is still listed by its file's path.
    """
    places = {p: tree_of(p) if tree_of else link_target(p) for p in records}
    prefix = f"{root}/" if root else ""
    node: dict[str, object] = {"name": stem(root) if root else "", "path": root, "children": []}
    counts: dict[str, int] = {}
    for path in records:
        if not places[path].startswith(prefix):
            continue
        folder = parent(places[path])
        while True:
            counts[folder] = counts.get(folder, 0) + 1
            if folder == root or not folder:
                break
            folder = parent(folder)

    def build(folder: str, level: int) -> dict[str, object]:
        children: list[dict[str, object]] = []
        if level < depth:
            subfolders = sorted(f for f in counts if f and parent(f) == folder and f != folder)
            for sub in subfolders:
                children.append(build(sub, level + 1))
            for path in sorted(p for p in records if parent(places[p]) == folder):
                rec = records[path]
                children.append(
                    {
                        "name": path.rsplit("/", 1)[-1],
                        "path": path,
                        "title": rec.title,
                        "status": rec.status,
                        "children": [],
                        "notes": 0,
                    }
                )
        name = folder.rsplit("/", 1)[-1] if folder else ""
        return {"name": name, "path": folder, "children": children, "notes": counts.get(folder, 0)}

    tree = build(root, 0)
    tree["name"] = node["name"]
    return tree
