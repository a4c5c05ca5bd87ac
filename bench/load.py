"""HTTP under load: fresh questions on an open-loop schedule while an agent and a human write.

    python bench/load.py [--rate 25,50,100,200,300,400] [--duration 30] [--clients 50]
                         [--entries 10000] [--replay-rate 500] [--profile FILE] [--quick] [--json]

Generates a vault with bench/scale.py's generator (`--entries` notes, seeded), writes an empty
config file, and starts the real `vault-bridge serve` on it (temp state dir, port 0; the URL
from `bridge.json`, the token from the state dir). After an unreported warm-up (`--warmup`
seconds at 20 questions/s), one step per `--rate`, each `--duration` seconds, then a
cache-replay step:
- queries: `--clients` keep-alive connections send POST /v1/query on an open-loop schedule
  (bench/openloop.py: latency from the due time, so queueing counts). Every question is a
  different one about a note of the vault (bench/questions.py), never asked before in the run,
  so only the engine (tier 2, or 3-4 without an LLM) can answer it; the tier of every answer is
  counted from the responses;
- meanwhile an agent POSTs /v1/curate/operations (`--batch-ops` ADDs and UPDATEs of its own
  notes, `--batches` batches a second) and a human rewrites a different note on disk every
  `--edit-every` seconds, so the index generation keeps moving under the queries (0 turns
  either off);
- the replay step asks `--replay-questions` questions over and over (the exact cache, tier 0),
  the figure this benchmark used to report, kept as a second row.
Afterwards it waits for the watcher to settle and checks that every ADD is on disk, every
operation applied, every human edit is on disk and found by search, and that the index holds
exactly the vault's notes. Per step it reports the load average and the cores other processes
used (bench/load_report.py); `--profile FILE` runs py-spy on the server during the last step
and says where its API thread spent the time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from load_report import PROFILE_RATE, machine_load, print_report, profile_summary
from openloop import encode_post, open_loop, percentiles
from questions import Question, vault_questions

try:  # the generator of bench/scale.py, wherever it lives
    from scale_vault import SEED, generate
except ImportError:
    from scale import SEED, generate

EXE = Path(sys.executable).with_name("vault-bridge")
PY_SPY = Path(sys.executable).with_name("py-spy")
DEFAULT_RATES = "25,50,100,200,300,400"  # the knee is below 100/s today (docs/benchmarks.md)
WARMUP_RATE = 20.0  # questions a second during the unreported warm-up


@dataclass(frozen=True)
class Server:
    """A running `vault-bridge serve`: where it listens and how to talk to it."""

    proc: subprocess.Popen[bytes]
    host: str
    port: int
    token: str

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def client(self, timeout: float = 60) -> httpx.Client:
        """A synchronous client for the writers and checks (not the query load)."""
        headers = {"Authorization": f"Bearer {self.token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)


@contextmanager
def serve(vault: Path, state: Path, config: Path, log: Path) -> Iterator[Server]:
    """Start `vault-bridge serve`, wait for its `bridge.json`, stop it (SIGINT) on exit."""
    env = {**os.environ, "VAULT_BRIDGE_CONFIG": str(config)}
    command = [str(EXE), "serve", "--vault", str(vault), "--state-dir", str(state), "--port", "0"]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        discovery = state / "bridge.json"
        deadline = time.monotonic() + 300  # a cold index of 100,000 notes takes ~2 minutes
        info: dict[str, Any] = {}
        while info.get("pid") != proc.pid:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
            try:
                info = json.loads(discovery.read_text())
            except (OSError, ValueError):
                info = {}
        token = (state / "token").read_text().strip()
        yield Server(proc, str(info["host"]), int(info["port"]), token)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


# -- the writers -------------------------------------------------------------------------------


@dataclass
class Writers:
    """What the agent and the human did, over all steps (the checks read it at the end)."""

    adds: list[str]
    updates: list[str]
    results: list[dict[str, Any]]
    curate_ms: list[float]
    curate_5xx: int
    edits: list[tuple[str, str]]
    notes_to_edit: list[Path]

    @classmethod
    def empty(cls, vault: Path, seed: int) -> Writers:
        notes = sorted(vault.rglob("*.md"))
        random.Random(seed).shuffle(notes)
        return cls([], [], [], [], 0, [], notes)


def agent(server: Server, w: Writers, per_second: float, ops: int, stop: threading.Event) -> None:
    """Curation batches on a schedule: half ADDs of new notes, half UPDATEs of its earlier ones."""
    with server.client() as http:
        due = time.monotonic()
        while not stop.is_set():
            batch: list[dict[str, Any]] = []
            for _ in range(max(1, ops - ops // 2)):
                n = len(w.adds)
                path = f"agent/load/fact_{n:05d}.md"
                w.adds.append(path)
                batch.append(
                    {
                        "type": "ADD",
                        "path": path,
                        "title": f"Load fact {n}",
                        "narrative": f"Fact {n} from the load agent: marker agentfact{n:05d}q.",
                    }
                )
            for path in w.adds[-2 * len(batch) : -len(batch)][: ops // 2]:
                w.updates.append(path)
                batch.append({"type": "UPDATE", "path": path, "summary": f"Revised {time.time()}"})
            started = time.perf_counter()
            response = http.post(
                "/v1/curate/operations", json={"operations": batch, "author": "agent:load"}
            )
            w.curate_ms.append((time.perf_counter() - started) * 1000)
            if response.status_code >= 500:
                w.curate_5xx += 1
            else:
                w.results.extend(response.json().get("results", []))
            due += 1.0 / per_second
            stop.wait(max(0.0, due - time.monotonic()))


def human(vault: Path, w: Writers, every: float, stop: threading.Event) -> None:
    """An editor saving a note every `every` seconds: the whole file rewritten in place."""
    due = time.monotonic()
    while not stop.is_set() and w.notes_to_edit:
        note = w.notes_to_edit.pop()
        word = f"humanedit{len(w.edits):05d}z"
        text = note.read_text(encoding="utf-8")
        note.write_text(text.rstrip("\n") + f"\n\nA human added {word} here.\n", encoding="utf-8")
        w.edits.append((note.relative_to(vault).as_posix(), word))
        due += every
        stop.wait(max(0.0, due - time.monotonic()))


# -- steps -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One step of the run: these questions, asked at `rate` a second for `duration` seconds."""

    label: str  # "warm-up", "fresh" or "replay"
    questions: list[Question]
    rate: float
    duration: float

    def expected(self) -> list[str | None]:
        """The note each fresh question is about (a replay is not checked)."""
        return [q.path if self.label == "fresh" else None for q in self.questions]


