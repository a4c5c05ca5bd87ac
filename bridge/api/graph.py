"""The vault's folder tree from the index manifest (the link graph is
`bridge.index.graph_cache`).

Built from what the index already knows (titles and paths), so serving `/tree` never re-reads
the vault.
"""

from __future__ import annotations

from collections.abc import Callable

from bridge.core.paths import link_target, parent, stem
from bridge.index.manifest import NoteRecord


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
