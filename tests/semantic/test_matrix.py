"""Brute-force search over passage vectors: best first, scoped, notes replaced and dropped."""

from __future__ import annotations

import numpy as np
import pytest

from bridge.semantic.matrix import PassageMatrix


def _unit(*values: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_the_most_similar_passages_come_first_with_their_notes_and_spans() -> None:
    m = PassageMatrix(3)
    m.put(1, [(0, 2), (3, 4)], np.stack([_unit(1, 0, 0), _unit(0, 1, 0)]))
    m.put(2, [(0, 0)], np.stack([_unit(1, 1, 0)]))
    hits = m.search(_unit(1, 0.1, 0), 3)
    assert [(h.nid, h.first, h.last) for h in hits] == [(1, 0, 2), (2, 0, 0), (1, 3, 4)]
    assert hits[0].score > hits[1].score > hits[2].score


def test_a_note_put_again_replaces_its_passages_and_a_dropped_one_is_gone() -> None:
    m = PassageMatrix(2)
    m.put(1, [(0, 0)], np.stack([_unit(1, 0)]))
    m.put(1, [(0, 1)], np.stack([_unit(0, 1)]))
    assert [(h.nid, h.last) for h in m.search(_unit(0, 1), 5)] == [(1, 1)]
    m.drop(1)
    assert m.search(_unit(0, 1), 5) == []
    assert len(m) == 0 and m.notes() == 0


def test_a_scoped_search_sees_only_its_notes() -> None:
    m = PassageMatrix(2)
    for nid in range(1, 6):
        m.put(nid, [(0, 0)], np.stack([_unit(1, nid / 10)]))
    assert {h.nid for h in m.search(_unit(1, 0), 10, notes={2, 4})} == {2, 4}


def test_many_changes_compact_without_losing_a_live_passage() -> None:
    m = PassageMatrix(2)
    for round_ in range(3):
        for nid in range(1500):
            m.put(nid, [(0, round_)], np.stack([_unit(1, nid / 1500)]))
    assert len(m) == 1500
    hits = m.search(_unit(1, 1), 1500)
    assert {h.nid for h in hits} == set(range(1500))
    assert {h.last for h in hits} == {2}


def test_scores_stay_within_a_few_thousandths_of_the_cosine_across_many_slabs() -> None:
    rng = np.random.default_rng(7)
    rows = rng.standard_normal((5_000, 384)).astype(np.float32)  # 1,024 rows a slab at 384
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    m = PassageMatrix(384)
    for nid in range(len(rows)):
        m.put(nid, [(0, 0)], rows[nid : nid + 1])
    query = rows[4_321] + 0.02 * rng.standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    exact = rows @ query
    hits = m.search(query, 50)
    assert hits[0].nid == 4_321  # in the fifth and last slab: every row is scored
    assert max(abs(h.score - exact[h.nid]) for h in hits) < 0.01
    assert len({h.nid for h in hits} & set(np.argsort(-exact)[:50].tolist())) >= 47
    assert np.allclose(m.vectors_of(42), rows[42:43], atol=0.01)


def test_after_a_compaction_each_note_keeps_its_own_passages() -> None:
    m = PassageMatrix(2)
    vectors = {
        nid: np.stack([_unit(1, (nid + i) / 3000) for i in range(1 + nid % 3)])
        for nid in range(3000)
    }
    for nid, rows in vectors.items():
        m.put(nid, [(i, i) for i in range(len(rows))], rows)
    for nid in range(0, 3000, 2):  # past a quarter dead: the rows are compacted
        m.drop(nid)
    assert len(m) == sum(len(rows) for nid, rows in vectors.items() if nid % 2)
    for nid in (1, 1499, 2999):
        assert np.allclose(m.vectors_of(nid), vectors[nid], atol=0.01)
    assert len(m.vectors_of(2)) == 0
    m.drop(1499)  # a note dropped after the compaction loses its rows, no other's
    assert len(m.vectors_of(1499)) == 0
    assert np.allclose(m.vectors_of(1501), vectors[1501], atol=0.01)
    assert {h.nid for h in m.search(_unit(1, 1), 10_000)} == set(range(1, 3000, 2)) - {1499}


def test_a_matrix_compacted_to_nothing_takes_notes_again() -> None:
    m = PassageMatrix(2)
    m.put(1, [(i, i) for i in range(1100)], np.stack([_unit(1, i) for i in range(1100)]))
    m.drop(1)  # its last rows gone: compacted to no row at all
    assert len(m) == 0 and m.search(_unit(1, 1), 10) == []
    m.put(7, [(0, 0)], np.stack([_unit(1, 0)]))
    assert [h.nid for h in m.search(_unit(1, 0), 10)] == [7]


def test_note_ids_far_apart_each_keep_their_own_rows_and_no_other_id_has_any() -> None:
    m = PassageMatrix(2)
    m.put(3, [(0, 0)], np.stack([_unit(1, 0)]))
    m.put(50_000, [(0, 1), (2, 3)], np.stack([_unit(0, 1), _unit(1, 1)]))  # past the first size
    m.put(3, [(4, 4)], np.stack([_unit(1, 0.1)]))  # replaced, not counted twice
    assert m.notes() == 2 and m.has(3) and m.has(50_000)
    assert not any(m.has(nid) for nid in (0, 4, 1027, 49_999, 50_001, 10**9))
    assert len(m.vectors_of(1027)) == 0 and len(m.vectors_of(50_000)) == 2
    best = m.search(_unit(1, 0), 10)[0]
    assert (best.nid, best.first) == (3, 4)
    with pytest.raises(ValueError, match="never negative"):
        m.put(-1, [(0, 0)], np.stack([_unit(1, 0)]))
