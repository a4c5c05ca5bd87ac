"""A real bridge on a copy of the template; its wiring refreshes overviews after batches."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bridge.core.operations import parse_operations
from bridge.core.overview import CLOSE_MARKER, OPEN_MARKER
from bridge.curate.results import BatchResult
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings

OpenBridge = Callable[..., Bridge]

# A human's `_index.md` for `engineering/auth`, with text above and below the region.
AUTH_INDEX = "engineering/auth/_index.md"
HUMAN_ABOVE = (
    "---\ntitle: Auth\nsummary: Written by a person.\n---\n# Auth\n\n"
    "Everything about signing in.  Two spaces, a tab\there, and no wrapping.\n\n"
)
HUMAN_BELOW = "\n## Open questions\n\n- Do we want passkeys? (ask Ana)\n"


@pytest.fixture
def open_vault(template_vault: Path, tmp_path: Path) -> Iterator[OpenBridge]:
    """Open (and sync) a bridge on the template copy; settings as keyword arguments."""
    opened: list[Bridge] = []

    def make(**settings: Any) -> Bridge:
        values: dict[str, Any] = {"vault": template_vault, "state_dir": tmp_path / "state"}
        bridge = open_bridge(Settings(**{**values, **settings}))
        bridge.sync()
        opened.append(bridge)
        return bridge

    yield make
    for bridge in opened:
        with contextlib.suppress(Exception):
            bridge.close()


@pytest.fixture
def bridge(open_vault: OpenBridge) -> Bridge:
    return open_vault()


def write_auth_index(vault: Path, inside: str = "- (the bridge fills this in)\n") -> bytes:
    """Give `engineering/auth` a human `_index.md` with markers; return its bytes."""
    data = f"{HUMAN_ABOVE}{OPEN_MARKER}\n{inside}{CLOSE_MARKER}\n{HUMAN_BELOW}".encode()
    (vault / AUTH_INDEX).write_bytes(data)
    return data


def region_of(data: bytes) -> str:
    """The text between the markers."""
    text = data.decode("utf-8")
    return text.split(OPEN_MARKER + "\n", 1)[1].split(CLOSE_MARKER, 1)[0]


def around_region(data: bytes) -> tuple[bytes, bytes]:
    """The bytes up to and including the opening marker line, and from the closing marker on."""
    opening = OPEN_MARKER.encode() + b"\n"
    head, rest = data.split(opening, 1)
    tail = rest[rest.index(CLOSE_MARKER.encode()) :]
    return head + opening, tail


def run(bridge: Bridge, *ops: dict[str, Any], author: str = "bot") -> BatchResult:
    """Apply operations given as JSON-like dicts through the real executor."""
    return bridge.executor.apply(parse_operations(list(ops)), author)
