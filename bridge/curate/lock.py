"""The one sequential writer: a lock shared by every thread, and by processes on the same state.

Two agents curating at once (two HTTP requests, or a CLI `curate` next to `serve`) must not
interleave a read-plan-write of the same note. Threads share a re-entrant lock; processes share
a lock file in the state dir, held with filelock (as the vault lock is): an OS lock on every
platform (`flock`, or `msvcrt` on Windows), released with its process if that process dies.
Taking it waits as long as another writer holds it: a write is short, and refusing one would
lose an agent's work.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import TracebackType

from filelock import FileLock


class WriterLock:
    """A re-entrant lock for threads plus, when `path` is given, an exclusive lock file."""

    def __init__(self, path: Path | None = None) -> None:
        self._thread_lock = threading.RLock()
        self._path = path
        # One holder at a time, guarded by the thread lock: filelock's count of nested
        # acquisitions may be shared by threads (`thread_local=False`).
        self._file_lock = FileLock(str(path), thread_local=False) if path is not None else None

    def __enter__(self) -> WriterLock:
        self._thread_lock.acquire()
        if self._file_lock is not None and self._path is not None:
            try:
                if not self._file_lock.is_locked:  # the state dir may be new
                    self._path.parent.mkdir(parents=True, exist_ok=True)
                self._file_lock.acquire()  # re-entered: counted, released at the last exit
            except BaseException:
                self._thread_lock.release()
                raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._file_lock is not None:
                self._file_lock.release()
        finally:
            self._thread_lock.release()
