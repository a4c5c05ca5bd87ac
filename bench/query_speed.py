"""The query engine's own time on LoCoMo: per-query thread CPU and wall time, medians.

    .venv/bin/python bench/query_speed.py --data ../shared/bench/locomo/locomo_dev.json
    PYTHONPATH=/path/to/older/checkout .venv/bin/python bench/query_speed.py ...   # a baseline

Every dev question, scoped to its conversation, budget 500, limit 100, on the imported vault;
an engine with the lifecycle's uses off (`StatusOnlyLifecycle`: no access recorded, so the
order of questions does not matter), caches on (each question is asked once per round, so
they answer nothing but the odd tier-1 match), no LLM. Three rounds, a fresh engine each; the
1-minute load average is printed beside each round because the machine may be busy. Run it
alternately on two checkouts to compare them in one session.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

# `bench.locomo` from this checkout; `bridge` from PYTHONPATH when given (an older checkout).
sys.path.append(str(Path(__file__).resolve().parents[1]))

from bench.locomo_common import imported, load
from bridge.query.engine import QueryEngine
from bridge.query.lifecycle import StatusOnlyLifecycle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="LoCoMo JSON (the dev split)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    data, _, questions = load(args.data)
    with imported(data) as bridge:
        for n in range(1, args.rounds + 1):
            engine = QueryEngine(bridge.index, StatusOnlyLifecycle(), bridge.engine.params)
            cpu: list[float] = []
            wall: list[float] = []
            for q in questions:
                scope = f"conversations/{q.conversation}"
                c, t = time.thread_time(), time.perf_counter()
                engine.query(q.text, budget_words=500, limit=100, scope=scope)
                cpu.append((time.thread_time() - c) * 1000)
                wall.append((time.perf_counter() - t) * 1000)
            print(
                f"round {n}: {len(questions)} queries, p50 CPU {statistics.median(cpu):.2f} ms, "
                f"wall {statistics.median(wall):.2f} ms, load {os.getloadavg()[0]:.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
