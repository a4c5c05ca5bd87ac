"""The watcher's pure parts with plain values: move resolution, the journal, the debouncer."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from bridge.vault.journal import WriteJournal
from bridge.vault.store import VaultStore, content_hash
from bridge.watch.debounce import Debouncer
from bridge.watch.pending import Batch, Move, resolve_moves
from tests.conftest import CEILING
from tests.watch.conftest import wait_until

INDEXED = ["a/x.md", "a/y.md", "a/sub/z.md", "b/w.md"]


def test_a_file_move_and_a_chain_collapse() -> None:
    assert resolve_moves([Move("a/x.md", "c/x.md")], INDEXED) == {"a/x.md": "c/x.md"}
    chain = [Move("a/x.md", "t.md"), Move("t.md", "c/final.md")]
    assert resolve_moves(chain, INDEXED) == {"a/x.md": "c/final.md"}
    there_and_back = [Move("b/w.md", "tmp.md"), Move("tmp.md", "b/w.md")]
    assert resolve_moves(there_and_back, INDEXED) == {}


def test_a_folder_move_carries_every_note_under_it() -> None:
    moves = [Move("a", "archive/a", is_dir=True)]
    assert resolve_moves(moves, INDEXED) == {
        "a/x.md": "archive/a/x.md",
        "a/y.md": "archive/a/y.md",
        "a/sub/z.md": "archive/a/sub/z.md",
    }
    # watchdog also reports each file of a moved folder; those add nothing.
    with_files = [*moves, Move("a/x.md", "archive/a/x.md")]
    assert resolve_moves(with_files, INDEXED)["a/x.md"] == "archive/a/x.md"


def test_a_note_moved_into_a_folder_then_the_folder_moved() -> None:
    moves = [Move("b/w.md", "a/w.md"), Move("a", "z", is_dir=True)]
    assert resolve_moves(moves, INDEXED) == {
        "b/w.md": "z/w.md",
        "a/x.md": "z/x.md",
        "a/y.md": "z/y.md",
        "a/sub/z.md": "z/sub/z.md",
    }


def test_unindexed_sources_are_not_moves() -> None:
    assert resolve_moves([Move("new.md", "other.md")], INDEXED) == {}


def test_journal_knows_recent_own_writes_only() -> None:
    clock = [0.0]
    journal = WriteJournal(ttl=60, clock=lambda: clock[0])
    journal.record("a.md", "h1")
    assert journal.is_own("a.md", "h1")
    assert not journal.is_own("a.md", "h2") and not journal.is_own("b.md", "h1")
    clock[0] = 61
    assert not journal.is_own("a.md", "h1")


def test_journal_is_bounded() -> None:
    journal = WriteJournal(max_entries=100)
    for i in range(1_000):
        journal.record(f"n{i}.md", "h")
    assert len(journal) == 100
    assert journal.is_own("n999.md", "h") and not journal.is_own("n0.md", "h")


def test_the_store_journals_each_write_but_not_a_skipped_one(tmp_path: Path) -> None:
    journal = WriteJournal()
    store = VaultStore(tmp_path, journal=journal)
    store.write("a/b.md", b"# one\n")
    assert journal.is_own("a/b.md", content_hash(b"# one\n"))
    assert not store.write("a/b.md", b"# one\n").changed
    assert len(journal) == 1


class Recorder:
    """An apply function that records its batches (a plain callback, not a mock of ours)."""

    def __init__(self) -> None:
        self.batches: list[Batch] = []
        self.applied = threading.Event()

    def __call__(self, batch: Batch) -> Mapping[str, float]:
        self.batches.append(batch)
        self.applied.set()
        return {}


def test_many_events_for_one_path_are_one_batch() -> None:
    recorder = Recorder()
    debouncer = Debouncer(recorder, delay=0.05)
    debouncer.start()
    try:
        for _ in range(50):
            debouncer.touch("a.md")
        debouncer.touch("b.md")
        assert debouncer.wait_idle(CEILING)
        assert recorder.applied.wait(CEILING)
        assert [sorted(b.paths) for b in recorder.batches] == [["a.md", "b.md"]]
    finally:
        debouncer.stop()


def test_a_stream_that_never_goes_quiet_is_still_flushed() -> None:
    # A quiet window would take a minute; only the `max_delay` flush can give a batch while
    # events keep coming every 20 ms.
    recorder = Recorder()
    debouncer = Debouncer(recorder, delay=60, max_delay=0.2)
    debouncer.start()
    try:
        deadline = time.monotonic() + CEILING
        i = 0
        while len(recorder.batches) < 2:
            assert time.monotonic() < deadline, "a never-quiet stream was never flushed"
            debouncer.touch(f"n{i}.md")
            i += 1
            time.sleep(0.02)
        assert all(batch.paths for batch in recorder.batches)
    finally:
        debouncer.stop()


def test_retries_come_back_and_stop_flushes() -> None:
    calls: list[frozenset[str]] = []

    def flaky(batch: Batch) -> Mapping[str, float]:
        calls.append(batch.paths)
        return {"a.md": 0.05} if len(calls) == 1 else {}

    debouncer = Debouncer(flaky, delay=0.01)
    debouncer.start()
    debouncer.touch("a.md")
    assert debouncer.wait_idle(CEILING)
    assert calls == [frozenset({"a.md"}), frozenset({"a.md"})]
    slow = Debouncer(flaky, delay=60)
    slow.start()
    slow.touch("b.md")
    slow.stop(timeout=CEILING)  # applies at once: does not wait the 60 s
    assert calls[-1] == frozenset({"b.md"})
    debouncer.stop()


def test_an_idle_debouncer_sleeps() -> None:
    # Idle costs nothing when the thread blocks on its condition with no timeout: it can then
    # wake only for an event or `stop`, never to poll.
    recorder = Recorder()
    debouncer = Debouncer(recorder, delay=0.05)
    debouncer.start()
    try:
        thread = debouncer._thread
        assert thread is not None
        wait_until(lambda: _blocked_without_timeout(thread), CEILING)
        debouncer.touch("a.md")
        assert recorder.applied.wait(CEILING)
        wait_until(lambda: _blocked_without_timeout(thread), CEILING)  # and again after a batch
    finally:
        debouncer.stop()


def _blocked_without_timeout(thread: threading.Thread) -> bool:
    """True when `thread` is inside `threading.Condition.wait()` called with no timeout."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        if frame.f_code.co_name == "wait" and frame.f_globals.get("__name__") == "threading":
            return frame.f_locals.get("timeout", 0) is None
        frame = frame.f_back
    return False