def start_profiler(pid: int, seconds: float, output: Path) -> subprocess.Popen[bytes]:
    """py-spy sampling the server for `seconds`, raw stacks per thread into `output`."""
    # --nonblocking: sampling must not pause the server it measures.
    options = f"--rate {PROFILE_RATE} --format raw --nonblocking --threads --output {output}"
    command = [str(PY_SPY), "record", "--pid", str(pid), "--duration", str(max(1, round(seconds)))]
    return subprocess.Popen(
        [*command, *options.split()], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def run_step(
    server: Server,
    vault: Path,
    writers: Writers,
    step: Step,
    args: argparse.Namespace,
    profile: Path | None = None,
) -> dict[str, Any]:
    """One open-loop run of the step's questions, with the agent and the human writing."""
    raw = [
        encode_post(server.host, server.port, server.token, "/v1/query", {"query": q.text})
        for q in step.questions
    ]
    stop = threading.Event()
    threads = []
    if args.batches > 0:
        agent_args = (server, writers, args.batches, args.batch_ops, stop)
        threads.append(threading.Thread(target=agent, args=agent_args))
    if args.edit_every > 0:
        threads.append(threading.Thread(target=human, args=(vault, writers, args.edit_every, stop)))
    spy = start_profiler(server.proc.pid, step.duration, profile) if profile else None
    out: dict[str, Any] = {"run": step.label}
    with machine_load(server.proc.pid, out):
        for thread in threads:
            thread.start()
        try:
            loop = open_loop(
                server.host,
                server.port,
                raw,
                step.expected(),
                step.rate,
                args.clients,
                args.timeout,
                args.max_lag,
            )
            out.update(asyncio.run(loop).summary())
        finally:
            stop.set()
            for thread in threads:
                thread.join(60)
    if spy is not None:
        spy.wait(60)
    out["distinct_questions"] = len({q.text for q in step.questions})
    out["duration_s"] = step.duration
    return out


def plan_steps(args: argparse.Namespace, rates: list[float], vault: Path) -> list[Step]:
    """The warm-up, one fresh step per rate and the replay step, with their questions.

    The warm-up and fresh steps take consecutive slices of one pool, so no question is asked
    twice in the run; the replay step repeats a few questions of its own.
    """
    warm = round(WARMUP_RATE * args.warmup)
    sizes = [warm, *(round(rate * args.duration) for rate in rates)]
    try:
        pool = vault_questions(vault, sum(sizes) + args.replay_questions, seed=args.seed)
    except ValueError as exc:
        raise SystemExit(f"{exc}: lower --rate or --duration, or raise --entries") from exc
    replay, pool = pool[: args.replay_questions], pool[args.replay_questions :]
    steps = [Step("warm-up", pool[:warm], WARMUP_RATE, args.warmup)] if warm else []
    at = warm
    for rate, size in zip(rates, sizes[1:], strict=True):
        steps.append(Step("fresh", pool[at : at + size], rate, args.duration))
        at += size
    if args.replay_rate > 0:
        count = round(args.replay_rate * args.replay_duration)
        repeated = [replay[i % len(replay)] for i in range(count)]
        steps.append(Step("replay", repeated, args.replay_rate, args.replay_duration))
    return steps


def settle_and_check(server: Server, vault: Path, w: Writers) -> dict[str, Any]:
    """After the load: wait for the index to stop moving, then check vault, writes and index."""
    with server.client() as http:
        last, stable_since = -1, time.monotonic()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            generation = http.get("/v1/status").json()["generation"]
            if generation != last:
                last, stable_since = generation, time.monotonic()
            elif time.monotonic() - stable_since > 2.0:
                break
            time.sleep(0.2)
        statuses = Counter(r.get("status") for r in w.results)
        unsearchable = 0
        for path, word in w.edits:
            found = http.post("/v1/search", json={"query": word, "limit": 3}).json()["sources"]
            on_disk = word in (vault / path).read_text(encoding="utf-8")
            unsearchable += not on_disk or not found or found[0]["path"] != path
        indexed = http.get("/v1/status").json()["notes"]
    return {
        "curate_batches": len(w.curate_ms),
        "curate_ms": percentiles(w.curate_ms),
        "curate_5xx": w.curate_5xx,
        "operations": len(w.adds) + len(w.updates),
        "operation_statuses": dict(statuses),
        "adds_missing": sum(1 for p in w.adds if not (vault / p).is_file()),
        "human_edits": len(w.edits),
        "human_edits_not_searchable": unsearchable,
        "vault_notes": sum(1 for p in vault.rglob("*.md") if ".trash" not in p.parts),
        "indexed_notes": indexed,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Build the vault, start the server, run every step, check; the whole report as data."""
    rates = [float(r) for r in str(args.rate).split(",") if r.strip() and float(r) > 0]
    load_at_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="vb-load-") as tmp:
        root = Path(tmp)
        made = generate(root, args.entries, args.seed, 1)
        vault = root / "vault"
        plans = plan_steps(args, rates, vault)
        config = root / "empty-config.toml"
        config.touch()  # an explicit, empty config: no LLM, defaults everywhere
        writers = Writers.empty(vault, args.seed)
        steps: list[dict[str, Any]] = []
        with serve(vault, root / "state", config, root / "serve.log") as server:
            for i, plan in enumerate(plans):
                profile = args.profile if i == len(plans) - 1 else None
                step = run_step(server, vault, writers, plan, args, profile)
                if plan.label != "warm-up":  # first-use costs (page cache, merges) stay out
                    steps.append(step)
                time.sleep(2)  # the backlog of an overloaded step must not spill into the next
            checks = settle_and_check(server, vault, writers)
    result: dict[str, Any] = {
        "entries": args.entries,
        "vault_files": made["files"],
        "clients": args.clients,
        "duration_s": args.duration,
        "cpus": os.cpu_count(),
        "load_avg_at_start": [round(v, 2) for v in load_at_start],
        "steps": steps,
        "checks": checks,
    }
    if args.profile is not None and args.profile.exists():
        result["profile"] = profile_summary(args.profile, plans[-1].duration)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rate", default=DEFAULT_RATES, help="offered q/s, one step each")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per step")
    parser.add_argument("--warmup", type=float, default=10.0, help="unreported seconds first")
    parser.add_argument("--clients", type=int, default=50, help="keep-alive connections")
    parser.add_argument("--entries", type=int, default=10_000, help="notes in the vault")
    parser.add_argument("--replay-rate", type=float, default=500.0, help="0: no replay step")
    parser.add_argument("--replay-duration", type=float, default=30.0)
    parser.add_argument("--replay-questions", type=int, default=15)
    parser.add_argument("--batches", type=float, default=2.0, help="agent batches/s (0: none)")
    parser.add_argument("--batch-ops", type=int, default=4, help="operations per batch")
    parser.add_argument("--edit-every", type=float, default=0.5, help="s between edits (0: none)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request")
    parser.add_argument("--max-lag", type=float, default=10.0, help="give up sending after")
    parser.add_argument("--profile", type=Path, help="py-spy profile of the last step")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--quick", action="store_true", help="1,000 entries, 5 s steps")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.entries, args.rate, args.duration, args.warmup = 1000, "50,100", 5.0, 3.0
        args.replay_rate, args.replay_duration = 200.0, 5.0
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
