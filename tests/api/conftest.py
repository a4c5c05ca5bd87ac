"""A real API: uvicorn on a free loopback port, serving a bridge on a temp vault."""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.fixture
def api(template_vault: Path, tmp_path: Path) -> Iterator[LiveApi]:
    bridge = open_test_bridge(template_vault, tmp_path / "state")
    token = load_or_create_token(bridge.settings.state_path)
    server = BackgroundServer(create_app(bridge, token))
    url = server.start(timeout=CEILING)
    with httpx.Client(base_url=url, timeout=CEILING) as client:
        yield LiveApi(url, token, bridge, client)
    server.stop()
    bridge.close()
