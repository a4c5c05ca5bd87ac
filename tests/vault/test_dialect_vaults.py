"""Logseq, Dendron and Foam vaults (hand-written fixtures, as each tool writes them) read as
each tool shows them: detection, titles, aliases, tags, summaries, links, the tool's own files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bridge.cli import main
from bridge.core.dialect import Dendron, Foam, Logseq, Obsidian
from bridge.settings import Settings
from bridge.vault.dialects import detect, load_dialect
from bridge.vault.scan import VaultReport, scan_vault
from bridge.vault.store import VaultStore
from tests.conftest import TEMPLATE

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dialects"


def copy_of(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / name, target)
    return target


def open_store(vault: Path) -> VaultStore:
    settings = Settings(vault=vault)
    dialect = settings.vault_dialect
    return VaultStore(vault, settings.ignore_rules_for(dialect), dialect=dialect)


def scan(vault: Path) -> tuple[VaultStore, VaultReport]:
    store = open_store(vault)
    return store, scan_vault(store)


def test_each_vault_is_detected_with_its_configuration(tmp_path: Path) -> None:
    logseq = load_dialect(copy_of(tmp_path, "logseq"))
    assert isinstance(logseq, Logseq)
    assert logseq.file_name_format == "triple-lowbar" and logseq.hidden == ("/archive",)
    dendron = load_dialect(copy_of(tmp_path, "dendron"))
    assert dendron == Dendron(vaults=("notes",), vault_names=("personal",))
    assert isinstance(load_dialect(copy_of(tmp_path, "foam")), Foam)
    assert detect(TEMPLATE) == "obsidian"
    # The setting chooses over what is found.
    assert isinstance(load_dialect(tmp_path / "logseq", "obsidian"), Obsidian)


def test_a_logseq_graph_without_a_name_format_is_legacy(tmp_path: Path) -> None:
    (tmp_path / "logseq").mkdir()
    (tmp_path / "logseq" / "config.edn").write_text("{:preferred-format :markdown}\n")
    dialect = load_dialect(tmp_path)
    assert isinstance(dialect, Logseq) and dialect.file_name_format == "legacy"


def test_an_unreadable_config_gives_the_tools_defaults(tmp_path: Path) -> None:
    (tmp_path / "logseq").mkdir()
    (tmp_path / "logseq" / "config.edn").write_text("{:file/name-format :triple-lowbar\n")
    assert isinstance(load_dialect(tmp_path), Logseq)
    (tmp_path / "logseq" / "config.edn").unlink()
    (tmp_path / "dendron.yml").write_text("workspace: [unclosed\n")
    assert load_dialect(tmp_path) == Dendron()


def test_logseq_pages_read_as_logseq_shows_them(tmp_path: Path) -> None:
    _, report = scan(copy_of(tmp_path, "logseq"))
    notes = {n.path: n for n in report.notes}
    sessions = notes["pages/auth___sessions.md"]
    assert sessions.title == "Auth/Sessions"  # not the file stem `auth___sessions`
    assert sessions.aliases == ("login sessions", "session cookies")
    assert sessions.entry.tags == ("security", "auth flow")
    assert sessions.description == "Sessions last 12 hours and are renewed on activity."
    assert sessions.entry.status == "stable"
    assert notes["pages/New to Logseq%3F.md"].title == "New to Logseq?"
    assert notes["pages/Auth___Key Rotation.md"].title == "Auth/Key Rotation"
    journal = notes["journals/2026_11_02.md"]
    assert journal.title == "Nov 2nd, 2026" and journal.entry.created is not None


def test_logseq_backups_and_hidden_pages_are_not_notes(tmp_path: Path) -> None:
    store, report = scan(copy_of(tmp_path, "logseq"))
    assert sorted(report.paths) == [
        "journals/2026_11_02.md",
        "pages/Auth___Key Rotation.md",
        "pages/Deploy.md",
        "pages/New to Logseq%3F.md",
        "pages/auth___sessions.md",
    ]
    assert not any("OUTDATED" in store.read(p).text for p in report.paths)


def test_no_link_logseq_resolves_is_reported(tmp_path: Path) -> None:
    _, report = scan(copy_of(tmp_path, "logseq"))
    # Namespaces, aliases, titles, journals: each resolves to its page...
    assert report.problems == [] and report.unresolved == 0
    assert report.summary()["problem_notes"] == 0
    # ...and edges follow them: sessions -> key rotation, rotation -> sessions (by alias),
    # the journal -> rotation (by alias), deploy -> journal and the `?` page, back to deploy.
    assert report.relations == 6
    # A page without a file (`[[Fixed issues]]`) is a page of the graph, not a broken link,
    # and the namespaces are the tree's levels.
    assert report.summary()["folders"] == 2  # `Auth`, `journals`


def test_dendron_notes_read_as_dendron_shows_them(tmp_path: Path) -> None:
    _, report = scan(copy_of(tmp_path, "dendron"))
    notes = {n.path: n for n in report.notes}
    assert sorted(notes) == [
        "notes/proj.auth.jwt.md",
        "notes/proj.auth.keys.md",
        "notes/proj.auth.md",
        "notes/proj.billing.md",
        "notes/proj.md",
        "notes/root.md",
    ]  # README.md and docs/ are outside the vault: no notes of Dendron's
    jwt = notes["notes/proj.auth.jwt.md"]
    assert jwt.title == "JWT expiry"
    assert jwt.description == "Access tokens live 24 hours; refresh tokens 30 days."
    assert jwt.entry.updated is not None and jwt.entry.updated.year == 2024
    assert notes["notes/root.md"].title == "root"  # `title`, not the `# Welcome` heading
    assert notes["notes/proj.billing.md"].title == "Billing"
    assert notes["notes/proj.auth.md"].entry.tags == ("security",)


def test_dendron_links_resolve_as_dendron_resolves_them(tmp_path: Path) -> None:
    _, report = scan(copy_of(tmp_path, "dendron"))
    # Every note is valid: epoch-millisecond dates are dates.
    assert [p for p in report.problems if p.code != "unresolved_link"] == []
    # Only the link into a vault the workspace does not hold is broken.
    assert report.unresolved_links == {
        "notes/proj.auth.md": [report.unresolved_links["notes/proj.auth.md"][0]]
    }
    assert report.unresolved_links["notes/proj.auth.md"][0].link == (
        "[[RFC 7|dendron://archive/rfc.7-auth]]"
    )
    # `proj.auth.jwt` under `proj/auth`: the dotted names are the tree.
    assert report.summary()["folders"] == 2


def test_foam_notes_read_as_foam_shows_them(tmp_path: Path) -> None:
    _, report = scan(copy_of(tmp_path, "foam"))
    notes = {n.path: n for n in report.notes}
    assert "_site/inbox.md" not in notes  # the published copy
    inbox = notes["inbox.md"]
    assert inbox.title == "Inbox of ideas"
    assert inbox.description == "Ideas waiting to be sorted into projects."
    assert not any("Autogenerated" in b.text or "]: " in b.text for b in inbox.blocks)
    # `[[projects]]` opens `projects/index.md`; the placeholder is the one link to nothing.
    assert [u.link for u in report.unresolved_links["inbox.md"]] == ["[[placeholder-note]]"]
    assert report.unresolved == 1


@pytest.mark.parametrize("name", ["logseq", "dendron", "foam"])
def test_reading_a_vault_changes_no_byte(tmp_path: Path, name: str) -> None:
    vault = copy_of(tmp_path, name)
    before = {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()}
    scan(vault)
    assert {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("logseq", {"notes": 5, "unresolved_links": 0, "problem_notes": 0, "folders": 2}),
        ("dendron", {"notes": 6, "unresolved_links": 1, "problem_notes": 0, "folders": 2}),
        ("foam", {"notes": 5, "unresolved_links": 1, "problem_notes": 0, "folders": 2}),
    ],
)
def test_status_and_doctor_name_the_dialect_and_count_as_the_tool_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, counts: dict[str, int]
) -> None:
    vault = copy_of(tmp_path, name)
    state = str(tmp_path / "state")
    assert main(["status", "--vault", str(vault), "--state-dir", state, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dialect"] == name
    assert {k: out[k] for k in counts} == counts
    code = main(["doctor", "--vault", str(vault), "--state-dir", state, "--json"])
    doctor = json.loads(capsys.readouterr().out)
    assert code == (1 if counts["unresolved_links"] else 0)
    assert all(not n["problems"] for n in doctor["notes"])  # every note is a valid one
