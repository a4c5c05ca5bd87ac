"""Finding the running `serve`: one slow to answer, or still starting, is the vault's writer.

A real HTTP server on 127.0.0.1 stands where `serve` would, named by a real discovery file
(its first health check held until the client has given up on it and asked again), and a
real `serve.pid` names this process as a `serve` that holds the vault and does not listen yet.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bridge.api.security import load_or_create_token
from bridge.api.server import discovery_file
from bridge.mcp import backend
from bridge.settings import Settings
from bridge.state.vault_lock import Holder, serve_pid_file, vault_lock
from tests.conftest import CEILING


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, hold_first: bool = True) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hold_first = hold_first
        self.asked = 0
        self.asked_again = threading.Event()
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.asked += 1
            first = self.server.asked == 1
        if first and self.server.hold_first:  # busy: no answer until asked a second time
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
    assert server.asked >= 2  # asked again (more than once if the machine is slow)


def test_without_time_to_wait_a_slow_serve_is_not_found(
    slow_serve: tuple[Settings, _Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, server = slow_serve
    monkeypatch.setattr(backend, "HEALTH_TIMEOUT", 0.2)
    assert backend.running_bridge(settings, wait=0) is None
    assert server.asked <= 1  # never asked again (the one check may not have arrived yet)


def test_a_writer_waits_for_a_serve_that_is_starting_and_finds_it_once_it_listens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    token = load_or_create_token(state)
    settings = Settings(vault=tmp_path, state_dir=state)
    looked = threading.Event()
    holder = backend.holder

    def looking(state_dir: Path) -> Holder:
        found = holder(state_dir)
        if found.url is None:  # no discovery file seen: what follows is the wait
            looked.set()
        return found

    monkeypatch.setattr(backend, "holder", looking)
    server = _Server(hold_first=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    told: list[int] = []
    found: list[tuple[str, str] | None] = []
    try:
        # This process as a `serve` that holds the vault and does not listen yet.
        with vault_lock(state), serve_pid_file(state):
            assert backend.running_bridge(settings) is None  # a reader does not wait
            looked.clear()
            asking = threading.Thread(
                target=lambda: found.append(
                    backend.running_bridge(settings, starting=CEILING, waiting=told.append)
                )
            )
            asking.start()
            assert looked.wait(CEILING)  # it found no discovery file, and waits
            with discovery_file(state, "127.0.0.1", server.server_address[1]):
                asking.join(CEILING)
                assert found == [(f"http://127.0.0.1:{server.server_address[1]}", token)]
        assert told == [os.getpid()]
    finally:
        server.shutdown()
        server.server_close()


def test_a_serve_pid_file_left_by_a_dead_process_is_not_waited_for(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    load_or_create_token(state)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    (state / "serve.pid").write_text(gone.stdout)  # as a kill -9 of `serve` leaves it
    settings = Settings(vault=tmp_path, state_dir=state)
    assert backend.running_bridge(settings, starting=CEILING) is None


def test_a_serve_pid_naming_a_process_that_does_not_hold_the_vault_is_not_waited_for(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    load_or_create_token(state)
    # This live process, holding no lock: as when a killed `serve`'s pid is reused.
    (state / "serve.pid").write_text(f"{os.getpid()}\n")
    settings = Settings(vault=tmp_path, state_dir=state)
    assert backend.running_bridge(settings, starting=CEILING) is None
