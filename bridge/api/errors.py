"""Errors as JSON `{error: {code, message}}` with the right status, never an HTML page.

An error body never says where the vault or the state lives on disk: messages name vault
paths (`a/b.md`), and `private` removes any absolute path of the vault or state dir that an
exception's text still carries. A failure nobody foresaw is a 500 that names only the kind of
error (the traceback goes to the bridge's log), and the client keeps its connection.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bridge.api.security import send_error
from bridge.core.paths import UnsafePathError

log = logging.getLogger("bridge.api")

_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid",
    503: "unavailable",
}


class ApiError(Exception):
    """An error a route raises on purpose: status, machine code, human message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def error(status: int, code: str, message: str) -> JSONResponse:
    # A message may quote what the client sent; a lone surrogate in it has no UTF-8 form and
    # turned a 422 into a 500 while the answer was encoded.
    shown = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return JSONResponse({"error": {"code": code, "message": shown}}, status_code=status)


def private(message: str, places: Sequence[Path]) -> str:
    """`message` without the absolute `places`: `/home/ana/Notes/a/b.md` becomes `a/b.md`."""
    for place in sorted({str(p) for p in places}, key=len, reverse=True):
        message = message.replace(place + "/", "").replace(place, "<private>")
    return message


def _places(request: Request) -> list[Path]:
    settings = request.app.state.ctx.bridge.settings
    return [settings.vault_path, settings.state_path]


def internal_message(exc: BaseException) -> str:
    """What a 500 says: the kind of error, never its text (it may name files on disk)."""
    return f"internal error ({type(exc).__name__}); the bridge's log has the details"


class CrashGuard:
    """Innermost middleware: an exception no route turned into an answer becomes a 500.

    Starlette answers an unhandled exception and then raises it again for the server to log,
    and uvicorn then drops the keep-alive connection, so the client's next request is reset.
    So the traceback is logged here and the request ends normally; only an exception after
    the answer started (a stream) is left to the server.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            if started:
                raise
            log.exception("%s %s failed", scope.get("method"), scope.get("path"))
            await send_error(send, 500, "internal", internal_message(exc))


_UNPARSED = "There was an error parsing the body"


def _flat(routes: Sequence[BaseRoute]) -> Iterator[BaseRoute]:
    """Every route, those of included routers too (FastAPI wraps them)."""
    for route in routes:
        inner = getattr(getattr(route, "original_router", None), "routes", None)
        if inner is None:
            yield route
        else:
            yield from _flat(inner)


def allowed_methods(app: FastAPI, scope: Scope) -> str:
    """Every method some route takes at this path, for a 405's `Allow`.

    Trigger: Starlette names only the first route that matched the path, so `OPTIONS
    /v1/lifecycle/decay` answered `Allow: GET` (of `/lifecycle/{path}`) without the route's
    own POST.
    """
    methods: set[str] = set()
    for route in _flat(app.router.routes):
        match, _ = route.matches(scope)  # PARTIAL: the path matches, the method does not
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    methods.discard("HEAD")
    return ", ".join(sorted(methods))


def _describe(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        if err.get("type") == "json_invalid":
            detail = err.get("ctx", {}).get("error", "")
            return f"the body is not valid JSON{': ' + str(detail) if detail else ''}"
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        parts.append(f"{where or 'body'}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into the JSON error shape."""

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError) -> JSONResponse:
        return error(exc.status, exc.code, private(exc.message, _places(request)))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and exc.detail == _UNPARSED:
            # FastAPI's answer to a body it cannot decode (not UTF-8): a 400 no route declared,
            # while a JSON syntax error is a 422. Outcome: both are the 422 they are.
            return error(422, "invalid", "the body is not valid JSON: it is not UTF-8 text")
        code = _CODES.get(exc.status_code, "error")
        answer = error(exc.status_code, code, private(str(exc.detail), _places(request)))
        answer.headers.update(exc.headers or {})  # 405's `Allow`, 401's `WWW-Authenticate`
        if exc.status_code == 405:
            answer.headers["Allow"] = allowed_methods(request.app, request.scope)
        return answer

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error(422, "invalid", private(_describe(exc), _places(request)))

    @app.exception_handler(UnsafePathError)
    async def _path(request: Request, exc: UnsafePathError) -> JSONResponse:
        return error(400, "bad_path", private(str(exc), _places(request)))

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:  # pragma: no cover - last resort
        return error(500, "internal", internal_message(exc))

    app.add_middleware(CrashGuard)
