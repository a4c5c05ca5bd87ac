"""Special files named like notes are refused at once, never opened in a way that blocks."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from bridge.vault.store import NoteError, VaultStore
from tests.conftest import CEILING


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX feature")
def test_a_fifo_named_like_a_note_is_reported_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "fine.md").write_text("# Fine\n")
    store = VaultStore(tmp_path)
    outcome: list[object] = []

    def read() -> None:
        try:
            store.read("pipe.md")
        except NoteError as exc:
            outcome.append(exc.problem)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(CEILING)
    assert not worker.is_alive(), "reading a FIFO blocked"
    (problem,) = outcome
    assert problem.code == "special_file" and "FIFO" in problem.message  # type: ignore[attr-defined]
    assert store.read("fine.md").text == "# Fine\n"
    assert sorted(store.iter_paths()) == ["fine.md", "pipe.md"]  # listed, so doctor names it
