"""`/v1/events`: server-sent events, so the plugin updates live without polling."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from bridge.api.context import ApiContext
from bridge.api.events import Event
from bridge.api.models import error_responses

router = APIRouter(prefix="/v1", responses=error_responses(401))
HEARTBEAT_S = 15.0


def _frame(event: Event) -> str:
    return f"id: {event.id}\nevent: {event.type}\ndata: {json.dumps(event.data)}\n\n"


@router.get(
    "/events",
    tags=["events"],
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def events(request: Request) -> StreamingResponse:
    """`review.added`, `review.changed`, `entry.changed`, `index.generation` as they happen.

    A comment line every 15 s keeps proxies and the plugin's connection alive.
    """
    ctx: ApiContext = request.app.state.ctx

    async def stream() -> AsyncIterator[str]:
        with ctx.bus.subscribe() as queue:
            hello = Event(0, "hello", {"generation": ctx.bridge.index.generation})
            yield "retry: 3000\n" + _frame(hello)
            while not await request.is_disconnected():
                try:
                    event = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
                except TimeoutError:
                    yield ": ping\n\n"
                    continue
                yield _frame(event)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)
