"""The manifest file: what a commit writes is what the next start-up reads."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.index.manifest import Manifest, NoteRecord

DIGEST = hashlib.sha256(b"the file's bytes").digest()


def _record(nid: int, path: str, links: tuple[str, ...] = ()) -> NoteRecord:
    return NoteRecord(nid, path, 10, 20, DIGEST, "Title", "draft", None, links, (), 3, b"c")


@given(links=st.lists(st.text(), max_size=5), people=st.lists(st.text(), max_size=3))
@settings(max_examples=200, deadline=None)
def test_links_and_participants_come_back_as_written(
    tmp_path_factory: pytest.TempPathFactory, links: list[str], people: list[str]
) -> None:
    manifest = Manifest(tmp_path_factory.mktemp("manifest") / "m.sqlite")
    record = NoteRecord(1, "a.md", 1, 2, DIGEST, "T", None, None, tuple(links), tuple(people), 0)
    manifest.apply([record], [], {})
    assert list(manifest.all()) == [record]
    manifest.close()


def test_a_commit_replaces_moves_and_deletes(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "m.sqlite")
    manifest.apply([_record(1, "a.md"), _record(2, "b.md"), _record(3, "c.md")], [], {"g": "1"})
    # b.md indexed anew under another id, c.md deleted, a.md updated in place.
    manifest.apply([_record(1, "a.md", ("x",)), _record(4, "b.md")], ["c.md"], {"g": "2"})
    assert sorted((r.nid, r.path, r.links) for r in manifest.all()) == [
        (1, "a.md", ("x",)),
        (4, "b.md", ()),
    ]
    assert manifest.get_meta("g") == "2"
    manifest.close()


def test_the_file_keeps_the_hash_as_hex_and_one_that_is_not_hex_matches_no_file(
    tmp_path: Path,
) -> None:
    manifest = Manifest(tmp_path / "m.sqlite")
    manifest.apply([_record(1, "a.md"), _record(2, "b.md")], [], {})
    manifest.close()
    db = sqlite3.connect(tmp_path / "m.sqlite")
    assert db.execute("SELECT hash FROM notes WHERE nid = 1").fetchone() == (DIGEST.hex(),)
    with db:
        db.execute("UPDATE notes SET hash = 'not hex' WHERE nid = 2")
    db.close()
    manifest = Manifest(tmp_path / "m.sqlite")
    assert {r.path: r.hash for r in manifest.all()} == {"a.md": DIGEST, "b.md": b""}
    manifest.close()
