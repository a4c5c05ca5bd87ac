"""A batch is never half applied: every operation is checked before any of its files is written.

A field no note can hold (a lone UTF-16 surrogate, a NUL, a control character in frontmatter)
fails that operation by name, on every way in; the other operations of the batch keep their own
outcome, and an operation that fails half-way leaves none of its files changed.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bridge.core.operations import parse_operations
from bridge.curate.executor import Applied
from bridge.mcp.backend import BackendError, LocalBackend
from bridge.runtime import Bridge
from bridge.vault.store import WriteConflictError
from tests.conftest import CEILING, isolated_environ
from tests.curate.helpers import add_op, run

GOOD = "engineering/auth/api_keys.md"
BAD = "engineering/auth/bad_one.md"
HUMAN_NOTE = "engineering/auth/jwt_expiry.md"
LONE = "\ud800"

# Each field of an operation, holding a lone surrogate (as JSON `"\ud800"` decodes).
FIELDS: dict[str, dict[str, Any]] = {
    "title": {"title": f"Keys {LONE}"},
    "summary": {"summary": f"Rotate {LONE} yearly."},
    "narrative": {"narrative": f"Body {LONE}"},
    "tags.0": {"tags": [f"keys{LONE}"]},
    "relations.0.target": {"relations": [{"target": f"@a/b/c{LONE}.md"}]},
    "relations.0.reason": {"relations": [{"target": "@a/b/c.md", "reason": LONE}]},
    "raw_concept.task": {"raw_concept": {"task": LONE}},
    "raw_concept.source": {"raw_concept": {"source": LONE}},
    "snippets.0.code": {"snippets": [{"language": "py", "code": LONE}]},
    "snippets.0.language": {"snippets": [{"language": f"py{LONE}", "code": "x"}]},
    "reason": {"reason": LONE},
}


@pytest.mark.parametrize("field", FIELDS)
def test_a_lone_surrogate_in_any_field_fails_that_operation_by_name(
    bridge: Bridge, field: str
) -> None:
    bad = add_op(BAD, **{"title": "Bad", **FIELDS[field]})
    result = run(bridge, add_op(GOOD, title="API keys"), bad)
    first, second = result.results
    assert first.status == "applied"
    assert second.status == "failed" and f"`{field}`" in second.message
    assert "surrogate" in second.message and "\\ud800" in second.message
    assert not (bridge.store.root / BAD).exists()
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")  # printable as JSON


@pytest.mark.parametrize(
    "op",
    [
        {"type": "ADD", "path": f"engineering/auth/x{LONE}.md", "title": "x"},
        {"type": "DELETE", "path": HUMAN_NOTE, "reason": f"gone {LONE}"},
        {"type": "MERGE", "path": HUMAN_NOTE, "merge_from": [f"a/b/c{LONE}.md"]},
        {"type": "UPDATE", "path": HUMAN_NOTE, "summary": "s", "base_hash": LONE},
        {"type": "UPDATE", "path": HUMAN_NOTE, "summary": "s", f"{LONE}": 1},
    ],
    ids=["path", "delete-reason", "merge-from", "base-hash", "unknown-key"],
)
def test_a_lone_surrogate_in_a_path_or_reason_fails_and_nothing_moves(
    bridge: Bridge, op: dict[str, Any]
) -> None:
    before = (bridge.store.root / HUMAN_NOTE).read_bytes()
    (outcome,) = run(bridge, op).results
    assert outcome.status == "failed"
    assert (bridge.store.root / HUMAN_NOTE).read_bytes() == before
    assert bridge.reviews.list() == []  # not even queued for review
    json.dumps(outcome.to_dict(), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"narrative": "a\x00b"}, "narrative"),
        ({"title": "a\x00b"}, "title"),
        ({"summary": "DEL \x7f here"}, "summary"),
        ({"title": "C1 \x9b control"}, "title"),
        ({"tags": ["ok", "no\ufffe"]}, "tags.1"),
    ],
)
def test_text_a_note_cannot_read_back_is_refused_before_writing(
    bridge: Bridge, fields: dict[str, Any], where: str
) -> None:
    # A NUL made the written note read back as binary; DEL, a C1 control or U+FFFE in a
    # frontmatter value made its YAML unreadable, so the bridge would never write it again.
    (outcome,) = run(bridge, add_op(BAD, **{"title": "Bad", **fields})).results
    assert outcome.status == "failed" and f"`{where}`" in outcome.message
    assert not (bridge.store.root / BAD).exists()


def test_a_name_as_long_as_the_file_system_allows_is_written(bridge: Bridge) -> None:
    # The temp file beside it carries a marker and a token: a 240-byte name was refused with
    # `File name too long` and the vault's absolute path.
    name = "k" * 240 + ".md"
    (outcome,) = run(bridge, add_op(f"engineering/auth/{name}", title="Long")).results
    assert outcome.status == "applied", outcome.message
    too_long = "k" * 253 + ".md"  # 256 bytes with `.md`: refused by the path rules, clearly
    (refused,) = run(bridge, add_op(f"engineering/auth/{too_long}", title="Long")).results
    assert refused.status == "failed" and "longer than 255 bytes" in refused.message
    assert str(bridge.store.root) not in refused.message


def test_an_author_that_is_too_long_with_its_prefix_is_refused_before_writing(
    bridge: Bridge,
) -> None:
    with pytest.raises(ValueError, match="at most 100 characters"):
        bridge.executor.apply(parse_operations([add_op(GOOD, title="K")]), "a" * 95)
    assert not (bridge.store.root / GOOD).exists()
    result = bridge.executor.apply(parse_operations([add_op(GOOD, title="K")]), "a" * 94)
    assert result.results[0].status == "applied"


def test_a_merge_that_fails_half_way_leaves_every_file_as_it_was(bridge: Bridge) -> None:
    root = bridge.store.root
    target, source = "billing/plans/team_plan.md", "billing/plans/annual_plan.md"
    linking = [p for p in bridge.store.iter_paths() if "annual_plan" in (root / p).read_text()]
    linking = [p for p in linking if p not in (target, source)]
    assert linking, "the template links to the annual plan"
    before = {p: (root / p).read_bytes() for p in [target, source, *linking]}
    executor = bridge.executor
    now = dt.datetime.now(dt.UTC)
    (op,) = parse_operations([{"type": "MERGE", "path": target, "merge_from": [source]}])
    plan = executor.planner("agent:test", now).plan(op)
    # A human edits the last note whose link the merge rewrites, after the plan was made.
    edited = sorted(linking)[-1]
    with (root / edited).open("a", encoding="utf-8") as handle:
        handle.write("\nA human line.\n")
    before[edited] = (root / edited).read_bytes()
    with pytest.raises(WriteConflictError):
        executor.execute(plan, "agent:test", now, Applied())
    assert {p: (root / p).read_bytes() for p in before} == before
    assert not (root / ".trash" / source).exists()


def test_the_cli_reports_each_operation_without_a_traceback(
    template_vault: Path, tmp_path: Path
) -> None:
    ops = tmp_path / "ops.json"
    ops.write_text(
        json.dumps(
            {
                "operations": [
                    {"type": "ADD", "path": GOOD, "title": "API keys"},
                    {"type": "ADD", "path": BAD, "title": f"x{LONE}"},
                ]
            }
        )
    )
    command = [str(Path(sys.executable).with_name("vault-bridge")), "curate", "--operations"]
    where = ["--vault", str(template_vault), "--state-dir", str(tmp_path / "state")]
    env = isolated_environ(tmp_path)
    done = subprocess.run(
        [*command, str(ops), *where, "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=CEILING,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1  # some operations failed
    statuses = [r["status"] for r in json.loads(done.stdout)["results"]]
    assert statuses == ["applied", "failed"]
    author = tmp_path / "author.json"
    author.write_text(json.dumps({"operations": [], "author": "c" * 95}))
    done = subprocess.run(
        [*command, str(author), *where], capture_output=True, text=True, env=env, timeout=CEILING
    )
    assert done.returncode == 2 and "at most 100 characters" in done.stderr
    assert "Traceback" not in done.stderr


def test_mcp_memory_curate_reports_each_operation(bridge: Bridge) -> None:
    backend = LocalBackend(bridge)
    ops = [
        {"type": "ADD", "path": GOOD, "title": "API keys"},
        {"type": "ADD", "path": BAD, "summary": LONE, "title": "x"},
    ]
    result = backend.curate(ops, "agent:mcp")
    assert [r["status"] for r in result["results"]] == ["applied", "failed"]
    json.dumps(result, ensure_ascii=False).encode("utf-8")
    with pytest.raises(BackendError, match="at most 100"):
        backend.curate(ops, "d" * 95)
