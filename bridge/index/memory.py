"""Process memory around a large index: what the allocator keeps, when the collector runs."""

from __future__ import annotations

import ctypes
import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

_M_MMAP_THRESHOLD = -3  # the mallopt parameter number, from glibc's malloc.h
_MMAP_THRESHOLD = 128 * 1024  # glibc's own starting value, kept fixed


@lru_cache(maxsize=1)
def fix_mmap_threshold() -> bool:
    """Keep glibc's mmap threshold at 128 KiB for this process; True when it was set.

    For indexing a large vault (a cold start, a `reindex`), and any long-lived process: glibc
    serves blocks over the threshold with mmap and unmaps them when freed, but each such free
    raises the threshold to that block's size (up to 32 MiB), so the large buffers tantivy's
    writer allocates and frees again and again soon come from the heap, where freed memory
    mostly stays with the process, and private memory grows with the vault. Set once per
    process on Linux; elsewhere (or without `mallopt`) nothing changes.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a bulk load of acyclic records.

    Start-up reads every manifest row, several objects a note. Every 700 new containers start
    a collection, and the full ones walk every object alive, so the collector would be a
    large part of the load, for nothing (records hold no cycles). It runs again, as before,
    once the load is done; reference counting frees as usual meanwhile.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
