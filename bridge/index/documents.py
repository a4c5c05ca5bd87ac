"""Turning a parsed note into index documents: one entry, and one block and window per block."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

import tantivy

from bridge.core.dialect import tree_folders
from bridge.core.entry import METADATA_SECTIONS, Note
from bridge.core.language import declared, folder_language, language_code
from bridge.core.markdown import excerpt_text
from bridge.core.overview import in_region, without_region
from bridge.core.paths import link_target
from bridge.core.relations import link_display_text
from bridge.core.text import spaced_bigrams, word_count
from bridge.index.analysis import STEMMERS, with_stems
from bridge.index.schema import (
    BLOCK_FIELD,
    FLAG_METADATA,
    HEADING_FIELD,
    STEMS_FIELD,
    WINDOW_FIELD,
    block_key,
    build_schema,
    speaker_id,
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
    """The note's retrievable units, in order. The summary (or another description: Logseq's
    `description::`, Dendron's `desc`) comes first: it is the best excerpt of a note that has
    one."""
    people = participants_of(note)
    blocks: list[IndexedBlock] = []
    if note.description:
        blocks.append(IndexedBlock(0, note.description, None, None, SUMMARY_HEADING, None))
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


def stem_language(note: Note) -> str | None:
    """The language whose stems a note is indexed with: its frontmatter `lang` (or
    `language`), else the language code its top folder is named by (`de/Sync.md`), when
    tantivy has its stemmer.

    No detection: indexing stays as fast as before, and a note wrongly taken for Italian (an
    `it/` folder of IT notes) only gains stems beside its words, which English questions do
    not search.
    """
    lang = language_code(declared(note.frontmatter)) or folder_language(note.path)
    return lang if lang in STEMMERS else None


def content_key(note: Note) -> bytes:
    """A fingerprint of everything a note's documents are built from (not its `status`).

    The documents are a function of the path, title, aliases, description, tags, transcript
    participants, the line the body starts on, the body's text and the language it is stemmed
    in, so those are hashed; two versions of a note with the same key have the same documents, and
    re-indexing the second can skip tantivy altogether. A 16-byte digest (hex in the files):
    every note's key is held in memory.
    """
    entry = note.entry
    parts = [
        note.path,
        note.title,
        "\x01".join(note.aliases),
        note.description,
        " ".join(entry.tags),
        " ".join(sorted(participants_of(note))),
        str(note.body_line),
        note.body,
        stem_language(note) or "",
    ]
    return hashlib.blake2b("\x00".join(parts).encode(), digest_size=16).digest()


def excerpt_words(text: str) -> int:
    """The words a block costs in an answer's budget: its excerpt's, as a reader counts them."""
    return word_count(excerpt_text(text))


def title_text(note: Note) -> str:
    """What the title field holds: the title and the aliases, which are found as the title is
    (`[[login sessions]]` names the page as much as its title does)."""
    return "\n".join(dict.fromkeys([note.title, *note.aliases]))


@lru_cache(maxsize=1)
def _schema() -> tantivy.Schema:
    return build_schema()  # documents are made against it (field types)


def _clip(value: str) -> str:
    return value if len(value) <= _MAX_FIELD_CHARS else value[:_MAX_FIELD_CHARS]


def _section_flags(heading: str) -> int:
    section = heading.rsplit(" > ", 1)[-1].strip().lower()
    return FLAG_METADATA if section in METADATA_SECTIONS else 0


@dataclass(frozen=True)
class NoteDocuments:
    """A note's documents, by kind: each kind lives in its own tantivy index."""

    entry: tantivy.Document
    blocks: list[tantivy.Document]
    windows: list[tantivy.Document]


def build_documents(nid: int, note: Note, blocks: list[IndexedBlock]) -> NoteDocuments:
    """Entry document, and one block and one window document (a block with its two
    neighbours) per block.

    Empty and `None` values are left out, `flags` only when set. This is the indexing hot path
    (a document per block, twice): each document is made in one call from a dict. Nothing is
    stored: a block's text and position live in the block store (`bridge.index.block_store`).
    """
    schema = _schema()
    make = tantivy.Document.from_dict
    entry = note.entry
    path = note.path
    # The tree's levels: folders, or a dialect's namespaces and dotted names (a scope of
    # `proj/auth` finds `proj.auth.jwt.md`).
    folders = list(tree_folders(note.dialect, path))
    body = link_display_text(without_region(note.body))
    # Notes at the vault's root have no folder: the field is left out, not given as empty.
    base: dict[str, object] = {"folder": folders, "path": path} if folders else {"path": path}
    fields = {**base, "nid": nid, "ord": 0}
    lang = stem_language(note)
    if lang is not None:
        fields[STEMS_FIELD] = lang
    for name, value in (
        ("title", title_text(note)),
        ("path_text", link_target(path).replace("/", " ").replace("_", " ")),
        ("tags", " ".join(entry.tags)),
        ("summary", note.description),
        ("body", body),
    ):
        if value:
            fields[name] = _clip(spaced_bigrams(with_stems(_clip(value), lang)))
    out = NoteDocuments(make(fields, schema), [], [])
    # Links as a reader sees them, not their paths, are what a block is found by.
    # Chinese, Japanese, Thai... runs as their character pairs (`spaced_bigrams`). A window
    # joins its texts with newlines, which never touch a run or change under NFKC.
    # A note in a language with a stemmer carries its words' stems too (`with_stems`).
    texts = [spaced_bigrams(with_stems(_clip(link_display_text(b.text)), lang)) for b in blocks]
    flags_of: dict[str, int] = {}  # heading -> flags: one per section
    # The overview region describes other notes, as a Relations section does (`in_region`).
    region = in_region([b.text for b in blocks])
    for i, block in enumerate(blocks):
        ord_ = block.ord
        flags = flags_of.get(block.heading)
        if flags is None:
            flags = flags_of[block.heading] = _section_flags(block.heading)
        if region[i]:
            flags |= FLAG_METADATA
        words = excerpt_words(block.text)
        fields = {**base, "key": block_key(nid, ord_), "nid": nid, "ord": ord_, "words": words}
        if flags:
            fields["flags"] = flags
        if block.heading:
            fields[HEADING_FIELD] = spaced_bigrams(block.heading)
        said = speaker_id(block.speaker) if block.speaker else 0
        if said:
            fields["speaker"] = said
        if texts[i]:
            fields[BLOCK_FIELD] = _clip(texts[i])
        out.blocks.append(make(fields, schema))
        lo, hi = max(0, i - 1), i + 2
        fields = {**base, "nid": nid, "ord": ord_, "words": words}
        if said:
            fields["speaker"] = said
        window = "\n".join(texts[lo:hi])
        if window:
            fields[WINDOW_FIELD] = _clip(window)
        out.windows.append(make(fields, schema))
    return out
