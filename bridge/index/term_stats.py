"""Term statistics of one index generation: document frequencies, folder sizes, scoped IDF.

What the out-of-domain rule, the direct-answer check and scoped searches ask of the index
beside the searches themselves. One object per generation, so its caches never outlive the
documents they counted.
"""

from __future__ import annotations

from collections.abc import Sequence

import tantivy

from bridge.index.queries import count, idf, run, term
from bridge.index.schema import ENTRY_FIELDS

_SCOPE_WEIGHTS = 100_000  # cached scoped boosts; a cache, bounded
_SCOPE_SIZES = 10_000  # cached folder sizes
_BITS = 23  # (field, word) pairs per search: 2**23 and the sum below it are exact in f32


class TermStatistics:
    """Counts over one generation's searchers (the three kinds: entries, blocks, windows)."""

    def __init__(self, schema: tantivy.Schema, searchers: dict[str, tantivy.Searcher]) -> None:
        self._schema = schema
        self._searchers = searchers
        self._scope_weights: dict[tuple[str, str, str, str], float] = {}
        self._scope_sizes: dict[tuple[str, str], int] = {}

    def scope_size(self, kind: str, scope: str) -> int:
        """Documents of `kind` under the folder `scope`, counted once."""
        key = (kind, scope)
        size = self._scope_sizes.get(key)
        if size is None:
            if len(self._scope_sizes) > _SCOPE_SIZES:
                self._scope_sizes.clear()
            size = count(self._schema, self._searchers[kind], ("folder", scope))
            self._scope_sizes[key] = size
        return size

    def scope_weight(self, kind: str, field: str, word: str, scope: str) -> float:
        """Boost that turns the term's vault-wide IDF into its IDF inside `scope`.

        Trigger: a query scoped to a folder. Why: tantivy weighs a term by its rarity in the
        whole index, so a name that is rare in the vault but in every note of the folder (a
        project's or a person's own folder) outweighs the words that tell those notes apart.
        Outcome: the scoped query ranks as if the folder were the whole vault (BM25 IDF is a
        factor of each term's score, so a per-term boost of local/global IDF does exactly
        that; the average length stays the vault's). Counts are cached.
        """
        key = (kind, field, word, scope)
        cached = self._scope_weights.get(key)
        if cached is not None:
            return cached
        searcher = self._searchers[kind]
        df = searcher.doc_freq(field, word)
        weight = 1.0
        if df > 0:
            local_n = self.scope_size(kind, scope)
            local_df = count(self._schema, searcher, (field, word), ("folder", scope))
            if local_df > 0 and local_n > 0:
                weight = idf(local_n, local_df) / idf(searcher.num_docs, df)
        if len(self._scope_weights) > _SCOPE_WEIGHTS:
            self._scope_weights.clear()
        self._scope_weights[key] = weight
        return weight

    def doc_frequency(self, word: str) -> int:
        """In how many notes the (analysed) term or CJK bigram occurs, in its commonest field."""
        searcher = self._searchers["entries"]
        return max(searcher.doc_freq(field, word) for field in ENTRY_FIELDS)

    def word_weights(self, words: Sequence[str]) -> list[float]:
        """Each word's IDF over the notes (a word no note holds weighs most)."""
        docs = max(1, self._searchers["entries"].num_docs)
        return [idf(docs, self.doc_frequency(word)) for word in words]

    def held_by_field(
        self, words: Sequence[str], paths: Sequence[str], fields: Sequence[str]
    ) -> dict[str, dict[int, int]]:
        """For each of `fields`, which of `words` each note at `paths` holds there: a bit mask
        of their positions (bit i: `words[i]`), for the notes holding at least one.

        One search per `_BITS` (field, word) pairs, not one per pair (a search per word would
        be a large part of a query): pair j of a group scores exactly 2**j when a note holds
        it, so a note's summed score spells which pairs it holds (f32 is exact to 2**24).
        """
        out: dict[str, dict[int, int]] = {field: {} for field in fields}
        if not words or not paths:
            return out
        searcher = self._searchers["entries"]
        among = tantivy.Query.const_score_query(
            tantivy.Query.term_set_query(self._schema, "path", list(paths)), 0.0
        )
        asked = [
            (field, i, word)
            for field in fields
            for i, word in enumerate(words)
            if searcher.doc_freq(field, word) > 0
        ]
        for start in range(0, len(asked), _BITS):
            group = asked[start : start + _BITS]
            clauses: list[tuple[tantivy.Occur, tantivy.Query]] = [(tantivy.Occur.Must, among)]
            for bit, (field, _, word) in enumerate(group):
                has = tantivy.Query.const_score_query(
                    term(self._schema, field, word), float(1 << bit)
                )
                clauses.append((tantivy.Occur.Should, has))
            for hit in run(searcher, tantivy.Query.boolean_query(clauses), len(paths)):
                mask = round(hit.score)
                for bit, (field, position, _) in enumerate(group):
                    if mask >> bit & 1:
                        masks = out[field]
                        masks[hit.nid] = masks.get(hit.nid, 0) | 1 << position
        return out
