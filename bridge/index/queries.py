"""The few tantivy query shapes the searches and the term statistics are built from.

Functions over the schema and one searcher: no state, so a generation's searches and its
statistics share them without sharing anything else.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import tantivy

Clause = tuple[tantivy.Occur, tantivy.Query]


class Hit(NamedTuple):
    """A scored document: the note id and the block ordinal (0 for entry documents).

    A tuple: a query builds up to 1,200 of these, and a frozen dataclass costs twice as much.
    """

    nid: int
    ord: int
    score: float


def term(schema: tantivy.Schema, field: str, value: str, boost: float = 1.0) -> tantivy.Query:
    """Documents whose `field` holds the (analysed) `value`, its score times `boost`."""
    query = tantivy.Query.term_query(schema, field, value)
    return query if boost == 1.0 else tantivy.Query.boost_query(query, boost)


def should(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
    """Documents matching any of `clauses`, scored by the sum of those they match."""
    return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in clauses])


def filtered(schema: tantivy.Schema, query: tantivy.Query, **terms: str | None) -> tantivy.Query:
    """The query restricted to documents whose raw `field` equals each given value.

    The filters score 0: a scored folder term added its own IDF to every hit of a scoped
    query, which squeezed the top-normalised scores the ranking rule adds up.
    """
    musts = [
        (tantivy.Occur.Must, tantivy.Query.const_score_query(term(schema, f, v), 0.0))
        for f, v in terms.items()
        if v is not None
    ]
    if not musts:
        return query
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, query), *musts])


def count(schema: tantivy.Schema, searcher: tantivy.Searcher, *musts: tuple[str, str]) -> int:
    """How many documents hold every `(field, value)` pair."""
    query = tantivy.Query.boolean_query(
        [(tantivy.Occur.Must, term(schema, f, v)) for f, v in musts]
    )
    found = searcher.search(query, 1, count=True)
    return int(getattr(found, "count", None) or 0)  # the stubs lack `count`


def run(searcher: tantivy.Searcher, query: tantivy.Query, limit: int) -> list[Hit]:
    """The best `limit` hits of `query`, with their note ids and ordinals (fast fields)."""
    hits = searcher.search(query, limit, count=False).hits  # built anew on each access
    if not hits:
        return []
    addresses = [address for _, address in hits]
    nids = searcher.fast_field_values("nid", addresses)
    ords = searcher.fast_field_values("ord", addresses)
    return [
        Hit(int(n), int(o), float(score))
        for (score, _), n, o in zip(hits, nids, ords, strict=True)
        if n is not None and o is not None
    ]


def idf(docs: float, doc_freq: float) -> float:
    """BM25's IDF as tantivy computes it: `ln(1 + (N - n + 0.5) / (n + 0.5))`."""
    return math.log(1.0 + (docs - doc_freq + 0.5) / (doc_freq + 0.5))
