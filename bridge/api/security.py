"""Who may talk to the bridge: bearer token, loopback Host, known Origins, bounded bodies.

One pure ASGI middleware in front of every path, routes or not, so each refusal comes before
routing, in the routes' JSON error shape. Which part does what:

- Host: `host_is_loopback` (one Host header, a loopback address or `localhost`);
- Origin: `ALLOWED_ORIGINS` refuses other origins; the CORS headers themselves are Starlette's
  `CORSMiddleware` (`bridge/api/app.py`);
- token: the `Authorization` header read by FastAPI's `get_authorization_scheme_param`,
  compared in constant time; never in the URL;
- body: its size, from `Content-Length` or counted while a chunked body is read (neither
  Starlette nor FastAPI bounds a body); the request's head is bounded by the server
  (`bridge/api/http_limits.py`).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi.security.utils import get_authorization_scheme_param

from bridge.state.private import private_dir

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Obsidian desktop only: the plugin is desktop-only (the bridge listens on loopback), and
# `http://localhost` would let any page served on this machine's port 80 through.
ALLOWED_ORIGINS = ("app://obsidian.md",)
PUBLIC_PATHS = ("/v1/health",)
DOC_PATHS = ("/docs", "/openapi.json", "/docs/oauth2-redirect", "/redoc")


TOKEN_FILE = "token"


def read_token(state_dir: Path) -> str | None:
    """The API token if one was made (by `serve` or `setup --connect`); never creates one."""
    try:
        return (state_dir / TOKEN_FILE).read_text().strip() or None
    except OSError:
        return None


def load_or_create_token(state_dir: Path) -> str:
    """The API token: created at first start (mode 0600), then read back."""
    path = private_dir(state_dir) / TOKEN_FILE
    try:
        token = path.read_text().strip()
        if token:
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)  # someone loosened it: a token readable by others is no token
            return token
    except FileNotFoundError:
        pass
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    path.chmod(0o600)
    return token


async def send_error(
    send: Send, status: int, code: str, message: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send(
        {"type": "http.response.start", "status": status, "headers": headers + (extra or [])}
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


# Not Starlette's TrustedHostMiddleware: it lists names (no 127.0.0.0/8) and answers plain text.
def host_is_loopback(host_header: str | None) -> bool:
    """True for `127.0.0.1:27182`, `localhost`, `[::1]:80`...: DNS rebinding gets a foreign name.

    Parsed exactly: a loopback IP address (`127.0.0.1`, any `127.x.y.z`, `::1` in brackets) or
    `localhost`, then at most a numeric port. A prefix test let `127.attacker.example` and
    `127.0.0.1.nip.io`, names an attacker's DNS can point at 127.0.0.1, through.
    """
    if not host_header:
        return False
    host = host_header.strip().lower()
    port = ""
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return False
        host, port = host[1:end], host[end + 1 :]
        if port and not port.startswith(":"):
            return False
        port = port[1:]
    elif host.count(":") == 1:
        host, port = host.split(":", 1)
    elif ":" in host:
        return host == "::1"  # a bare IPv6 address has no room for a port
    if port and not (port.isascii() and port.isdigit() and len(port) <= 5):
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _header_count(scope: Scope, name: bytes) -> int:
    return sum(1 for key, _ in scope.get("headers", []) if key.lower() == name)


# The largest request body the API reads (4 MiB); the CLI refuses a bigger one before sending.
DEFAULT_MAX_BODY = 4 * 1024 * 1024


# Not FastAPI's HTTPBearer: a route dependency guards only routes that exist, in its own shape.
class GuardMiddleware:
    """Host, Origin, token and body-size checks in front of the whole app."""

    def __init__(self, app: ASGIApp, token: str, max_body_bytes: int) -> None:
        self.app = app
        self.token = token.encode()
        self.max_body = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _header_count(scope, b"host") != 1 or not host_is_loopback(_header(scope, b"host")):
            await send_error(
                send,
                421,
                "bad_host",
                "the bridge only answers requests addressed to a loopback host",
            )
            return
        origin = _header(scope, b"origin")
        if origin is not None and origin not in ALLOWED_ORIGINS:
            await send_error(send, 403, "bad_origin", f"origin {origin!r} is not allowed")
            return
        path: str = scope.get("path", "")
        if scope.get("method") == "OPTIONS" and origin is not None:
            await self.app(scope, receive, send)  # CORS preflight carries no token
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if any(k.lower() in {"token", "access_token", "api_key", "key"} for k in query):
            await send_error(
                send,
                401,
                "token_in_url",
                "send the token in the Authorization header, never in the URL (URLs get logged)",
            )
            return
        if (
            path not in PUBLIC_PATHS
            and not path.startswith(DOC_PATHS)
            and not self._authorised(scope)
        ):
            await send_error(
                send,
                401,
                "unauthorized",
                "missing or wrong bearer token (see the `token` file in the state dir)",
                [(b"www-authenticate", b"Bearer")],
            )
            return
        length = _header(scope, b"content-length")
        if length is not None and length.isdigit():
            if int(length) > self.max_body:
                await send_error(send, 413, "too_large", f"request body over {self.max_body} bytes")
                return
            await self.app(scope, receive, send)
            return
        # No Content-Length (a chunked body): read it here, within the limit, then replay it.
        buffered: list[Message] = []
        seen = 0
        while scope.get("method") in {"POST", "PUT", "PATCH"}:
            message = await receive()
            buffered.append(message)
            if message["type"] != "http.request":
                break
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                await send_error(send, 413, "too_large", f"request body over {self.max_body} bytes")
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(buffered, receive), send)

    def _authorised(self, scope: Scope) -> bool:
        scheme, credential = get_authorization_scheme_param(_header(scope, b"authorization"))
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(credential.encode(), self.token)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A receive callable that first returns the buffered messages, then the real stream."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
