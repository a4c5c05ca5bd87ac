"""A curating process killed between the temp write and the rename leaves the old note intact."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

from bridge.core.operations import parse_operations
from bridge.runtime import open_bridge
from bridge.settings import Settings
from tests.conftest import CEILING

PATH = "billing/plans/annual_plan.md"


def _curate_then_hang(vault: str, state: str, started: multiprocessing.synchronize.Event) -> None:
    """A child that applies an UPDATE and stops for good after writing the temp file."""
    bridge = open_bridge(Settings(vault=Path(vault), state_dir=Path(state), review_rules=[]))

    def hang(_fd: int) -> None:
        started.set()
        threading.Event().wait()  # for good: the parent kills it here

    os.fsync = hang  # the crash point: data in the temp file, not yet renamed over the note
    op = {"type": "UPDATE", "path": PATH, "narrative": "half-written new version " * 500}
    bridge.executor.apply(parse_operations([op]), "crasher")


def _kill_at_crash_point(target: Callable[..., None], vault: Path, state: Path) -> None:
    """Run `target` in a child until it signals its crash point, then SIGKILL it there."""
    # spawn, not fork: the child opens its own index and database from scratch.
    ctx = multiprocessing.get_context("spawn")
    started = ctx.Event()
    child = ctx.Process(target=target, args=(str(vault), str(state), started))
    child.start()
    try:
        assert started.wait(CEILING), "the child never reached the crash point"
    finally:
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join(CEILING)


def test_a_crash_mid_curation_leaves_the_old_note_intact(
    template_vault: Path, tmp_path: Path
) -> None:
    original = (template_vault / PATH).read_bytes()
    _kill_at_crash_point(_curate_then_hang, template_vault, tmp_path / "state")
    assert (template_vault / PATH).read_bytes() == original
    temps = [p.name for p in (template_vault / "billing/plans").iterdir() if ".vb-tmp-" in p.name]
    assert len(temps) == 1
    # The next bridge cleans up and can curate the same note.
    bridge = open_bridge(Settings(vault=template_vault, state_dir=tmp_path / "state"))
    try:
        assert len(bridge.store.clean_temp_files(older_than_seconds=0)) == 1
        assert bridge.store.read(PATH).data == original
        op = {"type": "UPDATE", "path": PATH, "summary": "after the crash"}
        result = bridge.executor.apply(parse_operations([op]), "next")
        assert result.results[0].status == "pending_review"  # still a human's note
    finally:
        bridge.close()


NEW = "billing/plans/crash_plan.md"


def _rename_then_hang(vault: str, state: str, started: multiprocessing.synchronize.Event) -> None:
    """A child whose UPDATE stops for good right after the rename (at the folder's fsync)."""
    bridge = open_bridge(Settings(vault=Path(vault), state_dir=Path(state)))
    add = {"type": "ADD", "path": NEW, "title": "Crash plan", "narrative": "first version"}
    assert bridge.executor.apply(parse_operations([add]), "crasher").results[0].status == "applied"
    calls = 0
    real_fsync = os.fsync

    def hang_after_rename(fd: int) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:  # 1: the temp file; 2: the folder, after the rename
            started.set()
            threading.Event().wait()  # for good: the parent kills it here
        real_fsync(fd)

    os.fsync = hang_after_rename
    op = {"type": "UPDATE", "path": NEW, "narrative": "second version"}
    bridge.executor.apply(parse_operations([op]), "crasher")


def test_a_crash_right_after_the_rename_leaves_the_note_the_agents(
    template_vault: Path, tmp_path: Path
) -> None:
    """The bridge's own write must not look like a human's after a crash (issue 12, item 8)."""
    _kill_at_crash_point(_rename_then_hang, template_vault, tmp_path / "state")
    assert "second version" in (template_vault / NEW).read_text()  # the rename happened
    bridge = open_bridge(Settings(vault=template_vault, state_dir=tmp_path / "state"))
    try:
        op = {"type": "UPDATE", "path": NEW, "narrative": "third version"}
        result = bridge.executor.apply(parse_operations([op]), "crasher")
        assert result.results[0].status == "applied"  # not waiting for review as a human's
    finally:
        bridge.close()


def test_serve_removes_a_crashs_temp_file_at_once_when_it_starts(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    from tests.conftest import seed_vectors
    from tests.test_one_bridge import stop
    from tests.watch.test_watch_serve import _lines, _serve, _wait_for

    state = seed_vectors(template_vectors, tmp_path / "state")
    _kill_at_crash_point(_curate_then_hang, template_vault, state)
    folder = template_vault / "billing/plans"
    assert [p for p in folder.iterdir() if ".vb-tmp-" in p.name]  # seconds old, not minutes
    proc = _serve(template_vault, state)
    try:
        seen = _wait_for(_lines(proc), "watching")
    finally:
        stop(proc)
    assert [p.name for p in folder.iterdir() if ".vb-tmp-" in p.name] == []
    assert any("removed 1 temp file(s)" in line for line in seen)
