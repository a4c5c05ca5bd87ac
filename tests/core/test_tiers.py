"""The tier and out-of-domain decisions on plain numbers."""

from __future__ import annotations

from dataclasses import replace

from bridge.core.tiers import EVERY_WORD, Evidence, Route, TierParams, is_out_of_domain, route

P = TierParams(direct=0.5, one_call=0.2, ood=0.05)
CLOSE = Evidence(has_terms=True, confidence=0.8, held=0.9, on_topic=0.9)


def test_the_confidence_that_the_first_source_answers_picks_the_tier() -> None:
    assert route(CLOSE, P) is Route.DIRECT
    assert route(replace(CLOSE, confidence=0.3), P) is Route.ONE_CALL
    assert route(replace(CLOSE, confidence=0.1), P) is Route.AGENTIC
    assert route(replace(CLOSE, has_terms=False), P) is Route.NOTHING


def test_nothing_in_memory_when_the_vault_is_unlikely_to_be_about_the_question() -> None:
    far = replace(CLOSE, held=0.2, on_topic=0.01)
    assert is_out_of_domain(far, P) and route(far, P) is Route.OOD
    # However confident the ranker is of its first note, the vault is not about this.
    assert route(replace(far, confidence=0.99), P) is Route.OOD
    # A note that holds every word of it, or a name it names: never refused.
    assert not is_out_of_domain(replace(far, held=EVERY_WORD), P)
    assert not is_out_of_domain(replace(far, names_held=True), P)
    # Likely enough about the vault: answered, by whichever tier its confidence picks.
    assert route(replace(far, on_topic=0.06, confidence=0.01), P) is Route.AGENTIC
