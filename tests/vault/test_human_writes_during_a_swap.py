"""A human's line is never lost to an agent write that lands at the same moment.

Real files and a real second process: for each round the agent reads a 50 KB note and builds
its change, then tells a "human" process to write at a random moment within the span the
agent's last write took, and writes. The human appends through an open file, saves like an
editor (its own temp file, then a rename over the note), or moves the note away. Whatever the
interleaving, every human line must be in the note afterwards, and a moved note must never
come back at its old path. No assertion depends on timing: the random moments only spread the
human's writes over the whole of the agent's.
"""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from bridge.vault.store import VaultStore, WriteConflictError
from tests.conftest import CEILING

NOTE = "notes/shared/long_note.md"
MOVED = "notes/shared/renamed_note.md"
FILLER = "A line of the note that nobody changes in this test.\n" * 1000  # about 50 KB

# The human: for each line on stdin (`<delay seconds>`), wait that long without sleeping (the
# OS would round a sleep up to a scheduler tick), make its change, and answer `k`.
HUMAN = r"""
import os, sys, time
style, path, moved = sys.argv[1], sys.argv[2], sys.argv[3]
folder = os.path.dirname(path)
for number, line in enumerate(sys.stdin):
    until = time.perf_counter() + float(line)
    while time.perf_counter() < until:
        pass
    if style == "append":
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"human line {number}\n")
    elif style == "editor":
        while True:
            try:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                break
            except FileNotFoundError:  # between an editor's own rename and the next: retry
                continue
        temp = os.path.join(folder, f".long_note.md.edit-{number}")
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(text + f"human line {number}\n")
        os.replace(temp, path)
    else:
        os.rename(path, moved)
    sys.stdout.write("k")
    sys.stdout.flush()
"""


class Human:
    """The human process of one test; `write(delay)` returns once the human's change is made."""

    def __init__(self, style: str, root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HUMAN, style, str(root / NOTE), str(root / MOVED)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.orders: IO[bytes] = self.process.stdin
        self.answers: IO[bytes] = self.process.stdout

    def start(self, delay: float) -> None:
        self.orders.write(f"{delay:.9f}\n".encode())

    def done(self) -> None:
        assert self.answers.read(1) == b"k", "the human process died"

    def close(self) -> None:
        self.orders.close()
        self.process.wait(timeout=CEILING)


def _changed(data: bytes, round_number: int) -> bytes:
    """The agent's change: the summary line, keeping every other line as it read them."""
    head, _, rest = data.partition(b"\n---\n")
    lines = head.split(b"\n")
    lines = [
        b"summary: version %d" % round_number if x.startswith(b"summary:") else x for x in lines
    ]
    return b"\n".join(lines) + b"\n---\n" + rest


def _agent_rounds(store: VaultStore, human: Human, rounds: int) -> Iterator[int]:
    """Each round: read, build, start the human, write; yields after both are done."""
    rng = random.Random(47)
    span = 0.002  # the first rounds learn how long a write takes here
    for number in range(rounds):
        current = store.read(NOTE)
        new = _changed(current.data, number)
        human.start(rng.uniform(0.0, span * 1.3))
        started = time.perf_counter()
        with contextlib.suppress(WriteConflictError):  # the human came first: fine
            store.write(NOTE, new, expected=current.data)
        span = 0.8 * span + 0.2 * (time.perf_counter() - started)
        human.done()
        yield number


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    (tmp_path / NOTE).parent.mkdir(parents=True)
    (tmp_path / NOTE).write_text(f"---\nsummary: version 0\n---\n# Long note\n\n{FILLER}")
    return tmp_path


@pytest.mark.parametrize(("style", "rounds"), [("append", 600), ("editor", 1000)])
def test_every_human_line_survives_agent_writes_at_the_same_moment(
    vault: Path, style: str, rounds: int
) -> None:
    store = VaultStore(vault)
    human = Human(style, vault)
    try:
        for _ in _agent_rounds(store, human, rounds):
            pass
    finally:
        human.close()
    text = (vault / NOTE).read_text()
    lost = [n for n in range(rounds) if f"human line {n}\n" not in text]
    assert lost == [], f"{len(lost)} human lines lost of {rounds}"
    assert text.count("human line ") == rounds  # each once: none written twice either
    leftovers = [p.name for p in (vault / NOTE).parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_a_note_moved_during_an_agent_write_is_never_recreated(vault: Path) -> None:
    store = VaultStore(vault)
    human = Human("move", vault)
    old, new = vault / NOTE, vault / MOVED
    recreated = 0
    try:
        for _ in _agent_rounds(store, human, 1000):
            recreated += old.exists()
            if old.exists():
                old.unlink()
            new.rename(old)  # back in place for the next round
    finally:
        human.close()
    assert recreated == 0


def test_a_note_a_human_holds_open_for_writing_is_not_replaced_under_them(vault: Path) -> None:
    # A script or editor that opened the note to write: whatever it writes after the agent's
    # attempt must land in the note, so the agent's change waits (it goes to review).
    store = VaultStore(vault)
    current = store.read(NOTE)
    with (vault / NOTE).open("a", encoding="utf-8") as handle:
        with pytest.raises(WriteConflictError):
            store.write(NOTE, _changed(current.data, 1), expected=current.data)
        handle.write("human line written late\n")
    text = (vault / NOTE).read_text()
    assert text.endswith("human line written late\n") and "summary: version 0" in text


def test_the_portable_swap_used_without_leases_keeps_a_human_edit(tmp_path: Path) -> None:
    # macOS, Windows and file systems without leases take this way; Linux never does, so it
    # is driven directly here with real files.
    from bridge.vault import swap

    note, temp, kept = tmp_path / "n.md", tmp_path / ".n.md.vb-tmp-1", tmp_path / ".n.md.was"
    note.write_bytes(b"human text\n")
    temp.write_bytes(b"agent text\n")
    with pytest.raises(swap.Displaced) as caught:
        swap._replace_portably(temp, note, kept, b"what the agent read\n")
    assert caught.value.current == b"human text\n" and note.read_bytes() == b"human text\n"
    swap._replace_portably(temp, note, kept, b"human text\n")
    assert note.read_bytes() == b"agent text\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.md"]
