"""When the long-running bridge runs the decay job: daily at `decay_time`, and on a missed day.

The timing rules are pure functions of the clock readings they are given. `DecayScheduler` is a
daemon thread that sleeps on an `Event` until the next run (woken early only by `stop()`), so
it costs nothing while it waits and stops at once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta

log = logging.getLogger(__name__)

ONE_DAY = timedelta(days=1)
# Event.wait measures monotonic time, which stops while a laptop sleeps; waking at least this
# often re-reads the wall clock so a run due during sleep happens soon after resume.
MAX_WAIT_SECONDS = 600.0


def parse_decay_time(text: str) -> time:
    """`HH:MM` (24-hour) as a time of day; ValueError with the reason otherwise."""
    hours, sep, minutes = text.strip().partition(":")
    if not (sep and len(minutes) == 2 and hours.isdigit() and minutes.isdigit()):
        raise ValueError(f"decay_time must be HH:MM (24-hour), got {text!r}")
    if not (0 <= int(hours) <= 23 and 0 <= int(minutes) <= 59):
        raise ValueError(f"decay_time must be between 00:00 and 23:59, got {text!r}")
    return time(int(hours), int(minutes))


def next_run_at(now_local: datetime, decay_time: time) -> datetime:
    """The first moment strictly after `now_local` whose local wall-clock time is `decay_time`.

    Works on wall-clock dates in `now_local`'s own zone: with a `ZoneInfo` zone, 03:00 the day
    after a DST change is 03:00 with that day's offset (not 02:00 or 04:00). A naive `now_local`
    gives a naive answer, read as system local time.
    """
    zone = now_local.tzinfo
    candidate = datetime.combine(now_local.date(), decay_time, tzinfo=zone)
    if candidate <= now_local:
        candidate = datetime.combine(now_local.date() + ONE_DAY, decay_time, tzinfo=zone)
    return candidate


def catch_up_due(last_run: datetime | None, now: datetime) -> bool:
    """True when no run happened in the last day (or ever): run now instead of waiting."""
    return last_run is None or now - last_run >= ONE_DAY


def local_now() -> datetime:
    """The wall-clock time here, as a naive local datetime (see `next_run_at`)."""
    return datetime.now()


def _as_utc(moment: datetime) -> datetime:
    """A naive local time or an aware one, as UTC (naive is read in the system's zone)."""
    return moment.astimezone(UTC)


class DecayScheduler:
    """Calls `run` at `decay_time` every day, and once at start when the last run is a day old
    (`catch_up_delay` seconds after start: `serve` lets its first questions go first).

    `last_run` returns the time of the latest decay run (from the state database, so a cron run
    counts too). `clock` returns local wall-clock time; tests pass a fake one. An exception from
    `run` is logged and the schedule goes on: one bad night must not stop the next.
    """

    def __init__(
        self,
        run: Callable[[], object],
        decay_time: time,
        last_run: Callable[[], datetime | None],
        clock: Callable[[], datetime] = local_now,
        max_wait: float = MAX_WAIT_SECONDS,
        catch_up_delay: float = 0.0,
    ) -> None:
        self._run = run
        self._catch_up_delay = catch_up_delay
        self._decay_time = decay_time
        self._last_run = last_run
        self._clock = clock
        self._max_wait = max_wait
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the background thread (once)."""
        if self._thread is not None:
            raise RuntimeError("the decay scheduler is already started")
        self._thread = threading.Thread(target=self._loop, name="vault-bridge-decay", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Wake the thread and wait for it (a run in progress finishes first)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _safe_run(self) -> None:
        try:
            self._run()
        except Exception:
            log.exception("the scheduled decay run failed; the next one is still scheduled")

    def _catch_up_due(self) -> bool:
        try:
            last = self._last_run()
        except Exception:
            log.exception("could not read the last decay run; running one to be safe")
            return True
        return catch_up_due(last, _as_utc(self._clock()))

    def _loop(self) -> None:
        if self._catch_up_due():
            # `serve` waits before a catch-up run: it is seconds of CPU on a large vault, and
            # the first minute after start is when a person who opened Obsidian asks.
            if self._stop.wait(self._catch_up_delay):
                return
            self._safe_run()
        target = next_run_at(self._clock(), self._decay_time)
        while not self._stop.is_set():
            remaining = (_as_utc(target) - _as_utc(self._clock())).total_seconds()
            if remaining > 0:
                self._stop.wait(min(remaining, self._max_wait))
                continue
            self._safe_run()
            target = next_run_at(self._clock(), self._decay_time)
