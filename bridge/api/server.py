"""Serving the API with uvicorn, and the discovery file that tells clients where it is.

`bridge.json` (host, port, pid, version, url) lives in the state dir only while the server
runs, so the Obsidian plugin's "Find bridge" can tell a running bridge from a stale one.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from bridge import __version__
from bridge.state.vault_lock import DISCOVERY, present_file


def discovery_path(state_dir: Path) -> Path:
    return state_dir / DISCOVERY


@contextmanager
def discovery_file(state_dir: Path, host: str, port: int) -> Iterator[Path]:
    """Write `bridge.json` for the life of the block (atomically; removed on exit)."""
    path = discovery_path(state_dir)
    url_host = f"[{host}]" if ":" in host else host
    info = {
        "host": host,
        "port": port,
        "pid": os.getpid(),
        "version": __version__,
        "url": f"http://{url_host}:{port}",
    }
    with present_file(path, json.dumps(info, indent=2) + "\n"):
        yield path


def make_server(app: FastAPI, host: str, port: int) -> uvicorn.Server:
    """A uvicorn server for the app; `log_level` warning keeps the terminal readable."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=5,
        server_header=False,
    )
    return uvicorn.Server(config)


class BackgroundServer:
    """uvicorn in a thread, for tests and embedding: `start()` returns once it accepts."""

    def __init__(self, app: FastAPI, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.server = make_server(app, host, port)
        self.thread = threading.Thread(target=self.server.run, name="vault-bridge-api", daemon=True)

    def start(self, timeout: float = 20.0) -> str:
        self.thread.start()
        deadline = threading.Event()
        waited = 0.0
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the API server failed to start")
            deadline.wait(0.02)
            waited += 0.02
            if waited > timeout:
                raise TimeoutError("the API server did not start in time")
        sock = self.server.servers[0].sockets[0]
        host, port = sock.getsockname()[:2]
        return f"http://{host}:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        ctx = getattr(self.app.state, "ctx", None)
        if ctx is not None:
            ctx.close()  # the answer threads
