from __future__ import annotations

from bridge.core.markdown import excerpt_text
from bridge.core.relations import link_display_text
from bridge.core.text import cjk_bigrams, jaccard, normalise_query, spaced_bigrams, word_count


def test_normalise_query() -> None:
    assert normalise_query("  Ｈｏｗ   LONG\tdo\nTokens live ") == "how long do tokens live"


def test_cjk_bigrams_cover_every_adjacent_pair() -> None:
    assert cjk_bigrams("東京の会議") == ["東京", "京の", "の会", "会議"]
    assert cjk_bigrams("a 猫 b") == ["猫"]
    assert cjk_bigrams("plain english") == []
    assert "ภาษ" not in cjk_bigrams("ภาษาไทย") and "ภา" in cjk_bigrams("ภาษาไทย")


def test_spaced_bigrams_write_each_run_as_its_pairs_and_leave_the_rest() -> None:
    text = "Meet in 東京の会議 at 10, or ｶﾌｪ."
    assert spaced_bigrams(text).split() == [
        "Meet", "in", "東京", "京の", "の会", "会議", "at", "10,", "or", "カフ", "フェ", ".",
    ]  # fmt: skip
    assert [g for g in spaced_bigrams(text).split() if not g.isascii()] == cjk_bigrams(text)
    english = "Plain English, and Ünïcode café: left exactly as it is."
    assert spaced_bigrams(english) is english


def test_word_count_counts_no_space_scripts_by_pairs() -> None:
    assert word_count("three plain words") == 3
    assert word_count("東京の会議") == 3  # 5 characters, about 3 words' worth
    assert word_count("") == 0


def test_jaccard() -> None:
    assert jaccard({"a", "b"}, {"a", "b"}) == 1.0
    assert jaccard({"a", "b", "c"}, {"a", "b", "d"}) == 0.5
    assert jaccard(set(), set()) == 0.0


def test_excerpt_text_drops_markers_and_block_ids() -> None:
    assert excerpt_text("- Caroline: hi ^D1-3") == "Caroline: hi"
    assert excerpt_text("1. [x] done task") == "done task"
    assert excerpt_text("A paragraph about x^2") == "A paragraph about x^2"


def test_links_are_indexed_as_they_read() -> None:
    text = "see [[engineering/deploy/rollback]] and [[a/b_c|the alias]] and `x`"
    assert link_display_text(text) == "see rollback and the alias and `x`"
