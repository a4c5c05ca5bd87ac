"""Brute-force search over passage vectors: best first, scoped, notes replaced and dropped."""

from __future__ import annotations

import numpy as np

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
    rows = rng.standard_normal((10_000, 32)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    m = PassageMatrix(32)
    for nid in range(len(rows)):
        m.put(nid, [(0, 0)], rows[nid : nid + 1])
    query = rows[9_321] + 0.2 * rng.standard_normal(32).astype(np.float32)
    query /= np.linalg.norm(query)
    exact = rows @ query
    hits = m.search(query, 50)
    assert hits[0].nid == 9_321  # past the first slabs: every row is scored
    assert max(abs(h.score - exact[h.nid]) for h in hits) < 0.01
    assert len({h.nid for h in hits} & set(np.argsort(-exact)[:50].tolist())) >= 47
    assert np.allclose(m.vectors_of(42), rows[42:43], atol=0.01)


def test_the_float32_copy_gives_the_very_scores_of_the_slabs_and_goes_when_too_large() -> None:
    """Small matrices keep their codes cast to float32 (a faster search); the scores must be
    those of the slab-by-slab cast bit for bit, through growth, replacement and compaction,
    and past the byte budget the copy is dropped without a passage lost."""
    rng = np.random.default_rng(3)
    dim = 384  # the bundled model's: one product over all rows would round differently
    rows = rng.standard_normal((6_000, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    kept = PassageMatrix(dim)  # the default budget holds these rows
    slabs = PassageMatrix(dim, wide_bytes=0)
    capped = PassageMatrix(dim, wide_bytes=2_500 * dim * 4)  # outgrown on the way
    for m in (kept, slabs, capped):
        for nid in range(len(rows)):
            m.put(nid, [(0, 0)], rows[nid : nid + 1])
        for nid in range(2_000):  # replaced: their old rows dead
            m.put(nid, [(1, 1)], rows[nid : nid + 1])
        for nid in range(4_000, 5_500):  # dropped: the dead rows compacted away
            m.drop(nid)
    assert kept._wide is not None and slabs._wide is None and capped._wide is None
    assert len(kept) == 4_500 and kept._n < 8_000  # dead rows were compacted away
    for nid in rng.choice(4_000, 20, replace=False).tolist():
        probe = rows[nid] + 0.02 * rng.standard_normal(dim).astype(np.float32)
        probe /= np.linalg.norm(probe)
        fast, slow, cut = (m.search(probe, 40) for m in (kept, slabs, capped))
        assert fast == slow == cut
        assert fast[0].nid == nid
    live = set(range(4_000)) | set(range(5_500, 6_000))
    assert {h.nid for h in kept.search(rows[0], 6_000)} == live
