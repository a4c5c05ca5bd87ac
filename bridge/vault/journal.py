"""The own-write journal: which bytes the bridge itself just wrote, so the watcher can tell.

DESIGN section 6: "the watcher ignores events whose content hash equals what the bridge just
wrote". The store records every write here *before* its rename, so by the time the watcher's
event for the new file arrives the entry is already there. Entries expire (a human who types the
very same bytes an hour later is a human again) and the journal is bounded, so a bridge that
writes all day does not grow without limit. It lives in memory: a write made by another process
(a cron `vault-bridge decay` next to `serve`) is not in it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

DEFAULT_TTL_SECONDS = 300.0
DEFAULT_MAX_ENTRIES = 10_000


class WriteJournal:
    """Thread-safe record of `(path, content hash)` pairs the bridge wrote recently."""

    def __init__(
        self,
        ttl: float = DEFAULT_TTL_SECONDS,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl <= 0 or max_entries <= 0:
            raise ValueError("the journal needs a positive ttl and size")
        self._ttl = ttl
        self._max = max_entries
        self._clock = clock
        self._lock = threading.Lock()
        # Insertion order is write order, so expiry and eviction both pop from the front.
        self._entries: OrderedDict[tuple[str, str], float] = OrderedDict()

    def record(self, path: str, content_hash: str) -> None:
        """The bridge is about to make `path` hold the bytes with `content_hash`."""
        with self._lock:
            now = self._clock()
            key = (path, content_hash)
            self._entries.pop(key, None)
            self._entries[key] = now
            self._prune(now)

    def is_own(self, path: str, content_hash: str) -> bool:
        """True when the bridge wrote exactly these bytes to `path` within the ttl."""
        with self._lock:
            written = self._entries.get((path, content_hash))
            return written is not None and self._clock() - written <= self._ttl

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def _prune(self, now: float) -> None:
        while self._entries:
            key, written = next(iter(self._entries.items()))
            if now - written <= self._ttl and len(self._entries) <= self._max:
                return
            del self._entries[key]
