"""Tier 1 picks the most similar cached question, and only one similar enough."""

from __future__ import annotations

import gc

from hypothesis import given
from hypothesis import strategies as st

from bridge.query.cache import QueryCache
from bridge.query.models import Excerpt, QueryResult, Source

_WORDS = st.sampled_from(["caroline", "melanie", "paint", "art", "show", "camp", "dog", "ski"])
_QUERY = st.frozensets(_WORDS, min_size=1, max_size=6)


def _answer(name: str) -> QueryResult:
    return QueryResult(query=name, answer=None, tier=2, latency_ms=0.0, ood=False, generation=0)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b)


@given(cached=st.lists(_QUERY, max_size=30), asked=_QUERY)
def test_the_fuzzy_match_is_the_most_similar_cached_question(
    cached: list[frozenset[str]], asked: frozenset[str]
) -> None:
    cache = QueryCache(capacity=100, fuzzy_threshold=0.6)
    prefix = QueryCache.options_prefix((500, 10, None))
    for n, tokens in enumerate(cached):
        cache.put(f"{prefix}{n}", tokens, (0, 0), _answer(" ".join(sorted(tokens))))
    found = cache.fuzzy(asked, prefix, (0, 0))
    eligible = [t for t in cached if len(t) >= 2 and _jaccard(t, asked) >= 0.6]
    if len(asked) < 2 or not eligible:
        assert found is None
        return
    assert found is not None
    best = max(_jaccard(t, asked) for t in eligible)
    assert _jaccard(frozenset(found.query.split()), asked) == best


def test_a_cached_answer_of_another_basis_or_other_options_is_never_taken() -> None:
    cache = QueryCache()
    mine, other = QueryCache.options_prefix((500, 10, None)), QueryCache.options_prefix((200,))
    tokens = frozenset({"caroline", "paint", "art"})
    cache.put(f"{other}a", tokens, (0, 0), _answer("other options"))
    cache.put(f"{mine}b", tokens, (1, 0), _answer("older generation"))
    assert cache.fuzzy(tokens, mine, (2, 0)) is None
    assert cache.fuzzy(tokens, mine, (1, 1)) is None  # the dense channel found more since
    assert cache.fuzzy(tokens, mine, (1, 0)) is not None


def _tracked_after_collection() -> int:
    gc.collect()  # a tuple of strings is untracked by a collection that sees it...
    gc.collect()  # ...and a tuple of such tuples by the next one
    return len(gc.get_objects())


def _sources(n: int) -> list[Source]:
    return [
        Source(
            path=f"notes/n{n}-{k}.md",
            title=f"Note {k}",
            score=1.0,
            excerpt="text",
            blocks=[Excerpt(text="one"), Excerpt(text="two")],
        )
        for k in range(10)
    ]


def test_a_full_cache_gives_the_collector_almost_nothing_to_walk() -> None:
    """`serve`'s minute's full collection holds every request in flight for as long as it
    walks tracked objects; 1,024 cached answers of ten sources were ~100,000 of them."""
    cache = QueryCache(capacity=300)
    before = _tracked_after_collection()
    for n in range(300):
        answer = _answer(f"question {n}").model_copy(update={"sources": _sources(n)})
        cache.put(f"k{n}", frozenset({f"w{n}", "shared"}), (0, 0), answer)
    # an entry, its token set, the holder set of its one new word: nothing of the answer
    # (its 10 sources and 20 excerpts were about 100 objects)
    assert _tracked_after_collection() - before < 4 * 300
    hit = cache.exact("k7", (0, 0))
    assert hit is not None and hit.sources == _sources(7) and hit.query == "question 7"


def test_an_answer_json_cannot_hold_is_answered_afresh_not_failed() -> None:
    """JSON has no NaN: such a score comes back as null, which the model refuses."""
    cache = QueryCache()
    odd = _answer("odd").model_copy(update={"relevance": float("nan")})
    cache.put("k", frozenset({"odd", "score"}), (0, 0), odd)
    assert cache.exact("k", (0, 0)) is None
    assert len(cache) == 0  # forgotten, so the next answer is kept instead
    cache.put("k", frozenset({"odd", "score"}), (0, 0), _answer("fine"))
    assert (hit := cache.exact("k", (0, 0))) is not None and hit.query == "fine"
