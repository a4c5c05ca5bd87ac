"""Load: many HTTP clients querying while an agent curates and a human edits, all at once.

    python bench/load.py [--clients 50] [--seconds 60] [--operations 1000] [--edits 200] [--json]

Starts a real `vault-bridge serve` (uvicorn, watcher, writer) on a temp copy of the template
vault plus generated notes, on a free loopback port. Then, at the same time:
- `--clients` asyncio clients POST /v1/query for `--seconds`, each `--rate` questions a second on
  a fixed schedule (open loop; `--rate 0` asks again as soon as an answer arrives), from a
  rotating set of questions; the index generation keeps changing under them, so the caches are
  invalidated often;
- an agent sends `--operations` curation operations in batches of 10 (ADDs, then UPDATEs of
  its own notes, which apply at once);
- a "human" appends a unique line to `--edits` notes on disk, spread over the run.
Afterwards it waits for the watcher to settle and checks that every operation is in the vault,
every human edit is on disk and searchable, the index holds exactly the vault's notes, and no
request failed with a 5xx. Loopback only; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
EXE = Path(sys.executable).with_name("vault-bridge")
QUESTIONS = [
    "How long do JWT access tokens live?",
    "refund window for annual plans",
    "deploy rollback",
    "who is on call this week",
    "failed payments retries",
    "code review approvals needed",
    "dev setup python version",
    "database migrations lock timeout",
    "team plan seat minimum",
    "google sso domain",
    "session refresh cookie",
    "subscription renewal entitlements",
    "CI pipeline shards",
    "signing key rotation",
    "incident severity acknowledgement",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def build_vault(root: Path, extra: int) -> Path:
    vault = root / "vault"
    shutil.copytree(ROOT / "vault-template", vault)
    rng = random.Random(7)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "kappa",
        "sigma",
        "omega",
        "vector",
        "matrix",
        "cache",
        "queue",
        "shard",
    ]
    for i in range(extra):
        folder = vault / f"generated/topic_{i % 25:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = " ".join(rng.choice(words) for _ in range(120))
        (folder / f"note_{i:04d}.md").write_text(
            f"---\ntitle: Generated {i}\nstatus: stable\nauthor: human\n---\n# Generated {i}\n\n"
            f"## Narrative\n{body}\n"
        )
    return vault


def start_server(vault: Path, state: Path, port: int) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen(
        [str(EXE), "serve", "--vault", str(vault), "--state-dir", str(state), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("serve did not start")


class RawConnection:
    """A minimal HTTP/1.1 keep-alive client for the load loop.

    Why not httpx: its per-request cost in Python took a whole core at 500 requests/s, so the
    benchmark measured the client, not the server. Requests are pre-encoded bytes; a response is
    read by its Content-Length. Only for this loopback benchmark.
    """

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, raw: bytes) -> tuple[int, bytes]:
        if self.writer is None or self.reader is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        body = await self.reader.readexactly(length)
        return status, body

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def encode_query(host: str, port: int, token: str, question: str) -> bytes:
    body = json.dumps({"query": question}).encode()
    head = (
        f"POST /v1/query HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


_TIER = re.compile(rb'"tier":\s*(\d)')


async def query_clients(
    url: str, token: str, clients: int, seconds: float, rate: float
) -> dict[str, Any]:
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    tiers: dict[int, int] = {}
    stop_at = time.monotonic() + seconds
    parsed = httpx.URL(url)
    host, port = str(parsed.host), int(parsed.port or 80)
    requests = [encode_query(host, port, token, q) for q in QUESTIONS]

    async def client(n: int) -> None:
        connection = RawConnection(host, port)
        i = n
        interval = 1.0 / rate if rate > 0 else 0.0
        next_at = time.monotonic() + random.random() * interval  # spread the clients out
        try:
            while time.monotonic() < stop_at:
                if interval:
                    # Open loop: ask on schedule, whatever the last answer took (a slow server
                    # is not given a rest by its clients).
                    delay = next_at - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                    next_at += interval
                raw = requests[i % len(requests)]
                i += 1
                start = time.perf_counter()
                status, body = await connection.request(raw)
                latencies.append((time.perf_counter() - start) * 1000)
                statuses[status] = statuses.get(status, 0) + 1
                found = _TIER.search(body)
                if status == 200 and found:
                    tier = int(found.group(1))
                    tiers[tier] = tiers.get(tier, 0) + 1
        finally:
            connection.close()

    started = time.monotonic()
    await asyncio.gather(*(client(n) for n in range(clients)))
    elapsed = time.monotonic() - started
    ordered = sorted(latencies)
    return {
        "requests": len(latencies),
        "qps": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(ordered), 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2),
        "statuses": statuses,
        "tiers": tiers,
    }


def agent(url: str, token: str, operations: int, out: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    results: list[dict[str, Any]] = []
    server_errors = 0
    adds = operations // 2
    ops: list[dict[str, Any]] = []
    for i in range(adds):
        ops.append(
            {
                "type": "ADD",
                "path": f"agent/notes/fact_{i:04d}.md",
                "title": f"Fact {i}",
                "narrative": f"Agent fact number {i}: token aglo{i:04d}x is recorded.",
            }
        )
    for i in range(operations - adds):
        ops.append(
            {
                "type": "UPDATE",
                "path": f"agent/notes/fact_{i % adds:04d}.md",
                "summary": f"Updated summary {i}",
            }
        )
    with httpx.Client(base_url=url, headers=headers, timeout=120) as http:
        for start in range(0, len(ops), 10):
            body = {"operations": ops[start : start + 10], "author": "agent:load"}
            response = http.post("/v1/curate/operations", json=body)
            if response.status_code >= 500:
                server_errors += 1
                continue
            results.extend(response.json()["results"])
    out.update(results=results, server_errors=server_errors, ops=ops)


def human(vault: Path, edits: int, seconds: float, out: dict[str, Any]) -> None:
    notes = sorted(p for p in (vault / "generated").rglob("*.md"))
    rng = random.Random(11)
    chosen = rng.sample(notes, min(edits, len(notes)))
    done: list[tuple[str, str]] = []
    pause = seconds * 0.8 / max(1, len(chosen))
    for i, note in enumerate(chosen):
        word = f"humanedit{i:04d}z"
        with note.open("a") as handle:  # an editor appending a line
            handle.write(f"\nA human added {word} here.\n")
        done.append((note.relative_to(vault).as_posix(), word))
        time.sleep(pause)
    out.update(edits=done)


def verify(
    url: str, token: str, vault: Path, agent_out: dict[str, Any], human_out: dict[str, Any]
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
        # Wait until the watcher has settled: the generation stops moving.
        last, stable_since = -1, time.monotonic()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            generation = http.get("/v1/status").json()["generation"]
            if generation != last:
                last, stable_since = generation, time.monotonic()
            elif time.monotonic() - stable_since > 2.0:
                break
            time.sleep(0.2)
        statuses = [r["status"] for r in agent_out["results"]]
        missing_ops = sum(
            1
            for op in agent_out["ops"]
            if op["type"] == "ADD" and not (vault / op["path"]).is_file()
        )
        unsearchable = 0
        for path, word in human_out["edits"]:
            on_disk = word in (vault / path).read_text()
            found = http.post("/v1/search", json={"query": word, "limit": 3}).json()["sources"]
            if not on_disk or not found or found[0]["path"] != path:
                unsearchable += 1
        files = sum(
            1
            for p in vault.rglob("*.md")
            if ".obsidian" not in p.parts and "templates" not in p.parts and ".trash" not in p.parts
        )
        indexed = http.get("/v1/status").json()["notes"]
    return {
        "operations": len(statuses),
        "applied": statuses.count("applied"),
        "pending_review": statuses.count("pending_review"),
        "failed": statuses.count("failed"),
        "added_notes_missing": missing_ops,
        "human_edits": len(human_out["edits"]),
        "human_edits_not_searchable": unsearchable,
        "vault_notes": files,
        "indexed_notes": indexed,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        vault = build_vault(root, args.generated)
        state = root / "state"
        proc, url = start_server(vault, state, free_port())
        token = (state / "token").read_text().strip()
        try:
            agent_out: dict[str, Any] = {}
            human_out: dict[str, Any] = {}
            threads = [
                threading.Thread(target=agent, args=(url, token, args.operations, agent_out)),
                threading.Thread(target=human, args=(vault, args.edits, args.seconds, human_out)),
            ]
            for thread in threads:
                thread.start()
            load = asyncio.run(query_clients(url, token, args.clients, args.seconds, args.rate))
            for thread in threads:
                thread.join(args.seconds * 5)
            checks = verify(url, token, vault, agent_out, human_out)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    server_errors = sum(n for code, n in load["statuses"].items() if code >= 500)
    return {
        "clients": args.clients,
        "seconds": args.seconds,
        "cpus": os.cpu_count(),
        "query": load,
        "curate_5xx": agent_out.get("server_errors", 0),
        "query_5xx": server_errors,
        "checks": checks,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--rate",
        type=float,
        default=10.0,
        help="questions per second per client (0: as fast as answers come back)",
    )
    parser.add_argument("--operations", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--generated", type=int, default=500, help="extra notes in the vault")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    q, c = result["query"], result["checks"]
    pace = f"{args.rate:g}/s each" if args.rate else "closed loop"
    table = Table(title=f"{args.clients} clients ({pace}), {args.seconds:.0f} s, loopback")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for label, value in [
        ("queries", q["requests"]),
        ("queries/s", q["qps"]),
        ("p50 ms", q["p50_ms"]),
        ("p99 ms", q["p99_ms"]),
        ("tiers", q["tiers"]),
        ("query 5xx", result["query_5xx"]),
        ("curate 5xx", result["curate_5xx"]),
        ("operations applied", c["applied"]),
        ("operations failed", c["failed"]),
        ("added notes missing", c["added_notes_missing"]),
        ("human edits", c["human_edits"]),
        ("human edits not searchable", c["human_edits_not_searchable"]),
        ("notes in vault / indexed", f"{c['vault_notes']} / {c['indexed_notes']}"),
    ]:
        table.add_row(label, str(value))
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
