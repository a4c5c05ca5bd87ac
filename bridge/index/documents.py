"""Turning a parsed note into index documents: one entry, and one block and window per block."""

from __future__ import annotations

import hashlib
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
    FLAG_METADATA,
    METADATA_SECTIONS,
    WINDOW_CJK,
    WINDOW_FIELD,
    block_key,
)

_MAX_FIELD_CHARS = 2_000_000  # a pathological note must not blow up one document


SUMMARY_HEADING = "summary"  # the heading of the block that holds the frontmatter summary


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
        section = self.heading.rsplit(" > ", 1)[-1].strip().lower()
        return FLAG_METADATA if section in METADATA_SECTIONS else 0


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
        blocks.append(IndexedBlock(0, note.entry.summary, None, None, SUMMARY_HEADING, None))
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


def content_key(note: Note, blocks: list[IndexedBlock]) -> str:
    """A fingerprint of everything a note's documents are built from (not its `status`).

    Two versions of a note with the same key have the same documents, so re-indexing the
    second can skip tantivy altogether.
    """
    parts = [
        note.path,
        note.title,
        note.entry.summary,
        " ".join(note.entry.tags),
        link_display_text(note.body),
        json.dumps([(b.text, b.line, b.block_id, b.heading, b.speaker) for b in blocks]),
    ]
    return hashlib.blake2b("\x00".join(parts).encode(), digest_size=16).hexdigest()


def _searchable(block: IndexedBlock) -> str:
    """The words a block is found by: links as a reader sees them, not their paths."""
    return link_display_text(block.text)


def folders_of(path: str) -> list[str]:
    """Every ancestor folder of a note path: `a/b/c.md` -> `a`, `a/b`."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _bigrams(text: str) -> list[str]:
    """`cjk_bigrams`, skipping the Unicode work for pure-ASCII text (which has none)."""
    return [] if text.isascii() else cjk_bigrams(text)


def _add_text(doc: tantivy.Document, name: str, value: str | None) -> None:
    if value:
        doc.add_text(name, value[:_MAX_FIELD_CHARS])


def _new_doc(folders: list[str], path: str) -> tantivy.Document:
    """A document with the fields every kind starts with: its folders and its path."""
    doc = tantivy.Document()
    for folder in folders:
        doc.add_text("folder", folder)
    _add_text(doc, "path", path)
    return doc


# Meta is encoded once per block: one encoder, not a new one per `json.dumps` call.
_encode_meta = json.JSONEncoder(ensure_ascii=False).encode


@dataclass(frozen=True)
class NoteDocuments:
    """A note's documents, by kind: each kind lives in its own tantivy index."""

    entry: tantivy.Document
    blocks: list[tantivy.Document]
    windows: list[tantivy.Document]


def build_documents(nid: int, note: Note, blocks: list[IndexedBlock]) -> NoteDocuments:
    """Entry document, and one block and one window document (a block with its two
    neighbours) per block.

    Field order and values are those of one generic builder (empty and `None` values are left
    out, `flags` only when set); this is the indexing hot path, so each kind is built directly.
    """
    entry = note.entry
    body = link_display_text(note.body)
    folders = folders_of(note.path)
    path = note.path
    doc = _new_doc(folders, path)
    doc.add_unsigned("nid", nid)
    doc.add_unsigned("ord", 0)
    _add_text(doc, "title", note.title)
    _add_text(doc, "path_text", link_target(path).replace("/", " ").replace("_", " "))
    _add_text(doc, "tags", " ".join(entry.tags))
    _add_text(doc, "summary", entry.summary)
    _add_text(doc, "body", body)
    _add_text(doc, ENTRY_CJK, " ".join(_bigrams(f"{note.title} {entry.summary} {body}")))
    out = NoteDocuments(doc, [], [])
    texts = [_searchable(b) for b in blocks]
    # A window joins its texts with newlines, which never touch a CJK run or change under
    # NFKC, so its bigrams are its blocks' bigrams in order.
    grams = [_bigrams(text) for text in texts]
    for i, block in enumerate(blocks):
        meta = {"t": block.text, "l": block.line, "id": block.block_id, "h": block.heading}
        doc = _new_doc(folders, path)
        doc.add_text("key", block_key(nid, block.ord))
        doc.add_unsigned("nid", nid)
        doc.add_unsigned("ord", block.ord)
        flags = block.flags
        if flags:
            doc.add_unsigned("flags", flags)
        _add_text(doc, "speaker", block.speaker)
        doc.add_bytes("meta", _encode_meta(meta).encode())
        _add_text(doc, BLOCK_FIELD, texts[i])
        _add_text(doc, BLOCK_CJK, " ".join(grams[i]))
        out.blocks.append(doc)
        lo, hi = max(0, i - 1), i + 2
        doc = _new_doc(folders, path)
        doc.add_unsigned("nid", nid)
        doc.add_unsigned("ord", block.ord)
        _add_text(doc, WINDOW_FIELD, "\n".join(texts[lo:hi]))
        _add_text(doc, WINDOW_CJK, " ".join(g for part in grams[lo:hi] for g in part))
        out.windows.append(doc)
    return out
