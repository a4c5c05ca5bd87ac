"""A note's and a question's language: declared, detected when sure, then the folder."""

from __future__ import annotations

from bridge.core.language import (
    edition_folders,
    edition_language,
    folder_language,
    language_code,
    note_language,
    sure_language,
)


def test_codes_are_read_in_their_usual_spellings() -> None:
    assert language_code("en") == "en"
    assert language_code("pt-BR") == "pt"
    assert language_code("zh_Hans") == "zh"
    assert language_code("English") is None
    assert language_code("xx") is None
    assert language_code(42) is None


def test_a_top_folder_named_by_a_code_is_a_language_and_other_folders_are_not() -> None:
    assert folder_language("de/Sync.md") == "de"
    assert folder_language("zh-cn/同步.md") == "zh"
    assert folder_language("notes/de/x.md") is None
    assert folder_language("Sync.md") is None


def test_declared_beats_detected_beats_folder_and_short_text_is_not_detected() -> None:
    assert note_language("fr", "de/x.md", ("en", 0.99), 500) == "fr"
    assert note_language(None, "it/x.md", ("en", 0.99), 500) == "en"  # IT notes in English
    assert note_language(None, "it/x.md", ("en", 0.99), 10) == "it"  # too short: folder
    assert note_language(None, "x.md", ("en", 0.5), 500) is None  # unsure: unknown


def test_a_questions_language_is_chosen_among_the_vaults_when_unsure_overall() -> None:
    ranks = {"fy": 0.24, "en": 0.2, "de": 0.01, "nl": 0.15}
    assert sure_language(ranks, None) is None
    assert sure_language(ranks, frozenset({"en", "de"})) == "en"
    assert sure_language({}, None) is None


def test_folders_are_editions_when_mostly_in_their_language_or_the_vault_is_laid_out_so() -> None:
    # An English vault with an `it/` folder of IT notes: no edition, its notes read as English.
    assert edition_folders({"it": {"en": 40, "it": 1}}) == frozenset()
    assert edition_language("en", "it", edition_folders({"it": {"en": 40}})) == "en"
    # A lone German folder in an English vault is the German edition.
    assert edition_folders({"de": {"de": 3, "en": 1}}) == frozenset({"de"})
    # Laid out by language (two editions): a mostly untranslated edition is one too.
    laid_out = edition_folders(
        {"en": {"en": 90}, "zh": {"zh": 50, "en": 10}, "ko": {"en": 7, "ko": 2}}
    )
    assert laid_out == frozenset({"en", "zh", "ko"})
    # An English copy in the Chinese edition is found in the Chinese edition.
    assert edition_language("en", "zh", laid_out) == "zh"
    assert edition_language("en", None, laid_out) == "en"
    assert edition_language(None, "ko", laid_out) == "ko"
