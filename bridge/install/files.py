"""Replacing a file a program outside the bridge reads: all at once, mode and links kept.

Obsidian, MCP clients and service managers read the files set-up writes (`main.js`,
`~/.claude.json`, unit files) whenever they like, so each is replaced atomically: a crash or a
full disk leaves the old file or the new one, never half of each.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes, new_mode: int = 0o600) -> None:
    """Replace `path` with `data` all at once (temp file, fsync, rename), keeping its mode.

    A symlinked file (dotfile managers link `~/.claude.json`) is written through the link, so
    the link survives. A new file gets `new_mode`: config files may hold API keys in `env`.
    Missing parent folders are created.
    """
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = new_mode
    handle, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        temp.chmod(mode)
        temp.replace(target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX); Windows cannot open a folder for this."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
