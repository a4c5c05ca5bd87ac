"""The writer lock: one writer at a time across threads and real processes; a thread re-enters."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import os
import signal
import threading
from pathlib import Path

from bridge.curate.lock import WriterLock
from tests.conftest import CEILING

ROUNDS = 15


def _log(log: Path, line: str) -> None:
    with log.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def _take_turns(lock_path: str, log: str, name: str, go: multiprocessing.synchronize.Event) -> None:
    """A writer that enters the lock `ROUNDS` times and works a little inside each time."""
    lock = WriterLock(Path(lock_path))
    go.wait(CEILING)
    for _ in range(ROUNDS):
        with lock:
            _log(Path(log), f"{name} in")
            # Inside, as a write is: a file only one writer may hold (O_EXCL fails if the
            # other is inside too), and real I/O in between (the log read back).
            inside = os.open(f"{log}.inside", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            Path(log).read_text(encoding="utf-8")
            os.close(inside)
            Path(f"{log}.inside").unlink()
            with lock:  # re-entered by the same writer, as `apply` inside a review does
                _log(Path(log), f"{name} nested")
            _log(Path(log), f"{name} out")


def test_two_processes_never_write_at_once(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    go = ctx.Event()
    log = tmp_path / "log"
    lock_path = tmp_path / "state" / "curate.lock"  # its folder made on first use
    children = [
        ctx.Process(target=_take_turns, args=(str(lock_path), str(log), name, go))
        for name in ("a", "b")
    ]
    for child in children:
        child.start()
    go.set()
    for child in children:
        child.join(CEILING)
        assert child.exitcode == 0
    lines = log.read_text().splitlines()
    turns = [lines[i : i + 3] for i in range(0, len(lines), 3)]
    assert len(turns) == 2 * ROUNDS
    for turn in turns:  # every turn whole: nobody else in between
        name = turn[0].split()[0]
        assert turn == [f"{name} in", f"{name} nested", f"{name} out"]


def _hold_for_good(lock_path: str, held: multiprocessing.synchronize.Event) -> None:
    with WriterLock(Path(lock_path)):
        held.set()
        threading.Event().wait()  # for good: the parent kills it here


def test_a_writer_killed_while_holding_the_lock_releases_it(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    held = ctx.Event()
    lock_path = tmp_path / "curate.lock"
    child = ctx.Process(target=_hold_for_good, args=(str(lock_path), held))
    child.start()
    try:
        assert held.wait(CEILING), "the child never took the lock"
        waiter_in = threading.Event()

        def wait_for_the_lock() -> None:
            with WriterLock(lock_path):
                waiter_in.set()

        waiter = threading.Thread(target=wait_for_the_lock, daemon=True)
        waiter.start()
    finally:
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join(CEILING)
    assert waiter_in.wait(CEILING), "the lock of a killed writer was never released"


def test_threads_take_turns_and_one_thread_may_re_enter(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path / "curate.lock")
    order: list[str] = []

    def other_writer() -> None:
        with lock:
            order.append("other in")

    with lock, lock:  # re-entered by the same thread: no deadlock
        other = threading.Thread(target=other_writer)
        other.start()
        order.append("first out")
    other.join(CEILING)
    assert order == ["first out", "other in"]
