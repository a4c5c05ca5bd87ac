"""Serving the API with uvicorn, and the discovery file that tells clients where it is.

`bridge.json` (host, port, pid, version, url) lives in the state dir only while the server
runs, so the Obsidian plugin's "Find bridge" can tell a running bridge from a stale one.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from bridge import __version__
from bridge.api.http_limits import MAX_HEAD_BYTES, protocol_class
from bridge.state.vault_lock import DISCOVERY, present_file


def discovery_path(state_dir: Path) -> Path:
    return state_dir / DISCOVERY


@contextmanager
def discovery_file(
    state_dir: Path, host: str, port: int, vault: Path | None = None
) -> Iterator[Path]:
    """Write `bridge.json` for the life of the block (atomically; removed on exit)."""
    path = discovery_path(state_dir)
    url_host = f"[{host}]" if ":" in host else host
    info: dict[str, object] = {
        "host": host,
        "port": port,
        "pid": os.getpid(),
        "version": __version__,
        "url": f"http://{url_host}:{port}",
    }
    if vault is not None:  # so a second serve finding the port taken can say by whom
        info["vault"] = str(vault)
    with present_file(path, json.dumps(info, indent=2) + "\n"):
        yield path


def make_server(app: FastAPI, host: str, port: int) -> uvicorn.Server:
    """A uvicorn server for the app; `log_level` warning keeps the terminal readable."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol_class(),
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=5,
        server_header=False,
    )
    return uvicorn.Server(config)


class PortBusyError(RuntimeError):
    """The API's address is taken; the message says by what, when that can be told."""


def bind_listener(host: str, port: int, holder: str = "") -> socket.socket:
    """The API's socket, bound (not yet listening) before the bridge opens anything.

    Taken first, so a second `serve` (another vault) finds its port busy before it spends
    minutes indexing; uvicorn gets this socket.
    `holder` is what to say when it is busy (who listens there), else a guess is made.
    """
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    if sys.platform != "win32":  # as uvicorn does: a port in TIME_WAIT after a restart
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno != errno.EADDRINUSE:
            raise PortBusyError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
        who = holder or _who_listens(host, port)
        raise PortBusyError(
            f"port {port} on {host} is in use by {who}; stop it, or choose another port with "
            "--port or VAULT_BRIDGE_PORT"
        ) from exc
    return sock


def _who_listens(host: str, port: int) -> str:
    """`another vault-bridge (version x)` when a bridge answers there, else `another program`."""
    import httpx

    url_host = f"[{host}]" if ":" in host else host
    try:
        answer = httpx.get(f"http://{url_host}:{port}/v1/health", timeout=2.0).json()
    except (httpx.HTTPError, ValueError):
        return "another program"
    if isinstance(answer, dict) and answer.get("status") == "ok" and "version" in answer:
        return f"another vault-bridge (version {answer['version']}) serving another vault"
    return "another program"


class BackgroundServer:
    """uvicorn in a thread, for tests and embedding: `start()` returns once it accepts.

    `sock`: a socket `bind_listener` already bound (`serve`), else uvicorn binds host:port.
    """

    def __init__(
        self,
        app: FastAPI,
        host: str = "127.0.0.1",
        port: int = 0,
        sock: socket.socket | None = None,
    ) -> None:
        self.app = app
        self.server = make_server(app, host, port)
        sockets = None if sock is None else [sock]
        self.thread = threading.Thread(
            target=self.server.run,
            kwargs={"sockets": sockets},
            name="vault-bridge-api",
            daemon=True,
        )

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
