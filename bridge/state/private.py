"""Files of the state dir are the user's alone: index, state database, token, discovery file.

The state database holds every note path, review diffs (note text) and the API token sits
beside it, so the folder is 0700 and the database 0600, whatever the umask. Nothing here touches
the vault.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Create `path` (and parents) if needed and make it readable by its owner only."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    _tighten(path, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create an empty `path` with mode 0600 if missing, or tighten a looser existing one.

    SQLite creates its `-wal` and `-shm` files with the database file's permissions, so
    creating the database this way covers them too.
    """
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    _tighten(path, FILE_MODE)
    for extra in ("-wal", "-shm"):
        sidecar = path.with_name(path.name + extra)
        if sidecar.exists():
            _tighten(sidecar, FILE_MODE)
    return path


def _tighten(path: Path, mode: int) -> None:
    """Set `mode` when the current one grants more, on a file we own (never fails)."""
    with contextlib.suppress(OSError):
        info = path.stat()
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return
        if stat.S_IMODE(info.st_mode) & ~mode:
            path.chmod(mode)
