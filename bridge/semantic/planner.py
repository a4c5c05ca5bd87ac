"""Which passages a note gets, and in which language it is: the dense channel's plan of a note.

Reads the note's blocks from the index's block store (the files are read only for a declared
`lang`), applies the pure rules (`bridge.core.passages`, `bridge.core.language`), and says
whether the model serves the note's language at all.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bridge.core.entry import METADATA_SECTIONS
from bridge.core.language import folder_language, letter_count, note_language
from bridge.core.overview import in_region
from bridge.core.passages import (
    PASSAGE_RULE,
    Passage,
    PassageBlock,
    boilerplate_lines,
    card,
    note_lines,
    passages,
    readable,
)
from bridge.index.documents import SUMMARY_HEADING, IndexedBlock
from bridge.index.manifest import NoteRecord
from bridge.index.search_index import SearchIndex
from bridge.semantic.languages import LanguageDetector
from bridge.semantic.model import ModelIdentity
from bridge.semantic.store import StoredNote, Unit, VectorStore

BOILERPLATE_NOTES = 200  # from this many notes, template lines are counted


@dataclass(frozen=True, slots=True)
class NotePlan:
    """A note's passages (none when the model does not serve its language) and language."""

    path: str
    nid: int
    content: bytes
    lang: str | None
    passages: tuple[Passage, ...]


@dataclass(frozen=True, slots=True)
class _KeyedPassage(Passage):
    """A stored passage: its text is not kept (the key names its vector), only its span."""

    stored_key: bytes = b""

    @property
    def key(self) -> bytes:
        return self.stored_key


class PassagePlanner:
    """Plans notes for one model, with the vault's template lines once they are counted."""

    def __init__(
        self,
        index: SearchIndex,
        identity: ModelIdentity,
        detector: LanguageDetector,
        declared: Callable[[str], object],
        words: int,
        most: int,
    ) -> None:
        self.index = index
        self.identity = identity
        self.detector = detector
        self.declared = declared
        self.words = words
        self.most = most
        self.boilerplate: frozenset[str] = frozenset()
        # Languages told before their notes are planned (`language`): path -> (content, lang).
        self._told: dict[str, tuple[bytes, str | None]] = {}

    def signature(self) -> str:
        """What passages depend on besides a note's text: the rule, its sizes, the template."""
        parts = [PASSAGE_RULE, self.words, self.most, sorted(self.boilerplate)]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]

    def count_boilerplate(self, store: VectorStore, records: Sequence[NoteRecord]) -> None:
        """The vault's template lines, counted once per vector file and kept with it.

        Frozen once counted: a line that later crosses the threshold would otherwise change
        the passages of every note holding it, and each would be embedded again. Counted from
        `BOILERPLATE_NOTES` notes on; a smaller vault cannot tell a template from chance.
        Counted within each edition of a vault laid out by language (`en/`, `de/`...): a line
        the editions copy untranslated (a code example, `views:`) is in one note of each, and
        counted over the whole vault it passed for a template and was cut from the very page
        that explains it.
        """
        key = f"boilerplate:{PASSAGE_RULE}"  # counted again when the rule changes
        kept = store.meta(key)
        if kept is not None:
            self.boilerplate = frozenset(json.loads(kept))
            return
        if len(records) < BOILERPLATE_NOTES:
            return
        editions = self.index.folder_languages() if len(self.index.folder_languages()) >= 2 else ()
        counts: dict[str | None, Counter[str]] = {}
        sizes: Counter[str | None] = Counter()
        for rec in records:
            edition = folder_language(rec.path) if editions else None
            edition = edition if edition in editions else None
            texts = self._blocks(rec)
            counts.setdefault(edition, Counter()).update(
                note_lines([texts[k].text for k in sorted(texts)])
            )
            sizes[edition] += 1
        found: set[str] = set()
        for edition, lines in counts.items():
            found |= boilerplate_lines(lines, sizes[edition])
        self.boilerplate = frozenset(found)
        store.set_meta(key, json.dumps(sorted(self.boilerplate)))

    def from_store(self, rec: NoteRecord, stored: StoredNote | None) -> NotePlan:
        """The stored plan when it is for this content (and its language's choice still
        holds), else a fresh one."""
        if stored is not None and not stored.units and not self._skipped(stored.lang):
            stored = None  # skipped for its language before; the model serves it now
        if stored is not None and stored.content == rec.content:
            found = tuple(_KeyedPassage(u.first, u.last, "", u.key) for u in stored.units)
            return NotePlan(rec.path, rec.nid, rec.content, stored.lang, found)
        return self.fresh(rec)

    def _blocks(self, rec: NoteRecord) -> dict[tuple[int, int], IndexedBlock]:
        """The note's indexed blocks, by (note id, order)."""
        return self.index.blocks([(rec.nid, i) for i in range(rec.blocks)])

    def _skipped(self, lang: str | None) -> bool:
        return lang is not None and not self.identity.serves(lang)

    def language(self, rec: NoteRecord) -> str | None:
        """The note's language, told before its passages are planned, and kept for `fresh`
        (the detector runs once per note whichever comes first)."""
        texts = self._blocks(rec)
        lang = self._language(rec.path, [texts[k].text for k in sorted(texts)])
        self._told[rec.path] = (rec.content, lang)
        return lang

    def forget(self, path: str) -> None:
        """A note gone before it was planned: its told language is not kept."""
        self._told.pop(path, None)

    def fresh(self, rec: NoteRecord) -> NotePlan:
        """The note's plan from its indexed blocks."""
        texts = self._blocks(rec)
        ordered = sorted(texts.items())
        region = in_region([block.text for _, block in ordered])
        blocks = [
            PassageBlock(
                ord_,
                block.heading,
                block.text,
                block.heading.rsplit(" > ", 1)[-1].strip().lower() in METADATA_SECTIONS
                or region[i],
            )
            for i, ((_, ord_), block) in enumerate(ordered)
        ]
        told = self._told.pop(rec.path, None)
        if told is not None and told[0] == rec.content:
            lang = told[1]
        else:
            lang = self._language(rec.path, [b.text for b in blocks])
        if self._skipped(lang):
            return NotePlan(rec.path, rec.nid, rec.content, lang, ())
        found = passages(rec.title, blocks, self.words, self.most, self.boilerplate)
        about = card(rec.title, blocks, SUMMARY_HEADING, self.boilerplate)
        if about is not None:
            found.append(about)
        return NotePlan(rec.path, rec.nid, rec.content, lang, tuple(found))

    def _language(self, path: str, texts: Sequence[str]) -> str | None:
        sample = " ".join(t for t in readable(texts) if t)[:2000]
        detected = self.detector.best(sample) if sample else None
        return note_language(self.declared(path), path, detected, letter_count(sample))


def units_of(plan: NotePlan) -> StoredNote:
    """The plan as the vector file keeps it."""
    spans = tuple(Unit(p.first, p.last, p.key) for p in plan.passages)
    return StoredNote(plan.path, plan.content, plan.lang, spans)
