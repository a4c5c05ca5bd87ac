"""The dense channel's arithmetic in the ranking rule, with plain numbers."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pytest

from bridge.core.fusion import (
    BlockKey,
    DenseParams,
    PassageHit,
    channel_weights,
    copy_factors,
    dense_leaders,
    dense_parts,
    fused_note_scores,
    language_factors,
    leader_places,
    passage_relevance,
    with_leaders,
)
from bridge.core.ranking import RankingParams, block_scores


def test_dense_hits_are_normalised_between_the_last_and_the_top_hit() -> None:
    hits = [PassageHit(1, 0, 0, 0.8), PassageHit(2, 0, 1, 0.5), PassageHit(3, 2, 2, 0.2)]
    assert passage_relevance(hits) == pytest.approx([1.0, 0.5, 0.0])
    assert passage_relevance([PassageHit(1, 0, 0, 0.3)]) == [1.0]
    assert passage_relevance([]) == []


def test_a_passage_gives_its_part_to_each_of_its_blocks_and_a_note_gets_its_best() -> None:
    hits = [PassageHit(1, 2, 4, 0.9), PassageHit(1, 0, 1, 0.6), PassageHit(2, 0, 0, 0.3)]
    blocks, notes = dense_parts(hits)
    assert blocks[(1, 2)] == blocks[(1, 3)] == blocks[(1, 4)] == 1.0
    assert blocks[(1, 0)] == blocks[(1, 1)] == pytest.approx(0.5)
    assert blocks[(2, 0)] == 0.0
    assert notes == {1: 1.0, 2: 0.0}


def test_a_note_only_the_dense_channel_found_can_pass_one_the_words_found_weakly() -> None:
    lexical = {1: 0.9, 2: 0.2}
    dense = {2: 1.0, 3: 0.8}
    fused = fused_note_scores(lexical, dense, share=0.5)
    assert fused[1] == 0.5  # lexical top, no dense hit
    assert fused[2] > fused[1]  # weak words, best meaning
    assert fused[3] == pytest.approx(0.4)
    assert fused_note_scores(lexical, {}, share=0.5) == lexical  # channel off: unchanged


def test_blocks_only_the_dense_channel_found_become_candidates_with_their_part() -> None:
    params = RankingParams()
    blocks = {(1, 0): 2.0}
    scores = block_scores(blocks, {}, {1: 1.0}, params, dense={(2, 3): 1.0}, dense_weight=0.6)
    # block + entry, + 0.4 x the entry part of its unfound neighbour
    assert scores[(1, 0)] == pytest.approx(1.0 + 0.5 + 0.4 * 0.5)
    assert scores[(2, 3)] == pytest.approx(0.6)
    without = block_scores(blocks, {}, {1: 1.0}, params, dense={(2, 3): 1.0}, dense_weight=0.0)
    assert (2, 3) not in without


def test_notes_in_another_language_are_demoted_only_when_some_are_in_the_questions() -> None:
    langs = {1: "en", 2: "zh", 3: None}
    assert language_factors(langs, "en", 0.5) == {2: 0.5}  # unknown (3) never demoted
    assert language_factors({2: "zh", 3: None}, "en", 0.5) == {}  # no English note found
    assert language_factors(langs, None, 0.5) == {}
    assert language_factors(langs, "en", 1.0) == {}


def test_untranslated_copies_come_after_the_pages_they_copy_only_when_there_are_some() -> None:
    assert copy_factors([2], [1, 2, 3], 0.5) == {2: 0.5}
    assert copy_factors([2, 3], [2, 3], 0.5) == {}  # nothing but copies: nothing to prefer
    assert copy_factors([], [1, 2], 0.5) == {}
    assert copy_factors([2], [1, 2], 1.0) == {}


def test_the_dense_share_follows_how_exactly_the_words_matched() -> None:
    params = DenseParams(block_weight=0.6, share_exact=0.2, share_vague=0.8)
    exact = channel_weights(1.0, params)
    vague = channel_weights(0.0, params)
    assert exact.share == pytest.approx(0.2) and vague.share == pytest.approx(0.8)
    assert exact.lexical_scale == pytest.approx(1.6) and vague.lexical_scale == pytest.approx(0.4)
    assert vague.dense_weight == pytest.approx(2 * 0.8 * 0.6)
    even = channel_weights(0.3, DenseParams(share_exact=0.5, share_vague=0.5))
    # at an even share the block rule is the fixed one: lexical parts x1, dense x block_weight
    assert even.lexical_scale == pytest.approx(1.0)
    assert even.dense_weight == pytest.approx(DenseParams().block_weight)
    assert channel_weights(3.0, params).share == pytest.approx(0.2)  # clamped


def _ranked(
    priority: dict[tuple[int, int], float], leaders: list[int], **lifecycle: Any
) -> list[BlockKey]:
    """The blocks in relevance order with the leaders placed, as retrieval packs them."""
    order = sorted(priority, key=lambda k: -priority[k])
    return list(with_leaders(order, leader_places(order, priority, leaders, **lifecycle)))


def _notes(blocks: list[BlockKey]) -> list[int]:
    return list(dict.fromkeys(nid for nid, _ in blocks))


def test_the_dense_channels_leaders_are_its_best_passages_notes_once_each() -> None:
    hits = [
        PassageHit(4, 0, 0, 0.50),
        PassageHit(7, 2, 2, 0.71),
        PassageHit(7, 0, 0, 0.69),
        PassageHit(3, 1, 1, 0.60),
    ]
    notes = dense_parts(hits)[1]
    assert dense_leaders(notes, 2) == [7, 3]
    assert dense_leaders(notes, 5) == [7, 3, 4]
    assert dense_leaders({}, 2) == []


def test_the_channels_leaders_take_the_second_and_third_place() -> None:
    # Notes 1-5 by relevance; the channel's first note (5) is last, its second (4) fourth:
    # they take the 2nd and 3rd places, the rest keep their order below them.
    priority = {(1, 0): 2.0, (2, 0): 1.5, (2, 1): 0.1, (3, 0): 1.2, (4, 0): 1.0, (5, 3): 0.4}
    ranked = _ranked(priority, [5, 4])
    assert _notes(ranked) == [1, 5, 4, 2, 3]
    assert sorted(ranked) == sorted(priority)  # every block once
    # A leader already within its place, or with no candidate block, moves nothing.
    order = sorted(priority, key=lambda k: -priority[k])
    assert _ranked(priority, [2, 1]) == order
    assert _ranked(priority, [9]) == order
    # The channel's first note first already: the second leader takes the 3rd place.
    assert _notes(_ranked(priority, [1, 5])) == [1, 2, 5, 3, 4]


def test_the_channels_first_note_leads_only_when_the_fused_note_relevance_agrees() -> None:
    # Note 1 leads by one strong block; the channel's first note (4) is fourth by its best
    # block, but as a note the fusion rates it 0.15 above note 1: it takes the first place.
    priority = {(1, 0): 2.0, (2, 0): 1.5, (3, 0): 1.2, (4, 0): 1.0, (4, 1): 0.9}
    notes = {1: 0.80, 2: 0.70, 3: 0.60, 4: 0.95}
    agree = {"relevance_of": notes, "lead_margin": 0.1}
    ranked = _ranked(priority, [4, 3], **agree)
    assert _notes(ranked) == [4, 1, 3, 2]
    assert sorted(ranked) == sorted(priority)
    # Within the margin, the first place stays the fusion's: the leader is second.
    assert _notes(_ranked(priority, [4, 3], relevance_of=notes, lead_margin=0.2)) == [1, 4, 3, 2]
    # The second leader never takes the first place, however the fusion rates it.
    assert _notes(_ranked(priority, [2, 4], **agree)) == [1, 2, 4, 3]


def test_a_leader_taking_the_first_place_brings_the_near_equal_the_lifecycle_prefers() -> None:
    # Note 4 is an old fact the channel ranks first; note 5 supersedes it, 2% less relevant
    # and fresher: both go before note 1, the fresher one first.
    priority = {(1, 0): 2.0, (2, 0): 1.5, (4, 0): 1.0, (5, 0): 0.98}
    values = {1: 0.5, 2: 0.5, 4: 0.2, 5: 0.9}
    notes = {1: 0.6, 2: 0.5, 4: 0.9, 5: 0.88}

    def lifecycle_of(nids: Collection[int]) -> dict[int, float]:
        return {n: values[n] for n in nids}

    near = {"lifecycle_of": lifecycle_of, "tolerance": 0.05, "margin": 0.02}
    ranked = _ranked(priority, [4], relevance_of=notes, lead_margin=0.1, **near)
    assert _notes(ranked) == [5, 4, 1, 2]


def test_a_leader_moved_by_the_lifecycle_into_its_place_is_not_moved_again() -> None:
    # The order as the lifecycle left it (note 5 passed 2, 3 and 4): nothing to place.
    places = [(2, [(5, 3)])]
    assert list(with_leaders([(1, 0), (5, 3), (2, 0), (3, 0)], places)) == [
        (1, 0),
        (5, 3),
        (2, 0),
        (3, 0),
    ]


def test_a_leader_takes_the_near_equal_the_lifecycle_prefers_with_it() -> None:
    # Note 4 is an old fact the channel ranks first; note 5 supersedes it, 2% less relevant
    # and fresher. Placed alone, 4 would pass 5, which the lifecycle put above it.
    priority = {(1, 0): 2.0, (2, 0): 1.5, (3, 0): 1.2, (4, 0): 1.0, (5, 0): 0.98}
    values = {1: 0.5, 2: 0.5, 3: 0.5, 4: 0.2, 5: 0.9}
    asked: list[set[int]] = []

    def lifecycle_of(nids: Collection[int]) -> dict[int, float]:
        asked.append(set(nids))
        return {n: values[n] for n in nids}

    near = {"lifecycle_of": lifecycle_of, "tolerance": 0.05, "margin": 0.02}
    assert _notes(_ranked(priority, [4], **near)) == [1, 5, 4, 2, 3]
    assert asked == [{4, 5}]  # only the leader and its near-equals are looked up
    # A near-equal the lifecycle does not prefer stays where it was.
    values[5] = 0.2
    assert _notes(_ranked(priority, [4], **near)) == [1, 4, 2, 3, 5]
