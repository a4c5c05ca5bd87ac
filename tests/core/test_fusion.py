"""The dense channel's arithmetic in the ranking rule, with plain numbers."""

from __future__ import annotations

import pytest

from bridge.core.fusion import (
    PassageHit,
    copy_factors,
    dense_parts,
    language_factors,
    passage_relevance,
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
