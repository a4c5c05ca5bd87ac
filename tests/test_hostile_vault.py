"""A hostile vault, built by the test: every command finishes, names each bad note, finds every
readable one, and changes no byte.

Each command runs as a separate process (as a user runs it) under a time limit and an address
space limit, so a hang or a memory blow-up fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import stat
import subprocess
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from bridge.runtime import open_bridge
from bridge.settings import Settings
from tests.conftest import CEILING, last_writer
from tests.core.test_hostile_frontmatter import ALIAS_BOMB
from tests.watch.conftest import wait_until

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, sockets and symlinks")

MEMORY_LIMIT = 3 * 1024**3  # address space; the bridge needs well under this
LIMIT_BYTES = 64 * 1024  # max_note_bytes for this vault, so "huge" stays cheap to build

# note -> (unique findable word, or None when the note must not be indexed; doctor code or None)
READABLE: dict[str, tuple[str, str | None]] = {
    "ok/plain/normal.md": ("quokkaword", None),
    "ok/dates/impossible.md": ("datewordzz", "bad_value"),
    "ok/numbers/huge_int.md": ("bignumword", None),
    "ok/yaml/alias_bomb.md": ("bombword", "yaml_too_complex"),
    "ok/yaml/recursive.md": ("selfrefword", "yaml_too_complex"),
    "ok/yaml/malformed.md": ("brokenyaml", "malformed_frontmatter"),
    "ok/endings/mixed.md": ("mixedword", None),
    "ok/encoding/latin1.md": ("latinword", "not_utf8"),
    "ok/names/aux.md": ("auxword", None),
    "ok/names/C# tips.md": ("sharpword", None),
    "ok/names/[draft] plan.md": ("bracketword", None),
    "ok/names/a^b|c.md": ("caretword", None),
    unicodedata.normalize("NFD", "ok/names/café.md"): ("nfdword", None),
}
UNREADABLE: dict[str, str] = {
    "bad/pipe.md": "special_file",
    "bad/binary.md": "binary",
    "bad/huge.md": "too_large",
    "bad/escape.md": "outside_vault",  # a symlink out of the vault
    "bad/loop_a.md": "outside_vault",  # a symlink loop
}


def _note(word: str, frontmatter: str = "") -> str:
    head = f"---\n{frontmatter}---\n" if frontmatter else ""
    return f"{head}# Note\n\nThis note holds the word {word} for the search.\n"


def build(root: Path) -> None:
    """The vault: special files, escapes, loops, bad bytes, bad YAML, odd names, depth."""

    def put(path: str, data: str | bytes) -> None:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))

    put("ok/plain/normal.md", _note("quokkaword", "title: Normal\nstatus: draft\n"))
    put("ok/dates/impossible.md", _note("datewordzz", "created: 2026-02-30\nupdated: 2026-13-45\n"))
    put("ok/numbers/huge_int.md", _note("bignumword", f"n: {'9' * 5000}\n"))
    put("ok/yaml/alias_bomb.md", _note("bombword", ALIAS_BOMB))
    put("ok/yaml/recursive.md", _note("selfrefword", "a: &a [*a]\n"))
    put("ok/yaml/malformed.md", _note("brokenyaml", "title: [unclosed\n"))
    put("ok/endings/mixed.md", b"---\nstatus: draft\n---\n# Mixed\r\n\r\nmixedword here\r\n")
    put("ok/encoding/latin1.md", "# Caf\xe9\n\nlatinword\n".encode("latin-1"))
    for path, (word, _) in READABLE.items():
        if path.startswith("ok/names/"):
            put(path, _note(word))
    put("bad/binary.md", b"\x00\x01\x02binary")
    put("bad/huge.md", "word " * (LIMIT_BYTES // 4))
    os.mkfifo(root / "bad/pipe.md")
    (root / "bad/escape.md").symlink_to("/etc/hostname")
    (root / "bad/loop_a.md").symlink_to(root / "bad/loop_b.md")
    (root / "bad/loop_b.md").symlink_to(root / "bad/loop_a.md")
    (root / "bad/dirloop").symlink_to(root / "bad")
    deep = root / "deep" / Path(*["d"] * 60)
    deep.mkdir(parents=True)
    (deep / "bottom.md").write_text(_note("bottomword"))
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(root / "bad" / "socket.md"))
    except OSError:
        pass  # a path too long for a socket: the other special files remain
    finally:
        sock.close()


def snapshot(root: Path) -> dict[str, Any]:
    """Every entry's type and, for regular files, bytes and mtime: never opening the others."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.lstat()
            rel = path.relative_to(root).as_posix()
            if stat.S_ISREG(info.st_mode):
                out[rel] = (path.read_bytes(), info.st_mtime_ns)
            else:
                out[rel] = stat.S_IFMT(info.st_mode)
    return out


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def cli(vault: Path, state: Path, *args: str, timeout: float = CEILING) -> tuple[int, Any]:
    env = {**os.environ, "VAULT_BRIDGE_MAX_NOTE_BYTES": str(LIMIT_BYTES)}
    command = [sys.executable, "-c", "from bridge.cli import main; raise SystemExit(main())"]
    done = subprocess.run(
        [*command, *args, "--vault", str(vault), "--state-dir", str(state), "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        preexec_fn=_limits,
    )
    try:
        return done.returncode, json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"{args}: not JSON (exit {done.returncode}): {done.stdout!r} {done.stderr!r}")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    vault = tmp_path / "hostile"
    vault.mkdir()
    build(vault)
    return vault


