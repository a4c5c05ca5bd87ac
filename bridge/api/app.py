"""The FastAPI application: routes, error shape, CORS and the security guard."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from bridge import __version__
from bridge.api import (
    errors,
    routes_curate,
    routes_events,
    routes_guide,
    routes_overviews,
    routes_read,
    routes_similar,
)
from bridge.api.context import ApiContext
from bridge.api.events import EventBus
from bridge.api.models import error_responses
from bridge.api.security import ALLOWED_ORIGINS, DEFAULT_MAX_BODY, GuardMiddleware
from bridge.runtime import Bridge


def create_app(
    bridge: Bridge,
    token: str,
    bus: EventBus | None = None,
    watching: bool = False,
    max_body_bytes: int = DEFAULT_MAX_BODY,
) -> FastAPI:
    """An app serving one bridge. Index commits are published on the bus as they happen."""
    app = FastAPI(
        title="Vault Bridge",
        version=__version__,
        description="Agent-native memory in an Obsidian vault. Bearer token on every route "
        "but /v1/health; loopback only.",
        # The guard answers these on any route, before the route runs.
        responses=error_responses(403, 413, 421),
    )
    bus = bus or EventBus()
    ctx = ApiContext(
        bridge=bridge,
        bus=bus,
        watching=watching,
        answer_threads=bridge.settings.answer_threads,
    )
    app.state.ctx = ctx

    def on_commit(generation: int, paths: list[str]) -> None:
        # The changed entries first, then the generation that closes the batch.
        for path in paths[:200]:
            bus.publish("entry.changed", path=path, generation=generation)
        bus.publish("index.generation", generation=generation, changed=len(paths))

    bridge.index.add_commit_listener(on_commit)
    errors.install(app)
    app.include_router(routes_read.public)
    app.include_router(routes_read.router)
    app.include_router(routes_curate.router)
    app.include_router(routes_events.router)
    app.include_router(routes_overviews.router)
    app.include_router(routes_guide.router)
    app.include_router(routes_similar.router)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=list(ALLOWED_ORIGINS),
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type"],
        max_age=600,
    )
    # Outermost: refuse before anything else runs.
    app.add_middleware(GuardMiddleware, token=token, max_body_bytes=max_body_bytes)
    return app


def context(app: FastAPI) -> ApiContext:
    ctx: ApiContext = app.state.ctx
    return ctx
