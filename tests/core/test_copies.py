"""Copies are one source: texts that share nearly all their word pairs, on plain values."""

from __future__ import annotations

from bridge.core.copies import copy_groups, maybe_copies, word_pairs

PAGE = (
    "Version history keeps every version of a note for a year. Open the file menu and pick "
    "Version history to restore an older version; restoring keeps the current one too. "
    "Versions are saved every ten minutes while you edit, and once more when you close the "
    "note. A deleted note keeps its history: open the deleted files list in the sync "
    "settings to bring it back. Attachments have versions too, kept as long as notes."
)


def test_a_copy_and_a_version_with_one_word_fixed_join_the_best_note_but_a_sibling_does_not() -> (
    None
):
    texts = {
        "en/history.md": PAGE,
        "fr/history.md": PAGE,  # an untranslated copy
        "old/history.md": PAGE.replace("a year", "one year"),  # an older version
        "next.md": "Go to the next sibling: moves the cursor to the next note.",
        "prev.md": "Go to the previous sibling: moves the cursor to the previous note.",
    }
    order = list(texts)
    sizes = {k: len(v.encode()) for k, v in texts.items()}
    read: list[str] = []

    def pairs_of(key: str) -> frozenset[tuple[str, str]]:
        read.append(key)
        return word_pairs(texts[key])

    groups = copy_groups(order, maybe_copies(sizes, order), pairs_of)
    assert groups == {"en/history.md": ["fr/history.md", "old/history.md"]}
    # Two short notes about different commands share most words but not their word pairs.
    assert "prev.md" not in groups.get("next.md", [])


def test_notes_of_very_different_sizes_are_never_read_to_compare() -> None:
    sizes = {"a": 100, "b": 400, "c": 95}
    assert maybe_copies(sizes, ["a", "b", "c"]) == [("a", "c")]


def test_word_pairs_ignore_case_and_punctuation() -> None:
    assert word_pairs("Sync, your NOTES!") == word_pairs("sync your notes")
    assert word_pairs("") == frozenset()
