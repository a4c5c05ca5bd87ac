"""The ranker's features of each candidate note, computed in one place (`bridge.core.ranker`).

Reads what the searches found (BM25 hits of the three searches, the dense passages), asks the
index which of the question's words each candidate holds in which field (one search per
field group, not per word), and the dense channel for each candidate's similarities. Nothing
here decides anything: the scoring function does, with fitted weights.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from bridge.core.compose import named_identifiers
from bridge.core.ranker import FEATURES, INDEX
from bridge.core.ranking import normalised_relevance
from bridge.index.analysis import QueryTerms, analyze
from bridge.index.graph_cache import GraphCache
from bridge.index.manifest import NoteRecord
from bridge.index.schema import ENTRY_FIELDS
from bridge.index.search_index import SearchIndex
from bridge.query.dense import DenseFound, DenseSearch, NoteSimilarity

BlockKey = tuple[int, int]
_MAX_BLOCKS = 1000  # blocks of one note read to find an identifier


@dataclass
class Found:
    """What the searches found for one question, as the features read it."""

    entries: Mapping[int, float]  # note -> entry BM25
    blocks: Mapping[BlockKey, float]  # block -> block BM25
    windows: Mapping[BlockKey, float]  # block -> window BM25
    dense: DenseFound
    records: Mapping[int, NoteRecord]
    joined: Mapping[int, int] = field(default_factory=dict)  # note -> referrer (relations)
    other_language: frozenset[int] = frozenset()
    lifecycle: Mapping[int, float] = field(default_factory=dict)  # note -> L


class FeatureReader:
    """Feature vectors of candidate notes over one index (and its dense channel)."""

    def __init__(
        self,
        index: SearchIndex,
        dense: DenseSearch | None,
        relevance_scale: float,
        graph: GraphCache | None = None,
    ) -> None:
        """`graph`: the bridge's link graph (one per index, shared with the API); a reader
        without one keeps its own."""
        self.index = index
        self.dense = dense
        self.scale = relevance_scale
        self.graph = graph if graph is not None else GraphCache(index)

    def field_masks(self, terms: QueryTerms, nids: Sequence[int]) -> FieldMasks:
        """Which of the question's words (and native stems) each of `nids` holds, by entry
        field: one search for the lot. Asked for the notes the words found while the question
        is still being embedded, and for the notes only its meaning found after."""
        words = _forms(terms)
        asked = [w for form in words for w in form]
        if not asked or not nids:
            return {field: {} for field in ENTRY_FIELDS}
        return self.index.held_words(asked, list(nids), tuple(ENTRY_FIELDS))

    def features(
        self,
        terms: QueryTerms,
        found: Found,
        candidates: Sequence[int],
        text: str = "",
        masks: FieldMasks | None = None,
    ) -> dict[int, list[float]]:
        """Each candidate's feature values, in `FEATURES` order (`text`: the question;
        `masks`: `field_masks` of the candidates, when already asked)."""
        out = {nid: [0.0] * len(FEATURES) for nid in candidates}
        if not out:
            return out
        self._lexical(found, out)
        by_field = masks if masks is not None else self.field_masks(terms, list(out))
        held = _union(by_field.values())  # the question's words each note holds, any field
        self._fields(terms, found, out, by_field, held)
        self._identifiers(text, terms, found, out, held)
        self._dense(found, out)
        self._structure(found, out)
        for nid, values in out.items():
            if nid in found.joined:
                values[INDEX["relation"]] = 1.0
            if nid in found.other_language:
                values[INDEX["other_language"]] = 1.0
            values[INDEX["lifecycle"]] = found.lifecycle.get(nid, 0.5) - 0.5
        return out

    def _lexical(self, found: Found, out: dict[int, list[float]]) -> None:
        top_e = max(found.entries.values(), default=0.0)
        best_b = _best_per_note(found.blocks)
        best_w = _best_per_note(found.windows)
        top_b = max(best_b.values(), default=0.0)
        top_w = max(best_w.values(), default=0.0)
        e, ea, b, w = INDEX["entry"], INDEX["entry_abs"], INDEX["block"], INDEX["window"]
        for nid, values in out.items():
            entry = found.entries.get(nid, 0.0)
            values[e] = entry / top_e if top_e > 0 else 0.0
            values[ea] = normalised_relevance(entry, self.scale)
            values[b] = best_b.get(nid, 0.0) / top_b if top_b > 0 else 0.0
            values[w] = best_w.get(nid, 0.0) / top_w if top_w > 0 else 0.0

    def _fields(
        self,
        terms: QueryTerms,
        found: Found,
        out: dict[int, list[float]],
        masks: FieldMasks,
        held: Mapping[int, int],
    ) -> None:
        """Shares of the question's words, weighted by rarity, in each field of each note
        (`masks`: by field; `held`: in any).

        A question in a language with a stemmer (`question_stems`) is also measured by its
        native stems, which a note in that language holds beside its words: a note's share
        is the better of the two, so "synchronisieren" is held by a page saying
        "Synchronisierung".
        """
        forms = _forms(terms)
        if not forms[0]:
            return
        words = forms[0]
        title, path = masks["title"], masks["path_text"]
        fields = {
            "coverage": held,
            "title": title,
            "summary": masks["summary"],
            "path": path,
            "name": _union([title, path]),
        }
        start = 0
        for form in forms:
            weights = self.index.word_weights(form)
            total = math.fsum(weights)
            if total > 0:
                for name, held in fields.items():
                    column = INDEX[name]
                    for nid, mask in held.items():
                        if nid not in out:
                            continue
                        share = _share(mask >> start, weights) / total
                        if share > out[nid][column]:
                            out[nid][column] = share
            start += len(form)
        weights = self.index.word_weights(words)
        total = math.fsum(weights)
        if total <= 0:
            return
        named = INDEX["named"]
        question = set(words)
        by_word = dict(zip(words, weights, strict=True))
        for nid, values in out.items():
            rec = found.records.get(nid)
            if rec is None:
                continue
            title_words = _title_words(rec.title)
            if title_words and question.issuperset(title_words):
                values[named] = math.fsum(by_word[w] for w in title_words) / total

    def _identifiers(
        self,
        text: str,
        terms: QueryTerms,
        found: Found,
        out: dict[int, list[float]],
        holds: Mapping[int, int],
    ) -> None:
        """Notes holding, verbatim, an identifier the question names (`named_identifiers`).

        The notes' text is read only when the question names one (most do not), and only for
        the notes that hold every index term of one of them in some field (`holds`): a note
        without them cannot hold the identifier, and reading a few dozen notes' text was a
        large part of such a question.
        """
        names = named_identifiers(text) if text else frozenset()
        if not names:
            return
        column, held = INDEX["identifier"], INDEX["coverage"]
        needed = _identifier_bits(names, terms)
        keys = [
            (nid, i)
            for nid, values in out.items()
            if (rec := found.records.get(nid)) is not None
            and values[held] > 0
            and (needed is None or any(holds.get(nid, 0) & bits == bits for bits in needed))
            for i in range(min(rec.blocks, _MAX_BLOCKS))
        ]
        texts: dict[int, list[str]] = {}
        for (nid, _), block in sorted(self.index.blocks(keys).items()):  # one read for all
            texts.setdefault(nid, []).append(block.text)
        for nid, parts in texts.items():
            body = "\n".join(parts).lower()
            if any(name in body for name in names):
                out[nid][column] = 1.0

    def _dense(self, found: Found, out: dict[int, list[float]]) -> None:
        dense = found.dense
        if self.dense is None or dense.vector is None or not dense.ranks:
            return
        sims: Mapping[int, NoteSimilarity] = self.dense.note_similarity(dense.vector, list(out))
        top = dense.top
        d, da, c, card, spread = (
            INDEX["dense"],
            INDEX["dense_abs"],
            INDEX["centre"],
            INDEX["card"],
            INDEX["spread"],
        )
        for nid, values in out.items():
            sim = sims.get(nid)
            if sim is None:
                continue
            values[d] = sim.best - top
            values[da] = sim.best
            values[c] = sim.centre
            values[card] = sim.card
            values[spread] = sim.spread

    def _structure(self, found: Found, out: dict[int, list[float]]) -> None:
        inbound = self.graph.inbound_counts(
            rec.path for nid in out if (rec := found.records.get(nid)) is not None
        )
        i, o, listing = INDEX["inlinks"], INDEX["outlinks"], INDEX["listing"]
        for nid, values in out.items():
            rec = found.records.get(nid)
            if rec is None:
                continue
            values[i] = math.log1p(inbound.get(rec.path, 0))
            values[o] = math.log1p(len(rec.links))
            values[listing] = min(1.0, len(rec.links) / max(1, rec.blocks))


def _best_per_note(scores: Mapping[BlockKey, float]) -> dict[int, float]:
    best: dict[int, float] = {}
    for (nid, _), score in scores.items():
        if score > best.get(nid, 0.0):
            best[nid] = score
    return best


FieldMasks = dict[str, dict[int, int]]
"""By entry field, each note's bit mask of the question's words (and stems) it holds there."""


def _forms(terms: QueryTerms) -> list[list[str]]:
    """The question's words (CJK pairs included), and its native stems when it has some."""
    words = [*terms.words, *terms.bigrams]
    return [words, list(terms.stems)] if terms.stems else [words]


