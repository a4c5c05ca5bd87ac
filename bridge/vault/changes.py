"""What one unit of the bridge's work (a curation batch, a review decision, a decay run, an
import, an overviews refresh) did to each note, for the git commit that records it.

The store tells the log of the thread doing the work about every write, move and removal, so
no writer has to remember to report one. Per note the log keeps the bytes before the unit's
first change and after its last: a commit stages exactly that change, on top of what git has,
and never a human's uncommitted edit of the same file.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ChangeLog:
    """`path -> (bytes before, bytes after)`; None: the note did not exist / was removed."""

    def __init__(self) -> None:
        self.changes: dict[str, tuple[bytes | None, bytes | None]] = {}

    def note(self, path: str, before: bytes | None, after: bytes | None) -> None:
        """One change to `path`; its first `before` is kept, its `after` is the last."""
        first = self.changes[path][0] if path in self.changes else before
        if first == after:
            self.changes.pop(path, None)  # back where it started: nothing to record
        else:
            self.changes[path] = (first, after)

    def __bool__(self) -> bool:
        return bool(self.changes)


class ChangeRecorder:
    """The logs being kept, one per thread (the writer's lock keeps units apart)."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextmanager
    def recording(self) -> Iterator[ChangeLog]:
        """Log this thread's changes until the block ends; a nested block shares the log."""
        current: ChangeLog | None = getattr(self._local, "log", None)
        if current is not None:
            yield current
            return
        self._local.log = log = ChangeLog()
        try:
            yield log
        finally:
            self._local.log = None

    def note(self, path: str, before: bytes | None, after: bytes | None) -> None:
        """Tell this thread's log (if one is kept) of a change."""
        log: ChangeLog | None = getattr(self._local, "log", None)
        if log is not None:
            log.note(path, before, after)
