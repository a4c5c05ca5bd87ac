"""An open-loop HTTP load generator: requests leave on a schedule, latency counts from it.

A closed loop (ask, wait for the answer, ask again) slows down with the server it measures,
so a stalled server is asked less and its stall shows up in few samples (coordinated
omission). Here request i is due at `start + i / rate` whatever happened before; `clients`
keep-alive connections take the due requests in order, and a request's latency runs from its
due time to its answer. When every connection is busy the next request leaves late, and the
wait counts: that is the queueing a user would see.

The client is a minimal HTTP/1.1 keep-alive reader over asyncio streams, not httpx: on a
2-core machine the load generator shares the CPU with the server, and httpx's per-request
Python cost took a whole core at 500 requests/s (it measured itself). Loopback only.
"""

from __future__ import annotations

import asyncio
import json
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


class RawConnection:
    """One keep-alive HTTP/1.1 connection; a response is read by its Content-Length."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        """Send one pre-encoded request and return (status, body)."""
        if self.writer is None or self.reader is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        """Drop the connection (after a timeout its next bytes belong to a dead request)."""
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def encode_post(host: str, port: int, token: str, path: str, payload: dict[str, Any]) -> bytes:
    """A complete POST request as bytes, encoded before the clock starts."""
    body = json.dumps(payload).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


@dataclass
class Outcome:
    """What became of one scheduled request; times in seconds from its due time."""

    latency: float  # due -> answer (or -> given up)
    send_lag: float  # due -> actually sent (waiting for a free connection)
    status: int = 0  # 0: no HTTP answer (timeout, connection error, never sent)
    tier: int | None = None
    server_ms: float | None = None  # the answer's own `latency_ms` (engine time)
    on_target: bool | None = None  # the first source is the note the question was about
    ood: bool = False  # the engine said the memory holds nothing on it
    problem: str = ""  # "timeout", "not_sent", or an exception name


@dataclass
class LoadRun:
    """The outcomes of one schedule, and the wall time from its first due time to its end."""

    rate: float
    outcomes: list[Outcome] = field(default_factory=list)
    elapsed: float = 0.0

    def summary(self) -> dict[str, Any]:
        """Throughput, latency percentiles (ms), statuses, tiers and problems, as plain data."""
        answered = [o for o in self.outcomes if o.status]
        latencies = [o.latency * 1000 for o in self.outcomes]
        server = [o.server_ms for o in answered if o.server_ms is not None]
        service = [(o.latency - o.send_lag) * 1000 for o in answered]
        return {
            "offered_qps": self.rate,
            "scheduled": len(self.outcomes),
            "answered": len(answered),
            "achieved_qps": round(len(answered) / self.elapsed, 1) if self.elapsed else 0.0,
            "latency_ms": percentiles(latencies),
            "send_lag_ms": percentiles([o.send_lag * 1000 for o in self.outcomes]),
            "service_ms": percentiles(service),
            "server_ms": percentiles(server),
            "statuses": dict(sorted(Counter(o.status for o in answered).items())),
            "tiers": dict(sorted(Counter(o.tier for o in answered if o.tier is not None).items())),
            "problems": dict(
                sorted(Counter(o.problem for o in self.outcomes if o.problem).items())
            ),
            "first_source_on_target": sum(1 for o in answered if o.on_target),
            "ood": sum(1 for o in answered if o.ood),
        }


def percentiles(values: Sequence[float]) -> dict[str, float]:
    """p50, p95, p99 (nearest rank) and max, rounded to 0.1 ms; zeros when empty."""
    if not values:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(values)

    def rank(p: float) -> float:
        return round(ordered[max(0, math.ceil(p * len(ordered)) - 1)], 1)

    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": rank(0.95),
        "p99": rank(0.99),
        "max": round(ordered[-1], 1),
    }


def _read_answer(outcome: Outcome, body: bytes, expected: str | None) -> None:
    """Tier, engine latency and first source of a 200 answer, into `outcome`."""
    try:
        data = json.loads(body)
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    tier, server, sources = data.get("tier"), data.get("latency_ms"), data.get("sources")
    outcome.tier = tier if isinstance(tier, int) else None
    outcome.server_ms = float(server) if isinstance(server, int | float) else None
    outcome.ood = data.get("ood") is True
    if expected is not None and isinstance(sources, list):
        first = sources[0] if sources else {}
        outcome.on_target = isinstance(first, dict) and first.get("path") == expected


async def open_loop(
    host: str,
    port: int,
    requests: Sequence[bytes],
    expected: Sequence[str | None],
    rate: float,
    clients: int,
    timeout: float = 10.0,
    max_lag: float = 10.0,
) -> LoadRun:
    """Send `requests[i]` at `start + i / rate` over `clients` connections; time from then.

    `expected[i]` is the note request i asks about (None: not checked).

    A request still unsent `max_lag` seconds after its due time is not sent at all (the server
    is far past its capacity and the backlog would only grow); it counts as `not_sent` with
    its lag as latency, a lower bound, so the percentiles cannot look better for it. A request
    without an answer after `timeout` counts as `timeout` and its connection is replaced.
    """
    loop = asyncio.get_running_loop()
    run = LoadRun(rate)
    run.outcomes = [Outcome(0.0, 0.0) for _ in requests]
    start = loop.time() + 0.2  # every client connected and waiting before the first is due
    cursor = iter(range(len(requests)))  # shared: the next due request goes to a free client

    async def client() -> None:
        connection = RawConnection(host, port)
        try:
            for i in cursor:
                due = start + i / rate
                delay = due - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                sent = loop.time()
                outcome = run.outcomes[i]
                outcome.send_lag = sent - due
                if outcome.send_lag > max_lag:
                    outcome.latency, outcome.problem = outcome.send_lag, "not_sent"
                    continue
                try:
                    status, body = await asyncio.wait_for(connection.request(requests[i]), timeout)
                except TimeoutError:
                    outcome.problem = "timeout"
                    connection.close()
                except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                    outcome.problem = type(exc).__name__
                    connection.close()
                else:
                    outcome.status = status
                    if status == 200:
                        _read_answer(outcome, body, expected[i])
                outcome.latency = loop.time() - due
        finally:
            connection.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    run.elapsed = loop.time() - start
    return run
