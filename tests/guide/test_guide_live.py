"""The guide of a real bridge on a temp copy of vault-template, locally and over HTTP."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bridge.api.models import GuideOut
from bridge.core.entry import parse_note
from bridge.guide.gather import gather_guide
from bridge.guide.render import render_guide
from bridge.mcp.backend import BackendError, LocalBackend
from bridge.query.uses import Credit
from bridge.runtime import Bridge
from tests.conftest import open_test_bridge
from tests.guide.conftest import LiveApi


def counted_by_hand(root: Path) -> tuple[int, Counter[str]]:
    """Notes per folder (all depths), walking the files: what the outline must say."""
    per_folder: Counter[str] = Counter()
    total = 0
    for file in root.rglob("*.md"):
        parts = file.relative_to(root).parts
        if any(p.startswith(".") for p in parts) or parts[0] in ("templates", "attachments"):
            continue
        total += 1
        for depth in range(1, len(parts)):
            per_folder["/".join(parts[:depth])] += 1
    return total, per_folder


def test_the_example_is_a_real_note_that_parses_as_a_valid_entry(
    bridge: Bridge, template_vault: Path
) -> None:
    example = gather_guide(bridge).example
    assert example.source == "vault"
    # The vault's core entries tie on importance; the shortest of them is shown.
    assert example.path == "team/practices/code_review.md"
    assert (template_vault / example.path).read_bytes().decode() == example.text
    note = parse_note(example.path, example.text)
    assert note.problems == ()
    assert note.frontmatter["title"] == note.title == "Code review"
    assert note.entry.summary and note.entry.status == "core"
    assert [r.target for r in note.entry.relations] == [
        "engineering/deploy/ci/pipeline",
        "team/onboarding/dev_setup",
    ]
    assert note.entry.raw_concept.source and note.entry.narrative


def test_the_outline_counts_match_the_files(bridge: Bridge, template_vault: Path) -> None:
    outline = gather_guide(bridge).outline
    total, per_folder = counted_by_hand(template_vault)
    assert outline.notes == total == 18
    assert outline.root_notes == 1  # Welcome.md
    assert {f.path: f.notes for f in outline.folders} == dict(per_folder)
    assert not outline.truncated and outline.folders_total == len(per_folder)
    assert {f.path for f in outline.folders if f.depth == 1} == {
        "billing",
        "engineering",
        "journal",
        "team",
    }


def test_top_entries_follow_importance_after_uses(bridge: Bridge) -> None:
    used = "billing/plans/team_plan.md"  # stable: starts at 65, below the three core notes
    before = gather_guide(bridge).top
    assert len(before) == 10 and used in [e.path for e in before[3:]]
    assert [e.importance for e in before] == sorted((e.importance for e in before), reverse=True)
    for _ in range(7):  # each answer credits a note once: 7 uses are +21
        answer = bridge.engine.search("team plan seats per month")
        assert used in [s.path for s in answer.sources]
        assert bridge.engine.feedback(answer.query_id, used, True) is Credit.CREDITED
    top = gather_guide(bridge).top
    assert top[0].path == used and top[0].importance > 85
    assert top[0].title == "Team plan" and top[0].summary.startswith("The Team plan costs")
    assert top[0].status == "stable"  # the file keeps its status until the decay job runs
    assert [e.importance for e in top] == sorted((e.importance for e in top), reverse=True)


def test_a_vault_without_entries_gets_the_built_in_example(tmp_path: Path) -> None:
    vault = tmp_path / "plain"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "inbox").mkdir()
    (vault / "inbox" / "todo.md").write_text("# Todo\n\n- call the bank\n")
    opened = open_test_bridge(vault, tmp_path / "state")
    try:
        guide = gather_guide(opened)
    finally:
        opened.close()
    assert guide.example.source == "built_in"
    note = parse_note(guide.example.path, guide.example.text)
    assert note.problems == () and note.entry.relations and note.entry.summary
    assert [e.path for e in guide.top] == ["inbox/todo.md"] and guide.top[0].title == "Todo"
    assert [(f.path, f.notes) for f in guide.outline.folders] == [("inbox", 1)]


def test_the_guide_is_compact_on_the_template_vault(bridge: Bridge) -> None:
    text = render_guide(gather_guide(bridge))
    assert len(text.split()) < 1500
    for part in (
        "## Entry format",
        "### Example: `team/practices/code_review.md` (a real entry of this vault)",
        "@domain/topic/entry.md",
        "## What waits for a human, and why",
        "- `update_human`: a change to a note a human wrote last",
        "`billing` (5), `engineering` (7), `journal` (1), `team` (4)",
        "## Most important entries",
        "memory_read(path, from_query=query_id)",
    ):
        assert part in text


def test_get_guide_needs_the_token_and_returns_the_model(api: LiveApi) -> None:
    refused = api.client.get("/v1/guide")
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    response = api.client.get("/v1/guide", headers=api.auth)
    assert response.status_code == 200
    guide = GuideOut.model_validate(response.json())
    assert guide.vault == "vault" and guide.notes == 18 and len(guide.top) == 10
    assert guide.example.path == "team/practices/code_review.md"
    assert guide.markdown.startswith("# Memory guide: vault\n")
    # The same guide as the MCP process builds when it opens the vault itself.
    local = LocalBackend(api.bridge)
    assert guide.markdown == local.guide(10)["markdown"]
    with pytest.raises(BackendError, match="top must be 1 to 100"):
        local.guide(0)  # the same bounds as the route's
    three = api.client.get("/v1/guide", params={"top": 3}, headers=api.auth).json()
    assert [e["path"] for e in three["top"]] == [e.path for e in guide.top[:3]]
    bad = api.client.get("/v1/guide", params={"top": 0}, headers=api.auth)
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid"
