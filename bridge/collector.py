"""Python's full garbage collections on a schedule while a long-running bridge answers.

Trigger: `serve` at 50 fresh questions a second (10,000 generated notes, no writers) answered
in 7 ms at its p50 and 15 ms at its p99 inside the engine, yet the client's p99 was 183 ms.
Every 5-6 s a full (generation 2) collection held the interpreter for 100-400 ms, growing
with the caches (an answer cache, excerpts, block texts: ~200,000 tracked objects after
1,500 questions, about 1 microsecond each to walk) and collecting almost nothing; every
request in flight waited for it. CPython starts one whenever enough objects have survived
into the oldest generation since the last, and each answer leaves long-lived objects behind
in the caches' churn, so under a steady stream of questions they came every few seconds.

Why a schedule: the young generations stay automatic (they are quick and collect the
short-lived cycles of a request); only the full collection, which has to walk every live
object, runs from a thread of its own once a period. Cycles that outlive the young
generations are still freed, a period later. Outcome, measured with the bench's settings
(docs/benchmarks.md, "Full collections on a schedule"): client p99 183 -> 23 ms at 50
questions a second without writers.
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
