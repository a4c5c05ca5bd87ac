"""The one sequential writer: a lock shared by every thread, and by processes on the same state.

Two agents curating at once (two HTTP requests, or a CLI `curate` next to `serve`) must not
interleave a read-plan-write of the same note. Threads share a re-entrant lock; processes share
an advisory lock file in the state dir where the platform has one (`fcntl`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import TracebackType
from typing import IO

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: threads are still serialised
    fcntl = None  # type: ignore[assignment]


class WriterLock:
    """A re-entrant lock for threads plus, when `path` is given, an exclusive lock file."""

    def __init__(self, path: Path | None = None) -> None:
        self._thread_lock = threading.RLock()
        self._path = path
        self._depth = 0
        self._handle: IO[bytes] | None = None

    def __enter__(self) -> WriterLock:
        self._thread_lock.acquire()
        if self._depth == 0 and self._path is not None and fcntl is not None:
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                handle = self._path.open("ab")
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                self._handle = handle
            except BaseException:
                self._thread_lock.release()
                raise
        self._depth += 1
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._depth -= 1
        if self._depth == 0 and self._handle is not None:
            try:
                if fcntl is not None:
                    fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
            finally:
                self._handle.close()
                self._handle = None
        self._thread_lock.release()
