"""How this installed bridge is started from outside a shell.

MCP clients and service managers start programs from their own working directory with their own
(often minimal) PATH, so everything written for them names absolute paths.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Literal, assert_never

SCRIPT = "vault-bridge"

Platform = Literal["linux", "macos", "windows"]


def current_platform() -> Platform:
    """The platform whose service manager and config locations apply here."""
    if sys.platform == "win32":
        return "windows"
    if sys.platform == "darwin":
        return "macos"
    return "linux"  # and the other Unixes with a user systemd, or none (the file is still useful)


def script_name(platform: Platform) -> str:
    """The console script's file name on `platform` (pip writes an `.exe` launcher on Windows)."""
    match platform:
        case "windows":
            return f"{SCRIPT}.exe"
        case "linux" | "macos":
            return SCRIPT
        case _:
            assert_never(platform)


def installed_command() -> list[str]:
    """The absolute argv prefix that runs this installed bridge; append a command to it.

    In order: the `vault-bridge` script beside the running interpreter (a pipx, uv or venv `bin`
    folder, or `Scripts` on Windows), the scripts folders of this interpreter's install schemes,
    `vault-bridge` found on PATH, and last `python -m bridge.cli` with this interpreter.
    Paths are made absolute but symlinks are kept: a venv's `python` and pipx's `~/.local/bin`
    links are the stable names, and their targets change when Python or the package is upgraded.
    """
    name = script_name(current_platform())
    python = Path(sys.executable).absolute() if sys.executable else None
    folders: list[Path] = []
    if python is not None:
        folders += [python.parent, python.parent / "Scripts"]
    for scheme in (sysconfig.get_default_scheme(), f"{os.name}_user"):
        with contextlib.suppress(KeyError):
            folders.append(Path(sysconfig.get_path("scripts", scheme)))
    for folder in folders:
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return [str(candidate.absolute())]
    found = shutil.which(SCRIPT)
    if found:
        return [str(Path(found).absolute())]
    if python is None:  # an embedded interpreter: nothing better than the name
        return [SCRIPT]
    return [str(python), "-m", "bridge.cli"]
