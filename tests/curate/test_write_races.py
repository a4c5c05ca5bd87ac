"""A human edit that lands while an agent write is being made is never lost."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bridge.core.operations import parse_operations
from bridge.curate.executor import Applied
from bridge.runtime import Bridge
from bridge.vault.store import VaultStore, WriteConflictError
from tests.curate.helpers import add_op, run

NOTE = "engineering/auth/api_keys.md"


def test_the_store_refuses_a_write_based_on_bytes_that_are_gone(tmp_path: Path) -> None:
    store = VaultStore(tmp_path)
    (tmp_path / "a.md").write_text("# A\n\nhuman text\n")
    with pytest.raises(WriteConflictError) as caught:
        store.write("a.md", b"# A\n\nagent text\n", expected=b"# A\n")
    assert caught.value.current == b"# A\n\nhuman text\n"
    assert (tmp_path / "a.md").read_text() == "# A\n\nhuman text\n"
    with pytest.raises(WriteConflictError):  # "create" finds a note already there
        store.write("a.md", b"# new\n", expected=None)
    store.write("b.md", b"# B\n", expected=None)
    assert store.write("b.md", b"# B2\n", expected=b"# B\n").changed
    assert (tmp_path / "b.md").read_bytes() == b"# B2\n"
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == []  # no temp file and no kept copy stays behind


def test_an_update_planned_before_a_human_append_goes_to_review(bridge: Bridge) -> None:
    run(bridge, add_op(NOTE, title="API keys", narrative="Keys rotate yearly."))
    executor = bridge.executor
    now = dt.datetime.now(dt.UTC)
    (op,) = parse_operations([{"type": "UPDATE", "path": NOTE, "summary": "Rotate monthly."}])
    plan = executor.planner("agent:test", now).plan(op)  # the agent read and built its change
    with (bridge.store.root / NOTE).open("a", encoding="utf-8") as handle:
        handle.write("\nA human line written meanwhile.\n")  # ...and a human appended
    with pytest.raises(WriteConflictError):
        executor.execute(plan, "agent:test", now, Applied())
    assert "A human line written meanwhile." in (bridge.store.root / NOTE).read_text()


def test_the_decay_jobs_status_write_never_overwrites_a_newer_human_edit(tmp_path: Path) -> None:
    store = VaultStore(tmp_path)
    (tmp_path / "n.md").write_text("---\nstatus: draft\n---\n# N\n")
    before = store.read("n.md")
    (tmp_path / "n.md").write_text("---\nstatus: draft\n---\n# N\n\nhuman edit\n")
    with pytest.raises(WriteConflictError):
        store.write("n.md", b"---\nstatus: stable\n---\n# N\n", expected=before.data)
    assert "human edit" in (tmp_path / "n.md").read_text()
    store.set_frontmatter("n.md", "status", "stable")  # from what is there now: fine
    assert (tmp_path / "n.md").read_text() == "---\nstatus: stable\n---\n# N\n\nhuman edit\n"


def test_a_note_too_large_to_read_back_is_refused_before_it_is_written(bridge: Bridge) -> None:
    limit = bridge.store.max_note_bytes
    result = run(bridge, add_op(NOTE, title="Huge", narrative="word " * (limit // 5 + 10)))
    (outcome,) = result.results
    assert outcome.status == "failed" and "note limit" in outcome.message
    assert not (bridge.store.root / NOTE).exists()


def test_merge_into_a_new_path_follows_the_rules_for_new_names(bridge: Bridge) -> None:
    op = {"type": "MERGE", "path": "flat.md", "merge_from": ["billing/plans/team_plan.md"]}
    (outcome,) = run(bridge, op).results
    assert outcome.status == "failed" and "2 or 3 folders" in outcome.message
