"""`git_commit` on a real git repository: what a batch changed is committed, always.

A human's vault is rarely clean: notes git does not track yet, folders moved with plain `mv`.
The bridge's commit must still hold the rest of its batch, and a commit that fails must be
reported in the result, not only in the log.
"""

from __future__ import annotations

from pathlib import Path

from tests.curate.conftest import OpenBridge
from tests.curate.helpers import git, make_repository, refuse_commits, run

SESSION = "engineering/auth/session_refresh.md"
JWT = "engineering/auth/jwt_expiry.md"


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
