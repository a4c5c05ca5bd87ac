"""Tier 2's answer: the best note(s) handed to the composer with their blocks and term weights.

The retrieval packs only the blocks that won the word budget; a readable answer needs the whole
note in reading order, so the note's blocks are fetched from the index's block texts (no
file read, no parse). Terms are weighted by inverse note frequency: "token" in a vault about
tokens says less than "rotate".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bridge.core.compose import NoteText, compose_answer, render_answer
from bridge.core.overview import in_region
from bridge.index.analysis import QueryTerms, analyze
from bridge.index.documents import SUMMARY_HEADING, IndexedBlock
from bridge.index.search_index import SearchIndex, idf
from bridge.query.models import Source

# A transcript can hold thousands of turns; the answer reads the note's first blocks only.
MAX_BLOCKS = 1000


@dataclass(frozen=True)
class DirectAnswer:
    """The composed text and the notes it cites (each credited as a use)."""

    text: str
    cited: list[str]


Meaning = Callable[[int], Sequence[tuple[int, int, float]]]
"""A note's passages as (first block, last block, cosine to the question), by note id."""


def direct_answer(
    index: SearchIndex,
    query: str,
    terms: QueryTerms,
    sources: Sequence[Source],
    max_words: int,
    meaning: Meaning | None = None,
) -> DirectAnswer | None:
    """Compose from the first source; from the next one when the first holds nothing that
    answers. The sources are in the ranker's order: the first is the note most likely to
    answer, and quoting another note beside it mixed two notes' answers."""
    found = [s for s in sources[:3] if s.via == "search"]
    if not found:
        return None
    n = max(index.note_count(), 1)
    words = set(terms.token_set())
    weights = {t: idf(n, index.doc_frequency(t)) for t in words}
    for joined, halves in _joined_words(query, index).items():
        # "rollback" means what "roll back" means: worth both words, not one rarer word.
        words.add(joined)
        weights[joined] = max(
            idf(n, index.doc_frequency(joined)),
            sum(idf(n, index.doc_frequency(p)) for p in halves),
        )
    for source in found[:2]:
        best_block = max((e.score for e in source.blocks), default=0.0) or 1.0
        text = _note_text(index, source, best_block, meaning)
        if text is None:
            continue
        parts = compose_answer(query, words, weights, [text], analyze, max_words)
        if parts:
            cited = list(dict.fromkeys(p.path for p in parts))
            return DirectAnswer(render_answer(parts), cited)
    return None


def _joined_words(query: str, index: SearchIndex) -> dict[str, list[str]]:
    """Two adjacent words written as one in the notes: "roll back" also finds "rollback".

    Only joins the vault actually uses count, so "new api" does not invent "newapi". Each
    joined term maps to the terms of its two words.
    """
    raw = re.findall(r"[A-Za-z]+", query)
    joined: dict[str, list[str]] = {}
    for first, second in itertools.pairwise(raw):
        for term in analyze(first + second):
            if index.doc_frequency(term) > 0:
                joined[term] = analyze(f"{first} {second}")
    return joined


def _note_text(
    index: SearchIndex, source: Source, top: float, meaning: Meaning | None = None
) -> NoteText | None:
    stamp = index.stamp(source.path)
    if stamp is None:
        return None
    record = index.records([stamp.nid]).get(stamp.nid)
    if record is None:
        return None
    stored = index.blocks((stamp.nid, o) for o in range(min(record.blocks, MAX_BLOCKS)))
    # The index lends the frontmatter summary a block of its own (a good excerpt); an answer
    # never quotes frontmatter, so it starts at the body.
    kept = _own_blocks(b for _, b in sorted(stored.items()) if not _is_summary(b))
    at_line = {b.line: i for i, b in enumerate(kept) if b.line is not None}
    ranked = {at_line[e.line]: e.score / top for e in source.blocks if e.line in at_line}
    close = _closeness(kept, meaning(stamp.nid)) if meaning is not None else {}
    ids = {i: b.block_id for i, b in enumerate(kept) if b.block_id}
    blocks = [(b.heading, b.text) for b in kept]
    return NoteText(source.path, source.title, blocks, ranked, close, ids)


def _closeness(
    kept: Sequence[IndexedBlock], passages: Sequence[tuple[int, int, float]]
) -> dict[int, float]:
    """Each kept block's passage's cosine, from 0 (the note's farthest passage) to 1 (its
    closest); a note of one passage is close throughout."""
    if not passages:
        return {}
    low = min(c for _, _, c in passages)
    span = max(c for _, _, c in passages) - low
    out: dict[int, float] = {}
    for i, block in enumerate(kept):
        for first, last, cosine in passages:
            if first <= block.ord <= last:
                out[i] = (cosine - low) / span if span > 1e-9 else 1.0
                break
    return out


def _own_blocks(blocks: Iterable[IndexedBlock]) -> list[IndexedBlock]:
    """The note's blocks without the bridge's overview region (docs/overviews.md): an answer
    quotes the notes the region lists, never the generated copy (`in_region`)."""
    listed = list(blocks)
    inside = in_region([b.text for b in listed])
    return [b for b, skip in zip(listed, inside, strict=True) if not skip]


def _is_summary(block: IndexedBlock) -> bool:
    return block.line is None and block.heading == SUMMARY_HEADING
