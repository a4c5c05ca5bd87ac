"""Finding the running `serve`: one that is slow to answer is still the vault's writer.

A real HTTP server on 127.0.0.1 stands where `serve` would, named by a real discovery file:
its first health check is held until the client has given up on it and asked again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bridge.api.security import load_or_create_token
from bridge.api.server import discovery_file
from bridge.mcp import backend
from bridge.settings import Settings
from tests.conftest import CEILING


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.asked = 0
        self.asked_again = threading.Event()
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.asked += 1
            first = self.server.asked == 1
        if first:  # busy: no answer until the client has asked a second time
            self.server.asked_again.wait(CEILING)
        else:
            self.server.asked_again.set()
        try:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
        except OSError:  # the client gave up on this one
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def slow_serve(tmp_path: Path) -> Iterator[tuple[Settings, _Server]]:
    """A live `serve` (this process) whose first health check is answered late."""
    state = tmp_path / "state"
    state.mkdir()
    load_or_create_token(state)
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with discovery_file(state, "127.0.0.1", server.server_address[1]):
            yield Settings(vault=tmp_path, state_dir=state), server
    finally:
        server.asked_again.set()
        server.shutdown()
        server.server_close()


def test_a_serve_slow_to_answer_is_asked_again_and_found(
    slow_serve: tuple[Settings, _Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, server = slow_serve
    monkeypatch.setattr(backend, "HEALTH_TIMEOUT", 0.2)
    found = backend.running_bridge(settings)
    assert found is not None
    assert found[0] == f"http://127.0.0.1:{server.server_address[1]}"
    assert server.asked == 2


def test_without_time_to_wait_a_slow_serve_is_not_found(
    slow_serve: tuple[Settings, _Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, server = slow_serve
    monkeypatch.setattr(backend, "HEALTH_TIMEOUT", 0.2)
    assert backend.running_bridge(settings, wait=0) is None
    assert server.asked == 1
