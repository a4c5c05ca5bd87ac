"""The debouncer: one thread that waits for the vault to go quiet, then hands over one batch.

Why a quiet window: one Obsidian save is several events (truncate, write, close), a `git
checkout` is thousands, and a rename by a tool that does not rename is a delete then a create.
Waiting until no event came for `delay` seconds turns each of those into one batch, which is
what lets the applier index a save once and pair a delete with its create. A stream that never
goes quiet is still flushed every `max_delay` seconds so the index never falls far behind.

Idle costs nothing: with nothing pending the thread blocks on a `Condition` without a timeout,
and it wakes only for a new event, a due retry, or `stop()`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping

from bridge.watch.pending import Batch, Move, Pending

log = logging.getLogger(__name__)

ApplyFn = Callable[[Batch], Mapping[str, float]]
"""Applies a batch; returns the paths to look at again and in how many seconds."""


class Debouncer:
    """Collects changes from any thread and applies them in batches on its own thread."""

    def __init__(self, apply: ApplyFn, delay: float, max_delay: float | None = None) -> None:
        self._apply = apply
        self.delay = max(0.0, delay)
        self.max_delay = max_delay if max_delay is not None else max(1.0, 4 * self.delay)
        self._cond = threading.Condition()
        self._pending = Pending()
        self._retries: dict[str, float] = {}  # path -> monotonic time it is due
        self._first_at = 0.0
        self._last_at = 0.0
        self._busy = False
        self._stopping = False
        self._thread: threading.Thread | None = None

    # -- producers (the watchdog thread, `rescan`) -------------------------------------------

    def touch(self, path: str) -> None:
        """Something happened to the note at `path`."""
        self._push(lambda p: p.touch(path))

    def move(self, move: Move) -> None:
        """A note or folder was renamed inside the vault."""
        self._push(lambda p: p.move(move))

    def dir_gone(self, folder: str) -> None:
        """A folder left the vault (deleted, or moved somewhere ignored)."""
        self._push(lambda p: p.dir_gone(folder))

    def dir_new(self, folder: str) -> None:
        """A folder appeared (created, or moved in from outside or from an ignored place)."""
        self._push(lambda p: p.dir_new(folder))

    def rescan(self) -> None:
        """Events were lost: reconcile the whole vault in the next batch."""

        def mark(p: Pending) -> None:
            p.rescan = True

        self._push(mark)

    def _push(self, change: Callable[[Pending], None]) -> None:
        with self._cond:
            now = time.monotonic()
            if self._pending.empty:
                self._first_at = now
            self._last_at = now
            change(self._pending)
            self._cond.notify_all()

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start applying (changes pushed before this wait for it)."""
        if self._thread is not None:
            raise RuntimeError("the debouncer is already started")
        self._thread = threading.Thread(target=self._loop, name="vault-bridge-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Apply what is pending at once (retries get one last try), then end the thread."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("the watcher did not finish its last batch within %.0f s", timeout)

    def wait_idle(self, timeout: float) -> bool:
        """Block until nothing is pending, no retry is scheduled and no batch is running.

        Returns False on timeout. Events the kernel has not delivered yet are not known here,
        so callers that just wrote a file should wait for its effect, not only for this.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._pending.empty or self._retries or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    @property
    def idle(self) -> bool:
        with self._cond:
            return self._pending.empty and not self._retries and not self._busy

    # -- the thread --------------------------------------------------------------------------

    def _due(self, now: float) -> float | None:
        """When the next batch should start (monotonic), None when there is nothing to do."""
        times = []
        if not self._pending.empty:
            times.append(min(self._last_at + self.delay, self._first_at + self.max_delay))
        if self._retries:
            times.append(min(self._retries.values()))
        if self._stopping and times:
            return now
        return min(times) if times else None

    def _take(self, now: float) -> Batch:
        """The batch to apply now: settled events plus the retries that are due."""
        settled = not self._pending.empty and (
            self._stopping
            or now >= self._last_at + self.delay
            or now >= self._first_at + self.max_delay
        )
        batch = self._pending.take() if settled else Batch()
        due = [p for p, at in self._retries.items() if self._stopping or at <= now]
        for path in due:
            del self._retries[path]
        if due:
            batch = Batch(
                batch.paths | frozenset(due),
                batch.moves,
                batch.dirs_gone,
                batch.dirs_new,
                batch.rescan,
            )
        return batch

    def _loop(self) -> None:
        while True:
            with self._cond:
                while True:
                    now = time.monotonic()
                    due = self._due(now)
                    if due is None:
                        if self._stopping:
                            return
                        self._cond.wait()
                    elif due > now:
                        self._cond.wait(due - now)
                    else:
                        break
                batch = self._take(now)
                self._busy = True
                stopping = self._stopping
            retries: Mapping[str, float] = {}
            try:
                if batch.size or batch.rescan:
                    retries = self._apply(batch)
            except Exception:
                # The applier handles its own failures; this is the last line of defence so
                # that one bug cannot silently end live watching.
                log.exception("applying a batch of vault changes failed")
            with self._cond:
                self._busy = False
                if not stopping:
                    later = time.monotonic()
                    for path, seconds in retries.items():
                        self._retries[path] = later + seconds
                self._cond.notify_all()
