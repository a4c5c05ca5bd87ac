"""A bridge on a private copy of the template vault, with its own state dir."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from tests.vault.test_dialect_vaults import copy_of

OpenBridge = Callable[..., Bridge]


@pytest.fixture
def open_vault(template_vault: Path, tmp_path: Path) -> Iterator[OpenBridge]:
    """Open (and sync) a bridge on the template copy; extra settings as keyword arguments."""
    opened: list[Bridge] = []

    def make(**settings: Any) -> Bridge:
        values: dict[str, Any] = {
            "vault": template_vault,
            "state_dir": tmp_path / "state",
            "llm_model": None,
        }
        bridge = open_bridge(Settings(**{**values, **settings}))
        bridge.sync()
        opened.append(bridge)
        return bridge

    yield make
    for bridge in opened:
        with contextlib.suppress(Exception):  # some tests close it themselves
            bridge.close()


@pytest.fixture
def bridge(open_vault: OpenBridge) -> Bridge:
    return open_vault()


@pytest.fixture
def vaults(tmp_path: Path) -> Iterator[OpenBridge]:
    """Open (and sync) a bridge on a copy of a dialect fixture vault (`logseq`, `dendron`,
    `foam`); extra settings as keyword arguments."""
    opened: list[Bridge] = []

    def make(name: str, **settings: Any) -> Bridge:
        vault = copy_of(tmp_path, name)
        state = tmp_path / f"state-{name}"
        bridge = open_bridge(Settings(vault=vault, state_dir=state, **settings))
        bridge.sync()
        opened.append(bridge)
        return bridge

    yield make
    for bridge in opened:
        with contextlib.suppress(Exception):
            bridge.close()
