"""Live watching end to end: real watchdog, real tantivy index, real state database."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bridge.core.operations import parse_operations
from bridge.runtime import open_bridge
from bridge.settings import Settings
from bridge.state.lifecycle_store import LifecycleView
from bridge.vault.store import content_hash
from bridge.watch import AppliedChanges, LiveVault
from tests.conftest import CEILING, snapshot
from tests.watch.conftest import found, wait_until

JWT = "engineering/auth/jwt_expiry.md"
ROLLBACK = "engineering/deploy/rollback.md"
TEMPLATE_NOTES = 18


def now() -> datetime:
    return datetime.now(UTC)


def record(live: LiveVault, path: str) -> LifecycleView:
    """The lifecycle as the state database has it (status from the file when it exists)."""
    file = live.bridge.store.root / path
    status = live.bridge.store.read(path).parse().entry.status if file.exists() else None
    return live.bridge.lifecycle.view(path, status, None, now())


def accessed(live: LiveVault, path: str, times: int = 1) -> None:
    """Give a note a lifecycle record with access counts, so we can see it follow moves."""
    status = live.bridge.store.read(path).parse().entry.status
    for _ in range(times):
        live.bridge.lifecycle.record_access({path: status}, now())


def append(vault: Path, path: str, text: str) -> None:
    with (vault / path).open("a", encoding="utf-8") as handle:
        handle.write(text)


def test_edit_is_searchable_from_its_file_event_recorded_as_human_and_never_written(
    template_vault: Path, tmp_path: Path
) -> None:
    from tests.watch.conftest import close_watched, open_watched

    live = open_watched(template_vault, tmp_path / "state", debounce_ms=300)  # the default
    try:
        append(template_vault, JWT, "\nThe quokkamarine rotation was added by hand.\n")
        before = snapshot(template_vault)
        wait_until(lambda: found(live.bridge, "quokkamarine") == [JWT])
        # Searchable the moment the index commits, a moment before the batch counts it.
        assert live.wait_idle(CEILING)
        # Found through the watcher: the save's events became one batch, which indexed the one
        # note and committed (no rescan, no restart).
        stats = live.stats
        assert stats.events >= 1 and stats.batches == 1 and stats.indexed == 1
        assert stats.commits >= 1
        view = record(live, JWT)
        assert view.last_writer == "human" and view.update_count == 1
        assert snapshot(template_vault) == before  # the bridge wrote nothing
    finally:
        close_watched(live)


def test_one_save_of_many_writes_is_one_update(live: LiveVault) -> None:
    vault = live.bridge.store.root
    with (vault / JWT).open("a", encoding="utf-8") as handle:
        for i in range(20):
            handle.write(f"\nline {i} of the okapinote save\n")
            handle.flush()
    wait_until(lambda: found(live.bridge, "okapinote") == [JWT])
    assert live.wait_idle(CEILING)
    assert record(live, JWT).update_count == 1
    assert live.stats.indexed == 1


def test_create_in_a_new_folder(live: LiveVault) -> None:
    vault = live.bridge.store.root
    (vault / "research/ideas").mkdir(parents=True)
    (vault / "research/ideas/new_idea.md").write_text("# New idea\n\nA wombatory plan.\n")
    wait_until(lambda: found(live.bridge, "wombatory") == ["research/ideas/new_idea.md"])
    view = record(live, "research/ideas/new_idea.md")
    # A new note starts where DESIGN says one starts (50), written by a human, not updated.
    assert view.last_writer == "human" and view.update_count == 0
    assert abs(view.importance - 50) < 0.01


def test_delete_removes_the_note_and_its_record(live: LiveVault) -> None:
    accessed(live, ROLLBACK)
    assert ROLLBACK in live.bridge.lifecycle.tracked_paths()
    (live.bridge.store.root / ROLLBACK).unlink()
    wait_until(lambda: live.bridge.index.stamp(ROLLBACK) is None)
    wait_until(lambda: ROLLBACK not in live.bridge.lifecycle.tracked_paths())
    assert ROLLBACK not in found(live.bridge, "rollback")


def test_rename_keeps_importance_and_counts(live: LiveVault) -> None:
    accessed(live, JWT, times=3)
    before = record(live, JWT)
    vault = live.bridge.store.root
    new = "engineering/auth/token_lifetimes.md"
    (vault / JWT).rename(vault / new)
    wait_until(lambda: live.bridge.index.stamp(new) is not None)
    wait_until(lambda: live.bridge.index.stamp(JWT) is None)
    assert live.wait_idle(CEILING)  # the index shows a move before the batch has counted it
    after = record(live, new)
    assert after.access_count == 3 and after.update_count == before.update_count == 0
    assert after.importance == before.importance or abs(after.importance - before.importance) < 1
    assert JWT not in live.bridge.lifecycle.tracked_paths()
    assert live.stats.moved == 1 and live.stats.human_updates == 0


def test_move_between_folders(live: LiveVault) -> None:
    accessed(live, ROLLBACK, times=2)
    vault = live.bridge.store.root
    (vault / "ops/runbooks").mkdir(parents=True)
    new = "ops/runbooks/rollback.md"
    (vault / ROLLBACK).replace(vault / new)
    wait_until(lambda: new in found(live.bridge, "rollback"))
    assert live.bridge.index.stamp(ROLLBACK) is None
    assert record(live, new).access_count == 2


def test_delete_then_create_with_the_same_bytes_is_a_move(live: LiveVault) -> None:
    accessed(live, JWT, times=2)
    vault = live.bridge.store.root
    data = (vault / JWT).read_bytes()
    (vault / JWT).unlink()
    (vault / "security").mkdir()
    (vault / "security/jwt_expiry.md").write_bytes(data)
    wait_until(lambda: live.bridge.index.stamp("security/jwt_expiry.md") is not None)
    wait_until(lambda: live.bridge.index.stamp(JWT) is None)
    assert live.wait_idle(CEILING)  # the index shows a move before the batch has counted it
    assert record(live, "security/jwt_expiry.md").access_count == 2
    assert live.stats.moved == 1 and live.stats.human_updates == 0


def test_folder_rename_moves_every_note_inside(template_vault: Path, tmp_path: Path) -> None:
    from tests.watch.conftest import close_watched, open_watched

    inner = template_vault / "projects/apollo"
    for i in range(50):
        folder = inner / ("specs" if i % 2 else "notes")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"item_{i:02d}.md").write_text(f"# Item {i}\n\nApollo item number {i}.\n")
    live = open_watched(template_vault, tmp_path / "state")
    try:
        old_paths = sorted(p for p in live.bridge.index.paths() if p.startswith("projects/"))
        assert len(old_paths) == 50
        accessed(live, old_paths[0], times=2)
        (template_vault / "projects").rename(template_vault / "archive2026")
        expected = sorted("archive2026/" + p.removeprefix("projects/") for p in old_paths)
        wait_until(
            lambda: (
                sorted(p for p in live.bridge.index.paths() if p.startswith("archive2026/"))
                == expected
            )
        )
        assert live.wait_idle(CEILING)  # the index shows the moves before the batch ends
        assert not [p for p in live.bridge.index.paths() if p.startswith("projects/")]
        moved_first = "archive2026/" + old_paths[0].removeprefix("projects/")
        assert record(live, moved_first).access_count == 2
        assert live.stats.human_updates == 0
        assert found(live.bridge, "apollo")[0].startswith("archive2026/")
    finally:
        close_watched(live)


def test_burst_of_500_creates_converges(live: LiveVault) -> None:
    vault = live.bridge.store.root
    for i in range(500):
        folder = vault / "burst" / f"part{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{i:03d}.md").write_text(f"# Burst {i}\n\nBurst note {i} about kiwifruits.\n")
    wait_until(lambda: live.bridge.index.note_count() == TEMPLATE_NOTES + 500)
    assert live.wait_idle(CEILING)
    assert live.stats.failures == 0
    # Coalesced: far fewer batches than files.
    assert live.stats.batches < 100


def test_editor_swap_and_backup_files_are_ignored(live: LiveVault) -> None:
    accessed(live, JWT)
    vault = live.bridge.store.root
    folder = vault / "engineering/auth"
    for name in (".jwt_expiry.md.swp", "jwt_expiry.md~", "4913", ".#jwt_expiry.md"):
        (folder / name).write_text("# swap\n\nswapfilenoise\n")
    # Vim's save: rename to a backup, write the new file, delete the backup.
    (folder / "jwt_expiry.md").rename(folder / "jwt_expiry.md~")
    text = (folder / "jwt_expiry.md~").read_text() + "\nSaved by vim with pangolinish care.\n"
    (folder / "jwt_expiry.md").write_text(text)
    (folder / "jwt_expiry.md~").unlink()
    wait_until(lambda: found(live.bridge, "pangolinish") == [JWT])
    assert live.wait_idle(CEILING)
    assert found(live.bridge, "swapfilenoise") == []
    assert len(live.bridge.index.paths()) == TEMPLATE_NOTES
    view = record(live, JWT)
    assert view.access_count == 1 and view.update_count == 1 and view.last_writer == "human"


def test_own_write_indexed_by_its_writer_is_not_echoed(live: LiveVault) -> None:
    store, index = live.bridge.store, live.bridge.index
    data = (store.root / JWT).read_bytes() + b"\nAn agent added echidnalike facts.\n"
    store.write(JWT, data)
    file = store.read(JWT)
    index.upsert(file, file.parse())  # what a writer that indexes its own write does
    index.commit()
    wait_until(lambda: live.stats.unchanged >= 1)
    assert live.wait_idle(CEILING)
    stats = live.stats
    assert stats.indexed == 0 and stats.human_updates == 0
    assert live.bridge.lifecycle.last_writer(JWT) is None


def test_own_write_not_indexed_by_its_writer_is_indexed_but_not_human(live: LiveVault) -> None:
    store = live.bridge.store
    data = (store.root / ROLLBACK).read_bytes().replace(b"status:", b"status:", 1)
    data += b"\nThe decay job or an agent wrote numbatish words.\n"
    assert store.write(ROLLBACK, data).changed
    assert store.journal is not None and store.journal.is_own(ROLLBACK, content_hash(data))
    wait_until(lambda: found(live.bridge, "numbatish") == [ROLLBACK])
    assert live.wait_idle(CEILING)
    assert live.stats.own_writes == 1 and live.stats.human_updates == 0
    assert live.bridge.lifecycle.last_writer(ROLLBACK) is None
    # The same note edited by a human afterwards is a human edit again.
    append(store.root, ROLLBACK, "\nA human adds quollish notes.\n")
    wait_until(lambda: found(live.bridge, "quollish") == [ROLLBACK])
    assert live.bridge.lifecycle.last_writer(ROLLBACK) == "human"


def test_stop_applies_what_is_pending(template_vault: Path, tmp_path: Path) -> None:
    from tests.watch.conftest import open_watched

    live = open_watched(template_vault, tmp_path / "state", debounce_ms=10_000)
    append(template_vault, JWT, "\nA late bilbyish edit.\n")
    wait_until(lambda: live.stats.events >= 1)
    live.stop()  # long before the 10 s quiet window ends
    assert found(live.bridge, "bilbyish") == [JWT]
    assert live.bridge.lifecycle.last_writer(JWT) == "human"
    live.bridge.close()


def test_listeners_hear_what_each_batch_changed(template_vault: Path, tmp_path: Path) -> None:
    from tests.watch.conftest import close_watched, open_watched

    heard: list[AppliedChanges] = []
    live = open_watched(template_vault, tmp_path / "state", on_change=heard.append)
    try:
        append(template_vault, JWT, "\nHeard by a listener: dingoish.\n")
        (template_vault / ROLLBACK).unlink()
        wait_until(lambda: JWT in {p for c in heard for p in c.indexed})
        wait_until(lambda: ROLLBACK in {p for c in heard for p in c.removed})
        assert heard[-1].generation == live.bridge.index.generation
    finally:
        close_watched(live)


def test_an_agent_write_from_another_process_is_not_a_human_edit(
    live: LiveVault, template_vault: Path, tmp_path: Path
) -> None:
    """A CLI `curate` next to `serve`: its own store and journal, the same state database."""
    other = open_bridge(Settings(vault=template_vault, state_dir=tmp_path / "state"))
    try:
        path = "engineering/auth/api_keys.md"
        op = {"type": "ADD", "path": path, "title": "API keys", "narrative": "wombatish keys"}
        result = other.executor.apply(parse_operations([op]), "agent:cli")
        assert [r.status for r in result.results] == ["applied"]
        wait_until(lambda: found(live.bridge, "wombatish") == [path])
        assert live.wait_idle(CEILING)
        assert live.bridge.lifecycle.last_writer(path) == "agent:cli"
        assert live.stats.human_updates == 0
    finally:
        other.close()


def _curate(live: LiveVault, op: dict[str, object]) -> str:
    batch = live.bridge.executor.apply(parse_operations([op]), "agent:mover")
    return batch.results[0].status


def test_an_agent_note_moved_by_a_human_stays_the_agent_note(
    live: LiveVault, template_vault: Path
) -> None:
    """A move is not an edit: the next UPDATE of the unchanged bytes applies at once."""
    path, moved = "research/memory/recall.md", "research/archive/recall.md"
    add = {"type": "ADD", "path": path, "title": "Recall", "narrative": "First: pangolinish."}
    assert _curate(live, add) == "applied"
    assert _curate(live, {"type": "UPDATE", "path": path, "summary": "Second"}) == "applied"
    (template_vault / "research/memory").rename(template_vault / "research/archive")
    wait_until(lambda: live.bridge.index.stamp(moved) is not None)
    assert live.wait_idle(10)
    assert live.bridge.lifecycle.last_writer(moved) == "agent:mover"
    update = {"type": "UPDATE", "path": moved, "summary": "Third, after the move"}
    assert _curate(live, update) == "applied"
    # An edit by hand after the move is still a human's text.
    append(template_vault, moved, "\nA line added by hand.\n")
    wait_until(lambda: live.bridge.lifecycle.last_writer(moved) == "human")
    assert _curate(live, {"type": "UPDATE", "path": moved, "summary": "Fourth"}) == (
        "pending_review"
    )


def test_a_note_moved_into_an_excluded_folder_of_another_case_leaves_the_index(
    live: LiveVault,
) -> None:
    """`templates/**` (a default) excludes `Templates/` too, for the watcher as for the walk."""
    vault = live.bridge.store.root
    append(vault, JWT, "\nThe wombatlantic rotation.\n")
    wait_until(lambda: found(live.bridge, "wombatlantic") == [JWT])
    (vault / "Templates").mkdir()
    (vault / JWT).rename(vault / "Templates/jwt_expiry.md")
    wait_until(lambda: found(live.bridge, "wombatlantic") != [JWT])
    assert live.wait_idle(CEILING)
    assert found(live.bridge, "wombatlantic") == []
    assert "Templates/jwt_expiry.md" not in live.bridge.store.iter_paths()


def test_the_bridges_own_move_keeps_the_record_while_the_watcher_runs(live: LiveVault) -> None:
    # The watcher sees the bridge's rename too; the record must follow, not be forgotten.
    accessed(live, ROLLBACK, times=2)
    new = "ops/runbooks/rollback.md"
    move = {"type": "MOVE", "from": ROLLBACK, "path": new}
    result = live.bridge.executor.apply(parse_operations([move]), "agent:mover")
    assert result.results[0].status == "pending_review"  # a human's note: it waits
    live.bridge.reviews.approve(result.results[0].review_id or 0)
    wait_until(lambda: new in found(live.bridge, "rollback"))
    assert live.wait_idle(CEILING)
    assert ROLLBACK not in found(live.bridge, "rollback")
    assert record(live, new).access_count == 2
    assert ROLLBACK not in live.bridge.lifecycle.tracked_paths()
    assert live.stats.human_updates == 0
