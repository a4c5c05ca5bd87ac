"""One git commit per applied batch, when the vault is a git repository and `git_commit` is on.

Only the paths the batch changed are staged and committed, so a human's unrelated work in
progress (staged or not) is never swept into the bridge's commit. Failures are reported, not
raised: the notes are already written, and a missing `git` must not undo a curation.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

_TIMEOUT = 30


def is_repository(vault: Path) -> bool:
    """True when the vault folder is the top of a git work tree."""
    return (vault / ".git").exists()


def _run(vault: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(vault), *args],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT,
        check=False,
    )


def commit_batch(vault: Path, paths: Sequence[str], message: str) -> str | None:
    """Commit `paths` (written or removed) with `message`; None on success, else why not."""
    if not paths:
        return None
    if shutil.which("git") is None:
        return "git_commit is on but `git` is not installed"
    identity: list[str] = []
    if not _run(vault, "config", "user.email").stdout.strip():
        # A fresh machine has no identity; commit as the bridge rather than fail.
        identity = ["-c", "user.name=vault-bridge", "-c", "user.email=vault-bridge@localhost"]
    added = _run(vault, "add", "--all", "--", *paths)
    if added.returncode != 0:
        return f"git add failed: {added.stderr.strip()}"
    done = _run(vault, *identity, "commit", "--quiet", "-m", message, "--", *paths)
    if done.returncode != 0:
        return f"git commit failed: {(done.stderr or done.stdout).strip()}"
    return None


def batch_message(author: str, labels: Sequence[str]) -> str:
    """`vault-bridge: curate by agent:x (3 operations)` and one line per operation."""
    count = len(labels)
    head = f"vault-bridge: curate by {author} ({count} operation{'s' if count != 1 else ''})"
    return "\n".join([head, "", *(f"- {label}" for label in labels)]) + "\n"
