"""One git commit per unit of the bridge's work, when the vault is a git repository and
`git_commit` is on: a curation batch, a review decision, a decay run, an import, an overviews
refresh.

Only the bridge's own changes are committed. Trigger: a batch rewrote a link in a note a human
was editing, and `git commit -- <path>` took the whole file, the human's unfinished paragraph
with it. Why: git commits files, not changes. Outcome: each note's committed blob is what git
had plus the bridge's change (`before` -> `after`, merged onto it with `git merge-file` when the
human's edits sit beside it), staged in a temporary index so the human's own staging area and
working tree are left as they are; a note whose change cannot be merged that way is left out
and named. Hooks run as for any commit. Failures are reported, not raised: the notes are
already written, and a missing `git` must not undo a curation.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

_TIMEOUT = 30
log = logging.getLogger(__name__)
Changes = Mapping[str, tuple[bytes | None, bytes | None]]


def is_repository(vault: Path) -> bool:
    """True when the vault folder is the top of a git work tree."""
    return (vault / ".git").exists()


def _run(
    vault: Path, *args: str, data: bytes | None = None, index: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    # Literal pathspecs: a note named `[draft].md` or `:x.md` is that file, not a pattern.
    env = None if index is None else {**os.environ, "GIT_INDEX_FILE": str(index)}
    return subprocess.run(
        ["git", "-C", str(vault), "--literal-pathspecs", *args],
        input=data,
        capture_output=True,
        timeout=_TIMEOUT,
        check=False,
        env=env,
    )


def _text(done: subprocess.CompletedProcess[bytes]) -> str:
    return (done.stderr or done.stdout).decode("utf-8", "replace").strip()


def _blob_id(data: bytes, sha256: bool) -> str:
    """The id git gives these bytes as a blob, computed here (no process per note)."""
    digest = hashlib.sha256 if sha256 else hashlib.sha1
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


def _listed(output: bytes, columns: int) -> dict[str, str]:
    """`path -> "mode blob"` from `ls-tree -z` (mode type blob) or `ls-files -s -z` (mode
    blob stage) output."""
    out = {}
    for line in output.decode("utf-8", "surrogateescape").split("\0"):
        if "\t" in line:
            meta, path = line.split("\t", 1)
            fields = meta.split()
            out[path] = f"{fields[0]} {fields[columns]}"
    return out


def _tree(vault: Path, rev: str, paths: Sequence[str]) -> dict[str, str]:
    """The paths commit `rev` holds (none for an unborn branch)."""
    if not rev:
        return {}
    return _listed(_run(vault, "ls-tree", "-z", rev, "--", *paths).stdout, 2)


def _index(vault: Path, paths: Sequence[str]) -> dict[str, str]:
    """The paths the human's own index (staging area) holds."""
    return _listed(_run(vault, "ls-files", "-s", "-z", "--", *paths).stdout, 1)


def _merged(vault: Path, committed: bytes, before: bytes, after: bytes) -> bytes | None:
    """`committed` with the change `before` -> `after` applied; None when they overlap."""
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for name, data in (("committed", committed), ("before", before), ("after", after)):
            file = Path(folder) / name
            file.write_bytes(data)
            files.append(str(file))
        done = _run(vault, "merge-file", "-p", "--quiet", *files)
    return done.stdout if done.returncode == 0 else None


def commit_work(vault: Path, enabled: bool, changes: Changes, message: str) -> str | None:
    """With `git_commit` on (`enabled`) and the vault a repository: `commit_changes`, with a
    failure logged as well as returned."""
    if not enabled or not changes or not is_repository(vault):
        return None
    error = commit_changes(vault, changes, message)
    if error:
        log.warning("%s", error)
    return error


