"""Tier 2's own CPU time on a scale vault: every answer computed, several passes, medians.

    .venv/bin/python bench/engine_speed.py --root /tmp/vbscale/n10000 --state /tmp/es-after
    PYTHONPATH=/path/to/older/checkout .venv/bin/python bench/engine_speed.py \\
        --root /tmp/vbscale/n10000 --state /tmp/es-before          # a baseline, alternately

`--root` is a vault and its questions made by `bench/scale.py --keep DIR` (`DIR/n10000`). The
bridge opens with its defaults (lifecycle on: answers are recorded as uses and the lifecycle
orders near-equals; no LLM) on its own state dir (a schema change rebuilds it once, not timed).
Each pass asks the same questions with the query caches emptied first, so every answer is a
computed tier-2 answer; the figure is each pass's median thread CPU per query. Run two
checkouts alternately in one session: this machine's speed drifts between runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from bridge.query.cache import QueryCache
from bridge.runtime import open_bridge
from bridge.settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="a scale.py --keep DIR/n<N>")
    parser.add_argument("--state", type=Path, required=True, help="state dir for this checkout")
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args(argv)
    questions = [q[0] for q in json.loads((args.root / "questions.json").read_text())]
    bridge = open_bridge(Settings(vault=args.root / "vault", state_dir=args.state))
    bridge.sync()
    engine = bridge.engine
    for text in questions[:30]:
        engine.search(text)  # first-use costs (resolver, caches of the index) are not tier 2's
    medians = []
    for _ in range(args.passes):
        engine.cache = QueryCache(engine.params.cache_size, engine.params.fuzzy_threshold)
        cpu = []
        for text in questions:
            start = time.thread_time()
            engine.query(text)
            cpu.append((time.thread_time() - start) * 1000)
        medians.append(statistics.median(cpu))
    bridge.close()
    shown = " ".join(f"{m:.2f}" for m in medians)
    print(f"{len(questions)} questions x {args.passes} passes; median CPU ms per pass: {shown}")
    print(f"best pass {min(medians):.2f} ms, median of passes {statistics.median(medians):.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
