"""`vault-bridge serve`: the long-running bridge (watcher, decay schedule, writer, HTTP API)."""

from __future__ import annotations

import contextlib
import socket
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from bridge.api.events import EventBus
from bridge.api.security import host_is_loopback, load_or_create_token
from bridge.api.tasks import TaskRunner
from bridge.cli.app import StateDirOpt, VaultOpt, app, console, err_console, fail, settings_for
from bridge.cli.embedding_progress import EmbeddingProgress
from bridge.cli.stop_signals import StopSignals
from bridge.collector import ScheduledCollections
from bridge.index.search_index import IndexBusyError
from bridge.lifecycle.scheduler import DecayScheduler
from bridge.llm.answerer import LLMAnswerer
from bridge.runtime import Bridge, open_bridge
from bridge.settings import APP_NAME, Settings
from bridge.state.db import StateDBError
from bridge.state.vault_lock import VaultBusyError, bridge_on_port, serve_pid_file, vault_lock
from bridge.thread_priority import lower_thread_priority
from bridge.vault.store import VaultError
from bridge.watch import LiveVault, WatchError

HostOpt = Annotated[str | None, typer.Option("--host", help="Listen address [127.0.0.1]")]
PortOpt = Annotated[int | None, typer.Option("--port", min=0, max=65535, help="Port [27182]")]


SERVE_LOCK_WAIT = 2.0  # seconds `serve` waits for the vault lock before it says who holds it


@app.command()
def serve(
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    host: HostOpt = None,
    port: PortOpt = None,
) -> None:
    """Run the bridge in the foreground: live index, daily decay, HTTP API (Ctrl-C stops)."""
    settings = settings_for(vault, state_dir, host=host, port=port)
    # Opening the index starts tantivy's threads, and a thread that does not block SIGTERM
    # takes its default action (serve killed outright). So the stop signals are blocked
    # before anything starts a thread: every thread inherits the mask, and a stop during
    # start-up is a clean stop once it is done.
    # Then, first of all: a second serve must touch nothing (not the index, not bridge.json).
    with StopSignals() as stop, contextlib.ExitStack() as held:
        try:
            # A command that finds `serve.pid` tries the lock for an instant to tell a live
            # `serve` from a reused pid: a moment's wait keeps that from refusing this start.
            held.enter_context(vault_lock(settings.state_path, wait_seconds=SERVE_LOCK_WAIT))
        except VaultBusyError as exc:
            raise fail(str(exc)) from exc
        held.enter_context(serve_pid_file(settings.state_path))
        from bridge.api.server import PortBusyError, bind_listener

        try:
            listener = bind_listener(
                settings.host,
                settings.port,
                bridge_on_port(_state_homes(settings), settings.port) if settings.port else "",
            )
        except PortBusyError as exc:
            raise fail(str(exc)) from exc
        with listener:
            _serve(settings, stop, listener)


# A missed day's decay run waits this long after start (the first questions go first).
CATCH_UP_DELAY = 60.0


def _read_ahead(bridge: Bridge) -> None:
    """The index's files into the page cache, beside the first questions (at nice 10)."""
    lower_thread_priority()
    bridge.index.read_ahead()


def _state_homes(settings: Settings) -> list[Path]:
    """Where other bridges' state dirs (and their `bridge.json`) usually are."""
    import platformdirs

    return [Path(platformdirs.user_data_dir(APP_NAME)), settings.state_path.parent]


