"""Notes related by meaning: "more like this note" (`GET /v1/similar/{path}`, MCP
`memory_related`, the plugin's "Related in memory" panel), and the near-duplicate check."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.core.overview import is_index_note
from bridge.index.search_index import SearchIndex
from bridge.semantic.service import SemanticIndex


@dataclass(frozen=True)
class Related:
    """A note like the asked one, with the cosine of its best passage to it."""

    path: str
    title: str
    status: str | None
    score: float


@dataclass(frozen=True)
class RelatedNotes:
    """The answer: the notes, and why there are none when there are none."""

    path: str
    notes: list[Related]
    reason: str | None  # None when the note has vectors


_SPARE = 16  # more asked for, as folder overviews are left out


class UnknownNoteError(LookupError):
    """The path names no indexed note."""


def related_notes(
    index: SearchIndex, semantic: SemanticIndex, path: str, limit: int = 10
) -> RelatedNotes:
    """The `limit` notes most like `path`; `reason` says why the list is empty, if it is."""
    stamp = index.stamp(path)
    if stamp is None:
        raise UnknownNoteError(f"no note `{path}` is indexed")
    # Folder overviews list their notes' titles and summaries, so they are like every note
    # they list and came first; they are no knowledge of their own (unless one is asked).
    overviews = not is_index_note(path)
    found = semantic.similar(stamp.nid, limit + _SPARE if overviews else limit)
    if found is None:
        lang = semantic.language_of(stamp.nid)
        if lang is not None and not semantic.identity.serves(lang):
            reason = f"the note is in `{lang}`, which {semantic.identity.name} does not embed"
        elif semantic.state == "embedding":
            reason = "the note is not embedded yet; embedding is in progress"
        else:
            reason = "the note has no text to embed"
        return RelatedNotes(path, [], reason)
    records = index.records([nid for nid, _ in found])
    notes = [
        Related(rec.path, rec.title, rec.status, round(score, 4))
        for nid, score in found
        if (rec := records.get(nid)) is not None and not (overviews and is_index_note(rec.path))
    ]
    return RelatedNotes(path, notes[:limit], None)
