"""Tier 2's own CPU time on a scale vault: every answer computed, several passes, medians.

    .venv/bin/python bench/engine_speed.py --root /tmp/vbscale/n10000 --state /tmp/es-after
    PYTHONPATH=/path/to/older/checkout .venv/bin/python bench/engine_speed.py \\
        --root /tmp/vbscale/n10000 --state /tmp/es-before          # a baseline, alternately
    .venv/bin/python bench/engine_speed.py --root /tmp/vbscale/n10000 --state /tmp/es \\
        --processes 1,2                                            # what a second core gives

`--root` is a vault and its questions made by `bench/scale.py --keep DIR` (`DIR/n10000`). The
bridge opens with its defaults (lifecycle on: answers are recorded as uses and the lifecycle
orders near-equals; no LLM) on its own state dir (a schema change rebuilds it once, not timed).
Each pass asks the same questions with the query caches emptied first, so every answer is a
computed tier-2 answer; the figure is each pass's median thread CPU per query. Run two
checkouts alternately in one session: this machine's speed drifts between runs.

`--processes 1,2` measures throughput instead: for each count N, N processes (each its own
bridge on its own copy of the state dir, as the bridge allows one per state dir) start
together and ask every question once per pass; the figure is all their answers over the
wall time from the common start to the last one's end. No HTTP, no writers: the ceiling of
answering in N processes on this machine, not what a server would reach.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bridge.query.cache import QueryCache
from bridge.runtime import open_bridge
from bridge.settings import Settings


def _questions(root: Path) -> list[str]:
    return [q[0] for q in json.loads((root / "questions.json").read_text())]


def _asked(root: Path, state: Path, passes: int, start_at: float | None) -> dict[str, float]:
    """Open a warm bridge, then ask every question once a pass with the caches emptied."""
    questions = _questions(root)
    bridge = open_bridge(Settings(vault=root / "vault", state_dir=state))
    bridge.sync()
    engine = bridge.engine
    for text in questions[:30]:
        engine.search(text)  # first-use costs (resolver, caches of the index) are not tier 2's
    if start_at is not None:
        while time.time() < start_at:
            time.sleep(0.005)
    begun = time.time()
    medians = []
    for _ in range(passes):
        engine.cache = QueryCache(engine.params.cache_size, engine.params.fuzzy_threshold)
        cpu = []
        for text in questions:
            start = time.thread_time()
            engine.query(text)
            cpu.append((time.thread_time() - start) * 1000)
        medians.append(statistics.median(cpu))
    ended = time.time()
    bridge.close()
    return {
        "answers": float(len(questions) * passes),
        "begun": begun,
        "ended": ended,
        "best": min(medians),
        "median": statistics.median(medians),
        **{f"pass{i}": m for i, m in enumerate(medians)},
    }


def _throughput(args: argparse.Namespace, counts: list[int]) -> None:
    """N processes at once, each on its own copy of the state dir; answers per wall second."""
    bridge = open_bridge(Settings(vault=args.root / "vault", state_dir=args.state))
    bridge.sync()  # an index to copy (built once if missing or of another schema)
    bridge.close()
    for n in counts:
        copies = []
        for i in range(n):
            copy = args.state.with_name(f"{args.state.name}-p{i}")
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(args.state, copy)
            copies.append(copy)
        start_at = time.time() + 15 + 5 * n  # after every child has opened its bridge
        children = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--root",
                    str(args.root),
                    "--state",
                    str(copy),
                    "--passes",
                    str(args.passes),
                    "--child",
                    str(start_at),
                ],
                stdout=subprocess.PIPE,
            )
            for copy in copies
        ]
        runs = [json.loads(child.communicate()[0]) for child in children]
        late = [r for r in runs if r["begun"] > start_at + 1]
        answers = sum(r["answers"] for r in runs)
        wall = max(r["ended"] for r in runs) - start_at
        per = " ".join(f"{r['answers'] / (r['ended'] - r['begun']):.0f}" for r in runs)
        cpu = " ".join(f"{r['median']:.2f}" for r in runs)
        note = f" ({len(late)} started late)" if late else ""
        print(
            f"{n} process(es): {answers / wall:.0f} answers/s together over {wall:.1f} s "
            f"(each: {per}/s; median CPU ms a query: {cpu}){note}"
        )
        for copy in copies:
            shutil.rmtree(copy, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="a scale.py --keep DIR/n<N>")
    parser.add_argument("--state", type=Path, required=True, help="state dir for this checkout")
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--processes", help="throughput of N processes at once: 1,2")
    parser.add_argument("--child", type=float, help=argparse.SUPPRESS)  # start time, internal
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(_asked(args.root, args.state, args.passes, args.child)))
        return 0
    if args.processes:
        _throughput(args, [int(n) for n in args.processes.split(",")])
        return 0
    run = _asked(args.root, args.state, args.passes, None)
    medians = [run[f"pass{i}"] for i in range(args.passes)]
    shown = " ".join(f"{m:.2f}" for m in medians)
    asked = len(_questions(args.root))
    print(f"{asked} questions x {args.passes} passes; median CPU ms per pass: {shown}")
    print(f"best pass {run['best']:.2f} ms, median of passes {run['median']:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
