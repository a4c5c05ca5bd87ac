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
    with pytest.raises(UnsafePathError, match=None) as info:
        normalise_note_path(given)
    assert reason in str(info.value)


def test_link_spelling_helpers() -> None:
    assert link_target("a/b/c.md") == "a/b/c"
    assert stem("a/b/c.md") == "c"
    assert parent("a/b/c.md") == "a/b"
    assert parent("c.md") == ""
