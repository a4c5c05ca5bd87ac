"""One bridge per vault: the lock `serve` holds for its life and CLI writers for a command.

Two `serve` on one vault both started; the second logged an index error on every edit,
overwrote `bridge.json` and deleted it when it stopped, so the plugin and MCP lost the first.
The lock is an OS advisory lock (filelock) in the state dir: a crashed holder releases it with
its process, so it never goes stale.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from bridge.state.private import private_dir

LOCK_NAME = "vault.lock"
DISCOVERY = "bridge.json"
# The pid of the `serve` holding the vault, written as soon as it holds the lock. `bridge.json`
# comes only once it listens, after its first sync (minutes on a large vault's first start).
SERVE_PID = "serve.pid"


@dataclass(frozen=True)
class Holder:
    """What the discovery file says about the running `serve` (when it has written it)."""

    pid: int | None
    port: int | None
    url: str | None


class VaultBusyError(RuntimeError):
    """Another bridge process holds the vault; the message says which and what to do."""

    def __init__(self, message: str, holder: Holder) -> None:
        super().__init__(message)
        self.holder = holder


def holder(state_dir: Path) -> Holder:
    """The live `serve` named by the discovery file, or an empty `Holder`."""
    try:
        info = json.loads((state_dir / DISCOVERY).read_text())
    except (OSError, ValueError):
        return Holder(None, None, None)
    pid = info.get("pid") if isinstance(info, dict) else None
    if not isinstance(pid, int) or not _alive(pid):
        return Holder(None, None, None)
    port = info.get("port")
    url = info.get("url")
    return Holder(
        pid, port if isinstance(port, int) else None, url if isinstance(url, str) else None
    )


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def serve_pid_file(state_dir: Path) -> Iterator[None]:
    """Name this process, for the block, as the `serve` holding the vault (take the lock first).

    While `serve` starts there is no discovery file yet, and a command would wait for the lock
    `serve` holds for its life and fail as busy, though `serve` answers soon after. A command
    that finds this file naming a live process waits for that `serve` to listen
    (`bridge.mcp.backend.running_bridge`) and goes through it.
    """
    with present_file(state_dir / SERVE_PID, f"{os.getpid()}\n"):
        yield


@contextlib.contextmanager
def present_file(path: Path, text: str) -> Iterator[Path]:
    """`path` holding `text` for the life of the block: written whole (a temp file renamed
    over it, so a reader never sees half), removed on exit. What a running process says of
    itself: its pid (`serve.pid`), where it listens (`bridge.json`)."""
    temp = path.with_name(f"{path.name}.tmp")
    temp.write_text(text)
    temp.replace(path)
    try:
        yield path
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def serving_pid(state_dir: Path) -> int | None:
    """The pid of a live `serve` holding the vault (listening or still starting), or None.

    The file alone could name a process that only reuses the pid of a `serve` killed -9, so
    the vault lock must be held too (a `serve` holds it for its life): it is tried, and let go
    at once when it was free.
    """
    try:
        pid = int((state_dir / SERVE_PID).read_text().strip())
    except (OSError, ValueError):
        return None
    if not _alive(pid):
        return None
    lock = FileLock(str(state_dir / LOCK_NAME), thread_local=False)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return pid  # held: by that `serve` (or a CLI writer, whose command ends)
    lock.release()
    return None


def describe(found: Holder) -> str:
    if found.pid is None:
        return "another bridge process is starting or working on this vault"
    return f"serve is already running for this vault (pid {found.pid}, port {found.port})"


@contextlib.contextmanager
def vault_lock(state_dir: Path, wait_seconds: float = 0.0) -> Iterator[None]:
    """Hold the vault for the block; `VaultBusyError` when another process holds it."""
    private_dir(state_dir)
    lock = FileLock(str(state_dir / LOCK_NAME), thread_local=False)
    try:
        lock.acquire(timeout=wait_seconds)
    except Timeout as exc:
        found = holder(state_dir)
        raise VaultBusyError(describe(found), found) from exc
    try:
        yield
    finally:
        lock.release()


def bridge_on_port(places: Iterable[Path], port: int) -> str:
    """`the vault-bridge serving <vault> (pid N)` when a live `serve` whose state dir is in
    one of `places` (the default home of state dirs, this one's folder) listens on `port`,
    else ``."""
    found_files = {f for place in places for f in place.glob(f"*/{DISCOVERY}")}
    for found in sorted(found_files):
        try:
            info = json.loads(found.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(info, dict) or info.get("port") != port:
            continue
        pid = info.get("pid")
        if isinstance(pid, int) and _alive(pid):
            vault = info.get("vault")
            serving = f" serving {vault}" if isinstance(vault, str) else ""
            return f"the vault-bridge{serving} (pid {pid})"
    return ""
