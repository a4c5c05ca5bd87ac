"""The command MCP clients and service managers run, and the atomic writer behind both."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bridge import __version__
from bridge.install.executable import installed_command
from bridge.install.files import write_atomic
from tests.conftest import CEILING


def test_installed_command_is_the_script_beside_this_python() -> None:
    command = installed_command()
    assert command == [str(Path(sys.executable).absolute().parent / "vault-bridge")]
    done = subprocess.run(
        [*command, "--version"], capture_output=True, text=True, timeout=CEILING, check=False
    )
    assert done.returncode == 0 and __version__ in done.stdout


def test_python_dash_m_bridge_cli_runs_the_same_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=CEILING,
        check=False,
        cwd="/",  # as a service manager would start it: not from the repository
    )
    assert done.returncode == 0 and __version__ in done.stdout


def test_write_atomic_keeps_the_mode_and_writes_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_text("{}")
    real.chmod(0o640)
    link = tmp_path / ".claude.json"
    link.symlink_to(real)
    write_atomic(link, b'{"a": 1}')
    assert link.is_symlink() and real.read_bytes() == b'{"a": 1}'
    assert real.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in real.parent.iterdir()] == ["claude.json"]  # no temp file left


def test_write_atomic_creates_folders_and_a_private_new_file(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "mcp.json"
    write_atomic(path, b"{}")
    assert path.read_bytes() == b"{}"
    if os.name == "posix":
        assert path.stat().st_mode & 0o777 == 0o600
