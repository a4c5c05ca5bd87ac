"""`make run` as a newcomer sees it: each message once, and no instruction to run what runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import CEILING, ROOT
from tests.watch.test_watch_serve import _lines, _wait_for


def _make_run(vault: Path, state: Path) -> list[str]:
    """The output of `make run` (its set-up and plugin build taken as done) until it serves."""
    env = {**os.environ, "VAULT_BRIDGE_STATE_DIR": str(state), "VAULT_BRIDGE_PORT": "0"}
    command = ["make", "--no-print-directory", "-o", "setup", "-o", "plugin", "run"]
    command += [f"RUN_VAULT={vault}", f"BIN={Path(sys.executable).parent}"]
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # make's child, serve, gets the signal too
    )
    try:
        return _wait_for(_lines(proc), "watching")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=CEILING)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_make_run_says_each_thing_once_and_then_serves(tmp_path: Path) -> None:
    vault = tmp_path / "run-vault"
    for state in (tmp_path / "first", tmp_path / "second"):  # a new vault, then the same one
        lines = _make_run(vault, state)
        said = "".join(lines)
        assert sum("Obsidian plugin:" in line for line in lines) == 1, said
        assert "then run" not in said, said
        assert not any(line.strip().startswith("vault-bridge serve") for line in lines), said
    assert (vault / "Welcome.md").is_file()
