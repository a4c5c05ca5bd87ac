"""Fixtures for the watcher tests: a real bridge and a real watchdog observer on a temp vault."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bridge.index.analysis import query_terms
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from bridge.watch import LiveVault
from bridge.watch.applier import Listener
from tests.conftest import CEILING

# Short enough to keep the suite fast, long enough to pair a delete with its create.
TEST_DEBOUNCE_MS = 100


def wait_until(predicate: Callable[[], object], timeout: float = CEILING) -> None:
    """Poll `predicate` until it is true; fail the test with a clear message on timeout."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {timeout} s: {predicate}")
        time.sleep(0.01)


def found(bridge: Bridge, word: str) -> list[str]:
    """Paths of the notes whose indexed text holds `word` (the committed index only)."""
    hits = bridge.index.search_entries(query_terms(word), 50)
    return sorted(p for h in hits if (p := bridge.index.path_of(h.nid)) is not None)


def open_watched(
    vault: Path,
    state: Path,
    debounce_ms: int = TEST_DEBOUNCE_MS,
    on_change: Listener | None = None,
) -> LiveVault:
    """A started `LiveVault` on a freshly opened bridge (the caller stops and closes it)."""
    bridge = open_bridge(Settings(vault=vault, state_dir=state))
    live = LiveVault(bridge, debounce_ms=debounce_ms, on_change=on_change)
    live.start()
    return live


def close_watched(live: LiveVault) -> None:
    live.stop()
    live.bridge.close()


@pytest.fixture
def live(template_vault: Path, tmp_path: Path) -> Iterator[LiveVault]:
    """The template vault, watched, with its index and lifecycle in `tmp_path/state`."""
    watched = open_watched(template_vault, tmp_path / "state")
    assert watched.ready.is_set()
    yield watched
    close_watched(watched)


def leave_interrupted_commit(index_dir: Path, registered: bool = True, commits: int = 50) -> None:
    """Put in a closed index the files a process killed in the middle of a tantivy commit left.

    A commit that deletes documents writes one `<segment>.<opstamp>.del` file per segment it
    touches, named by the commit's opstamp, after registering the name in `.managed.json` (so
    tantivy can delete it later); `meta.json` names it only once the commit is complete. Killed
    in between (seen with kill -9 loops on `serve`), the file stays, and the next process counts
    opstamps again from `meta.json`. One such file per segment and per coming opstamp makes the
    collision certain whatever the next commit's opstamp is. `registered=False` leaves files
    tantivy does not know about, which its own clean-up cannot remove.
    """
    for folder in sorted((index_dir / "tantivy").iterdir()):
        meta = json.loads((folder / "meta.json").read_text())
        managed = json.loads((folder / ".managed.json").read_text())
        for segment in meta["segments"]:
            name = str(segment["segment_id"]).replace("-", "")
            for opstamp in range(meta["opstamp"] + 1, meta["opstamp"] + 1 + commits):
                (folder / f"{name}.{opstamp}.del").write_bytes(b"\x00" * 8)
                if registered:
                    managed.append(f"{name}.{opstamp}.del")
        (folder / ".managed.json").write_text(json.dumps(managed))
