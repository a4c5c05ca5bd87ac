"""When the bridge runs the decay job: next run across midnight and DST, catch-up, the thread.

The thread tests use a fake wall clock that runs at real speed from a chosen instant, so a run
"at 03:00" happens a fraction of a second after start. They wait on events with generous
timeouts; nothing sleeps for a fixed time.
"""

from __future__ import annotations

import threading
import time as monotonic
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bridge.lifecycle.scheduler import (
    DecayScheduler,
    catch_up_due,
    next_run_at,
    parse_decay_time,
)

THREE = time(3, 0)
WAIT = 300.0  # a ceiling for a condition, never a duration a test expects: a busy machine is slow


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (datetime(2026, 5, 4, 2, 59), datetime(2026, 5, 4, 3, 0)),
        (datetime(2026, 5, 4, 3, 0), datetime(2026, 5, 5, 3, 0)),  # strictly after
        (datetime(2026, 5, 4, 23, 59, 59), datetime(2026, 5, 5, 3, 0)),  # across midnight
        (datetime(2026, 5, 5, 0, 0, 1), datetime(2026, 5, 5, 3, 0)),  # just after midnight
        (datetime(2026, 12, 31, 12, 0), datetime(2027, 1, 1, 3, 0)),  # across the year
    ],
)
def test_next_run_at(now: datetime, expected: datetime) -> None:
    assert next_run_at(now, THREE) == expected


def test_next_run_at_keeps_the_wall_clock_across_a_dst_change() -> None:
    berlin = ZoneInfo("Europe/Berlin")  # clocks go forward on 2026-03-29
    now = datetime(2026, 3, 28, 12, 0, tzinfo=berlin)
    nxt = next_run_at(now, THREE)
    assert (nxt.hour, nxt.minute, nxt.day) == (3, 0, 29)
    assert nxt.utcoffset() == timedelta(hours=2)
    assert nxt - now == timedelta(hours=15)  # on the wall clock
    assert nxt.astimezone(UTC) - now.astimezone(UTC) == timedelta(hours=14)  # really elapsed
    assert nxt.astimezone(UTC) == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)


def test_catch_up_when_the_last_run_is_a_day_old_or_missing() -> None:
    now = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)
    assert catch_up_due(None, now)
    assert not catch_up_due(now - timedelta(hours=23), now)
    assert catch_up_due(now - timedelta(days=1), now)
    assert catch_up_due(now - timedelta(days=10), now)


@pytest.mark.parametrize("text", ["3:00", "03:00", " 23:59 "])
def test_decay_time_parses(text: str) -> None:
    assert parse_decay_time(text).minute in {0, 59}


@pytest.mark.parametrize("text", ["24:00", "03:60", "0300", "3", "aa:bb", "03:0"])
def test_bad_decay_times_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="decay_time"):
        parse_decay_time(text)


def running_clock(start: datetime) -> Callable[[], datetime]:
    """A wall clock that starts at `start` and advances in real time."""
    origin = monotonic.monotonic()
    return lambda: start + timedelta(seconds=monotonic.monotonic() - origin)


def test_a_missed_day_runs_at_start_then_waits() -> None:
    ran = threading.Event()
    calls: list[datetime] = []
    clock = running_clock(datetime(2026, 5, 4, 12, 0))

    def run() -> None:
        calls.append(clock())
        ran.set()

    scheduler = DecayScheduler(run, THREE, last_run=lambda: None, clock=clock)
    scheduler.start()
    try:
        assert ran.wait(WAIT)
    finally:
        scheduler.stop()
    assert not scheduler.running
    assert len(calls) == 1  # the next run is tomorrow at 03:00


def test_a_delayed_catch_up_waits_and_a_stop_meanwhile_cancels_it() -> None:
    """`serve` delays the catch-up run past its first minute: it still comes, and a bridge
    stopped before then stops at once without running it."""
    clock = running_clock(datetime(2026, 5, 4, 12, 0))
    ran = threading.Event()
    scheduler = DecayScheduler(
        ran.set, THREE, last_run=lambda: None, clock=clock, catch_up_delay=100 * WAIT
    )
    scheduler.start()
    scheduler.stop(timeout=WAIT)
    assert not scheduler.running
    assert not ran.is_set()

    soon = DecayScheduler(ran.set, THREE, last_run=lambda: None, clock=clock, catch_up_delay=0.05)
    soon.start()
    try:
        assert ran.wait(WAIT)
    finally:
        soon.stop()


def test_a_recent_run_means_no_catch_up_and_stop_is_prompt() -> None:
    ran = threading.Event()
    clock = running_clock(datetime(2026, 5, 4, 12, 0))
    recent = datetime(2026, 5, 4, 11, 0).astimezone(UTC)
    # Each wait is capped far beyond the join's ceiling, so only `stop` waking the thread can
    # end it within the ceiling: a thread still running after `stop` was not woken.
    scheduler = DecayScheduler(
        ran.set, THREE, last_run=lambda: recent, clock=clock, max_wait=100 * WAIT
    )
    scheduler.start()
    scheduler.stop(timeout=WAIT)
    assert not scheduler.running
    assert not ran.is_set()


def test_runs_at_the_decay_time_and_survives_a_failing_run() -> None:
    # The clock starts 0.3 s before 03:00. The first scheduled run fails and moves the fake
    # clock to just before the next 03:00; the scheduler must survive and run again then.
    jump = [timedelta(0)]
    base = running_clock(datetime(2026, 5, 4, 2, 59, 59, 700_000))

    def clock() -> datetime:
        return base() + jump[0]

    again = threading.Event()
    calls: list[datetime] = []

    def run() -> None:
        calls.append(clock())
        if len(calls) == 1:
            jump[0] = timedelta(days=1, seconds=-0.5)
            raise RuntimeError("disk full")
        again.set()

    recent = datetime(2026, 5, 4, 2, 0).astimezone(UTC)
    # A short max_wait makes the scheduler re-read the jumped clock, as after a laptop sleep.
    scheduler = DecayScheduler(run, THREE, last_run=lambda: recent, clock=clock, max_wait=0.05)
    scheduler.start()
    try:
        assert again.wait(WAIT)
    finally:
        scheduler.stop()
    assert calls[0] >= datetime(2026, 5, 4, 3, 0)
    assert datetime(2026, 5, 5, 3, 0) <= calls[1] < datetime(2026, 5, 5, 3, 1)
    assert len(calls) == 2


def test_starting_twice_is_refused() -> None:
    scheduler = DecayScheduler(
        lambda: None, THREE, last_run=lambda: datetime.now(UTC), clock=datetime.now
    )
    scheduler.start()
    try:
        with pytest.raises(RuntimeError, match="already"):
            scheduler.start()
    finally:
        scheduler.stop()
