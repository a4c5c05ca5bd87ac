"""A folder of the tree as Markdown, from the `/v1/tree` document (pure).

A thin rendering of whatever the tree response holds: folders with their note counts, notes
with title and status, and a note's `summary` or a folder's `summary` when the response carries
them. It reads the JSON shape, not a Python type, so the MCP tool shows the same thing whether
the tree came from this process or from a running bridge over HTTP.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TREE_MAX_LINES = 300
SUMMARY_CHARS = 140


def _is_note(node: Mapping[str, Any]) -> bool:
    return str(node.get("path", "")).lower().endswith(".md")


def _summary(node: Mapping[str, Any]) -> str:
    text = " ".join(str(node.get("summary") or "").split())
    if len(text) > SUMMARY_CHARS:
        text = text[: SUMMARY_CHARS - 1].rstrip() + "…"
    return f": {text}" if text else ""


def _count(n: int) -> str:
    return f"{n} note" if n == 1 else f"{n} notes"


def render_tree(tree: Mapping[str, Any], max_lines: int = TREE_MAX_LINES) -> str:
    """The folder `tree` as an indented list; cut at `max_lines` with a line that says so."""
    root = str(tree.get("path") or "")
    title = f"`{root}/`" if root else "the vault"
    lines = [f"# Folder {title}: {_count(int(tree.get('notes') or 0))}{_summary(tree)}", ""]
    shown = 0
    cut = 0

    def walk(node: Mapping[str, Any], level: int) -> None:
        nonlocal shown, cut
        for child in node.get("children") or []:
            if shown >= max_lines:
                cut += 1
                continue
            pad = "  " * level
            if _is_note(child):
                status = f" ({child['status']})" if child.get("status") else ""
                name = child.get("title") or child.get("name")
                lines.append(f"{pad}- {name} `{child['path']}`{status}{_summary(child)}")
                shown += 1
                continue
            notes = int(child.get("notes") or 0)
            closed = "" if child.get("children") else " (open it with memory_tree)"
            lines.append(f"{pad}- `{child.get('name')}/` {_count(notes)}{closed}{_summary(child)}")
            shown += 1
            walk(child, level + 1)

    walk(tree, 0)
    if shown == 0:
        lines.append("(no notes here)")
    if cut:
        lines.append(f"- ... {cut} more items not shown; open a subfolder with memory_tree(folder)")
    lines += _overview(tree.get("overview"))
    return "\n".join(lines) + "\n"


def _overview(overview: object) -> list[str]:
    """The folder's own notes with their summaries (`bridge.overviews`), after the outline."""
    if not isinstance(overview, Mapping):
        return []
    entries = [e for e in overview.get("entries") or [] if isinstance(e, Mapping)]
    if not entries:
        return []
    lines = ["", "## Notes directly in this folder"]
    for entry in entries[:TREE_MAX_LINES]:
        status = f" ({entry['status']})" if entry.get("status") else ""
        summary = f": {entry['summary']}" if entry.get("summary") else ""
        lines.append(f"- {entry.get('title')} `{entry.get('path')}`{status}{summary}")
    return lines
