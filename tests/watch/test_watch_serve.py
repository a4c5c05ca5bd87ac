"""`vault-bridge serve` end to end: a real process that watches, then stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from bridge.runtime import open_bridge
from bridge.settings import Settings
from bridge.state.db import StateDB
from bridge.state.lifecycle_store import LifecycleStore
from tests.conftest import CEILING, seed_vectors
from tests.watch.conftest import found, leave_interrupted_commit, wait_until

JWT = "engineering/auth/jwt_expiry.md"


def _lines(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    """The process's output lines, read on a thread so the test can wait with a timeout."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _wait_for(lines: queue.Queue[str], text: str, timeout: float = CEILING) -> list[str]:
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while not any(text in line for line in seen):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            pytest.fail(f"no {text!r} in the output within {timeout} s: {''.join(seen)}")
        try:
            seen.append(lines.get(timeout=remaining))
        except queue.Empty:
            continue
    return seen


def _serve(vault: Path, state: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from bridge.cli import main; raise SystemExit(main())"]
    args = ["serve", "--vault", str(vault), "--state-dir", str(state), "--port", "0"]
    return subprocess.Popen(
        [*command, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_serve_starts_after_a_kill_in_the_middle_of_an_index_commit(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = seed_vectors(template_vectors, tmp_path / "state")  # no core spent embedding
    bridge = open_bridge(Settings(vault=template_vault, state_dir=state))
    bridge.sync()
    bridge.close()
    # The index as a kill -9 during a commit leaves it, and an edit made while serve was down,
    # whose start-up commit deletes the old documents (the commit that collided).
    leave_interrupted_commit(state / "index")
    with (template_vault / JWT).open("a", encoding="utf-8") as handle:
        handle.write("\nEdited while serve was down: quokkaish.\n")
    proc = _serve(template_vault, state)
    try:
        output = "".join(_wait_for(_lines(proc), "Ctrl-C to stop"))
        assert "interrupted commit" in output  # the log says what start-up cleaned up
        assert "Traceback" not in output
        info = json.loads((state / "bridge.json").read_text())
        token = (state / "token").read_text().strip()
        answer = httpx.post(
            f"{info['url']}/v1/search",
            json={"query": "quokkaish"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=CEILING,
        )
        assert answer.json()["sources"][0]["path"] == JWT
    finally:
        _stop(proc)


def test_serve_indexes_human_edits_and_stops_on_sigterm(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    state = seed_vectors(template_vectors, tmp_path / "state")  # no core spent embedding
    # A crash mid-write an hour ago left a temp file: serve removes it when it starts.
    leftover = template_vault / "billing" / ".renewal.md.vb-tmp-0123456789ab"
    leftover.write_text("half a note")
    os.utime(leftover, (time.time() - 3600, time.time() - 3600))
    proc = _serve(template_vault, state)
    try:
        lines = _lines(proc)
        _wait_for(lines, "watching")
        assert not leftover.exists()
        # The API is up, found through the discovery file, with the token from the state dir.
        info = json.loads((state / "bridge.json").read_text())
        assert info["host"] == "127.0.0.1" and info["pid"] == proc.pid and info["port"] > 0
        token = (state / "token").read_text().strip()
        assert (state / "token").stat().st_mode & 0o777 == 0o600
        status = httpx.get(
            f"{info['url']}/v1/status",
            headers={"Authorization": f"Bearer {token}"},
            timeout=CEILING,
        )
        assert status.status_code == 200 and status.json()["watching"] is True
        with (template_vault / JWT).open("a", encoding="utf-8") as handle:
            handle.write("\nEdited while serve runs: axolotlish.\n")
        with StateDB.open(state) as db:
            lifecycle = LifecycleStore(db)
            wait_until(lambda: lifecycle.last_writer(JWT) == "human")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=CEILING) == 0
        _wait_for(lines, "Stopped.")
        assert not (state / "bridge.json").exists()  # gone with the process
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    bridge = open_bridge(Settings(vault=template_vault, state_dir=state))
    try:
        assert found(bridge, "axolotlish") == [JWT]  # committed before the process ended
    finally:
        bridge.close()
