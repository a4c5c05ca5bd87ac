"""The near-duplicate check of a new note: does its text repeat a note the vault already has?

Two looks, and the closer one counts. The new note's whole text (title, summary, narrative)
against every passage: what a copied body matches. Its head (title and summary) against the
heads of the notes nearest to it: what a copied title and summary match, which the whole text
misses when the note's first passage also holds a long body. The line
(`dense_duplicate_min`) is chosen on copies and near-copies of real vaults' notes
(`bench/duplicates.py`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bridge.core.entry import Note
from bridge.semantic.model import normalised
from bridge.semantic.service import SemanticIndex

_CANDIDATES = 8  # nearest notes whose heads are compared


def head_of(title: str, summary: str) -> str:
    """The text of a note's head: its title and its one-line summary."""
    return f"{title.strip()}\n{summary.strip()}".strip()


def note_summary(note: Note) -> str:
    """A note's one-line summary as its frontmatter gives it (`summary`, or the `description`
    or `desc` other tools write); empty when it has none."""
    if note.entry.summary:
        return note.entry.summary
    for key in ("description", "desc"):
        value = note.frontmatter.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return ""


def note_head(note: Note) -> str | None:
    """An existing note's head (title and summary); None for a note without a summary, whose
    title alone says too little (and whose first paragraph is often a template's)."""
    summary = note_summary(note)
    return head_of(note.title, summary) if summary else None


def nearest_copy(
    semantic: SemanticIndex,
    read: Callable[[str], Note | None],
    exclude: str | None,
    head: str,
    text: str,
) -> tuple[str, float] | None:
    """The note that `head` or `text` (a new note's) most nearly repeats, and the cosine.

    `read` gives an existing note (None when it cannot be read). None when nothing is
    embedded yet or the text is in a language the model skips.
    """
    found = semantic.nearest(text, exclude=exclude)
    if found is None or not head.strip():
        return found
    head_vector = normalised(semantic.embedder.embed([head], "passage"))[0]
    paths = [found[0]]
    for hit in semantic.matrix.search(head_vector, _CANDIDATES * 4):
        path = semantic.index.path_of(hit.nid)
        if path is not None and path != exclude and path not in paths:
            paths.append(path)
        if len(paths) >= _CANDIDATES:
            break
    heads = [
        (path, their)
        for path in paths
        if (note := read(path)) is not None and (their := note_head(note)) is not None
    ]
    if not heads:
        return found
    vectors = normalised(semantic.embedder.embed([h for _, h in heads], "passage"))
    scores = vectors @ head_vector
    best = int(np.argmax(scores))
    if float(scores[best]) > found[1]:
        return heads[best][0], float(scores[best])
    return found