def commit_changes(vault: Path, changes: Changes, message: str) -> str | None:
    """Commit the bridge's own `changes` (path -> bytes before, after) with `message`.

    None on success (or when git has nothing to record), else why not.
    """
    if not changes:
        return None
    if shutil.which("git") is None:
        return "git_commit is on but `git` is not installed"
    head = _run(vault, "rev-parse", "--verify", "--quiet", "HEAD").stdout.decode().strip()
    sha256 = _run(vault, "rev-parse", "--show-object-format").stdout.decode().strip() == "sha256"
    paths = sorted(changes)
    committed = _tree(vault, head, paths)
    entries: list[str] = []
    left_out: list[str] = []
    for path in paths:
        before, after = changes[path]
        mode, _, blob = committed.get(path, "100644 ").partition(" ")
        if after is None:
            if blob:  # a note git never tracked that the batch removed: nothing to record
                entries.append(f"0 {'0' * len(blob)}\t{path}")
            continue
        if blob == _blob_id(after, sha256):
            continue  # git already has these bytes
        content = after
        if blob and before is not None and blob != _blob_id(before, sha256):
            # A human changed the note since its last commit: commit only the bridge's part.
            shown = _run(vault, "cat-file", "blob", blob).stdout
            merged = _merged(vault, shown, before, after)
            if merged is None:
                left_out.append(path)
                continue
            content = merged
        written = _run(vault, "hash-object", "-w", "--stdin", data=content)
        if written.returncode != 0:
            return f"git hash-object failed: {_text(written)}"
        entries.append(f"{mode} {written.stdout.decode().strip()}\t{path}")
    if entries:
        error = _commit(vault, head, entries, message)
        if error:
            return error
    if left_out:
        return (
            f"not committed, as the bridge's change and a human's uncommitted edit overlap "
            f"there: {', '.join(left_out)}"
        )
    return None


def _commit(vault: Path, head: str, entries: list[str], message: str) -> str | None:
    """Commit HEAD plus `entries` (`update-index --index-info` lines) from a temporary index,
    then point the real index at the new blobs where it held HEAD's (a human's staging stays)."""
    identity: list[str] = []
    if not _run(vault, "config", "user.email").stdout.strip():
        # A fresh machine has no identity; commit as the bridge rather than fail.
        identity = ["-c", "user.name=vault-bridge", "-c", "user.email=vault-bridge@localhost"]
    paths = [line.split("\t", 1)[1] for line in entries]
    with tempfile.TemporaryDirectory() as folder:
        index = Path(folder) / "index"
        read = _run(vault, "read-tree", *([head] if head else ["--empty"]), index=index)
        if read.returncode != 0:
            return f"git read-tree failed: {_text(read)}"
        info = "".join(f"{line}\n" for line in entries).encode("utf-8", "surrogateescape")
        staged = _run(vault, "update-index", "--index-info", data=info, index=index)
        if staged.returncode != 0:
            return f"git update-index failed: {_text(staged)}"
        done = _run(vault, *identity, "commit", "--quiet", "-m", message, index=index)
        if done.returncode != 0:
            return f"git commit failed: {_text(done)}"
    # The human's index still holds the old commit's blobs there: where it does (they staged
    # nothing of their own), it follows the new commit, so `git status` shows no staged revert.
    real, old, now = _index(vault, paths), _tree(vault, head, paths), _tree(vault, "HEAD", paths)
    gone = "0 " + "0" * len(_run(vault, "rev-parse", "HEAD").stdout.strip())
    lines = [f"{now.get(path, gone)}\t{path}" for path in paths if real.get(path) == old.get(path)]
    if not lines:
        return None
    info = "".join(f"{line}\n" for line in lines).encode("utf-8", "surrogateescape")
    done = _run(vault, "update-index", "--index-info", data=info)
    return None if done.returncode == 0 else f"git update-index failed: {_text(done)}"


def batch_message(author: str, labels: Sequence[str]) -> str:
    """`vault-bridge: curate by agent:x (3 operations)` and one line per operation."""
    count = len(labels)
    head = f"vault-bridge: curate by {author} ({count} operation{'s' if count != 1 else ''})"
    return "\n".join([head, "", *(f"- {label}" for label in labels)]) + "\n"


def work_message(head: str, paths: Sequence[str]) -> str:
    """`vault-bridge: <head>` and one line per note, for the units that are not batches."""
    return "\n".join([f"vault-bridge: {head}", "", *(f"- {p}" for p in paths)]) + "\n"
