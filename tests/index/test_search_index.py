"""The on-disk index: reuse at start-up, incremental updates, generations, recovery."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pytest
import tantivy

from bridge.index.manifest import Manifest
from bridge.index.search_index import SearchIndex
from bridge.index.sync import reconcile
from bridge.vault.store import VaultStore


def test_warm_start_reads_only_changed_notes(template_vault: Path, tmp_path: Path) -> None:
    store = VaultStore(template_vault)
    index = SearchIndex(tmp_path / "index")
    first = reconcile(store, index)
    assert len(first.added) == 18 and first.unchanged == 0
    generation = index.generation
    index.close()

    note = template_vault / "billing/plans/team_plan.md"
    note.write_text(note.read_text() + "\nA new line about seat caps.\n")
    touched = template_vault / "team/practices/code_review.md"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    (template_vault / "journal/2026-11-20.md").unlink()

    index = SearchIndex(tmp_path / "index")
    assert index.generation == generation and not index.rebuilt
    second = reconcile(store, index)
    assert second.changed == ["billing/plans/team_plan.md"]
    assert second.removed == ["journal/2026-11-20.md"]
    assert (
        second.added == [] and second.unchanged == 16
    )  # the touched note was hashed, not reindexed
    assert index.generation == generation + 1
    third = reconcile(store, index)
    assert third.summary() == {**third.summary(), "added": 0, "changed": 0, "removed": 0}
    assert index.generation == generation + 1  # nothing to commit, no new generation
    index.close()


def _indexed(vault: Path, tmp_path: Path) -> tuple[VaultStore, SearchIndex]:
    """The vault's store and a fresh index of it, every note indexed and committed."""
    store = VaultStore(vault)
    index = SearchIndex(tmp_path / "index")
    reconcile(store, index)
    return store, index


def test_a_touch_before_the_commit_keeps_the_new_bytes_hash_and_the_commit_writes_its_mtime(
    template_vault: Path, tmp_path: Path
) -> None:
    store, index = _indexed(template_vault, tmp_path)
    path = "billing/plans/team_plan.md"
    note = template_vault / path
    note.write_text(note.read_text() + "\nA new line about seat caps.\n")
    file = store.read(path)
    index.upsert(file, file.parse())  # indexed, not committed yet
    later = file.mtime_ns + 10**9
    os.utime(note, ns=(note.stat().st_atime_ns, later))  # a sync tool rewrites the same bytes
    index.touch(path, file.size, later)
    stamp = index.stamp(path)
    assert stamp is not None and (stamp.hash.hex(), stamp.mtime_ns) == (file.hash, later)
    index.commit()
    index.close()

    index = SearchIndex(tmp_path / "index")
    reopened = index.stamp(path)
    assert reopened is not None and (reopened.hash.hex(), reopened.mtime_ns) == (file.hash, later)
    assert reconcile(store, index).unchanged == 18  # not even hashed again: its stat matches
    index.close()


def test_records_follow_a_note_removed_and_written_again_within_one_commit(
    template_vault: Path, tmp_path: Path
) -> None:
    store, index = _indexed(template_vault, tmp_path)
    again, gone = "billing/plans/team_plan.md", "team/practices/code_review.md"
    before = index.stamp(again)
    assert before is not None
    index.remove(again)
    index.remove(gone)
    (template_vault / again).write_text("# Team plan, rewritten\n\nSeats are billed monthly.\n")
    file = store.read(again)
    index.upsert(file, file.parse())
    index.commit()
    records = {rec.path: rec for rec in index.all_records()}
    assert len(records) == len(index.all_records()) == 17  # one record per note, none stale
    assert gone not in records
    assert records[again].title == "Team plan, rewritten" and records[again].nid != before.nid
    assert index.records([before.nid]) == {}
    index.close()


def test_offline_move_is_reported_as_a_move(template_vault: Path, tmp_path: Path) -> None:
    store = VaultStore(template_vault)
    index = SearchIndex(tmp_path / "index")
    reconcile(store, index)
    (template_vault / "archive").mkdir()
    shutil.move(
        template_vault / "billing/plans/team_plan.md", template_vault / "archive/team_plan.md"
    )
    report = reconcile(store, index)
    assert report.moved == [("billing/plans/team_plan.md", "archive/team_plan.md")]
    assert report.added == [] and report.removed == []
    assert index.stamp("archive/team_plan.md") is not None
    assert index.stamp("billing/plans/team_plan.md") is None
    index.close()


