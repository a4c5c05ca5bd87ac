"""A vault's template lines are counted within each of its editions (`count_boilerplate`)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import open_test_bridge, write_notes


def _edition(code: str, footer: str, count: int) -> dict[str, str]:
    notes = {}
    for i in range(count):
        body = f"# Page {i}\n\nWhat page {i} of the {code} edition says.\n\n{footer}\n"
        if i < 15:  # an example the pages show, copied untranslated into every edition
            body += "\nSet the option `views: table` to list the notes as rows.\n"
        notes[f"{code}/pages/page_{i:03d}.md"] = body
    return notes


def test_a_line_each_edition_copies_is_no_template_but_a_line_of_one_edition_is(
    tmp_path: Path,
) -> None:
    notes = {
        **_edition("en", "Edit this page on GitHub", 120),
        **_edition("de", "Diese Seite auf GitHub bearbeiten", 120),
    }
    vault = write_notes(tmp_path / "vault", notes)
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        assert bridge.semantic is not None
        bridge.semantic.load()  # takes stock: counts the template lines, embeds nothing
        template = bridge.semantic.planner.boilerplate
        assert "Edit this page on GitHub" in template  # 120 of the English edition's notes
        assert "Diese Seite auf GitHub bearbeiten" in template
        # 30 notes hold the example, 15 in each edition: under the 20 of either edition.
        assert not any("views: table" in line for line in template)
    finally:
        bridge.close()
