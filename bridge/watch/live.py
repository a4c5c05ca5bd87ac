"""`LiveVault`: the vault kept live while the bridge runs (DESIGN sections 1, 2 and 6).

Start order matters: the observer starts first, so nothing that happens during start-up is
missed (those events wait in the debouncer), then the offline changes are reconciled, then the
debouncer starts applying and `ready` is set. An event for a change reconcile already applied
finds the index up to date and does nothing, so nothing is counted twice.

Threads: watchdog's (events in), one debouncer thread (the only writer of the index from here),
and whoever calls `wait_idle`/`stats`. Writes made through `bridge.store` are journaled so they
are never taken for human edits.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable
from dataclasses import replace
from types import TracebackType
from typing import Generic, TypeVar

from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from bridge.core.entry import Problem
from bridge.index.sync import SyncReport
from bridge.open_vault import OpenVault
from bridge.vault.journal import WriteJournal
from bridge.watch.applier import ChangeApplier, Listener, WatchStats, _utcnow
from bridge.watch.debounce import Debouncer
from bridge.watch.events import WATCHED_EVENTS, VaultEventHandler
from bridge.watch.startup import reconcile_vault

log = logging.getLogger(__name__)
_WATCHDOG_LOG = logging.getLogger("watchdog.observers")
_INOTIFY_LOG = logging.getLogger("watchdog.observers.inotify")


class WatchError(Exception):
    """The vault cannot be watched (for example the inotify watch limit is reached)."""


class _OverflowAlarm(logging.Handler):
    """Trigger: the kernel's event queue overflowed (a huge checkout on a busy machine).
    Why: watchdog only logs it; the events are gone and the index would silently diverge.
    Outcome: the next batch reconciles the whole vault, as at start-up.
    """

    def __init__(self, on_overflow: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self._on_overflow = on_overflow

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self._on_overflow()


class _QuietStop(logging.Filter):
    """watchdog logs an ERROR when its reader thread races `stop()`; nothing is wrong then."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "called when the thread is inactive" not in record.getMessage()


_QUIET_STOP = _QuietStop()


W = TypeVar("W", bound=OpenVault)


class LiveVault(Generic[W]):
    """Watches `bridge`'s vault and keeps its index and lifecycle in line with the files.

    `start()` reconciles offline changes, then watches; `stop()` applies what is pending and
    commits. Use it as a context manager in tests and tools. `on_change` is called on the
    watcher's thread after each batch that changed the index (after its commit).
    """

    def __init__(
        self,
        bridge: W,
        debounce_ms: int | None = None,
        on_change: Listener | None = None,
    ) -> None:
        self.bridge = bridge
        store = bridge.store
        if store.journal is None:
            store.journal = WriteJournal()
        self.journal: WriteJournal = store.journal
        ms = bridge.settings.debounce_ms if debounce_ms is None else debounce_ms
        self.applier = ChangeApplier(
            store, bridge.index, bridge.lifecycle, self.journal, listener=on_change
        )
        self.debouncer = Debouncer(self.applier.apply, ms / 1000)
        self.handler = VaultEventHandler(store.root, store.ignore, self.debouncer)
        self.ready = threading.Event()
        self.startup: SyncReport | None = None
        self._observer: BaseObserver | None = None
        self._alarm = _OverflowAlarm(self.debouncer.rescan)

    def start(self, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Watch, reconcile what changed while stopped, start applying; then `ready` is set.

        Raises `WatchError` when the vault cannot be watched.
        """
        if self._observer is not None:
            raise RuntimeError("the vault is already being watched")
        root = self.bridge.store.root
        observer = Observer()
        observer.schedule(self.handler, str(root), recursive=True, event_filter=WATCHED_EVENTS)
        try:
            observer.start()
        except OSError as exc:
            raise WatchError(
                f"cannot watch {root}: {exc}. On Linux, raise the inotify limit: "
                "sudo sysctl fs.inotify.max_user_watches=524288"
            ) from exc
        self._observer = observer
        _WATCHDOG_LOG.addHandler(self._alarm)
        _INOTIFY_LOG.addFilter(_QUIET_STOP)  # adding the same filter twice is a no-op
        # watchdog warns when `mkdir -p a/b` makes it watch `a/b` twice; it recovers by itself.
        warnings.filterwarnings(
            "ignore", "Callback with id .* already exists", RuntimeWarning, r"watchdog\."
        )
        try:
            store, index, lifecycle = self.bridge.store, self.bridge.index, self.bridge.lifecycle
            self.startup = reconcile_vault(
                store, index, lifecycle, _utcnow(), self.journal, progress
            )
        except BaseException:
            self._stop_observer(5.0)
            raise
        self.debouncer.start()
        self.ready.set()
        log.info("watching %s: %s", root, self.startup.summary())
        return self.startup

    def stop(self, timeout: float = 30.0) -> None:
        """Stop watching, apply what is pending (retries get one last try), commit."""
        self._stop_observer(timeout)
        self.debouncer.stop(timeout)
        self.bridge.index.commit()
        self.ready.clear()

    def _stop_observer(self, timeout: float) -> None:
        _WATCHDOG_LOG.removeHandler(self._alarm)
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout)
            self._observer = None

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """True once nothing is pending or retrying and the last batch is committed.

        Events the kernel has not delivered yet are unknown: after writing a file, wait for its
        effect (its text is searchable) rather than for this alone.
        """
        return self.debouncer.wait_idle(timeout) and not self.bridge.index.has_pending

    def rescan(self) -> None:
        """Reconcile the whole vault in the next batch (events were lost or state restored)."""
        self.debouncer.rescan()

    @property
    def stats(self) -> WatchStats:
        """A snapshot of the counters."""
        return replace(self.applier.snapshot(), events=self.handler.events)

    @property
    def problems(self) -> dict[str, Problem]:
        """Notes that stayed unreadable after their retries, until they read again."""
        return dict(self.applier.problems)

    def __enter__(self) -> LiveVault[W]:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