def test_every_command_finishes_names_bad_notes_finds_good_ones_and_changes_nothing(
    hostile: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    before = snapshot(hostile)

    code, doctor = cli(hostile, state, "doctor")
    assert code == 1
    found = {n["path"]: p["code"] for n in doctor["notes"] for p in n["problems"]}
    for path, expected in UNREADABLE.items():
        assert found.get(path) == expected, (path, found.get(path))
    for path, (_, expected) in READABLE.items():
        if expected is not None:
            assert found.get(path) == expected, (path, found.get(path))

    code, status = cli(hostile, state, "status")
    assert code in (0, 1) and status["notes"] >= len(READABLE)

    code, reindexed = cli(hostile, state, "reindex")
    assert code in (0, 1), reindexed
    # Every good note is in the index the command built (asked in this process: a CLI
    # process per word cost a second each and tested the same index).
    bridge = open_bridge(Settings(vault=hostile, state_dir=state, max_note_bytes=LIMIT_BYTES))
    try:
        for path, (word, _) in READABLE.items():
            paths = [s.path for s in bridge.engine.search(word).sources]
            assert path in paths, (word, path, paths)
    finally:
        bridge.close()
    code, result = cli(hostile, state, "search", "bottomword")
    assert [s["path"] for s in result["sources"]][:1] == [f"deep/{'d/' * 60}bottom.md"]

    code, answer = cli(hostile, state, "query", "which note holds the quokkaword")
    assert code == 0 and answer["sources"]
    code, decay = cli(hostile, state, "decay")
    assert code == 0, decay

    assert snapshot(hostile) == before


def test_serve_starts_and_stops_on_a_hostile_vault(hostile: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    before = snapshot(hostile)
    env = {**os.environ, "VAULT_BRIDGE_MAX_NOTE_BYTES": str(LIMIT_BYTES)}
    command = [sys.executable, "-c", "from bridge.cli import main; raise SystemExit(main())"]
    args = ["serve", "--vault", str(hostile), "--state-dir", str(state), "--port", "0"]
    proc = subprocess.Popen(
        [*command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        preexec_fn=_limits,
    )
    marker = "ok/late_marker.md"
    try:
        deadline = time.monotonic() + CEILING
        while not (state / "bridge.json").exists():
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.1)
        os.mkfifo(hostile / "ok" / "late_pipe.md")  # a FIFO appears while serve watches
        # A note written after the FIFO: once serve has recorded it, its watcher has been past
        # the FIFO's event too, and is still alive.
        (hostile / marker).write_text("# Late marker\n\nWritten after the pipe.\n")
        wait_until(lambda: last_writer(state, marker) == "human")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=CEILING) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (hostile / "ok" / "late_pipe.md").unlink()
    (hostile / marker).unlink()
    assert snapshot(hostile) == before
