"""`serve` stops on Ctrl-C or SIGTERM both ways: POSIX `sigwait`, and the handler Windows uses."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CEILING
from tests.watch.conftest import wait_until
from tests.watch.test_watch_serve import _serve

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


def test_serve_stopped_while_it_opens_the_index_stops_cleanly(
    template_vault: Path, tmp_path: Path
) -> None:
    """A SIGTERM that arrives once `serve` has started its first threads (tantivy's, while the
    index opens) is a clean stop, not a kill: the signals are blocked before any thread."""
    proc = _serve(template_vault, tmp_path / "state")
    try:
        tasks = Path(f"/proc/{proc.pid}/task")
        wait_until(lambda: len(list(tasks.iterdir())) > 1 or proc.poll() is not None)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=CEILING)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out
    assert "Stopped." in out
