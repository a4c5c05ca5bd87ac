"""`serve` stops on Ctrl-C or SIGTERM both ways: POSIX `sigwait`, and the handler Windows uses."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from tests.conftest import CEILING

CHILD = """
import sys
from bridge.cli.stop_signals import StopSignals
with StopSignals(posix={posix}) as stop:
    print("ready", flush=True)
    stop.wait()
    print("stopping", flush=True)
print("stopped", flush=True)
"""


@pytest.mark.parametrize("posix", [True, False], ids=["sigwait", "handler"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_ends_the_wait_and_the_process_exits_cleanly(
    posix: bool, sig: signal.Signals
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(posix=posix)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    child.send_signal(sig)
    out, err = child.communicate(timeout=CEILING)  # a busy machine is slow to start Python
    assert child.returncode == 0, err
    assert out.split() == ["stopping", "stopped"]
