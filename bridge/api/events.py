"""A small in-process event bus: writers publish from any thread, SSE clients listen.

Events: `index.generation` (after each index commit, with the changed paths),
`entry.changed`, `review.added`, `review.changed`. Slow listeners lose old events rather than
block publishers (each subscription keeps at most `maxsize` events).
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """One thing that happened, as sent to `/v1/events`."""

    id: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)


class EventBus:
    """Thread-safe publish; asyncio-queue subscriptions for the HTTP server's event loop."""

    def __init__(self, maxsize: int = 256) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Event]]] = []
        self._ids = itertools.count(1)
        self._maxsize = maxsize

    def publish(self, type_: str, **data: Any) -> Event:
        """Send an event to every subscriber (safe from any thread)."""
        event = Event(next(self._ids), type_, data)
        with self._lock:
            subscribers = list(self._subscribers)
        for loop, queue in subscribers:
            try:
                loop.call_soon_threadsafe(_offer, queue, event)
            except RuntimeError:  # the loop is closed: the client is gone
                self._drop(queue)
        return event

    @contextmanager
    def subscribe(self) -> Iterator[asyncio.Queue[Event]]:
        """A queue of events for the current event loop, removed on exit."""
        queue: asyncio.Queue[Event] = asyncio.Queue(self._maxsize)
        entry = (asyncio.get_running_loop(), queue)
        with self._lock:
            self._subscribers.append(entry)
        try:
            yield queue
        finally:
            self._drop(queue)

    def _drop(self, queue: asyncio.Queue[Event]) -> None:
        with self._lock:
            self._subscribers = [s for s in self._subscribers if s[1] is not queue]

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)


def _offer(queue: asyncio.Queue[Event], event: Event) -> None:
    if queue.full():
        queue.get_nowait()  # drop the oldest: a stalled client must not grow memory
    queue.put_nowait(event)
