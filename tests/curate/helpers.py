"""Helpers shared by the curation tests."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from bridge.core.operations import parse_operations
from bridge.curate.results import BatchResult
from bridge.runtime import Bridge


def run(bridge: Bridge, *ops: dict[str, Any], author: str = "tester") -> BatchResult:
    """Apply operations given as JSON-like dicts."""
    return bridge.executor.apply(parse_operations(list(ops)), author)


def add_op(path: str, **fields: Any) -> dict[str, Any]:
    return {"type": "ADD", "path": path, "title": fields.pop("title", "New entry"), **fields}


def git(vault: Path, *args: str) -> str:
    """Run git in the vault; its output (fails the test if git fails)."""
    done = subprocess.run(
        ["git", "-C", str(vault), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repository(vault: Path) -> None:
    """The vault as a git repository with everything committed."""
    git(vault, "init", "-q")
    git(vault, "add", "-A")
    git(vault, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")


def refuse_commits(vault: Path, why: str) -> None:
    """A pre-commit hook that refuses every commit, saying `why` (a real way a commit fails)."""
    hook = vault / ".git/hooks/pre-commit"
    hook.write_text(f"#!/bin/sh\necho '{why}' >&2\nexit 1\n")
    hook.chmod(0o755)
