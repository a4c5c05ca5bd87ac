from __future__ import annotations

import pytest

from bridge.core.paths import UnsafePathError, link_target, normalise_note_path, parent, stem


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("a/b/c.md", "a/b/c.md"),
        ("a/b/c", "a/b/c.md"),
        ("@a/b/c.md", "a/b/c.md"),
        ("  billing/plans/annual_plan  ", "billing/plans/annual_plan.md"),
        ("notes/日本語", "notes/日本語.md"),
        ("a/B.MD", "a/B.md"),
    ],
)
def test_accepted_spellings_normalise(given: str, expected: str) -> None:
    assert normalise_note_path(given) == expected


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("a/../b", "leaves the vault"),
        ("../outside", "leaves the vault"),
        ("/etc/passwd", "absolute"),
        ("C:/Users/x", "absolute"),
        ("~/notes/x", "absolute"),
        ("a\\b", "`\\`"),
        ("a/b:c", "`:`"),
        ("a/b|c", "`|`"),
        ("a/b#c", "`#`"),
        ("a/b^c", "`^`"),
        ("a/[b]", "`[`"),
        ("a/b?", "`?`"),
        (".obsidian/x", "starts with a dot"),
        ("a//b", "empty"),
        ("a/./b", "empty"),
        ("a/con", "reserved"),
        ("a/b. ", "ends with a space or a dot"),
        ("a/b\x07", "control"),
        ("", "empty"),
        ("a/" + "x" * 300, "255 bytes"),
    ],
)
def test_unsafe_paths_are_refused_with_the_reason(given: str, reason: str) -> None:
    """Every rule holds for a name the bridge creates (`new=True`)."""
    with pytest.raises(UnsafePathError, match=None) as info:
        normalise_note_path(given, new=True)
    assert reason in str(info.value)


LEAVING = ("a/../b", "../outside", "/etc/passwd", "C:/Users/x", "~/notes/x", "a\\b", "")


@pytest.mark.parametrize("given", LEAVING)
def test_a_path_leaving_the_vault_is_refused_even_for_existing_notes(given: str) -> None:
    with pytest.raises(UnsafePathError):
        normalise_note_path(given)


@pytest.mark.parametrize(
    "name",
    [
        "notes/aux.md",
        "notes/CON.md",
        "notes/C# tips.md",
        "notes/[draft] plan.md",
        "a/b|c.md",
        "notes/caf\u0065\u0301.md",
    ],
)
def test_existing_notes_keep_the_names_a_human_gave_them(name: str) -> None:
    """Naming rules are for notes the bridge creates; a human's note is read as it is named."""
    assert normalise_note_path(name) == name


def test_a_new_name_with_a_bidi_override_is_refused() -> None:
    with pytest.raises(UnsafePathError, match="invisible"):
        normalise_note_path("notes/invoice\u202egnp.md", new=True)


def test_link_spelling_helpers() -> None:
    assert link_target("a/b/c.md") == "a/b/c"
    assert stem("a/b/c.md") == "c"
    assert parent("a/b/c.md") == "a/b"
    assert parent("c.md") == ""
