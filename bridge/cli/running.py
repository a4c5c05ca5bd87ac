"""CLI write commands next to a running `serve`: send the work to it, or hold the vault lock.

One writer per vault: when `bridge.json` names a live `serve` for this vault, `decay`, `curate`,
`review`, `import` and `reindex` go through its API (token from the state dir), so its single
writer applies them and its watcher knows they are the bridge's own (a `decay` from cron had
turned each status write into a "human edit"). Otherwise they take the vault lock and work
directly. Reads (`query`, `search`, `status`...) stay local.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from bridge.cli.app import EXIT_PROBLEMS, fail
from bridge.mcp.backend import running_bridge
from bridge.settings import Settings
from bridge.state.vault_lock import VaultBusyError, vault_lock

LOCK_WAIT_SECONDS = 60.0  # another CLI writer (a cron decay) usually finishes well within this


@dataclass
class RemoteBridge:
    """The `serve` running on this vault, called over its API."""

    url: str
    token: str

    def request(
        self, method: str, path: str, timeout: float = 600.0, **kwargs: Any
    ) -> httpx.Response:
        logging.getLogger("httpx").setLevel(logging.WARNING)
        headers = {"Authorization": f"Bearer {self.token}"}
        try:
            return httpx.request(
                method, f"{self.url}{path}", headers=headers, timeout=timeout, **kwargs
            )
        except httpx.HTTPError as exc:
            raise fail(f"the running bridge at {self.url} did not answer: {exc}") from exc

    def call(self, method: str, path: str, timeout: float = 600.0, **kwargs: Any) -> Any:
        """The JSON answer; an error answer exits with its message (409: exit 1, else 2)."""
        response = self.request(method, path, timeout, **kwargs)
        if response.status_code >= 400:
            try:
                message = response.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = response.text[:500]
            code = EXIT_PROBLEMS if response.status_code == 409 else 2
            raise fail(f"the running bridge refused: {message}", code)
        return response.json()


def running(settings: Settings) -> RemoteBridge | None:
    """The live `serve` of this vault (it answered its health check), or None."""
    found = running_bridge(settings)
    return RemoteBridge(*found) if found is not None else None


@contextlib.contextmanager
def writing_locally(settings: Settings) -> Iterator[None]:
    """Hold the vault lock while this command writes (no `serve` runs)."""
    try:
        with vault_lock(settings.state_path, wait_seconds=LOCK_WAIT_SECONDS):
            yield
    except VaultBusyError as exc:
        raise fail(f"{exc}; try again when it is done") from exc
