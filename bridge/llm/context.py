"""What a curating model is shown besides the content: the tree outline and related entries.

The outline (folders with their entry titles) lets the model put new knowledge where it belongs
instead of inventing a parallel tree; related entries (with their base hashes and relations as
`@path.md`) let it UPDATE or MERGE instead of adding duplicates.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from bridge.core.dialect import OBSIDIAN, Dialect, tree_parent
from bridge.core.relations import LinkResolver, edges, wikilink_to_agent
from bridge.core.text import normalise_query
from bridge.index.analysis import query_terms
from bridge.index.search_index import SearchIndex
from bridge.query.engine import QueryEngine
from bridge.vault.store import NoteError, VaultStore

OUTLINE_MAX_LINES = 200
TITLES_PER_FOLDER = 12
RELATED_LIMIT = 6
NOTE_CHARS = 1500
QUERY_CHARS = 4000


@dataclass(frozen=True)
class RelatedEntry:
    """An entry near the content, as the model sees it."""

    path: str
    base_hash: str
    text: str


@dataclass(frozen=True)
class CurationContext:
    """The outline and the related entries, rendered for a prompt."""

    outline: str
    related: tuple[RelatedEntry, ...]

    def related_text(self) -> str:
        if not self.related:
            return "(no related entries found)"
        return "\n\n".join(r.text for r in self.related)


def tree_outline(
    index: SearchIndex, max_lines: int = OUTLINE_MAX_LINES, dialect: Dialect = OBSIDIAN
) -> str:
    """Folders (indented) with the titles of their notes; cut at `max_lines` for huge vaults.

    The folders are the tree's levels in the vault's dialect (a Dendron vault's dotted names,
    a Logseq graph's namespaces)."""
    paths = index.paths()
    stamps = {p: index.stamp(p) for p in paths}
    records = index.records([s.nid for s in stamps.values() if s is not None])
    titles: dict[str, list[str]] = defaultdict(list)
    for path, stamp in stamps.items():
        rec = records.get(stamp.nid) if stamp is not None else None
        titles[tree_parent(dialect, path)].append(f"{rec.title if rec else path} (@{path})")
    folders = set()
    for folder in titles:
        parts = folder.split("/") if folder else []
        for depth in range(1, len(parts) + 1):
            folders.add("/".join(parts[:depth]))
    lines: list[str] = []
    for folder in sorted(folders | ({""} if "" in titles else set())):
        depth = folder.count("/") + 1 if folder else 0
        if folder:
            lines.append(f"{'  ' * (depth - 1)}{folder.rsplit('/', 1)[-1]}/")
        names = sorted(titles.get(folder, []))
        shown = names[:TITLES_PER_FOLDER]
        lines += [f"{'  ' * depth}- {name}" for name in shown]
        if len(names) > len(shown):
            lines.append(f"{'  ' * depth}- ... and {len(names) - len(shown)} more")
        if len(lines) >= max_lines:
            lines = lines[:max_lines]
            lines.append(f"... (outline cut at {max_lines} lines)")
            break
    return "\n".join(lines) if lines else "(the vault is empty)"


def present_entry(store: VaultStore, path: str, resolver: LinkResolver) -> RelatedEntry | None:
    """One note for a model: path, base hash, relations as `@path.md`, and its text."""
    try:
        file = store.read(path)
    except NoteError:
        return None
    note = file.parse()
    resolved, _ = resolver.resolve_all(note.links, path)
    relations = edges(resolved, path)
    lines = [f"### @{path}", f"base_hash: {file.hash}", f"title: {note.title}"]
    if note.entry.summary:
        lines.append(f"summary: {note.entry.summary}")
    if note.entry.status:
        lines.append(f"status: {note.entry.status}")
    if relations:
        shown = [f"{wikilink_to_agent(t)}" + (f" - {r}" if r else "") for t, r in relations.items()]
        lines.append("relations: " + "; ".join(shown))
    body = note.body.strip()
    if len(body) > NOTE_CHARS:
        body = body[:NOTE_CHARS].rstrip() + "\n[... cut]"
    lines += ["", body]
    return RelatedEntry(path, file.hash, "\n".join(lines))


def related_entries(
    engine: QueryEngine, store: VaultStore, content: str, limit: int = RELATED_LIMIT
) -> tuple[RelatedEntry, ...]:
    """The entries the index finds nearest to `content`.

    Uses `retrieve`, not `search`: looking for context is not a use of those notes, so it must
    not add access bonuses to their importance.
    """
    text = content[:QUERY_CHARS]
    terms = query_terms(normalise_query(text))
    # The text too: a note that says the same in other words is what curation must see
    # (an UPDATE, not a second note); the encoder reads the text's first passage's worth.
    found = engine.retrieve(terms, budget=200, limit=limit, text=text)
    resolver = engine.index.link_resolver()
    out = []
    for source in found.sources[:limit]:
        entry = present_entry(store, source.path, resolver)
        if entry is not None:
            out.append(entry)
    return tuple(out)


def build_context(engine: QueryEngine, store: VaultStore, content: str) -> CurationContext:
    """Outline and related entries for curating `content`."""
    outline = tree_outline(engine.index, dialect=store.dialect)
    return CurationContext(outline, related_entries(engine, store, content))
