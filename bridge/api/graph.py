"""The vault's link graph and folder tree from the index manifest, cached per generation.

Built from what the index already knows (titles, statuses, raw link targets), so serving
`/tree`, `/graph` or a backlink list never re-reads the vault.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from bridge.core.paths import parent, stem
from bridge.core.relations import LinkResolver
from bridge.index.manifest import NoteRecord
from bridge.index.search_index import SearchIndex


@dataclass(frozen=True)
class GraphSnapshot:
    generation: int
    records: dict[str, NoteRecord]
    edges: list[tuple[str, str]]
    unresolved: int
    backlinks: dict[str, list[str]]
    resolver: LinkResolver


class GraphCache:
    """Recomputes the graph at most once per index generation."""

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self._lock = threading.Lock()
        self._snapshot: GraphSnapshot | None = None

    def snapshot(self) -> GraphSnapshot:
        generation = self.index.generation
        with self._lock:
            if self._snapshot is not None and self._snapshot.generation == generation:
                return self._snapshot
            records = {r.path: r for r in self.index.all_records()}
            resolver = self.index.link_resolver()
            edges: list[tuple[str, str]] = []
            backlinks: dict[str, list[str]] = {}
            unresolved = 0
            for path, rec in records.items():
                seen: set[str] = set()
                for target in rec.links:
                    resolved = resolver.resolve(target, path)
                    if resolved is None:
                        unresolved += 1
                    elif resolved != path and resolved not in seen:
                        seen.add(resolved)
                        edges.append((path, resolved))
                        backlinks.setdefault(resolved, []).append(path)
            self._snapshot = GraphSnapshot(
                generation, records, edges, unresolved, backlinks, resolver
            )
            return self._snapshot


def folder_tree(records: dict[str, NoteRecord], root: str, depth: int) -> dict[str, object]:
    """Nested folders and notes under `root`, `depth` levels deep, with note counts."""
    prefix = f"{root}/" if root else ""
    node: dict[str, object] = {"name": stem(root) if root else "", "path": root, "children": []}
    counts: dict[str, int] = {}
    for path in records:
        if not path.startswith(prefix):
            continue
        folder = parent(path)
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
            for path in sorted(p for p in records if parent(p) == folder):
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
