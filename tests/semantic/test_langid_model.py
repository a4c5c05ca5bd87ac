"""The language model unpacked into the user cache dir: the library's answers, from a mapped file.

Real py3langid, real files: the cached model must rank exactly as the library's own loading,
be read back instead of unpacked again, and never be trusted when damaged or unwritable.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from bridge.semantic import langid_model

TEXTS = [
    "how do I keep my notes the same on my phone and my laptop?",
    "Wie synchronisiere ich meine Notizen zwischen zwei Geräten?",
    "¿Cómo publico mi bóveda como un sitio web?",
    "有没有能显示农历和节气的日历插件？",
    "ノートを別のデバイスと同期するにはどうすればいいですか",
    "Есть ли подробный видеокурс по Obsidian на русском языке?",
    "Obsidian Sync keeps your notes encrypted end to end. " * 40,
    "",
    "12345 !!! ???",
]


@pytest.fixture(scope="module")
def library() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _same(ours: LanguageIdentifier, theirs: LanguageIdentifier) -> None:
    for text in TEXTS:
        assert ours.rank(text) == theirs.rank(text), text


def test_the_cached_model_ranks_as_the_library_and_is_read_back_not_unpacked_again(
    tmp_path: Path, library: LanguageIdentifier
) -> None:
    first = langid_model.identifier(tmp_path)
    folder = langid_model.cache_folder(tmp_path)
    assert folder.parent == tmp_path and folder.is_dir()
    _same(first, library)
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    again = langid_model.identifier(tmp_path)
    _same(again, library)
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stamps
    # The large tables are mapped from the cache, not copied into the process.
    assert isinstance(again.nb_ptc, np.memmap)
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]  # no temp folder left


def test_a_damaged_cache_is_not_trusted_and_is_unpacked_again(
    tmp_path: Path, library: LanguageIdentifier
) -> None:
    langid_model.identifier(tmp_path)
    folder = langid_model.cache_folder(tmp_path)
    table = folder / "nextmove.npy"
    whole = table.stat().st_size
    table.write_bytes(table.read_bytes()[: whole // 2])  # a torn copy
    _same(langid_model.identifier(tmp_path), library)  # the packaged file answered
    assert not folder.exists()
    _same(langid_model.identifier(tmp_path), library)  # and the next one unpacked it again
    assert table.stat().st_size == whole


def test_a_model_whose_tables_do_not_fit_together_is_not_trusted(
    tmp_path: Path, library: LanguageIdentifier
) -> None:
    langid_model.identifier(tmp_path)
    folder = langid_model.cache_folder(tmp_path)
    np.save(folder / "row.npy", np.full(5, 2**15, dtype=np.uint16))  # rows past the table
    _same(langid_model.identifier(tmp_path), library)
    assert not folder.exists()


def test_a_cache_dir_that_cannot_be_written_leaves_the_packaged_file_to_answer(
    tmp_path: Path, library: LanguageIdentifier
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache dir should be")
    _same(langid_model.identifier(blocked), library)
    assert blocked.read_text() == "a file where the cache dir should be"


def test_an_upgrade_removes_the_old_copy_and_killed_unpacks_but_not_a_live_one(
    tmp_path: Path, library: LanguageIdentifier
) -> None:
    old = tmp_path / "py3langid-0.0.1-4000000"  # what an earlier version left
    old.mkdir()
    (old / "ptc.npy").write_bytes(b"\0" * 1024)
    killed = tmp_path / ".py3langid-0.4.0-1234-abcd"  # a temp folder of a killed unpack
    killed.mkdir()
    (killed / "ptc.npy").write_bytes(b"\0" * 1024)
    long_ago = 1_000_000_000
    os.utime(killed, (long_ago, long_ago))
    live = tmp_path / ".py3langid-0.4.0-1234-efgh"  # another process unpacking right now
    live.mkdir()
    unrelated = tmp_path / "kernels"  # the cache dir holds other things too
    unrelated.mkdir()

    _same(langid_model.identifier(tmp_path), library)

    folder = langid_model.cache_folder(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [folder.name, live.name, unrelated.name]
    )
