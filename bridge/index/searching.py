"""Searching one committed generation of the index: scored hits, lead blocks, block texts.

A `Snapshot` holds the three searchers of one generation and what is cached for it (scoped
IDF, folder sizes, block texts); a commit makes a new one, so a search that began on the old
one finishes there, and nothing cached outlives its generation.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from itertools import compress
from operator import eq
from typing import NamedTuple, cast

import tantivy

from bridge.index.analysis import STEMMERS, QueryTerms
from bridge.index.block_store import BlockStore
from bridge.index.documents import IndexedBlock
from bridge.index.queries import Hit, filtered, run, should, term
from bridge.index.schema import (
    BLOCK_FIELD,
    ENTRY_FIELDS,
    HEADING_FIELD,
    STEMS_FIELD,
    WINDOW_FIELD,
    block_key,
    speaker_id,
)
from bridge.index.term_stats import TermStatistics

_BLOCK_TEXT_CACHE = 20_000  # blocks; a few MB of text at most


class ScoredHits(NamedTuple):
    """One search's hits by `(note id, block ordinal)`: scores, the block's excerpt words, the
    blocks of a Relations / Raw Concept section, and the turns of the speaker asked about."""

    scores: dict[tuple[int, int], float]
    words: dict[tuple[int, int], int]
    flagged: set[tuple[int, int]]
    spoken: set[tuple[int, int]]


def _no_hits() -> ScoredHits:
    return ScoredHits({}, {}, set(), set())  # fresh: callers may extend what they get


class Snapshot:
    """One generation as searches see it. Read-only, so any number of threads share it."""

    def __init__(
        self,
        generation: int,
        schema: tantivy.Schema,
        searchers: dict[str, tantivy.Searcher],
        block_store: BlockStore,
    ) -> None:
        self.generation = generation
        self.schema = schema
        self.searchers = searchers
        self.stats = TermStatistics(schema, searchers)
        self._block_store = block_store
        # The same turns and paragraphs are packed into answer after answer, and each miss
        # is a query of the block store.
        self._block_texts: dict[tuple[int, int], IndexedBlock] = {}
        self._stem_languages: frozenset[str] | None = None

    def stem_languages(self) -> frozenset[str]:
        """The languages whose stems some note of this generation carries (`with_stems`)."""
        if self._stem_languages is None:
            searcher = self.searchers["entries"]
            held = (c for c in STEMMERS if searcher.doc_freq(STEMS_FIELD, c) > 0)
            self._stem_languages = frozenset(held)
        return self._stem_languages

    def document_count(self, kind: str) -> int:
        """Documents in one of the three indexes."""
        return int(self.searchers[kind].num_docs)

    def _clauses(
        self, kind: str, terms: QueryTerms, fields: dict[str, float], scope: str | None
    ) -> list[tantivy.Query]:
        # CJK pairs are indexed in the word fields (`spaced_bigrams`) and searched like words.
        pairs = [(f, t, b) for t in terms.searched for f, b in fields.items()]
        schema = self.schema
        if scope is None:
            return [term(schema, f, t, b) for f, t, b in pairs]
        weight = self.stats.scope_weight
        return [term(schema, f, t, b * weight(kind, f, t, scope)) for f, t, b in pairs]

    def _scores(
        self, kind: str, query: tantivy.Query, limit: int, flags: bool, speaker: str | None
    ) -> ScoredHits:
        """Hits as `{(note id, ordinal): score}` with each block's words, built at C speed;
        with `flags`, the Relations / Raw Concept blocks, and with a `speaker`, their turns.

        The ranking needs only these maps; building a `Hit` tuple per hit, hundreds a query,
        would cost more than tantivy's own search. The words (a fast field) let packing run on
        the hits alone.
        """
        searcher = self.searchers[kind]
        # `hits` is a new list of tuples on each access: 400 of them cost as much as the
        # search itself, so it is read once.
        hits = searcher.search(query, limit, count=False).hits
        if not hits:
            return _no_hits()
        scores, addresses = zip(*hits, strict=True)
        docs = list(addresses)
        nids = searcher.fast_field_values("nid", docs)
        ords = searcher.fast_field_values("ord", docs)
        keys = cast("list[tuple[int, int]]", list(zip(nids, ords, strict=True)))
        flagged: set[tuple[int, int]] = set()
        if flags:  # the blocks whose flags are set (a missing value is None)
            flagged = set(compress(keys, searcher.fast_field_values("flags", docs)))
        spoken: set[tuple[int, int]] = set()
        if speaker is not None:
            said = searcher.fast_field_values("speaker", docs)
            spoken = set(compress(keys, map(partial(eq, speaker_id(speaker)), said)))
        found = dict(zip(keys, cast("tuple[float, ...]", scores), strict=True))
        counts = cast("list[int]", searcher.fast_field_values("words", docs))
        words = dict(zip(keys, counts, strict=True))
        if None in nids or None in ords:  # a document without ids (never written so)
            found = {k: v for k, v in found.items() if None not in k}
        return ScoredHits(found, words, flagged, spoken)

    def block_scores(
        self, terms: QueryTerms, limit: int, scope: str | None, speaker: str | None
    ) -> ScoredHits:
        """See `SearchIndex.block_scores`."""
        return self._passages("blocks", BLOCK_FIELD, terms, limit, scope, speaker)

    def window_scores(
        self, terms: QueryTerms, limit: int, scope: str | None, speaker: str | None
    ) -> ScoredHits:
        """See `SearchIndex.window_scores`."""
        return self._passages("windows", WINDOW_FIELD, terms, limit, scope, speaker)

    def _passages(
        self,
        kind: str,
        field: str,
        terms: QueryTerms,
        limit: int,
        scope: str | None,
        speaker: str | None,
    ) -> ScoredHits:
        """One BM25 search of blocks or windows (only blocks carry flags and speakers' turns)."""
        if terms.empty:
            return _no_hits()
        query = should(self._clauses(kind, terms, {field: 1.0}, scope))
        scoped = filtered(self.schema, query, folder=scope)
        return self._scores(kind, scoped, limit, kind == "blocks", speaker)

    def search_entries(self, terms: QueryTerms, limit: int, scope: str | None) -> list[Hit]:
        """Entry documents (one a note) matching any query term, best first."""
        if terms.empty:
            return []
        query = should(self._clauses("entries", terms, ENTRY_FIELDS, scope))
        return run(self.searchers["entries"], filtered(self.schema, query, folder=scope), limit)

    def lead_block(self, nid: int, look: int, words: Iterable[str]) -> tuple[int, int] | None:
        """See `SearchIndex.lead_block`."""
        if look <= 0:
            return None
        schema = self.schema
        keys = should([term(schema, "key", block_key(nid, o)) for o in range(look)])
        wanted = [term(schema, HEADING_FIELD, w) for w in dict.fromkeys(words)]
        if wanted:
            headed = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, keys), (tantivy.Occur.Must, should(wanted))]
            )
            found = [row for row in self._block_columns(headed, look) if not row[2]]
            if found:
                return min(found)[:2]
        found = self._block_columns(keys, look)
        if not found:
            return None
        plain = [row for row in found if not row[2]]
        return min(plain or found)[:2]

    def _block_columns(self, query: tantivy.Query, limit: int) -> list[tuple[int, int, int]]:
        """(ordinal, words, flags) of the block documents `query` finds."""
        searcher = self.searchers["blocks"]
        docs = [address for _, address in searcher.search(query, limit, count=False).hits]
        if not docs:
            return []
        columns = [searcher.fast_field_values(f, docs) for f in ("ord", "words", "flags")]
        return [
            (int(o), int(w or 0), int(f or 0))
            for o, w, f in zip(*columns, strict=True)
            if o is not None
        ]

    def blocks(self, keys: Iterable[tuple[int, int]]) -> dict[tuple[int, int], IndexedBlock]:
        """Text and position of blocks, by (note id, ordinal), from the block store."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        known = self._block_texts
        out: dict[tuple[int, int], IndexedBlock] = {k: known[k] for k in wanted if k in known}
        wanted = [k for k in wanted if k not in out]
        if not wanted:
            return out
        if len(known) > _BLOCK_TEXT_CACHE:
            known.clear()  # a cache, bounded
        for key, block in self._block_store.get(wanted).items():
            out[key] = known[key] = block
        return out
