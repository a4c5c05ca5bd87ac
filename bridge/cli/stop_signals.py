"""Waiting for Ctrl-C or SIGTERM in `serve`, on POSIX and elsewhere.

On POSIX the signals are blocked before any thread starts, so every thread inherits the mask
and they reach only `wait()`: a Ctrl-C during start-up stops cleanly once start-up is done, and
no thread is interrupted half-way through a write. Windows has neither `pthread_sigmask` nor
`sigwait`; there a handler sets an event that `wait()` watches (Ctrl-C, Ctrl-Break, and the
SIGTERM Python emulates), which is what a Scheduled Task's stop sends.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType

POSIX = hasattr(signal, "pthread_sigmask") and hasattr(signal, "sigwait")


class StopSignals:
    """`with StopSignals() as stop: ...; stop.wait()`: returns when asked to stop."""

    def __init__(self, *, posix: bool = POSIX) -> None:
        self.posix = posix
        names = ("SIGINT", "SIGTERM") if posix else ("SIGINT", "SIGTERM", "SIGBREAK")
        self.signals = {getattr(signal, n) for n in names if hasattr(signal, n)}
        self._old_mask: set[int | signal.Signals] = set()
        self._old_handlers: dict[int, object] = {}
        self._stop = threading.Event()

    def __enter__(self) -> StopSignals:
        if self.posix:
            self._old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, self.signals)
        else:
            for sig in self.signals:
                self._old_handlers[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self._stop.set()

    def wait(self) -> None:
        """Block until Ctrl-C or SIGTERM."""
        if self.posix:
            signal.sigwait(self.signals)
            return
        while not self._stop.wait(0.5):  # short waits: the main thread must run the handler
            pass

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.posix:
            while signal.sigpending() & self.signals:  # a second Ctrl-C while stopping
                signal.sigwait(self.signals)
            signal.pthread_sigmask(signal.SIG_SETMASK, self._old_mask)
        else:
            for sig, handler in self._old_handlers.items():
                signal.signal(sig, handler)  # type: ignore[arg-type]
