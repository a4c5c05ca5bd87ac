"""The ranking rules on plain numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.core.maturity import Maturity
from bridge.core.ranking import (
    LifecycleFacts,
    RankingParams,
    block_scores,
    lifecycle_order,
    lifecycle_stream,
    lifecycle_value,
    normalised_relevance,
    pack,
)

P = RankingParams()


def test_normalised_relevance() -> None:
    assert normalised_relevance(0) == 0
    assert normalised_relevance(1) == 0.5
    assert normalised_relevance(9) == pytest.approx(0.9)
    assert normalised_relevance(-3) == 0


def test_lifecycle_value_is_the_weighted_mean_of_its_parts() -> None:
    facts = LifecycleFacts(importance=80, recency=0.5, maturity=Maturity.CORE)
    assert lifecycle_value(facts, P) == pytest.approx(0.2 * 0.8 + 0.6 * 0.5 + 0.2 * 1.0)
    wild = LifecycleFacts(importance=500, recency=3.0, maturity=Maturity.CORE)
    assert lifecycle_value(wild, P) == pytest.approx(1.0)  # parts are clamped to [0, 1]


OLD = LifecycleFacts(importance=50, recency=0.01, maturity=Maturity.DRAFT)
FRESH = LifecycleFacts(importance=50, recency=0.9, maturity=Maturity.DRAFT)
USED = LifecycleFacts(importance=80, recency=0.9, maturity=Maturity.DRAFT)
CONFIRMED = LifecycleFacts(importance=80, recency=0.9, maturity=Maturity.CORE)


def test_among_near_equals_the_fresher_more_used_confirmed_note_comes_first() -> None:
    notes = {"old": OLD, "fresh": FRESH, "used": USED, "confirmed": CONFIRMED}
    relevance = {"old": 1.0, "fresh": 0.99, "used": 0.98, "confirmed": 0.97}  # within 5%
    values = {k: lifecycle_value(f, P) for k, f in notes.items()}
    order = lifecycle_order(list(relevance), relevance, values, P)
    assert order == ["confirmed", "used", "fresh", "old"]


def test_equal_lifecycles_and_small_differences_keep_relevance_order() -> None:
    relevance = {"a": 1.0, "b": 0.99, "c": 0.98}
    values = {"a": 0.30, "b": 0.31, "c": 0.30}  # below the 0.02 margin: no reason to move
    assert lifecycle_order(["a", "b", "c"], relevance, values, P) == ["a", "b", "c"]


def test_lifecycle_off_is_relevance_order() -> None:
    off = RankingParams(lifecycle_tolerance=0.0)
    relevance, values = {"a": 1.0, "b": 0.999}, {"a": 0.0, "b": 1.0}
    assert lifecycle_order(["a", "b"], relevance, values, off) == ["a", "b"]


@given(st.lists(st.tuples(st.floats(0.01, 100.0), st.floats(0.0, 1.0)), min_size=1, max_size=40))
def test_a_clearly_more_relevant_result_is_never_passed(items: list[tuple[float, float]]) -> None:
    """Whatever the lifecycle says, a result 5% more relevant than another stays ahead of it."""
    keys = sorted(range(len(items)), key=lambda i: -items[i][0])
    relevance = {i: items[i][0] for i in keys}
    values = {i: items[i][1] for i in keys}
    order = lifecycle_order(keys, relevance, values, P)
    assert sorted(order) == sorted(keys)
    position = {key: at for at, key in enumerate(order)}
    for a in keys:
        for b in keys:
            if relevance[a] > relevance[b] * (1 + P.lifecycle_tolerance):
                assert position[a] < position[b], (a, b)


@given(
    rows=st.lists(
        st.tuples(st.sampled_from([0.5, 0.9, 0.95, 0.97, 1.0, 2.0]), st.floats(0.0, 1.0)),
        max_size=60,
    ),
    chunk=st.integers(1, 9),
)
def test_the_lazy_lifecycle_order_is_the_lifecycle_order(
    rows: list[tuple[float, float]], chunk: int
) -> None:
    """Results yielded chunk by chunk, values asked for lazily: the same order as at once."""
    keys = sorted(range(len(rows)), key=lambda k: -rows[k][0])  # descending relevance
    relevance = {k: rows[k][0] for k in keys}
    values = {k: rows[k][1] for k in keys}
    asked: list[int] = []

    def values_of(part: list[int]) -> dict[int, float]:
        asked.extend(part)
        return {k: values[k] for k in part}

    lazy = list(lifecycle_stream(keys, relevance, values_of, P, chunk))
    assert lazy == lifecycle_order(keys, relevance, values, P)
    assert sorted(asked) == sorted(keys)  # each asked for once


def test_the_lazy_lifecycle_order_reads_values_only_as_far_as_it_is_consumed() -> None:
    keys = list(range(100))
    relevance = {k: 100.0 - k for k in keys}  # steps of 1 on ~50-100: never within 5% twice
    asked: list[int] = []

    def values_of(part: list[int]) -> dict[int, float]:
        asked.extend(part)
        return dict.fromkeys(part, 0.5)

    stream = lifecycle_stream(keys, relevance, values_of, P, chunk=10)
    first = [next(stream) for _ in range(5)]
    assert first == [0, 1, 2, 3, 4]
    assert asked == list(range(10))  # one chunk of values, not the whole list


def test_block_score_combines_block_window_entry_and_neighbour() -> None:
    blocks = {(1, 0): 10.0, (1, 1): 5.0}
    windows = {(1, 1): 8.0}
    entries = {1: 4.0}
    scores = block_scores(blocks, windows, entries, P)
    stage1_b0 = 1.0 + 0.4 * 0 + 0.5 * 1.0
    stage1_b1 = 0.5 + 0.4 * 1.0 + 0.5 * 1.0
    stage1_b2 = 0.5 * 1.0  # the unmatched neighbour still lends its entry part
    assert scores[(1, 0)] == pytest.approx(stage1_b0 + 0.4 * stage1_b1)
    assert scores[(1, 1)] == pytest.approx(stage1_b1 + 0.4 * max(stage1_b0, stage1_b2))
    assert set(scores) == {(1, 0), (1, 1)}


def test_speaker_boost_and_relations_damping() -> None:
    blocks = {(1, 0): 1.0, (2, 0): 1.0}
    plain = block_scores(blocks, {}, {}, P)
    boosted = block_scores(blocks, {}, {}, P, speaker_blocks={(1, 0)}, relation_blocks={(2, 0)})
    assert boosted[(1, 0)] == pytest.approx(plain[(1, 0)] * 1.6)
    assert boosted[(2, 0)] == pytest.approx(plain[(2, 0)] * 0.5)


_KEYS = st.tuples(st.integers(0, 5), st.integers(0, 6))
_SCORES = st.floats(0.01, 50.0)


@given(
    blocks=st.dictionaries(_KEYS, _SCORES, max_size=25),
    windows=st.dictionaries(_KEYS, _SCORES, max_size=25),
    entries=st.dictionaries(st.integers(0, 5), _SCORES, max_size=6),
    spoken=st.sets(_KEYS, max_size=8),
    relations=st.sets(_KEYS, max_size=8),
    notes=st.sets(st.integers(0, 5)),
)
def test_scoring_the_kept_notes_only_gives_them_the_same_scores(
    blocks: dict[tuple[int, int], float],
    windows: dict[tuple[int, int], float],
    entries: dict[int, float],
    spoken: set[tuple[int, int]],
    relations: set[tuple[int, int]],
    notes: set[int],
) -> None:
    """The engine scores only the blocks of the notes above the cut-off; each must score
    exactly what it scores among all candidates, in the same order."""
    relations &= set(blocks)  # only block hits carry the Relations flag
    every = block_scores(blocks, windows, entries, P, spoken, relations)
    kept = block_scores(blocks, windows, entries, P, spoken, relations, notes=notes)
    assert list(kept.items()) == [(k, v) for k, v in every.items() if k[0] in notes]


def test_equal_scores_keep_the_order_the_searches_found_them_in() -> None:
    blocks = {(3, 4): 2.0, (1, 9): 2.0, (2, 0): 2.0}  # a tie, in the block search's order
    windows = {(5, 1): 1.0}  # found by the window search only: after the block hits
    assert list(block_scores(blocks, windows, {}, P)) == [(3, 4), (1, 9), (2, 0), (5, 1)]


def test_the_speaker_boost_applies_after_the_neighbour_step() -> None:
    """The named speaker's answer, not the partner's question next to it, gets the boost."""
    question, answer = (1, 0), (1, 1)  # the partner asks, the named speaker answers
    blocks = {question: 1.0, answer: 0.5}
    scores = block_scores(blocks, {}, {}, P, speaker_blocks={answer})
    assert scores[answer] == pytest.approx((0.5 + 0.4 * 1.0) * 1.6)
    assert scores[question] == pytest.approx(1.0 + 0.4 * 0.5)  # the boost does not leak
    assert scores[answer] > scores[question]


def test_pack_skips_what_overflows_and_goes_on_with_smaller_blocks() -> None:
    words = {"a": 300, "b": 400, "c": 150, "d": 60}
    assert pack(["a", "b", "c", "d"], words, 500) == ["a", "c"]
    assert pack(["b", "a", "d", "c"], words, 500) == ["b", "d"]
    assert pack(["a"], words, 100) == []


def test_pack_can_stop_before_the_last_few_words() -> None:
    words = {"a": 298, "b": 2, "c": 1}
    assert pack(["a", "b", "c"], words, 300) == ["a", "b"]
    assert pack(["a", "b", "c"], words, 300, min_left=3) == ["a"]  # 2 left: stop
