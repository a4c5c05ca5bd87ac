"""With a real watcher running, the bridge's region writes are never taken for human edits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.core.operations import parse_operations
from bridge.runtime import open_bridge
from bridge.settings import Settings
from bridge.vault.store import content_hash
from bridge.watch import LiveVault
from tests.overviews.conftest import AUTH_INDEX, region_of, write_auth_index
from tests.watch.conftest import close_watched, found, open_watched, wait_until

ENG_INDEX = "engineering/_index.md"


@pytest.fixture
def live(template_vault: Path, tmp_path: Path) -> Iterator[LiveVault]:
    write_auth_index(template_vault)
    watched = open_watched(template_vault, tmp_path / "state")
    assert watched.ready.is_set()
    yield watched
    close_watched(watched)


def indexed(live: LiveVault, path: str) -> bool:
    """The live index holds the note's current bytes."""
    stamp = live.bridge.index.stamp(path)
    data = (live.bridge.store.root / path).read_bytes()
    return stamp is not None and stamp.hash.hex() == content_hash(data)


def test_a_batch_region_write_is_the_bridges_own(live: LiveVault) -> None:
    op = {"type": "ADD", "path": "engineering/auth/api_keys.md", "title": "Quokkaish keys"}
    result = live.bridge.executor.apply(parse_operations([op]), "agent:bot")
    assert [r.status for r in result.results] == ["applied"]
    assert "Quokkaish keys" in region_of((live.bridge.store.root / AUTH_INDEX).read_bytes())
    wait_until(lambda: live.stats.events >= 3)  # the entry and the two `_index.md` notes
    assert live.wait_idle(10)
    assert live.stats.human_updates == 0
    for path in (AUTH_INDEX, ENG_INDEX):
        assert live.bridge.lifecycle.last_writer(path) is None, path
        assert indexed(live, path)


def test_an_explicit_refresh_of_human_notes_is_not_a_human_edit(live: LiveVault) -> None:
    report = live.bridge.write_overviews()
    assert {report.outcomes[f].state for f in ("engineering", "engineering/auth")} == {"updated"}
    wait_until(lambda: live.stats.events >= 2)
    assert live.wait_idle(10)
    assert live.stats.human_updates == 0
    assert live.bridge.lifecycle.last_writer(AUTH_INDEX) is None


def test_a_batch_from_another_process_is_not_a_human_edit(
    live: LiveVault, template_vault: Path, tmp_path: Path
) -> None:
    """A writer next to `serve` (its own journal, the same state database)."""
    other = open_bridge(Settings(vault=template_vault, state_dir=tmp_path / "state"))
    try:
        op = {"type": "ADD", "path": "engineering/auth/api_keys.md", "title": "Wallabyish"}
        result = other.executor.apply(parse_operations([op]), "agent:cli")
        assert [r.status for r in result.results] == ["applied"]
        wait_until(lambda: found(live.bridge, "wallabyish") != [])
        wait_until(lambda: indexed(live, AUTH_INDEX) and indexed(live, ENG_INDEX))
        assert live.wait_idle(10)
        assert live.stats.human_updates == 0
        assert live.bridge.lifecycle.last_writer(AUTH_INDEX) is None
    finally:
        other.close()
