"""A question finds notes in its own language by other forms of their words (native stems),
and, with the dense channel off, gets its own edition's page before another edition's copy.

Real index and real language detector on temp vaults; the dense channel has no vectors here,
so these are the lexical searches alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.index.analysis import native_stems, with_stems
from bridge.runtime import open_bridge
from bridge.settings import Settings
from tests.conftest import open_test_bridge, write_notes

# "gelöschten Notiz" and "Fassung" in the question; "Gelöschte Notizen" and "Fassungen" in the
# answer: the English stemmer keeps each pair apart, the German one joins them. The other
# German note holds "Notiz" as the question spells it, twice.
VAULT = {
    "en/Sync/Version history.md": (
        "# Version history\n\nRestore an older version of a deleted note from its history.\n"
    ),
    "en/Start/Mobile app.md": "# Mobile app\n\nInstall the app on your phone and add a note.\n",
    "de/Sync/Versionsgeschichte.md": (
        "# Versionsgeschichte\n\nGelöschte Notizen und ältere Fassungen stellst du in der "
        "Versionsgeschichte wieder her.\n"
    ),
    "de/Start/Mobile App.md": (
        "# Mobile App\n\nInstalliere die App auf dem Handy und lege eine Notiz an. Die Notiz "
        "erscheint sofort in der Liste.\n"
    ),
}
QUESTION = "Wie bekomme ich die ältere Fassung einer gelöschten Notiz zurück?"


def test_a_german_question_finds_the_german_page_by_other_forms_of_its_words(
    tmp_path: Path,
) -> None:
    vault = write_notes(tmp_path / "vault", VAULT)
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        result = bridge.engine.query(QUESTION)
        assert result.sources, result
        assert result.sources[0].path == "de/Sync/Versionsgeschichte.md"
    finally:
        bridge.close()


@pytest.mark.parametrize("key", ["lang", "language"])
def test_a_declared_language_gives_a_note_its_stems_once_the_note_says_so(
    tmp_path: Path, key: str
) -> None:
    notes = {
        "notes/Versionsgeschichte.md": VAULT["de/Sync/Versionsgeschichte.md"],
        "notes/Mobile App.md": VAULT["de/Start/Mobile App.md"],
    }
    vault = write_notes(tmp_path / "vault", notes)
    bridge = open_test_bridge(vault, tmp_path / "state")
    try:
        before = bridge.engine.search(QUESTION)  # words alone: another note, or nothing close
        assert [s.path for s in before.sources][:1] != ["notes/Versionsgeschichte.md"]
        for rel, text in notes.items():  # the notes declare their language; nothing else
            (vault / rel).write_text(f"---\n{key}: de\n---\n{text}", encoding="utf-8")
        bridge.sync()
        after = bridge.engine.search(QUESTION)
        assert [s.path for s in after.sources][:1] == ["notes/Versionsgeschichte.md"]
    finally:
        bridge.close()


def test_only_stems_the_index_would_not_hold_anyway_are_added() -> None:
    # "Gelöschte" is "geloscht" to the English analyzer as to the German one; "Notizen" not.
    assert native_stems("Gelöschte Notizen", "de") == ["notiz"]
    # The English analyzer already makes "evernot" of "Evernote": no second copy.
    assert native_stems("Evernote", "fr") == []
    assert native_stems("Notizen", "ja") == []  # no stemmer for the language
    assert with_stems("Notizen", None) == "Notizen"
    assert with_stems("Notizen", "de") == "Notizen\nnotiz"


# The French edition's untranslated copy of the English page: an older, shorter version.
EDITIONS = {
    "en/Sync/Security and privacy.md": (
        "# Security and privacy\n\nYour notes are encrypted end to end before they leave your "
        "device, so nobody at the company can read them. You choose the encryption password "
        "when you create the remote vault, and we never store it.\n"
    ),
    "fr/Sync/Security and privacy.md": (
        "# Security and privacy\n\nYour notes are encrypted so nobody at the company can read "
        "them.\n"
    ),
    "fr/Sync/Sécurité.md": "# Sécurité\n\nVos notes sont chiffrées de bout en bout.\n",
    "de/Sync/Sicherheit.md": "# Sicherheit\n\nDeine Notizen werden verschlüsselt.\n",
}


def test_lexical_only_an_english_question_gets_the_english_page_before_another_editions_copy(
    tmp_path: Path,
) -> None:
    """With the dense channel off, a note's language is its edition folder's."""
    vault = write_notes(tmp_path / "vault", EDITIONS)
    bridge = open_bridge(Settings(vault=vault, state_dir=tmp_path / "state", embed_model="off"))
    try:
        bridge.sync()
        found = bridge.engine.search("is my data encrypted so nobody at the company can read it?")
        assert [s.path for s in found.sources][:1] == ["en/Sync/Security and privacy.md"]
    finally:
        bridge.close()


def test_the_vaults_editions_follow_its_folders_as_notes_come_and_go(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", EDITIONS)
    state = tmp_path / "state"
    bridge = open_bridge(Settings(vault=vault, state_dir=state, embed_model="off"))
    try:
        bridge.sync()
        assert bridge.index.folder_languages() == {"en", "fr", "de"}
        for name in ("Security and privacy.md", "Sécurité.md"):
            (vault / "fr" / "Sync" / name).unlink()
        (vault / "pt-br").mkdir()
        (vault / "pt-br" / "Segurança.md").write_text("# Segurança\n\nNotas cifradas.\n")
        bridge.sync()
        assert bridge.index.folder_languages() == {"en", "de", "pt"}
    finally:
        bridge.close()
    reopened = open_bridge(Settings(vault=vault, state_dir=state, embed_model="off"))
    try:  # a restart counts them from the stored records
        assert reopened.index.folder_languages() == {"en", "de", "pt"}
    finally:
        reopened.close()
