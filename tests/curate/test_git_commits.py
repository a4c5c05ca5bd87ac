"""`git_commit` on a real git repository: what a batch changed is committed, always.

A human's vault is rarely clean: notes git does not track yet, folders moved with plain `mv`.
The bridge's commit must still hold the rest of its batch, and a commit that fails must be
reported in the result, not only in the log.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tests.curate.conftest import OpenBridge
from tests.curate.helpers import git, make_repository, refuse_commits, run

SESSION = "engineering/auth/session_refresh.md"
JWT = "engineering/auth/jwt_expiry.md"


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def committed(vault: Path) -> list[str]:
    """`status path` lines of the last commit (A added, M modified, D deleted)."""
    return git(vault, "show", "--name-status", "--format=", "HEAD").splitlines()


def test_approving_deletes_commits_what_git_can_record(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    make_repository(template_vault)
    scratch = "engineering/auth/scratch.md"  # a human's note git does not track
    (template_vault / scratch).write_text("# Scratch\n\nNot committed yet.\n")
    bridge = open_vault(git_commit=True)
    batch = run(bridge, {"type": "DELETE", "path": scratch}, {"type": "DELETE", "path": SESSION})
    assert [r.status for r in batch.results] == ["pending_review", "pending_review"]
    untracked, tracked = (r.review_id for r in batch.results)
    assert untracked is not None and tracked is not None

    decision = bridge.reviews.approve(untracked)
    assert decision.review.state == "approved" and decision.git is None
    assert not (template_vault / scratch).exists()
    decision = bridge.reviews.approve(tracked)
    assert decision.git is None
    assert f"D\t{SESSION}" in committed(template_vault)
    assert git(template_vault, "log", "-1", "--format=%s").startswith(
        f"vault-bridge: review {tracked} approved"
    )
    # Whatever the two approvals wrote is committed: only Obsidian's trash is left over.
    assert git(template_vault, "status", "--porcelain").splitlines() == ["?? .trash/"]


def test_a_merge_after_a_human_moved_the_folder_is_committed(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    make_repository(template_vault)
    (template_vault / "engineering/auth").rename(template_vault / "engineering/security")
    bridge = open_vault(git_commit=True)
    target = "engineering/security/jwt_expiry.md"
    source = "engineering/security/session_refresh.md"
    merge = {"type": "MERGE", "path": target, "merge_from": [source], "reason": "one topic"}
    review_id = run(bridge, merge).results[0].review_id
    assert review_id is not None

    decision = bridge.reviews.approve(review_id)
    assert decision.review.state == "approved" and decision.git is None
    lines = committed(template_vault)
    assert f"A\t{target}" in lines  # the merged note, new to git at its new place
    assert not [line for line in lines if source in line]  # never tracked: nothing to record
    # The human's move itself is theirs to commit: the old paths are not staged by the bridge.
    assert f" D {JWT}" in git(template_vault, "status", "--porcelain").splitlines()


def test_a_refused_commit_is_reported_in_the_result(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    make_repository(template_vault)
    refuse_commits(template_vault, "no commits today")
    bridge = open_vault(git_commit=True)
    batch = run(bridge, {"type": "ADD", "path": "engineering/auth/keys.md", "title": "Keys"})
    assert batch.results[0].status == "applied"  # the note is written all the same
    assert batch.git is not None and "no commits today" in batch.git
    assert batch.to_dict()["git"] == batch.git


def test_a_batch_commits_its_own_change_and_never_a_humans_unfinished_edit(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    make_repository(template_vault)
    renewal = "billing/cycle/renewal.md"  # links to the note the MERGE folds away
    with (template_vault / renewal).open("a", encoding="utf-8") as handle:
        handle.write("\nAn unfinished paragraph a human is still writing.\n")
    (template_vault / "team/notes.md").write_text("# Staged by the human\n")
    git(template_vault, "add", "team/notes.md")
    bridge = open_vault(git_commit=True, review_rules=[])
    merge = {"type": "MERGE", "path": JWT, "merge_from": [SESSION], "reason": "one topic"}
    batch = run(bridge, merge)
    assert batch.results[0].status == "applied" and batch.git is None
    assert f"M\t{renewal}" in committed(template_vault)
    head = git(template_vault, "show", f"HEAD:{renewal}")
    assert "[[engineering/auth/jwt_expiry]]" in head and "unfinished paragraph" not in head
    # The human's work is where they left it: their paragraph unstaged, their file staged.
    assert "unfinished paragraph" in (template_vault / renewal).read_text()
    assert git(template_vault, "diff", "--name-only").split() == [renewal]
    assert git(template_vault, "diff", "--cached", "--name-only").split() == ["team/notes.md"]


def test_imports_decay_runs_and_overview_refreshes_are_committed(
    open_vault: OpenBridge, template_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bridge.cli import main
    from tests.importer.test_transcript import CHAT

    make_repository(template_vault)
    bridge = open_vault(git_commit=True)
    report = bridge.import_transcripts(CHAT)
    assert len(report.written) == 2
    assert git(template_vault, "log", "-1", "--format=%s").startswith("vault-bridge: import")
    assert sorted(committed(template_vault)) == [f"A\t{p}" for p in sorted(report.written)]

    (template_vault / "engineering/auth/passkeys.md").write_text("# Passkeys\n\nSoon.\n")
    bridge.sync()
    refreshed = bridge.write_overviews()
    updated = [o.path for o in refreshed.outcomes.values() if o.state == "updated"]
    assert updated and committed(template_vault) == [f"M\t{p}" for p in sorted(updated)]
    assert "?? engineering/auth/passkeys.md" in git(template_vault, "status", "--porcelain")

    for _ in range(25):  # used often: a new maturity at the next decay run
        bridge.lifecycle.record_access({"team/practices/incidents/on_call.md": "draft"}, now())
    bridge.close()
    state = str(tmp_path / "state")
    monkeypatch.setenv("VAULT_BRIDGE_GIT_COMMIT", "true")  # `decay` for cron, without serve
    code = main(["decay", "--vault", str(template_vault), "--state-dir", state, "--json"])
    assert code == 0
    assert git(template_vault, "log", "-1", "--format=%s").startswith("vault-bridge: decay run")
    assert "M\tteam/practices/incidents/on_call.md" in committed(template_vault)
