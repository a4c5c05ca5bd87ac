"""Turning a parsed note into index documents: one entry, and one block and window per block."""

from __future__ import annotations

import json
from dataclasses import dataclass

import tantivy

from bridge.core.entry import Note
from bridge.core.paths import link_target
from bridge.core.relations import link_display_text
from bridge.core.text import cjk_bigrams
from bridge.index.schema import (
    BLOCK_CJK,
    BLOCK_FIELD,
    ENTRY_CJK,
    FLAG_RELATIONS,
    WINDOW_CJK,
    WINDOW_FIELD,
    block_key,
)

_MAX_FIELD_CHARS = 2_000_000  # a pathological note must not blow up one document


@dataclass(frozen=True)
class IndexedBlock:
    """A block as indexed and returned: its text and where it is in the note."""

    ord: int
    text: str
    line: int | None
    block_id: str | None
    heading: str
    speaker: str | None

    @property
    def flags(self) -> int:
        in_relations = self.heading.rsplit(" > ", 1)[-1].strip().lower() == "relations"
        return FLAG_RELATIONS if in_relations else 0


def speaker_of(text: str, participants: frozenset[str]) -> str | None:
    """The speaker of a transcript turn (`- Name: words`), if `Name` is a participant."""
    head, sep, _ = text.lstrip("-*+ ").partition(":")
    name = head.strip().strip("*").strip()
    return name.lower() if sep and name.lower() in participants else None


def participants_of(note: Note) -> frozenset[str]:
    """Speakers listed in a transcript note's `participants` frontmatter (lower case)."""
    value = note.frontmatter.get("participants")
    if isinstance(value, list):
        return frozenset(str(v).strip().lower() for v in value if str(v).strip())
    return frozenset()


def note_blocks(note: Note) -> list[IndexedBlock]:
    """The note's retrievable units, in order. The summary comes first: it is the best excerpt
    of a note that has one."""
    people = participants_of(note)
    blocks: list[IndexedBlock] = []
    if note.entry.summary:
        blocks.append(IndexedBlock(0, note.entry.summary, None, None, "summary", None))
    for block in note.blocks:
        blocks.append(
            IndexedBlock(
                len(blocks),
                block.text,
                note.body_line + block.start_line,
                block.block_id,
                " > ".join(block.heading_path),
                speaker_of(block.text, people) if people else None,
            )
        )
    return blocks


def _searchable(block: IndexedBlock) -> str:
    """The words a block is found by: links as a reader sees them, not their paths."""
    return link_display_text(block.text)


def folders_of(path: str) -> list[str]:
    """Every ancestor folder of a note path: `a/b/c.md` -> `a`, `a/b`."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _text_doc(folders: list[str], **fields: object) -> tantivy.Document:
    doc = tantivy.Document()
    for folder in folders:
        doc.add_text("folder", folder)
    for name, value in fields.items():
        if value is None or value == "" or (name == "flags" and value == 0):
            continue
        if isinstance(value, int) and name in {"nid", "ord", "flags"}:
            doc.add_unsigned(name, value)
        elif isinstance(value, bytes):
            doc.add_bytes(name, value)
        else:
            doc.add_text(name, str(value)[:_MAX_FIELD_CHARS])
    return doc


def build_documents(nid: int, note: Note, blocks: list[IndexedBlock]) -> list[tantivy.Document]:
    """Entry document, then block and window documents (a block with its two neighbours)."""
    entry = note.entry
    body = link_display_text(note.body)
    folders = folders_of(note.path)
    docs = [
        _text_doc(
            folders,
            path=note.path,
            nid=nid,
            ord=0,
            title=note.title,
            path_text=link_target(note.path).replace("/", " ").replace("_", " "),
            tags=" ".join(entry.tags),
            summary=entry.summary,
            body=body,
            **{ENTRY_CJK: " ".join(cjk_bigrams(f"{note.title} {entry.summary} {body}"))},
        )
    ]
    texts = [_searchable(b) for b in blocks]
    for i, block in enumerate(blocks):
        meta = {"t": block.text, "l": block.line, "id": block.block_id, "h": block.heading}
        docs.append(
            _text_doc(
                folders,
                path=note.path,
                key=block_key(nid, block.ord),
                nid=nid,
                ord=block.ord,
                flags=block.flags,
                speaker=block.speaker,
                meta=json.dumps(meta, ensure_ascii=False).encode(),
                **{BLOCK_FIELD: texts[i], BLOCK_CJK: " ".join(cjk_bigrams(texts[i]))},
            )
        )
        window = "\n".join(texts[max(0, i - 1) : i + 2])
        docs.append(
            _text_doc(
                folders,
                path=note.path,
                nid=nid,
                ord=block.ord,
                **{WINDOW_FIELD: window, WINDOW_CJK: " ".join(cjk_bigrams(window))},
            )
        )
    return docs
