"""The suite's clocks: frozen time stays in the code under test, and no example has a deadline.

freezegun swaps the time functions of every loaded module, `_pytest.timing` included, so
`--durations` reported a frozen test as taking 1.8 billion seconds. conftest.py tells freezegun
to leave `_pytest.timing` alone; this checks that pytest's timer still reads the real clock.
"""

from __future__ import annotations

import time

import _pytest.timing
import hypothesis
from freezegun import freeze_time


def test_pytests_timer_reads_the_real_clock_under_freezegun() -> None:
    real = (_pytest.timing.perf_counter, _pytest.timing.time)
    with freeze_time("2026-01-01 00:00:00"):
        assert time.time() == 1767225600.0  # the code under test sees the frozen clock
        assert (_pytest.timing.perf_counter, _pytest.timing.time) == real


def test_hypothesis_gives_no_example_a_deadline() -> None:
    # Its default, 200 ms per example, is a timed assertion: on a busy 2-core machine it fails
    # tests whose code is right (conftest.py loads a profile without one).
    assert hypothesis.settings().deadline is None
