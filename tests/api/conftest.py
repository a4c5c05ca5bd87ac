"""A real API: uvicorn on a free loopback port, serving a bridge on a temp vault."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bridge.api.app import create_app
from bridge.api.security import load_or_create_token
from bridge.api.server import BackgroundServer
from bridge.runtime import Bridge
from tests.conftest import CEILING, open_test_bridge


@dataclass
class LiveApi:
    url: str
    token: str
    bridge: Bridge
    client: httpx.Client

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@contextmanager
def served(bridge: Bridge) -> Iterator[LiveApi]:
    """`bridge`'s API on a free loopback port, with a client and the token."""
    token = load_or_create_token(bridge.settings.state_path)
    server = BackgroundServer(create_app(bridge, token))
    url = server.start(timeout=CEILING)
    try:
        with httpx.Client(base_url=url, timeout=CEILING) as client:
            yield LiveApi(url, token, bridge, client)
    finally:
        server.stop()


@pytest.fixture
def api(template_vault: Path, tmp_path: Path) -> Iterator[LiveApi]:
    bridge = open_test_bridge(template_vault, tmp_path / "state")
    with served(bridge) as live:
        yield live
    bridge.close()


@pytest.fixture
def embedded_api(embedded_bridge: Bridge) -> Iterator[LiveApi]:
    """The API of a bridge whose every note has vectors (`tests/conftest.embedded_bridge`)."""
    with served(embedded_bridge) as live:
        yield live
