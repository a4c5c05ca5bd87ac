"""Python's full garbage collections on a schedule while a long-running bridge answers.

A full (generation 2) collection walks every live object, and the caches of a bridge that
answers (answers, excerpts, block texts) hold many; it collects almost nothing, and every
request in flight waits for it. CPython starts one whenever enough objects have survived into
the oldest generation since the last, and each answer leaves long-lived objects behind in the
caches' churn, so under a steady stream of questions one would come every few seconds.

So the young generations stay automatic (they are quick and collect the short-lived cycles
of a request), and only the full collection runs, from a thread of its own, once a period.
Cycles that outlive the young generations are still freed, a period later.
"""

from __future__ import annotations

import gc
import threading

# CPython starts a full collection after this many collections of the middle generation since
# the last full one (and enough survivors): never reached, the schedule runs one long before.
_NEVER = 1 << 30
# How often a full collection runs while a long-running bridge (`serve`, a local `mcp`) answers.
FULL_COLLECTION_EVERY = 60.0


class ScheduledCollections:
    """While started, allocation never starts a full collection: a thread runs one every
    `every` seconds. Stopping restores the thresholds the process had."""

    def __init__(self, every: float = FULL_COLLECTION_EVERY) -> None:
        if every <= 0:
            raise ValueError("every must be positive")
        self.every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._saved: tuple[int, int, int] | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        young, middle, _ = self._saved = gc.get_threshold()
        gc.set_threshold(young, middle, _NEVER)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="full-collections", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            gc.collect()

    def stop(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def __enter__(self) -> ScheduledCollections:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
