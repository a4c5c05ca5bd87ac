"""What the routes share: the open bridge, the event bus, optional services."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi import Request

from bridge.api.events import EventBus
from bridge.index.graph_cache import GraphCache
from bridge.runtime import Bridge

T = TypeVar("T")


@dataclass
class ApiContext:
    """One per app. `services` holds optional collaborators (curation, reviews) by name."""

    bridge: Bridge
    bus: EventBus
    watching: bool = False
    services: dict[str, Any] = field(default_factory=dict)
    answer_threads: int = 1
    _answers: ThreadPoolExecutor | None = field(default=None, init=False, repr=False)

    @property
    def graph(self) -> GraphCache:
        """The bridge's link graph (`Bridge.graph`), which the ranker reads too."""
        return self.bridge.graph

    async def answer(self, work: Callable[..., T], *args: Any) -> T:
        """Run a question's work on the answer threads, off the event loop.

        An answer is milliseconds of CPU, with the dense channel partly outside the GIL
        (tantivy's searches, the encoder, numpy). On the event loop it would hold up every
        other request (status, the event stream, curation, accepting connections); in
        Starlette's pool of 40 threads, dozens of answers would convoy on the GIL. So a pool of
        its own, one thread by default (`answer_threads`): questions queue for it in arrival
        order and the loop stays free. More threads do not help on a small machine: the Python
        parts of the answers contend for the GIL.
        """
        if self._answers is None:
            self._answers = ThreadPoolExecutor(self.answer_threads, thread_name_prefix="answer")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._answers, functools.partial(work, *args))

    def close(self) -> None:
        """Finish the answers in flight and stop the answer threads."""
        if self._answers is not None:
            self._answers.shutdown(wait=True)


async def get_context(request: Request) -> ApiContext:
    """Async on purpose: FastAPI runs sync dependencies in its thread pool, a hop per request."""
    ctx: ApiContext = request.app.state.ctx
    return ctx
