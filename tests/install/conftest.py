"""A private home and PATH for every install test: no real user file or service manager is touched.

Service managers are the OS boundary: tests put fake `systemctl`, `launchctl` or `schtasks`
scripts (which log their arguments and exit with a chosen code) alone on PATH.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bridge.cli import main


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        """stdout as the one JSON document `--json` promises."""
        return json.loads(self.out)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("APPDATA", str(folder / "AppData" / "Roaming"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return folder


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The only folder on PATH: empty unless a test adds a fake manager to it."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    return folder


@pytest.fixture(autouse=True)
def _isolated(home: Path, bin_dir: Path) -> None:
    """Every test here gets the private home and PATH, whether it asks for them or not."""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A vault whose path needs quoting everywhere: a space and a percent sign."""
    folder = tmp_path / "My Notes 100%"
    (folder / ".obsidian").mkdir(parents=True)
    return folder


def make_vault(parent: Path, name: str) -> Path:
    folder = parent / name
    (folder / ".obsidian").mkdir(parents=True)
    return folder


def fake_tool(bin_dir: Path, name: str, exit_code: int = 0, stdout: str = "") -> Path:
    """A fake manager on PATH that appends its arguments (tab-separated) to `<name>.log`."""
    log = bin_dir / f"{name}.log"
    script = bin_dir / name
    script.write_text(
        "#!/bin/sh\n"
        f'for arg in "$@"; do printf "%s\\t" "$arg" >> "{log}"; done\n'
        f'printf "\\n" >> "{log}"\n'
        f"printf '%s' '{stdout}'\n"
        f"exit {exit_code}\n"
    )
    script.chmod(0o755)
    return log


def calls(log: Path) -> list[list[str]]:
    """The argument lists a fake tool was called with, in order."""
    if not log.exists():
        return []
    return [line.rstrip("\t").split("\t") for line in log.read_text().splitlines()]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    code = main(list(argv))
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)
