"""MERGE: the content of the merged entry, built from the target and the entries folded in.

The target's own text wins (its relations, its lines); each source adds what the target lacks:
relations to other entries, its narrative and snippets, and its Raw Concept `Source`, so the
provenance of every merged entry is kept. A `Merged from` line records what was folded in.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import Protocol

from bridge.core import frontmatter as fm
from bridge.core.dialect import Logseq
from bridge.core.entry import Entry, Note, RawConcept, Relation, Snippet
from bridge.core.entry_edit import EntryPatch, RelationLine, relation_key
from bridge.core.logseq import outline_markdown
from bridge.core.operations import Operation
from bridge.core.relations import LinkResolver, LinkSyntax, WikiLink, parse_wikilink
from bridge.vault.store import NoteFile


class MergeContext(Protocol):
    """What a merge needs of the one planning it (`curate.plan.Planner` is one).

    Declared here so that the planner imports the merge and not the other way round.
    """

    @property
    def author(self) -> str: ...

    @property
    def now(self) -> dt.datetime: ...

    @property
    def draft_status(self) -> str: ...

    def key_for(self, source: str) -> Callable[[str], str]: ...

    def resolver(self) -> LinkResolver: ...

    def raw_lines(self, op: Operation) -> tuple[tuple[str, str], ...]: ...

    @property
    def syntax(self) -> LinkSyntax: ...

    def relation_lines(self, op: Operation, source: str) -> tuple[RelationLine, ...]: ...

    def spelled_path(self, path: str) -> str: ...

    def patched(
        self, text: str, patch: EntryPatch, key: Callable[[str], str], path: str
    ) -> str: ...

    def rendered(self, entry: Entry, path: str) -> bytes: ...


def merged_content(
    planner: MergeContext,
    op: Operation,
    current: NoteFile | None,
    target: Note | None,
    sources: list[tuple[NoteFile, Note]],
    gone: set[str],
) -> bytes:
    """The bytes of `op.path` after folding `sources` into it (a new entry if it is missing)."""
    notes = [n for _, n in sources]
    entries = [target.entry] if target else []
    entries += [n.entry for n in notes]
    relations = list(planner.relation_lines(op, op.path))
    syntax = planner.syntax
    key = planner.key_for(op.path)
    # The target's own relations win: a source only adds targets the entry lacks.
    known = {key(r.target) for r in relations}
    if target is not None:
        known |= {key(link.target) for link in target.links if link.origin == "relations"}
    for note in notes:
        for link in note.links:
            if link.origin != "relations":
                continue
            resolved = planner.resolver().resolve(link.target, note.path)
            if resolved in gone or resolved == op.path:
                continue
            spelled = planner.spelled_path(resolved) if resolved else link.target
            inner = WikiLink(spelled, link.heading, link.block, link.alias, syntax=syntax)
            text = inner.render()[2:-2]
            if key(text) not in known:
                known.add(key(text))
                relations.append(RelationLine(text, link.reason, syntax))
    source_list = [e.raw_concept.source for e in entries if e.raw_concept.source]
    raw = [
        *planner.raw_lines(op),
        ("Source", "; ".join(dict.fromkeys(source_list))),
        ("Merged from", ", ".join(f"@{p}" for p in op.merge_from)),
        ("Author", f"{planner.author}, {fm.format_scalar(planner.now)}"),
    ]
    raw_lines = tuple(dict((k, v) for k, v in raw if v).items())
    narrative = op.narrative
    if narrative is None:
        parts = [target.entry.narrative] if target else []
        parts += [_narrative_of(n) for n in notes]
        kept: list[str] = []
        for part in parts:
            if part.strip() and not any(part.strip() in k for k in kept):
                kept.append(part.strip())
        narrative = "\n\n".join(kept)
    snippets = [(s.language, s.code) for s in op.snippets or ()]
    if op.snippets is None:
        seen: set[str] = set()
        for entry in entries:
            for snippet in entry.snippets:
                if snippet.code not in seen:
                    seen.add(snippet.code)
                    snippets.append((snippet.language, snippet.code))
    tags = (
        op.tags if op.tags is not None else list(dict.fromkeys(t for e in entries for t in e.tags))
    )
    if current is None or target is None:
        first = notes[0].entry
        entry = Entry(
            title=op.title or first.title,
            summary=op.summary or first.summary,
            tags=tuple(tags),
            status=planner.draft_status,
            created=planner.now,
            updated=planner.now,
            author=planner.author,
            relations=tuple(
                relation_of(r.target, r.reason, syntax) for r in _dedupe(relations, syntax)
            ),
            raw_concept=RawConcept(extra=raw_lines),
            narrative=narrative,
            snippets=tuple(Snippet(lang, code) for lang, code in snippets),
        )
        return planner.rendered(entry, op.path)
    patch = EntryPatch(
        title=op.title,
        summary=op.summary,
        tags=tuple(tags) if list(tags) != list(target.entry.tags) else None,
        relations=tuple(relations),
        raw_concept=raw_lines,
        narrative=narrative if narrative != target.entry.narrative else None,
        snippets=tuple(snippets) if list(snippets) != _snippet_pairs(target.entry) else None,
        updated=planner.now,
        author=planner.author,
    )
    return planner.patched(current.text, patch, key, op.path).encode("utf-8")


def _dedupe(relations: Iterable[RelationLine], syntax: LinkSyntax) -> list[RelationLine]:
    seen: dict[str, RelationLine] = {}
    for relation in relations:
        target = parse_wikilink(relation.target, syntax=syntax).target
        seen.setdefault(relation_key(target), relation)
    return list(seen.values())


def _snippet_pairs(entry: Entry) -> list[tuple[str, str]]:
    return [(s.language, s.code) for s in entry.snippets]


def _narrative_of(note: Note) -> str:
    """An entry's Narrative; for a plain note (no entry sections) its body without the H1
    (a Logseq page's outline as paragraphs, which the merged page writes as its blocks)."""
    if note.is_entry:
        return note.entry.narrative
    if isinstance(note.dialect, Logseq):
        return outline_markdown(note.body.split("\n"))
    lines = note.body.split("\n")
    h1 = next((h for h in note.headings if h.level == 1), None)
    if h1 is not None:
        lines.pop(h1.line)
    return "\n".join(lines).strip()


def relation_of(target: str, reason: str | None, syntax: LinkSyntax = "obsidian") -> Relation:
    link = parse_wikilink(target, syntax=syntax)
    return Relation(link.target, reason, link.alias, link.heading, link.block)
