"""The tools of the tier 4 loop: search, read an entry, follow its relations, list a folder.

Each returns text for the model (never raises): a wrong path or an empty search is an answer the
model can act on. Results are cut to a size that keeps eight rounds inside a context window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bridge.core.dialect import tree_path
from bridge.core.paths import NOTE_SUFFIX, UnsafePathError, normalise_note_path, parent
from bridge.core.relations import LinkResolver, edges, wikilink_to_agent
from bridge.core.text import normalise_query
from bridge.index.analysis import query_terms
from bridge.llm.client import ToolCall
from bridge.llm.context import present_entry
from bridge.llm.prompts import excerpts_text
from bridge.query.engine import QueryEngine, normalise_scope
from bridge.vault.store import NoteError, VaultStore

MAX_RESULT_CHARS = 6000
LIST_LIMIT = 100


def _function(name: str, description: str, **params: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {k: {"type": "string", "description": v} for k, v in params.items()},
                "required": list(params),
            },
        },
    }


TOOL_SPECS: list[dict[str, Any]] = [
    _function("search", "Search the memory; returns excerpts under @path.md.", query="words"),
    _function("read_entry", "Read one note in full.", path="@domain/topic/entry.md"),
    _function(
        "follow_relations", "The notes an entry links to, with reasons.", path="@a/b/entry.md"
    ),
    _function("list_folder", "Notes and sub-folders of a folder ('' is the root).", folder="a/b"),
]


def _cut(text: str) -> str:
    return text if len(text) <= MAX_RESULT_CHARS else text[:MAX_RESULT_CHARS] + "\n[... cut]"


class MemoryTools:
    """The tool implementations over one vault's engine and store."""

    def __init__(self, engine: QueryEngine, store: VaultStore) -> None:
        self.engine = engine
        self.store = store

    def resolver(self) -> LinkResolver:
        return self.engine.index.link_resolver()

    def call(self, call: ToolCall) -> str:
        """Run one tool call and return its text result."""
        handlers: dict[str, Callable[[dict[str, Any]], str]] = {
            "search": lambda a: self.search(str(a.get("query", ""))),
            "read_entry": lambda a: self.read_entry(str(a.get("path", ""))),
            "follow_relations": lambda a: self.follow_relations(str(a.get("path", ""))),
            "list_folder": lambda a: self.list_folder(str(a.get("folder", ""))),
        }
        handler = handlers.get(call.name)
        if handler is None:
            return f"unknown tool `{call.name}`; the tools are {', '.join(handlers)}"
        try:
            return _cut(handler(call.args()))
        except Exception as exc:  # a tool must answer, not crash the loop
            return f"{call.name} failed: {exc}"

    def search(self, query: str) -> str:
        terms = query_terms(normalise_query(query))
        if terms.empty:
            return "the query has no searchable words"
        # With the words as asked: the model's own searches find by meaning too, as a
        # person's question does (the dense channel, and a language's own word forms).
        found = self.engine.retrieve(terms, budget=600, limit=8, text=query)
        return excerpts_text(found.sources) if found.sources else "nothing found"

    def _path(self, path: str) -> str | None:
        try:
            wanted = normalise_note_path(path)
        except UnsafePathError:
            return None
        return self.resolver().resolve(wanted[:-3]) or wanted

    def read_entry(self, path: str) -> str:
        found = self._path(path)
        if found is None:
            return f"`{path}` is not a note path"
        entry = present_entry(self.store, found, self.resolver())
        return entry.text if entry else f"no note at @{found}"

    def follow_relations(self, path: str) -> str:
        found = self._path(path)
        if found is None:
            return f"`{path}` is not a note path"
        try:
            note = self.store.read(found).parse()
        except NoteError:
            return f"no note at @{found}"
        resolver = self.resolver()
        resolved, unresolved = resolver.resolve_all(note.links, found)
        lines = [
            f"- {wikilink_to_agent(target)}" + (f" - {reason}" if reason else "")
            for target, reason in edges(resolved, found).items()
        ]
        lines += [f"- [[{link.target}]] (no such note)" for link in unresolved]
        return "\n".join(lines) if lines else f"@{found} has no relations"

    def list_folder(self, folder: str) -> str:
        try:
            scope = normalise_scope(folder.lstrip("@"))
        except ValueError as exc:
            return str(exc)
        prefix = f"{scope}/" if scope else ""
        notes, folders = [], set()
        dialect = self.store.dialect  # its tree: folders, namespaces or dotted names
        for path in self.engine.index.paths():
            place = tree_path(dialect, path) + NOTE_SUFFIX
            if not place.startswith(prefix):
                continue
            rest = place[len(prefix) :]
            if "/" in rest:
                folders.add(rest.split("/", 1)[0] + "/")
            elif parent(place) == (scope or ""):
                notes.append(f"@{path}")
        items = sorted(folders) + sorted(notes)
        if not items:
            return f"the folder `{folder}` is empty or does not exist"
        more = f"\n... and {len(items) - LIST_LIMIT} more" if len(items) > LIST_LIMIT else ""
        return "\n".join(items[:LIST_LIMIT]) + more
