"""Tier routing and the out-of-domain rule."""

from __future__ import annotations

import dataclasses

from bridge.core.tiers import Evidence, Route, TierParams, is_out_of_domain, route

P = TierParams()
BASE = Evidence(
    top_rel=0.95,
    second_rel=0.9,
    hits=5,
    entries_in_vault=100,
    all_terms_found=True,
    unknown_long_terms=0,
    long_terms=3,
)


def ev(**changes: object) -> Evidence:
    return dataclasses.replace(BASE, **changes)  # type: ignore[arg-type]


def test_direct_when_sure_single_or_clear_gap() -> None:
    assert route(ev(top_rel=0.93, second_rel=0.92), P) is Route.DIRECT
    assert route(ev(top_rel=0.86, hits=1, second_rel=0), P) is Route.DIRECT
    assert route(ev(top_rel=0.86, second_rel=0.77), P) is Route.DIRECT
    assert route(ev(top_rel=0.86, second_rel=0.80), P) is Route.ONE_CALL


def test_one_call_and_agentic_bands() -> None:
    assert route(ev(top_rel=0.75, second_rel=0.7), P) is Route.ONE_CALL
    assert route(ev(top_rel=0.65, second_rel=0.6), P) is Route.AGENTIC


def test_ood_needs_a_big_enough_vault() -> None:
    low = ev(top_rel=0.3, second_rel=0.1)
    assert route(low, P) is Route.OOD
    assert route(dataclasses.replace(low, entries_in_vault=49), P) is Route.AGENTIC


def test_unknown_words_make_ood_only_when_most_are_unknown() -> None:
    partial = ev(top_rel=0.8, all_terms_found=False, unknown_long_terms=1, long_terms=3)
    assert not is_out_of_domain(partial, P)
    mostly = dataclasses.replace(partial, unknown_long_terms=2)
    assert is_out_of_domain(mostly, P)
    found_all = dataclasses.replace(mostly, all_terms_found=True)
    assert not is_out_of_domain(found_all, P)
    confident = dataclasses.replace(mostly, top_rel=0.86)
    assert not is_out_of_domain(confident, P)


def test_no_terms_is_its_own_route() -> None:
    assert route(ev(has_terms=False, top_rel=0), P) is Route.NOTHING


def test_the_dense_channel_flags_an_off_topic_question_whatever_the_vaults_size() -> None:
    # "What is the capital of Australia?" in a big vault: a strong BM25 match on "capital".
    off = ev(top_rel=0.95, dense_top=0.29, dense_line=0.42, all_terms_found=False)
    off = dataclasses.replace(off, term_coverage=0.4)
    assert route(off, P) is Route.OOD
    assert route(dataclasses.replace(off, entries_in_vault=3), P) is Route.OOD
    # Without a line (no model measured, nothing embedded): the lexical rule.
    assert route(dataclasses.replace(off, dense_line=None), P) is Route.DIRECT


def test_the_line_is_the_vaults_own() -> None:
    # The same best passage is off-topic in a broad vault and on-topic in a narrow one.
    asked = ev(top_rel=0.95, dense_top=0.33, all_terms_found=False, term_coverage=0.2)
    assert route(dataclasses.replace(asked, dense_line=0.42), P) is Route.OOD
    assert route(dataclasses.replace(asked, dense_line=0.23), P) is not Route.OOD


def test_a_paraphrase_the_lexical_rule_would_flag_is_kept_by_the_dense_channel() -> None:
    unknown_words = ev(top_rel=0.7, all_terms_found=False, unknown_long_terms=2, long_terms=3)
    assert route(unknown_words, P) is Route.OOD
    kept = dataclasses.replace(unknown_words, dense_top=0.6, dense_line=0.42)
    assert route(kept, P) is not Route.OOD


def test_low_similarity_is_overruled_by_the_words_or_a_named_speaker() -> None:
    low = ev(dense_top=0.3, dense_line=0.42, all_terms_found=False, term_coverage=0.2)
    assert route(low, P) is Route.OOD
    assert route(dataclasses.replace(low, all_terms_found=True), P) is not Route.OOD
    assert route(dataclasses.replace(low, term_coverage=0.7), P) is not Route.OOD
    assert route(dataclasses.replace(low, names_speaker=True), P) is not Route.OOD
