"""What the routes share: the open bridge, the event bus, optional services."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from bridge.api.graph import GraphCache
from bridge.events import EventBus
from bridge.runtime import Bridge


@dataclass
class ApiContext:
    """One per app. `services` holds optional collaborators (curation, reviews) by name."""

    bridge: Bridge
    bus: EventBus
    graph: GraphCache
    watching: bool = False
    services: dict[str, Any] = field(default_factory=dict)


async def get_context(request: Request) -> ApiContext:
    """Async on purpose: FastAPI runs sync dependencies in its thread pool, a hop per request."""
    ctx: ApiContext = request.app.state.ctx
    return ctx
