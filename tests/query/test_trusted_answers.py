"""Answers a person can trust, on the template vault with both channels (the defaults)."""

from __future__ import annotations

from itertools import pairwise

from bridge.runtime import Bridge

ON_CALL = "team/practices/incidents/on_call.md"
DUNNING = "billing/cycle/dunning/failed_payments.md"


def test_a_question_in_other_words_is_answered_not_refused(embedded_bridge: Bridge) -> None:
    result = embedded_bridge.engine.query("who gets woken up when prod goes down at night?")
    assert not result.ood
    assert result.sources[0].path == ON_CALL


def test_a_question_naming_a_person_of_the_vault_is_never_refused(
    embedded_bridge: Bridge,
) -> None:
    assert not embedded_bridge.engine.query("what does Maya think").ood


def test_a_cached_answer_never_carries_another_questions_verdict(embedded_bridge: Bridge) -> None:
    engine = embedded_bridge.engine
    fresh = engine.search("dunning emails")
    assert fresh.sources[0].path == DUNNING
    engine.query("dunning emails lowdown")  # an unknown word: maybe answered, maybe not
    again = engine.query("dunning emails")
    assert not again.ood
    assert again.sources and again.sources[0].path == DUNNING


def test_a_made_up_word_finds_nothing(embedded_bridge: Bridge) -> None:
    engine = embedded_bridge.engine
    found = engine.search("zorblax")
    assert found.sources == [] and found.message is not None
    assert engine.query("zorblax").ood
    assert engine.query("What is the capital of Australia?").ood


def test_sources_are_in_the_order_of_the_score_a_person_reads(embedded_bridge: Bridge) -> None:
    result = embedded_bridge.engine.search("how do refresh tokens get renewed?")
    direct = [s.score for s in result.sources if s.via == "search"]
    tolerance = embedded_bridge.engine.params.ranking.lifecycle_tolerance
    for ahead, behind in pairwise(direct):
        assert ahead * (1 + tolerance) >= behind  # by score; the lifecycle swaps near-equals
    assert all(0.0 <= s.score <= 1.0 for s in result.sources)
    excerpts = [b.text for s in result.sources for b in s.blocks]
    assert not any(t.lstrip("- ").startswith("Author:") for t in excerpts)  # no provenance
