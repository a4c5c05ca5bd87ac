"""A kill -9 in the middle of embedding leaves a sound vector file, and the next start resumes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from bridge.runtime import open_bridge
from bridge.settings import Settings
from tests.conftest import CEILING, write_entries
from tests.watch.conftest import wait_until

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from bridge.runtime import open_bridge
    from bridge.settings import Settings
    bridge = open_bridge(Settings(vault=Path(sys.argv[1]), state_dir=Path(sys.argv[2])))
    bridge.sync()
    bridge.prepare_semantic(embed=True)
    print("done", flush=True)
    """
)


# Enough notes for three steps of 64 after the first is committed: the kill lands mid-way.
NOTES = 256


def _embedded_notes(state: Path) -> int:
    files = list((state / "semantic").glob("*.sqlite"))
    if not files:
        return 0
    try:
        with sqlite3.connect(f"file:{files[0]}?mode=ro", uri=True) as db:
            return int(db.execute("SELECT count(*) FROM notes").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_a_kill_mid_way_loses_no_vector_and_the_next_start_goes_on(tmp_path: Path) -> None:
    vault, state = tmp_path / "vault", tmp_path / "state"
    vault.mkdir()
    (vault / ".obsidian").mkdir()
    write_entries(vault, NOTES)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(vault), str(state)])
    try:
        wait_until(lambda: _embedded_notes(state) >= 64 or child.poll() is not None)
        assert child.poll() is None, "embedding finished before it could be interrupted"
        child.kill()  # SIGKILL: no clean-up of any kind
        child.wait(timeout=CEILING)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    [vectors] = (state / "semantic").glob("*.sqlite")
    with sqlite3.connect(vectors) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kept = db.execute("SELECT count(*) FROM notes").fetchone()[0]
    assert 64 <= kept < NOTES

    bridge = open_bridge(Settings(vault=vault, state_dir=state))
    try:
        bridge.sync()
        status = bridge.prepare_semantic(embed=True)
        assert status is not None and status["state"] == "ready"
        assert status["embedded"] == NOTES
        semantic = bridge.semantic
        assert semantic is not None
        total = int(str(status["sections"])) + len(semantic.cards)  # passages and cards
        assert 0 < semantic.embedded_now < total  # only the rest
    finally:
        bridge.close()
