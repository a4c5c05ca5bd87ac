"""`vault-bridge mcp`: serve the memory to MCP clients over stdio."""

from __future__ import annotations

import contextlib
import logging

from bridge.cli.app import StateDirOpt, VaultOpt, app, fail, settings_for
from bridge.collector import ScheduledCollections
from bridge.index.search_index import IndexBusyError
from bridge.mcp.backend import LocalBackend, MemoryBackend, connect
from bridge.runtime import open_bridge
from bridge.settings import Settings
from bridge.vault.store import VaultError


def _local(settings: Settings) -> MemoryBackend:
    bridge = open_bridge(settings)
    with contextlib.suppress(IndexBusyError):  # another writer appeared: read the index as is
        bridge.sync()
    return LocalBackend(bridge)


@app.command()
def mcp(vault: VaultOpt = None, state_dir: StateDirOpt = None) -> None:
    """Serve the memory as MCP tools over stdio (for Claude Code, Cursor...)."""
    from bridge.mcp.server import build_server

    # Before the SDK's own set-up (a no-op once the root logger has a handler): stderr is the
    # MCP client's log, so plain lines, and warnings only; a refused call is no problem.
    logging.basicConfig(level=logging.WARNING, format="vault-bridge mcp: %(levelname)s %(message)s")
    settings = settings_for(vault, state_dir)
    try:
        backend = connect(settings, _local)
    except VaultError as exc:
        raise fail(str(exc)) from exc
    # Answering in this process (no `serve` to forward to), it is long-running like `serve`:
    # its full collections run on the same schedule, never inside an answer.
    local = isinstance(backend, LocalBackend)
    try:
        with ScheduledCollections() if local else contextlib.nullcontext():
            build_server(backend).run("stdio")
    finally:
        backend.close()
