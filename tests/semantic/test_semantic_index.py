"""The dense channel with the real bundled model on small vaults: meaning found, vectors kept.

No stand-in: the int8 MiniLM installed with the product embeds these notes, offline.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

from bridge.runtime import Bridge, open_bridge
from bridge.semantic.lazy import LazyEmbedder
from bridge.settings import Settings
from tests.conftest import CEILING, open_test_bridge, seed_vectors
from tests.semantic.conftest import HeldBack
from tests.watch.conftest import wait_until

ON_CALL = "team/practices/incidents/on_call.md"
# A question in other words than the note's: no "on-call", "incident", "page" or "rota".
PARAPHRASE = "who gets woken up at night when the site goes down?"


def _embedded(vault: Path, state: Path, seed: Path | None = None, **settings: object) -> Bridge:
    """A bridge whose every note has vectors; with `seed` (the template's vector file) only the
    notes that differ from the template's are embedded."""
    if seed is not None:
        seed_vectors(seed, state)
    bridge = open_bridge(Settings(vault=vault, state_dir=state, **settings))
    bridge.sync()
    bridge.prepare_semantic(embed=True)
    return bridge


def test_a_question_in_other_words_finds_the_note_that_answers_it(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    with_dense = _embedded(template_vault, tmp_path / "dense", template_vectors)
    lexical = _embedded(template_vault, tmp_path / "lexical", embed_model="off")
    try:
        assert with_dense.semantic_status()["state"] == "ready"
        found = with_dense.engine.search(PARAPHRASE, limit=3)
        assert found.sources[0].path == ON_CALL
        # Lexical search alone does not put it first: the dense channel is what found it.
        alone = lexical.engine.search(PARAPHRASE, limit=3)
        assert not alone.sources or alone.sources[0].path != ON_CALL
        assert lexical.semantic_status() == {
            "model": None,
            "state": "off",
            "sections": 0,
            "embedded": 0,
            "pending": 0,
            "languages_known": 0,
        }
    finally:
        with_dense.close()
        lexical.close()


def test_vectors_are_kept_across_restarts_and_reindexes_and_follow_a_move(
    template_vault: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    first = _embedded(template_vault, state)
    sections = first.semantic_status()["sections"]
    assert first.semantic is not None and first.semantic.embedded_now > 0
    found_first = first.semantic.find(PARAPHRASE, None, 100).hits
    first.close()

    again = _embedded(template_vault, state)  # a restart: everything from the vector file
    assert again.semantic is not None and again.semantic.embedded_now == 0
    assert again.semantic_status()["sections"] == sections
    # The same passages with the same cosines: the vectors served right after embedding are
    # those a restart reads back, so an answer does not change with a restart.
    assert again.semantic.find(PARAPHRASE, None, 100).hits == found_first
    again.close()

    moved = template_vault / "team" / "support"
    moved.mkdir()
    (template_vault / ON_CALL).rename(moved / "on_call.md")
    after_move = _embedded(template_vault, state)
    try:
        assert after_move.semantic is not None and after_move.semantic.embedded_now == 0
        found = after_move.engine.search(PARAPHRASE, limit=3)
        assert found.sources[0].path == "team/support/on_call.md"
    finally:
        after_move.close()


def test_an_edited_note_is_embedded_again_and_only_it(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = tmp_path / "state"
    _embedded(template_vault, state, template_vectors).close()
    note = template_vault / "engineering" / "deploy" / "rollback.md"
    note.write_text(
        note.read_text(encoding="utf-8") + "\nA rollback of the kiosk firmware needs a ladder.\n",
        encoding="utf-8",
    )
    bridge = _embedded(template_vault, state)
    try:
        assert bridge.semantic is not None
        assert 0 < bridge.semantic.embedded_now <= 3  # the changed passage(s), not the vault
    finally:
        bridge.close()


def test_a_note_deleted_then_written_again_is_served_once_under_its_new_id(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    rollback = "engineering/deploy/rollback.md"
    bridge = _embedded(template_vault, tmp_path / "state", template_vectors)
    try:
        assert bridge.semantic is not None
        notes = bridge.index.note_count()
        assert bridge.semantic_status()["embedded"] == notes
        first = bridge.index.stamp(rollback)
        assert first is not None
        (template_vault / rollback).unlink()
        bridge.reindex([rollback])
        bridge.prepare_semantic(embed=True)
        assert bridge.semantic_status()["embedded"] == notes - 1
        (template_vault / rollback).write_text(
            "# Kiosk ladders\n\nThe kiosk firmware is flashed from a ladder in the lobby.\n",
            encoding="utf-8",
        )
        bridge.reindex([rollback])
        bridge.prepare_semantic(embed=True)
        again = bridge.index.stamp(rollback)
        assert again is not None and again.nid != first.nid
        assert bridge.semantic_status()["embedded"] == notes
        hits = bridge.semantic.find("where is the kiosk firmware flashed from?", None, 10).hits
        assert hits[0].nid == again.nid
        assert first.nid not in {hit.nid for hit in hits}
    finally:
        bridge.close()


def test_the_cli_without_serve_uses_stored_vectors_and_embeds_no_note(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = tmp_path / "state"
    _embedded(template_vault, state, template_vectors).close()
    bridge = open_test_bridge(template_vault, state)
    try:
        bridge.prepare_semantic(embed=False)
        assert bridge.semantic is not None
        assert bridge.semantic.embedded_now == 0
        assert bridge.engine.search(PARAPHRASE, limit=3).sources[0].path == ON_CALL
    finally:
        bridge.close()


def test_another_model_gets_its_own_vectors_and_the_old_ones_are_not_mixed_in(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = tmp_path / "state"
    _embedded(template_vault, state, template_vectors).close()
    before = sorted(p.name for p in (state / "semantic").glob("*.sqlite"))
    other = _embedded(template_vault, state, embed_languages=["en", "de"])
    other.close()
    # Same weights, other languages: the same vectors (the identity is the weights).
    assert sorted(p.name for p in (state / "semantic").glob("*.sqlite")) == before
    [vectors] = (state / "semantic").glob("*.sqlite")
    with sqlite3.connect(vectors) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    assert meta["model"] == "all-MiniLM-L6-v2"
    assert len(meta["weights"]) == 64  # the sha256 of the weights the vectors came from


def test_a_question_without_words_gets_no_dense_answer_and_no_error(
    embedded_bridge: Bridge,
) -> None:
    for text in ("?", "   ", "!!!"):
        assert embedded_bridge.engine.query(text).sources == [], text


def test_serve_loads_the_model_before_the_first_question(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = tmp_path / "state"
    _embedded(template_vault, state, template_vectors).close()  # every note embedded and stored
    bridge = open_test_bridge(template_vault, state)
    try:
        semantic = bridge.semantic
        assert semantic is not None and isinstance(semantic.embedder, LazyEmbedder)
        assert not semantic.embedder.loaded  # nothing to embed: a CLI command never loads it
        semantic.start()  # as `serve` does
        assert semantic.wait_idle(CEILING)
        # Nothing was left to embed, yet the model and the language detector are loaded: the
        # first question (the person who just opened Obsidian) does not wait for them.
        assert semantic.embedded_now == 0
        assert semantic.embedder.loaded and semantic.detector.loaded
    finally:
        bridge.close()


def test_a_question_while_serve_loads_the_model_is_answered_without_waiting(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = tmp_path / "state"
    _embedded(template_vault, state, template_vectors).close()
    bridge = open_test_bridge(template_vault, state)
    try:
        semantic = bridge.semantic
        assert semantic is not None
        answers: list[object] = []
        asking = threading.Thread(
            target=lambda: answers.append(bridge.engine.search(PARAPHRASE, limit=3))
        )
        # The language detector held mid-load, as in serve's first second: the embedding
        # thread waits for it; a question must not.
        with semantic.detector._lock:
            semantic.start()
            asking.start()
            asking.join(CEILING)
            assert answers, "the question waited for the model to load"
        assert semantic.wait_idle(CEILING)
        assert bridge.engine.search(PARAPHRASE, limit=3).sources[0].path == ON_CALL
    finally:
        bridge.close()


def test_a_question_asked_before_the_vault_is_embedded_is_answered_again_after(
    template_vault: Path, tmp_path: Path
) -> None:
    bridge = open_test_bridge(template_vault, tmp_path / "state")  # nothing embedded yet
    try:
        semantic = bridge.semantic
        assert semantic is not None
        with semantic.detector._lock:  # serve's first second: the channel is not ready
            semantic.start()
            early = bridge.engine.query(PARAPHRASE, limit=3)
        assert early.sources[0].path != ON_CALL  # words alone do not find it
        assert semantic.wait_idle(CEILING)
        # The same question once every note has vectors: answered again, not the early
        # answer replayed from the cache.
        later = bridge.engine.query(PARAPHRASE, limit=3)
        assert later.tier != 0 and later.sources[0].path == ON_CALL
        assert bridge.engine.query(PARAPHRASE, limit=3).tier == 0  # and cached from now on
    finally:
        bridge.close()


def test_no_off_topic_verdict_from_a_channel_that_has_not_seen_the_whole_vault(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    bridge = _embedded(template_vault, tmp_path / "state", template_vectors)
    try:
        semantic = bridge.semantic
        assert semantic is not None
        text = "what is the capital of France?"
        found = semantic.find(text, None, 100)
        assert found.covered and found.closeness is not None
        reader = bridge.engine.retriever.evidence
        assert reader.closeness(found) == found.closeness
        assert bridge.engine.query(text).ood
        # The same passages from a channel that has embedded half the notes (a fresh serve):
        # the answer may be in a note without vectors yet, so the channel says nothing.
        half = replace(found, covered=False)
        assert reader.closeness(half) == 0.0 and not half.ranks
    finally:
        bridge.close()


def test_a_fresh_serve_ranks_by_words_until_every_note_is_embedded(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    for i in range(70):  # first in path order: embedded in the first step of 64
        note = template_vault / "archive" / f"filler_{i:02d}.md"
        note.parent.mkdir(exist_ok=True)
        note.write_text(f"# Filler {i}\n\nA note about office plants, number {i}.\n")
    words = _embedded(template_vault, tmp_path / "lexical", embed_model="off")
    bridge = open_test_bridge(template_vault, tmp_path / "state")
    try:
        semantic = bridge.semantic
        assert semantic is not None
        held = HeldBack(semantic.embedder, "Four engineers rotate weekly")
        semantic.embedder = held
        semantic.start()
        wait_until(lambda: semantic.status()["embedded"] >= 64)  # the fillers have vectors
        assert semantic.status()["state"] == "embedding"
        lexical = [s.path for s in words.engine.search(PARAPHRASE, limit=5).sources]
        assert [s.path for s in bridge.engine.search(PARAPHRASE, limit=5).sources] == lexical
        answer = bridge.engine.query(PARAPHRASE, limit=5)
        assert not answer.ood  # no "Nothing in memory" while its note has no vectors
        held.release.set()
        assert semantic.wait_idle(CEILING)
        # Caught up: the answer of a bridge whose vault was embedded before it was asked.
        warm = _embedded(template_vault, tmp_path / "warm", template_vectors)
        hybrid = [s.path for s in warm.engine.search(PARAPHRASE, limit=5).sources]
        warm.close()
        assert hybrid != lexical and ON_CALL in hybrid[:3]
        assert [s.path for s in bridge.engine.search(PARAPHRASE, limit=5).sources] == hybrid
    finally:
        held.release.set()
        bridge.close()
        words.close()


def test_passages_cut_by_new_rules_never_come_from_the_old_rules_rows(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = tmp_path / "state"
    _embedded(template_vault, state, template_vectors).close()  # passages of up to 160 words
    cut = open_bridge(Settings(vault=template_vault, state_dir=state, embed_passage_words=40))
    cut.sync()
    assert cut.semantic is not None
    cut.semantic.load()  # the new rules taken on, then stopped before any note is planned again
    cut.close()
    again = _embedded(template_vault, state, embed_passage_words=40)
    fresh = _embedded(template_vault, tmp_path / "fresh", embed_passage_words=40)
    try:
        assert again.semantic_status()["sections"] == fresh.semantic_status()["sections"]
    finally:
        again.close()
        fresh.close()