def _identifier_bits(names: Iterable[str], terms: QueryTerms) -> list[int] | None:
    """For each identifier, the `field_masks` bits of its index terms; None when one of them
    is not among the asked words (a stop word, a term the question lost): then every note
    holding some of the question is read."""
    position: dict[str, int] = {}
    for i, word in enumerate(w for form in _forms(terms) for w in form):
        position.setdefault(word, i)
    out = []
    for name in names:
        tokens = analyze(name)
        if not tokens or any(t not in position for t in tokens):
            return None
        out.append(sum({1 << position[t] for t in tokens}))
    return out


def merged(a: FieldMasks, b: FieldMasks) -> FieldMasks:
    """Two `field_masks` answers for different notes, as one."""
    return {field: {**a.get(field, {}), **b.get(field, {})} for field in {*a, *b}}


def _union(groups: Iterable[Mapping[int, int]]) -> dict[int, int]:
    """Each note's masks of several fields or forms, or-ed."""
    out: dict[int, int] = {}
    for masks in groups:
        for nid, mask in masks.items():
            out[nid] = out.get(nid, 0) | mask
    return out


def _share(mask: int, weights: Sequence[float]) -> float:
    return math.fsum(w for i, w in enumerate(weights) if mask >> i & 1)


@lru_cache(maxsize=16_384)
def _title_words(title: str) -> frozenset[str]:
    """A title's index terms, as a question's are analysed: asked for every candidate of
    every question, so kept for the titles seen (the stems interned, one string for every
    title holding it)."""
    return frozenset(map(sys.intern, analyze(title)))
