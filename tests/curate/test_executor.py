"""The executor on a real vault: each operation type, refusals, indexing and provenance."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from bridge.core.entry import parse_note
from bridge.runtime import Bridge
from tests.conftest import CEILING, snapshot
from tests.curate.conftest import OpenBridge
from tests.curate.helpers import add_op, run

API_KEYS = "engineering/auth/api_keys.md"


def text(bridge: Bridge, path: str) -> str:
    return (bridge.store.root / path).read_text()


def test_add_writes_a_draft_entry_indexes_it_and_records_the_update(bridge: Bridge) -> None:
    result = run(
        bridge,
        add_op(
            API_KEYS,
            title="API keys",
            summary="Partner API keys rotate every 12 months.",
            tags=["auth"],
            relations=["@engineering/auth/jwt_expiry.md - both are credentials"],
            raw_concept={"task": "document keys", "source": "chat 2026-11-30"},
            narrative="Keys rotate yearly.",
            snippets=[{"language": "py", "code": "rotate_keys()"}],
        ),
    )
    assert result.to_dict()["counts"] == {
        "applied": 1,
        "pending_review": 0,
        "failed": 0,
        "total": 1,
    }
    note = parse_note(API_KEYS, text(bridge, API_KEYS))
    entry = note.entry
    assert (entry.status, entry.author) == ("draft", "agent:tester")
    assert entry.created is not None and entry.created == entry.updated
    assert "- [[engineering/auth/jwt_expiry]] - both are credentials" in text(bridge, API_KEYS)
    assert entry.raw_concept.source == "chat 2026-11-30"
    assert entry.raw_concept.author.startswith("agent:tester, ")
    assert entry.snippets[0].code == "rotate_keys()"
    found = bridge.engine.search("partner API keys rotate")
    assert found.sources and found.sources[0].path == API_KEYS
    assert bridge.lifecycle.last_writer(API_KEYS) == "agent:tester"


def test_add_over_an_existing_entry_fails_with_the_entry_attached(bridge: Bridge) -> None:
    path = "engineering/auth/jwt_expiry.md"
    before = snapshot(bridge.store.root)
    result = run(bridge, add_op(path)).results[0]
    assert result.status == "failed"
    assert result.message.startswith(f"ADD: `{path}` exists; use UPDATE or MERGE")
    assert result.existing is not None and result.existing["title"] == "JWT expiry"
    assert result.existing["base_hash"] == bridge.store.read(path).hash
    assert snapshot(bridge.store.root) == before


def test_update_of_a_missing_entry_fails_and_suggests_the_right_one(bridge: Bridge) -> None:
    result = run(bridge, {"type": "UPDATE", "path": "auth/jwt_expiry", "summary": "x"}).results[0]
    assert result.status == "failed"
    assert "no note at `auth/jwt_expiry.md`" in result.message
    assert "did you mean `engineering/auth/jwt_expiry.md`" in result.message


def test_path_traversal_and_bad_depth_write_nothing(bridge: Bridge) -> None:
    before = snapshot(bridge.store.root)
    results = run(bridge, add_op("../outside/x/y.md"), add_op("loose.md")).results
    assert "leaves the vault" in results[0].message
    assert "2 or 3 folders" in results[1].message
    assert snapshot(bridge.store.root) == before
    assert not (bridge.store.root.parent / "outside").exists()


def test_update_of_an_agent_note_keeps_what_it_leaves_out(bridge: Bridge) -> None:
    run(bridge, add_op(API_KEYS, summary="old", narrative="Keep me.", tags=["auth"]))
    # An agent-written note that a sync tool reformatted is human text; this one is untouched.
    result = run(bridge, {"type": "UPDATE", "path": API_KEYS, "summary": "new"}, author="other")
    assert result.results[0].status == "applied", result.results[0].message
    entry = parse_note(API_KEYS, text(bridge, API_KEYS)).entry
    assert entry.summary == "new" and entry.narrative == "Keep me." and entry.tags == ("auth",)
    assert entry.author == "agent:other"
    assert bridge.lifecycle.last_writer(API_KEYS) == "agent:other"


def test_upsert_adds_then_updates(bridge: Bridge) -> None:
    first = run(bridge, {"type": "UPSERT", "path": API_KEYS, "narrative": "one"})
    second = run(bridge, {"type": "UPSERT", "path": API_KEYS, "narrative": "two"})
    assert first.results[0].message.startswith("ADD") and second.results[0].message.startswith(
        "UPDATE"
    )
    assert parse_note(API_KEYS, text(bridge, API_KEYS)).entry.narrative == "two"


def test_a_status_change_by_the_decay_job_keeps_an_agent_note_the_agents(bridge: Bridge) -> None:
    run(bridge, add_op(API_KEYS))
    bridge.store.set_frontmatter(API_KEYS, "status", "stable")  # what the decay job does
    result = run(bridge, {"type": "UPDATE", "path": API_KEYS, "summary": "s"}).results[0]
    assert result.status == "applied"
    assert parse_note(API_KEYS, text(bridge, API_KEYS)).entry.status == "stable"


def test_an_update_that_changes_nothing_writes_nothing(bridge: Bridge) -> None:
    run(bridge, add_op(API_KEYS, summary="same", tags=["a"]))
    before = snapshot(bridge.store.root)
    op = {"type": "UPDATE", "path": API_KEYS, "summary": "same", "tags": ["a"]}
    result = run(bridge, op).results[0]
    assert (result.status, result.message) == ("applied", "no change: already so")
    assert snapshot(bridge.store.root) == before


def test_two_agents_curating_at_once_are_serialised_and_nothing_is_lost(bridge: Bridge) -> None:
    run(bridge, add_op(API_KEYS))
    errors: list[BaseException] = []

    def agent(name: str) -> None:
        try:
            for i in range(8):
                ops = [
                    add_op(f"team/{name}/note_{i}.md", title=f"{name} {i}"),
                    {
                        "type": "UPDATE",
                        "path": API_KEYS,
                        "relations": [f"@team/{name}/note_{i}.md - from {name}"],
                    },
                ]
                result = run(bridge, *ops, author=name)
                assert [r.status for r in result.results] == ["applied", "applied"], result
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=agent, args=(n,)) for n in ("alpha", "beta")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(CEILING)
    assert errors == []
    body = text(bridge, API_KEYS)
    for name in ("alpha", "beta"):
        for i in range(8):
            assert f"- [[team/{name}/note_{i}]] - from {name}" in body
            assert (bridge.store.root / f"team/{name}/note_{i}.md").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_an_applied_batch_is_one_git_commit(open_vault: OpenBridge, template_vault: Path) -> None:
    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(template_vault), *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    (template_vault / "scratch.md").write_text("a human's unstaged work\n")
    bridge = open_vault(git_commit=True)
    result = run(bridge, add_op(API_KEYS), add_op("engineering/auth/b.md"), author="bot")
    assert result.git is None
    log = git("log", "--format=%B", "-1")
    assert log.startswith("vault-bridge: curate by agent:bot (2 operations)")
    assert f"- ADD {API_KEYS}" in log and "- ADD engineering/auth/b.md" in log
    # The folder overview the template's `_index.md` holds is refreshed in the same commit.
    assert git("show", "--name-only", "--format=", "HEAD").split() == sorted(
        [API_KEYS, "engineering/_index.md", "engineering/auth/b.md"]
    )
    assert "?? scratch.md" in git("status", "--porcelain")


def test_a_note_with_malformed_frontmatter_is_never_written(open_vault: OpenBridge) -> None:
    bridge = open_vault(review_rules=[])
    path = "engineering/auth/broken.md"
    (bridge.store.root / path).write_text("---\ntitle: [unclosed\n---\n# Broken\n")
    before = snapshot(bridge.store.root)
    result = run(bridge, {"type": "UPDATE", "path": path, "summary": "x"}).results[0]
    assert result.status == "failed" and "until a human fixes it" in result.message
    assert snapshot(bridge.store.root) == before


def test_merge_into_a_new_path_builds_the_entry_from_its_sources(open_vault: OpenBridge) -> None:
    bridge = open_vault(review_rules=[])
    run(
        bridge,
        add_op("team/keys/one.md", title="One", narrative="First part.", tags=["a"]),
        add_op("team/keys/two.md", title="Two", narrative="Second part.", tags=["b"]),
    )
    op = {"type": "MERGE", "path": "team/keys/both.md", "merge_from": ["team/keys/one", "two"]}
    result = run(bridge, op).results[0]
    assert result.status == "failed" and "no note at `two.md`" in result.message
    op["merge_from"] = ["team/keys/one", "team/keys/two"]
    assert run(bridge, op).results[0].status == "applied"
    entry = parse_note("both.md", text(bridge, "team/keys/both.md")).entry
    assert entry.title == "One" and entry.tags == ("a", "b")
    assert entry.narrative == "First part.\n\nSecond part."
    assert not (bridge.store.root / "team/keys/one.md").exists()
    assert (bridge.store.root / ".trash/team/keys/two.md").exists()


def test_add_writes_no_empty_section_and_update_adds_one_in_place(bridge: Bridge) -> None:
    run(bridge, add_op(API_KEYS, title="API keys", narrative="Keys rotate yearly."))
    written = text(bridge, API_KEYS)
    assert "## Narrative\nKeys rotate yearly.\n" in written
    assert "## Snippets" not in written and "## Relations" not in written
    code = {"type": "UPDATE", "path": API_KEYS, "snippets": [{"language": "sh", "code": "rot"}]}
    assert run(bridge, code).results[0].status == "applied"
    assert text(bridge, API_KEYS).endswith(
        "## Narrative\nKeys rotate yearly.\n\n## Snippets\n```sh\nrot\n```\n"
    )


def test_a_new_entry_starts_at_50_as_design_says_and_each_update_adds_5(bridge: Bridge) -> None:
    # An ADD was counted as an update: importance 55 and `update_count` 1 from the start.
    path = "engineering/auth/api_keys.md"
    assert run(bridge, add_op(path, title="API keys")).results[0].status == "applied"
    now = dt.datetime.now(dt.UTC)
    view = bridge.lifecycle.view(path, "draft", None, now)
    assert abs(view.importance - 50) < 0.01 and view.update_count == 0
    assert view.last_writer == "agent:tester" and view.last_update is not None
    update = {"type": "UPDATE", "path": path, "summary": "Keys rotate yearly."}
    assert run(bridge, update).results[0].status == "applied"
    view = bridge.lifecycle.view(path, "draft", None, dt.datetime.now(dt.UTC))
    assert abs(view.importance - 55) < 0.01 and view.update_count == 1
