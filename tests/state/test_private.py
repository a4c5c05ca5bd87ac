"""The state dir and its database are readable by their owner only, whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bridge.runtime import open_bridge
from bridge.settings import Settings


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_state_dir_is_0700_and_the_database_0600(template_vault: Path, tmp_path: Path) -> None:
    state = tmp_path / "deep" / "state"
    old = os.umask(0o022)
    try:
        bridge = open_bridge(Settings(vault=template_vault, state_dir=state))
        bridge.close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    for name in ("state.sqlite", "state.sqlite-wal", "state.sqlite-shm"):
        if (state / name).exists():
            assert stat.S_IMODE((state / name).stat().st_mode) == 0o600, name


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_loosened_state_dir_is_tightened_again(template_vault: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    open_bridge(Settings(vault=template_vault, state_dir=state)).close()
    state.chmod(0o755)
    (state / "state.sqlite").chmod(0o644)
    open_bridge(Settings(vault=template_vault, state_dir=state)).close()
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "state.sqlite").stat().st_mode) == 0o600
