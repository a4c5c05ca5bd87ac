"""py3langid's model, unpacked once per machine and mapped from the user cache dir.

The package ships its model LZMA-compressed: unpacking it is slow and holds the whole model
in private memory, in every process, a short CLI question's included. Unpacked once into the
user cache dir (`~/.cache/vault-bridge/py3langid-<version>-<size>/` on Linux), it opens fast
and its two large tables are memory-mapped: their pages are read as a text needs them, and
they are the page cache's to reclaim, not the process's. Unpacking a new copy removes the
copies an upgrade left behind and the temp folders of unpacks that were killed, so the cache
holds one model, not one per version ever installed.

The arrays are the ones the library's own reader returns (`py3langid.modelio.load_model`),
given to its own `LanguageIdentifier`: the same ranks as the library's loading (tested).
Without a cache dir, or when the cache cannot be written or read back whole, the library
loads its file.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

# A temp folder older than this is a killed unpack's, not one still being written.
_ABANDONED_AFTER_S = 3600.0

# The files of an unpacked model: (file, mapped). Mapped ones are the two large tables.
_FILES = {
    "ptc": True,  # feature x language log-probabilities (float16)
    "pc": False,  # language priors
    "classes": False,  # language codes
    "nextmove": True,  # the tokenizer automaton's distinct rows
    "row": False,  # automaton state -> row
    "out": False,  # automaton state -> feature (or -1)
}


def _model_file() -> Path:
    from py3langid.langid import MODEL_DIR, MODEL_FILE

    return Path(str(MODEL_DIR)) / str(MODEL_FILE)


def cache_folder(root: Path) -> Path:
    """Where this installed model is unpacked: named by the library's version (pinned) and
    the model file's size, so an upgrade unpacks its own model beside (never over) an old one.
    The size, not a hash: hashing the file would cost every start-up, and `_mapped` checks
    that what it reads back fits together."""
    size = _model_file().stat().st_size
    return root / f"py3langid-{version('py3langid')}-{size}"


def identifier(root: Path | None) -> Any:
    """A `LanguageIdentifier` on the model unpacked under `root` (the user's cache dir),
    unpacking it first when needed; without `root`, on the packaged file."""
    from py3langid.langid import LanguageIdentifier

    if root is None:
        return LanguageIdentifier.from_model_file(_model_file(), norm_probs=True)
    folder = cache_folder(root)
    try:
        if not folder.is_dir():
            _unpack(folder)
            _remove_superseded(folder)
        arrays = _mapped(folder)
    except (OSError, ValueError) as exc:
        log.info("language model not cached (%s); loading the packaged file", exc)
        # A failed unpack never leaves the folder (it is renamed into place whole): one that
        # is there could not be read back, and the next process unpacks it again.
        with contextlib.suppress(OSError):
            shutil.rmtree(folder)
        return LanguageIdentifier.from_model_file(_model_file(), norm_probs=True)
    # The walk's three tables are indexed one byte of text at a time in Python: a memoryview
    # gives plain ints from the mapped pages, as the library's own `array` does. As lists the
    # state tables (`out`, `row` and the library's shifted copy of `row`) would be ints in
    # every process that tells a language; read from memoryviews a text's walk is a little
    # slower, for far less memory.
    row = _ints(arrays["row"])
    identifier = LanguageIdentifier(
        arrays["ptc"],
        arrays["pc"],
        arrays["classes"].tolist(),
        _ints(arrays["nextmove"]),
        _ints(arrays["out"]),
        norm_probs=True,
        tk_row=row,
    )
    if isinstance(getattr(identifier, "_rowbase", None), list):
        # The same values (each state's row, shifted to its first cell), as uint32 instead
        # of a list of ints; kept only where this library version has that list.
        identifier._rowbase = _ints(arrays["row"].astype(np.uint32) << 8)
    return identifier


def _ints(array: npt.NDArray[Any]) -> memoryview:
    """A 1-d integer array as a memoryview whose items are plain Python ints."""
    code = cast('Literal["b", "B", "h", "H", "i", "I", "l", "L", "q", "Q"]', array.dtype.char)
    return array.data.cast("B").cast(code)


def _unpack(folder: Path) -> None:
    """The library's arrays as .npy files, written beside `folder` and renamed into place
    whole (a kill mid-way leaves a temp folder, never a partial model)."""
    from py3langid.modelio import load_model

    ptc, pc, classes, nextmove, row, out = load_model(_model_file())
    folder.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        arrays = {
            "ptc": np.asarray(ptc),
            "pc": np.asarray(pc),
            "classes": np.asarray(classes),
            "nextmove": np.frombuffer(nextmove, dtype=np.dtype(nextmove.typecode)),
            "row": np.frombuffer(row, dtype=np.dtype(row.typecode)),
            "out": np.asarray(out, dtype=np.int32),
        }
        for name, array in arrays.items():
            with (temp / f"{name}.npy").open("wb") as handle:
                np.save(handle, array, allow_pickle=False)
                handle.flush()
                os.fsync(handle.fileno())
        try:
            temp.rename(folder)
        except OSError:
            if not folder.is_dir():  # not another process's finished copy: a real failure
                raise
    finally:
        if temp.exists():
            shutil.rmtree(temp, ignore_errors=True)


def _remove_superseded(folder: Path) -> None:
    """Other versions' copies beside `folder`, and temp folders of killed unpacks: gone.

    Why only after an unpack: that is when an upgrade happened (or the cache was new), and a
    process of the old version still mapping its copy keeps reading it (a removed file's
    pages stay until unmapped on POSIX; elsewhere removal fails and is left for next time).
    """
    now = time.time()
    for other in folder.parent.glob("*py3langid-*"):
        if other == folder or not other.is_dir():
            continue
        if other.name.startswith("."):
            with contextlib.suppress(OSError):
                if now - other.stat().st_mtime < _ABANDONED_AFTER_S:
                    continue  # another process's unpack, still being written
        elif not other.name.startswith("py3langid-"):
            continue
        log.info("removing the superseded language model copy %s", other)
        shutil.rmtree(other, ignore_errors=True)


def _mapped(folder: Path) -> dict[str, np.ndarray]:
    """The unpacked arrays (the large ones mapped), checked to fit together."""
    arrays = {
        name: np.load(folder / f"{name}.npy", mmap_mode="r" if mapped else None)
        for name, mapped in _FILES.items()
    }
    ptc, pc, classes = arrays["ptc"], arrays["pc"], arrays["classes"]
    row, out, nextmove = arrays["row"], arrays["out"], arrays["nextmove"]
    fits = (
        ptc.ndim == 2
        and ptc.shape[1] == len(pc) == len(classes)
        and len(row) == len(out)
        and nextmove.size % 256 == 0
        and int(row.max(initial=0)) < nextmove.size // 256
        and int(out.max(initial=-1)) < ptc.shape[0]
    )
    if not fits:
        raise ValueError(f"{folder} does not hold a whole model")
    return arrays