def _serve(settings: Settings, stop: StopSignals, listener: socket.socket) -> None:
    # The web stack (FastAPI, uvicorn, every route) only when serving: every other command
    # imports this module too, and it was a fifth of their start-up.
    from bridge.api.app import create_app
    from bridge.api.server import BackgroundServer, discovery_file

    try:
        bridge = open_bridge(settings)
    except (StateDBError, IndexBusyError, VaultError) as exc:
        raise fail(str(exc)) from exc
    answerer = bridge.engine.answerer
    if isinstance(answerer, LLMAnswerer):  # the first tier 3/4 answer should not pay the import
        answerer.client.warm()  # a background thread; returns at once
    # The first questions should not wait for the disk: the index files are read ahead.
    threading.Thread(target=_read_ahead, args=(bridge,), name="read-ahead", daemon=True).start()
    # Every bridge process of this vault writes under the vault lock (held by this serve) or
    # the writer's lock (taken here): any temp file left now is a crash's, however young.
    with bridge.executor.lock:
        cleaned = bridge.store.clean_temp_files(older_than_seconds=0)
    if cleaned:
        err_console.print(f"removed {len(cleaned)} temp file(s) left by an interrupted write")
    if not host_is_loopback(settings.host):
        err_console.print(
            f"[yellow]warning:[/] listening on {settings.host}: requests must still name a "
            "loopback Host, so this only helps behind a local proxy"
        )
    bus = EventBus()
    live = LiveVault(bridge)
    scheduler = DecayScheduler(
        lambda: _scheduled_decay(bridge),
        settings.decay_clock,
        bridge.lifecycle.last_run,
        catch_up_delay=CATCH_UP_DELAY,
    )
    tasks = TaskRunner()
    # Full collections from a thread, never started by an answer's allocations
    # (`bridge.collector`: one holds every answer in flight).
    collections = ScheduledCollections()
    server: BackgroundServer | None = None
    progress: EmbeddingProgress | None = None
    try:
        try:
            report = live.start()
        except (WatchError, IndexBusyError) as exc:
            raise fail(str(exc)) from exc
        changed = {k: v for k, v in report.summary().items() if v and k != "unchanged"}
        if changed:
            console.print(
                "Index brought up to date: " + ", ".join(f"{v} {k}" for k, v in changed.items())
            )
        scheduler.start()
        collections.start()
        if bridge.semantic is not None:  # lexical answers meanwhile; vectors catch up
            bridge.semantic.start()
            progress = EmbeddingProgress(
                bridge.semantic, lambda line: console.print(line, highlight=False)
            )
            progress.start()
        token = load_or_create_token(settings.state_path)
        api = create_app(bridge, token, bus, watching=True)
        api.state.ctx.services["tasks"] = tasks
        server = BackgroundServer(api, settings.host, settings.port, sock=listener)
        try:
            url = server.start()
        except (RuntimeError, TimeoutError) as exc:
            raise fail(
                f"could not listen on {settings.host}:{settings.port} ({exc}); is another "
                "bridge running? Set --port or VAULT_BRIDGE_PORT"
            ) from exc
        bound_port = int(url.rsplit(":", 1)[1])
        with discovery_file(settings.state_path, settings.host, bound_port, settings.vault_path):
            notes = bridge.index.note_count()
            console.print(
                banner(settings.vault_path, url, settings.state_path / "token", notes),
                highlight=False,
                soft_wrap=True,
            )
            stop.wait()
            console.print("Stopping...")
    finally:
        if server is not None:
            server.stop()  # no new requests; curation in flight finishes below
        tasks.wait()
        if progress is not None:
            progress.stop()
        scheduler.stop()
        collections.stop()
        live.stop()
        bridge.close()
    console.print("Stopped.")


def banner(vault: Path, url: str, token: Path, notes: int) -> str:
    """What `serve` prints once it listens (docs/cli.md shows it; a test keeps them equal)."""
    return (
        f"Vault Bridge serving {vault}\n"
        f"  API     {url}/v1  (docs: {url}/docs)\n"
        f"  token   {token}\n"
        f"  notes   {notes} indexed, watching for changes\n"
        "Ctrl-C to stop."
    )


def _scheduled_decay(bridge: Bridge) -> None:
    """The daily decay run inside `serve`, under the writer's lock, re-indexing what it wrote."""
    report = bridge.decay(datetime.now(UTC))
    console.print(
        f"decay: {report.notes_seen} notes, {len(report.transitions)} status changes, "
        f"{len(report.stale)} stale candidates",
        highlight=False,
    )
