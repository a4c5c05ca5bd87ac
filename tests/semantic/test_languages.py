"""A vault in several languages: an English question gets English notes first, the English model
embeds only English notes, and a note's declared `lang` wins over detection."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from tests.conftest import CEILING, open_test_bridge
from tests.semantic.conftest import HeldBack
from tests.watch.conftest import wait_until

NOTES = {
    "en/Sync your notes.md": (
        "# Sync your notes\n\nKeep your vault the same on your phone and your laptop: sync "
        "copies every change to your other devices within seconds, and keeps older versions "
        "of each note so you can go back to one.\n"
    ),
    "de/Notizen synchronisieren.md": (
        "# Notizen synchronisieren\n\nHalte deinen Tresor auf Telefon und Laptop gleich: Sync "
        "kopiert jede Änderung in Sekunden auf deine anderen Geräte und bewahrt ältere "
        "Versionen jeder Notiz auf, damit du zu einer zurückkehren kannst. Sync laptop phone.\n"
    ),
    "zh/同步笔记.md": (
        "# 同步笔记\n\n让你的手机和笔记本电脑上的库保持一致：同步会在几秒钟内把每个更改复制到"
        "你的其他设备上，并保留每条笔记的旧版本。Sync laptop phone vault.\n"
    ),
    "en/Back up your vault.md": (
        "# Back up your vault\n\nCopy the vault folder to an external drive or a cloud folder "
        "once a week; a backup is a copy you restore from when a disk fails.\n"
    ),
    "fr-notes/Carnet.md": "---\nlang: fr\n---\n# Carnet\n\nshort\n",
}


def _vault(tmp_path: Path, notes: dict[str, str]) -> Path:
    vault = tmp_path / "vault"
    for path, text in notes.items():
        target = vault / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return vault


@pytest.fixture
def multilingual(tmp_path: Path) -> Bridge:
    vault = _vault(tmp_path, NOTES)
    (vault / ".obsidian").mkdir()
    bridge = open_bridge(Settings(vault=vault, state_dir=tmp_path / "state"))
    bridge.sync()
    bridge.prepare_semantic(embed=True)
    return bridge


def test_an_english_question_gets_the_english_note_first(multilingual: Bridge) -> None:
    try:
        found = multilingual.engine.search(
            "how do I keep my notes identical on my phone and laptop?", limit=5
        )
        assert found.sources[0].path == "en/Sync your notes.md"
        # The German page holds the question's English words too ("sync laptop phone").
        lexical = multilingual.engine.search("sync laptop phone", limit=5)
        assert lexical.sources[0].path.startswith("en/")
    finally:
        multilingual.close()


def test_the_english_model_embeds_english_notes_only(multilingual: Bridge) -> None:
    try:
        status = multilingual.semantic_status()
        languages = status["languages"]
        assert isinstance(languages, dict)
        assert languages.get("en") == 2 and languages.get("de") == 1 and languages.get("zh") == 1
        assert languages.get("fr") == 1  # declared in frontmatter: too short to detect
        assert status["sections"] == 2  # only the English notes have passages
    finally:
        multilingual.close()


def test_a_chinese_question_gets_the_chinese_note_first(multilingual: Bridge) -> None:
    try:
        found = multilingual.engine.search("怎么同步笔记到手机？", limit=3)
        assert found.sources[0].path == "zh/同步笔记.md"
    finally:
        multilingual.close()


BACKUP = (
    "# Back up your vault\n\nCopy the vault folder to an external drive or a cloud folder once "
    "a week. A backup is a copy you restore from when a disk fails; keep two, one of them "
    "away from home, and check now and then that a restore works. Sync is no backup: it "
    "copies a deletion to every device as faithfully as an edit.\n"
)
# A German page on backups whose commands and file names are English words.
DE_BACKUP = (
    "# Sicherung\n\nKopiere den Ordner deines Tresors einmal pro Woche auf ein externes "
    "Laufwerk (backup vault external drive). Eine Sicherung ist eine Kopie, aus der du "
    "wiederherstellst, wenn eine Festplatte ausfällt.\n"
)
EDITIONS = {
    "en/Back up your vault.md": BACKUP,
    "en/Sync your notes.md": NOTES["en/Sync your notes.md"],
    "zh/同步笔记.md": NOTES["zh/同步笔记.md"],
    "zh/帮助.md": (
        "# 帮助\n\n如果你遇到问题，可以在论坛提问，或者给支持团队发邮件，我们会尽快回复你。\n"
    ),
    # Not translated yet: an older, shorter English copy sits in the Chinese edition.
    "zh/Back up your vault.md": (
        "# Back up your vault\n\nMake a backup: copy the vault folder to an external drive once "
        "a week.\n"
    ),
    "de/Notizen synchronisieren.md": NOTES["de/Notizen synchronisieren.md"],
}


def test_an_english_question_gets_the_english_edition_before_an_untranslated_copy(
    tmp_path: Path,
) -> None:
    vault = _vault(tmp_path, EDITIONS)
    bridge = open_bridge(Settings(vault=vault, state_dir=tmp_path / "state"))
    try:
        bridge.sync()
        bridge.prepare_semantic(embed=True)
        for question in (
            "how often should I copy my vault to an external drive?",
            "back up vault external drive",
            "backup vault",  # no detector is sure of its language: the original still first
        ):
            found = bridge.engine.search(question, limit=5)
            assert found.sources[0].path == "en/Back up your vault.md", question
        # Its text is English all the same: the English model embeds it.
        assert bridge.semantic_status()["languages"] == {"en": 3, "zh": 2, "de": 1}
    finally:
        bridge.close()


def test_a_fresh_serve_knows_every_note_language_before_it_embeds_one(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {**EDITIONS, "de/Sicherung.md": DE_BACKUP})
    bridge = open_test_bridge(vault, tmp_path / "state")
    semantic = bridge.semantic
    assert semantic is not None
    held = HeldBack(semantic.embedder)  # every batch
    semantic.embedder = held
    try:
        semantic.start()
        wait_until(lambda: semantic.status()["languages"] == {"en": 3, "zh": 2, "de": 2})
        assert semantic.status()["embedded"] == 0 and semantic.status()["state"] == "embedding"
        for question in ("back up vault external drive", "backup vault"):
            found = bridge.engine.search(question, limit=5)
            assert found.sources[0].path == "en/Back up your vault.md", question
    finally:
        held.release.set()
        bridge.close()


def test_while_serve_loads_the_model_an_english_question_gets_the_english_edition(
    tmp_path: Path,
) -> None:
    """In a fresh `serve`'s first seconds the dense channel knows no note's language yet:
    the edition folders say it, as they do without the channel."""
    vault = _vault(tmp_path, EDITIONS)
    warm = open_test_bridge(vault, tmp_path / "state")
    warm.prepare_semantic(embed=True)
    warm.close()
    bridge = open_test_bridge(vault, tmp_path / "state")
    semantic = bridge.semantic
    assert semantic is not None
    try:
        # The channel's language detector held mid-load, as in serve's first second.
        with semantic.detector._lock:
            semantic.start()
            for question in (
                "how often should I copy my vault to an external drive?",
                "back up vault external drive",
            ):
                found = bridge.engine.search(question, limit=5)
                assert found.sources[0].path == "en/Back up your vault.md", question
            assert not semantic.detector.loaded  # asked before the channel could look
    finally:
        bridge.close()


def test_before_a_fresh_serve_has_told_a_notes_language_its_edition_folder_tells_it(
    tmp_path: Path,
) -> None:
    """Telling every note's language takes minutes at 100,000 notes: a note not told yet is
    in its edition folder's language meanwhile (here the Chinese edition's untranslated
    copy of the English page, its telling held back)."""
    vault = _vault(tmp_path, EDITIONS)
    bridge = open_test_bridge(vault, tmp_path / "state")
    semantic = bridge.semantic
    assert semantic is not None
    planner, tell = semantic.planner, semantic.planner.language
    entered, release = threading.Event(), threading.Event()

    def held_tell(rec: Any) -> str | None:
        if rec.path == "zh/Back up your vault.md":
            entered.set()
            release.wait(CEILING)
        return tell(rec)

    planner.language = held_tell  # type: ignore[method-assign]
    try:
        semantic.start()
        assert entered.wait(CEILING)
        found = bridge.engine.search("how often should I copy my vault to an external drive?")
        assert found.sources[0].path == "en/Back up your vault.md"
        assert "zh/Back up your vault.md" not in semantic._told_nid  # still not told
    finally:
        release.set()
        bridge.close()
