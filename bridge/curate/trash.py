"""Moving a note to Obsidian's `.trash/` folder instead of deleting it.

Obsidian's own "move to vault trash" keeps the note's relative path under `.trash/`; we do the
same so a human finds it where Obsidian would have put it, and never overwrite a file already in
the trash (a second deleted `a/b.md` becomes `a/b 1.md`). `.trash/` is a dot folder, so the
index and the watcher ignore what lands there.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from bridge.vault.store import VaultStore

TRASH = ".trash"


def _free_name(folder: Path, name: str) -> Path:
    candidate = folder / name
    base, dot, suffix = name.rpartition(".")
    if not dot:
        base, suffix = name, ""
    counter = 0
    while candidate.exists():
        counter += 1
        candidate = folder / (f"{base} {counter}.{suffix}" if dot else f"{base} {counter}")
    return candidate


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def move_to_trash(store: VaultStore, rel_path: str) -> str:
    """Move a note to `.trash/<same path>` and return where it went (vault-relative).

    Uses the store's own `move_to_trash` when it has one (it knows the watcher's journal);
    otherwise moves it here with the store's path safety, never replacing an existing file.
    """
    own = getattr(store, "move_to_trash", None)
    if callable(own):
        result = own(rel_path)
        return str(result) if result is not None else f"{TRASH}/{rel_path}"
    source = store.absolute(rel_path)
    rel = store.relative(source)
    before = source.read_bytes()  # for the git commit of the batch (`VaultStore.removed`)
    folder = store.root / TRASH / Path(rel).parent
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        target = _free_name(folder, source.name)
        try:
            # A hard link refuses to replace an existing file, so a race cannot overwrite one.
            os.link(source, target)
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                raise
            source.replace(target)  # file systems without hard links
            break
        source.unlink()
        break
    _fsync_dir(folder)
    _fsync_dir(source.parent)
    store.removed(rel, before)
    return store.relative(target)
