"""One git commit per applied batch, when the vault is a git repository and `git_commit` is on.

Only the paths the batch changed are staged and committed, so a human's unrelated work in
progress (staged or not) is never swept into the bridge's commit. Of those, only the ones git
sees as changed are given to it: a note git never tracked that the batch deleted (a human's new
note, or one in a folder a human moved with `mv`) is nothing git can record. Failures are
reported, not raised: the notes are already written, and a missing `git` must not undo a
curation.
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
    # Literal pathspecs: a note named `[draft].md` or `:x.md` is that file, not a pattern.
    return subprocess.run(
        ["git", "-C", str(vault), "--literal-pathspecs", *args],
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
    status = _run(vault, *_STATUS, "--", *paths)
    if status.returncode != 0:
        return f"git status failed: {status.stderr.strip()}"
    changed = _changed(status.stdout, paths)
    if not changed:
        return None  # nothing git can record (an untracked note deleted, bytes as committed)
    added = _run(vault, "add", "--all", "--", *changed)
    if added.returncode != 0:
        return f"git add failed: {added.stderr.strip()}"
    done = _run(vault, *identity, "commit", "--quiet", "-m", message, "--", *changed)
    if done.returncode != 0:
        return f"git commit failed: {(done.stderr or done.stdout).strip()}"
    return None


_STATUS = ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")


def _changed(porcelain: str, paths: Sequence[str]) -> list[str]:
    """The `paths` that `git status --porcelain -z` lists: new, modified, or tracked and gone.

    Trigger: a batch removed a note git does not track. Why: `git add -- <path>` of a path
    that neither exists nor is tracked fails the whole command ("pathspec did not match"), so
    the rest of the batch went uncommitted and only the log said so. Outcome: git gets only
    the paths it reports, each entry being `XY path` (no rename pairs with `--no-renames`).
    """
    listed = {entry[3:] for entry in porcelain.split("\0") if len(entry) > 3}
    return [path for path in paths if path in listed]


def batch_message(author: str, labels: Sequence[str]) -> str:
    """`vault-bridge: curate by agent:x (3 operations)` and one line per operation."""
    count = len(labels)
    head = f"vault-bridge: curate by {author} ({count} operation{'s' if count != 1 else ''})"
    return "\n".join([head, "", *(f"- {label}" for label in labels)]) + "\n"