@pytest.mark.parametrize("damage", ["delete", "corrupt", "texts deleted", "texts corrupt"])
def test_a_damaged_index_is_rebuilt_from_the_files(
    template_vault: Path, tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = VaultStore(template_vault)
    index = SearchIndex(tmp_path / "index")
    reconcile(store, index)
    index.close()
    folder = tmp_path / "index" / "tantivy"
    texts = tmp_path / "index" / "blocks.sqlite"
    if damage == "delete":
        shutil.rmtree(folder)
    elif damage == "texts deleted":
        texts.unlink()
    elif damage == "texts corrupt":
        texts.write_bytes(b"\x00garbage" * 1000)
    else:
        for file in folder.rglob("*"):
            if file.is_file():
                file.write_bytes(b"\x00garbage" * 10)
    with caplog.at_level(logging.WARNING):
        index = SearchIndex(tmp_path / "index")
    assert index.rebuilt
    if damage == "corrupt":
        assert "rebuilding from the files" in caplog.text
    if damage.startswith("texts"):
        assert "rebuilding the index" in caplog.text
    report = reconcile(store, index)
    assert len(report.added) == 18
    from bridge.index.analysis import query_terms

    hits = index.search_entries(query_terms("jwt expiry"), 5)
    assert index.path_of(hits[0].nid) == "engineering/auth/jwt_expiry.md"
    # The excerpts are back too: every block of the note has its text.
    nid = hits[0].nid
    record = index.records([nid])[nid]
    texts_now = index.blocks((nid, o) for o in range(record.blocks))
    assert len(texts_now) == record.blocks and any("expir" in b.text for b in texts_now.values())
    index.close()


def test_unreadable_note_is_dropped_from_the_index(template_vault: Path, tmp_path: Path) -> None:
    store = VaultStore(template_vault)
    index = SearchIndex(tmp_path / "index")
    reconcile(store, index)
    (template_vault / "billing/plans/team_plan.md").write_bytes(b"\x00binary now")
    report = reconcile(store, index)
    assert report.removed == ["billing/plans/team_plan.md"]
    assert [p.code for p in report.problems] == ["binary"]
    index.close()


def test_a_second_writer_is_refused_with_a_clear_message(
    template_vault: Path, tmp_path: Path
) -> None:
    from bridge.index.search_index import IndexBusyError

    store = VaultStore(template_vault)
    first = SearchIndex(tmp_path / "index")
    reconcile(store, first)
    (template_vault / "new.md").write_text("# New\n")
    second = SearchIndex(tmp_path / "index")
    with pytest.raises(IndexBusyError, match="in use by another process"):
        reconcile(store, second)
    first.close()


def _documents(index: SearchIndex, kind: str, path: str) -> int:
    query = tantivy.Query.term_query(index.schema, "path", path)
    return len(index.indexes[kind].searcher().search(query, 1000).hits)


def test_a_new_index_keeps_one_copy_of_each_note(template_vault: Path, tmp_path: Path) -> None:
    """A cold index adds documents without deleting first; re-adds and removes still count."""
    store = VaultStore(template_vault)
    index = SearchIndex(tmp_path / "index")
    path = "billing/plans/team_plan.md"
    file = store.read(path)
    index.upsert(file, file.parse())
    (template_vault / path).write_text(file.text + "\nOne more line.\n")
    file = store.read(path)
    index.upsert(file, file.parse())  # a second version before the commit
    index.commit()
    blocks = _documents(index, "blocks", path)
    assert _documents(index, "entries", path) == 1 and blocks > 1
    assert _documents(index, "windows", path) == blocks
    index.remove(path)
    index.upsert(file, file.parse())  # removed, then back, in one commit
    other = store.read("team/practices/code_review.md")
    index.upsert(other, other.parse())
    index.commit()
    assert _documents(index, "entries", path) == 1
    assert _documents(index, "blocks", path) == blocks
    index.close()

    # A crash between the tantivy commit and the manifest's: documents without a record.
    manifest = Manifest(tmp_path / "index" / "manifest.sqlite")
    manifest.apply([], [path], {})
    manifest.close()
    reopened = SearchIndex(tmp_path / "index")
    assert reopened.stamp(path) is None
    reopened.upsert(file, file.parse())  # not an empty index: its old documents go
    reopened.commit()
    assert _documents(reopened, "entries", path) == 1
    assert _documents(reopened, "windows", path) == blocks
    reopened.close()


def test_reading_ahead_reads_every_index_file_and_changes_none(
    template_vault: Path, tmp_path: Path
) -> None:
    """`serve` reads the index once at start, so the kernel caches it: every byte of every
    file of the index (tantivy's, the manifest, the block texts), none written."""
    index = SearchIndex(tmp_path / "index")
    reconcile(VaultStore(template_vault), index)
    files = [p for p in (tmp_path / "index").rglob("*") if p.is_file()]
    before = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in files}
    assert {"blocks.sqlite", "manifest.sqlite"} <= {p.name for p in files}
    assert any("tantivy" in p.parts for p in files)

    assert index.read_ahead() == sum(size for size, _ in before.values()) > 0
    assert {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in files} == before
    assert index.stamp("billing/plans/team_plan.md") is not None
    index.close()
