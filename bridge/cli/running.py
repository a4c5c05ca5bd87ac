"""CLI write commands next to a running `serve`: send the work to it, or hold the vault lock.

One writer per vault: when `bridge.json` names a live `serve` for this vault, `decay`, `curate`,
`review`, `import` and `reindex` go through its API (token from the state dir), so its single
writer applies them and its watcher knows they are the bridge's own (a `decay` from cron had
turned each status write into a "human edit"). Otherwise they take the vault lock and work
directly. Questions (`query`, `search`) go to it too when the API takes them (see
`query_commands`); the other reads (`status`, `lifecycle`...) stay local.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from bridge.api.security import DEFAULT_MAX_BODY
from bridge.cli.app import EXIT_PROBLEMS, EXIT_USAGE, err_console, fail
from bridge.mcp.backend import START_WAIT, running_bridge
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
        headers = {"Authorization": f"Bearer {self.token}", **kwargs.pop("headers", {})}
        try:
            return httpx.request(
                method, f"{self.url}{path}", headers=headers, timeout=timeout, **kwargs
            )
        except httpx.HTTPError as exc:
            raise fail(f"the running bridge at {self.url} did not answer: {exc}") from exc

    @staticmethod
    def error_of(response: httpx.Response) -> tuple[str, str]:
        """(code, message) of an error answer (`{"error": {code, message}}`)."""
        try:
            error = response.json()["error"]
            return str(error["code"]), str(error["message"])
        except (ValueError, KeyError, TypeError):
            return "error", response.text[:500]

    def call(self, method: str, path: str, timeout: float = 600.0, **kwargs: Any) -> Any:
        """The JSON answer; an error answer exits with its message (`conflict`: 1, else 2)."""
        response = self.request(method, path, timeout, **kwargs)
        if response.status_code >= 400:
            code, message = self.error_of(response)
            raise fail(
                f"the running bridge refused: {message}",
                EXIT_PROBLEMS if code == "conflict" else EXIT_USAGE,
            )
        return response.json()

    def post(self, path: str, body: bytes) -> Any:
        """POST a body made by `request_body`; the JSON answer, or exit as `call` does."""
        headers = {"Content-Type": "application/json"}
        return self.call("POST", path, content=body, headers=headers)


def request_body(doc: Mapping[str, Any], what: str) -> bytes:
    """`doc` as the JSON body a running bridge gets; refused here when the API could not take it.

    The API refuses a body over its limit (413), so a file that works alone would fail only
    because `serve` runs: every command checks its document with this, with or without a
    running bridge, so both accept the same files. Encoded as httpx would.
    """
    try:
        body = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:  # NaN or Infinity: Python reads them, JSON has no such numbers
        raise fail(f"{what} holds NaN or Infinity, which JSON does not allow") from exc
    try:
        data = body.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (`"\ud800"` in the file) has no UTF-8 form: sent escaped, the
        # bridge refuses that one operation by name, as it does without `serve`.
        data = json.dumps(doc, separators=(",", ":"), allow_nan=False).encode("utf-8")
    if len(data) > DEFAULT_MAX_BODY:
        limit = DEFAULT_MAX_BODY / 2**20
        raise fail(
            f"{what} is {len(data) / 2**20:.1f} MiB as JSON; the bridge takes at most "
            f"{limit:g} MiB at once: split it into smaller files"
        )
    return data


def running(settings: Settings, writes: bool = False) -> RemoteBridge | None:
    """The live `serve` of this vault (it answered its health check), or None.

    For a command that `writes`, a `serve` still starting (it holds the vault lock, so the
    command could not write alone) is waited for, with a line on stderr saying so.
    """

    found = (
        running_bridge(settings, starting=START_WAIT, waiting=_say_waiting)
        if writes
        else running_bridge(settings)
    )
    return RemoteBridge(*found) if found is not None else None


def _say_waiting(pid: int) -> None:
    err_console.print(
        f"serve (pid {pid}) is starting on this vault; waiting for it to answer...",
        highlight=False,
    )


@contextlib.contextmanager
def writing_locally(settings: Settings) -> Iterator[None]:
    """Hold the vault lock while this command writes (no `serve` runs)."""
    try:
        with vault_lock(settings.state_path, wait_seconds=LOCK_WAIT_SECONDS):
            yield
    except VaultBusyError as exc:
        raise fail(f"{exc}; try again when it is done") from exc
