"""The bundled template teaches the format, so it must be free of problems."""

from __future__ import annotations

from bridge.core.entry import parse_note, render_entry
from bridge.core.relations import LinkResolver
from bridge.vault.scan import scan_vault
from bridge.vault.store import VaultStore
from tests.conftest import TEMPLATE, TRICKY


def test_every_template_note_parses_cleanly_and_every_link_resolves() -> None:
    report = scan_vault(VaultStore(TEMPLATE))
    assert report.problems == []
    assert report.unresolved == 0
    assert report.entries >= 8
    statuses = {n.entry.status for n in report.notes if n.is_entry}
    assert statuses == {"draft", "stable", "core"}
    assert any(n.path.endswith("_index.md") for n in report.notes)


def test_template_entries_survive_a_render_round_trip() -> None:
    store = VaultStore(TEMPLATE)
    for path in store.iter_paths():
        note = store.read(path).parse()
        if note.is_entry:
            assert parse_note(path, render_entry(note.entry)).entry == note.entry, path


def test_tricky_notes_parse_without_crashing() -> None:
    report = scan_vault(VaultStore(TRICKY))
    codes = {(p.path, p.code) for p in report.problems}
    assert ("malformed_yaml.md", "malformed_frontmatter") in codes
    assert ("duplicate_frontmatter.md", "duplicate_frontmatter") in codes
    by_path = {n.path: n for n in report.notes}
    crlf = by_path["crlf.md"]
    assert crlf.title == "Windows note" and crlf.entry.status == "draft"
    assert by_path["bom.md"].entry.title == "BOM note"
    code_links = [lk.target for lk in by_path["code_links.md"].links]
    assert code_links == ["crlf"]
    resolver = LinkResolver(report.paths)
    assert resolver.resolve("unicode_日本語") == "nested/deeper/unicode_日本語.md"
    human = by_path["human_formatted.md"].entry
    assert human.narrative.startswith("Lower-case section heading.")
    assert [(r.target, r.heading, r.alias, r.block) for r in human.relations] == [
        ("code_links", "Code links", "see code", None),
        ("crlf", None, None, "block-1"),
        ("missing/target", None, None, None),
    ]
