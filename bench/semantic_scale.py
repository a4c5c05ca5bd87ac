"""The dense channel at scale: memory and tier-2 time with every note's vectors loaded.

    python bench/semantic_scale.py --entries 100000 --keep DIR [--queries 300] [--json]

The synthetic vault of bench/scale.py (same generator and seed) is indexed, and every note is
planned into its real passages. Embedding 100,000 notes takes hours on two cores, so their
vectors are **random unit vectors** stored under the real passage keys: memory and search
time do not depend on the values, only on how many there are (the figures say so). Then, in
fresh child processes so each peak RSS is its own: the bridge opened on the warm index, the
vectors loaded into memory, the model loaded, and the bench's questions asked through
`search` (tier-2 retrieval) with the dense channel on; and the same with `embed_model = off`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np


def fill(root: Path) -> dict[str, Any]:
    """Index the vault, plan every note and store a random vector per passage."""
    from bridge.runtime import open_bridge
    from bridge.semantic.planner import units_of
    from bridge.settings import Settings

    bridge = open_bridge(Settings(vault=root / "vault", state_dir=root / "state"))
    try:
        start = time.perf_counter()
        bridge.sync()
        semantic = bridge.semantic
        assert semantic is not None
        semantic.load()
        records = bridge.index.all_records()
        rng = np.random.default_rng(7)
        passages = 0
        for first in range(0, len(records), 1000):
            plans = [semantic.planner.fresh(rec) for rec in records[first : first + 1000]]
            keys = [p.key for plan in plans for p in plan.passages]
            vectors = rng.standard_normal((len(keys), semantic.identity.dim)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            semantic.store.save(
                [units_of(plan) for plan in plans], dict(zip(keys, vectors, strict=True))
            )
            passages += len(keys)
        return {"notes": len(records), "passages": passages, "seconds": time.perf_counter() - start}
    finally:
        bridge.close()


def measure(root: Path, dense: bool, queries: int) -> dict[str, Any]:
    """One child's figures: open, load the vectors, ask; peak RSS."""
    from bridge.runtime import open_bridge
    from bridge.settings import Settings

    settings: dict[str, Any] = {} if dense else {"embed_model": "off"}
    start = time.perf_counter()
    bridge = open_bridge(Settings(vault=root / "vault", state_dir=root / "state", **settings))
    bridge.sync()
    bridge.prepare_semantic(embed=False)
    ready = time.perf_counter() - start
    questions = [q[0] for q in json.loads((root / "questions.json").read_text())][:queries]
    times = []
    for text in questions:
        begin = time.perf_counter()
        bridge.engine.search(text, limit=10)
        times.append((time.perf_counter() - begin) * 1000)
    status = bridge.semantic_status()
    bridge.close()
    peak = int(Path("/proc/self/status").read_text().split("VmHWM:")[1].split()[0]) // 1024
    ordered = sorted(times)
    return {
        "dense": dense,
        "open_and_load_seconds": round(ready, 1),
        "passages_in_memory": status.get("sections"),
        "p50_ms": round(statistics.median(ordered), 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2),
        "peak_rss_mb": peak,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", choices=("fill", "dense", "lexical"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = args.keep / f"n{args.entries}"
    if args.child:
        out = (
            fill(root)
            if args.child == "fill"
            else measure(root, args.child == "dense", args.queries)
        )
        print(json.dumps(out))
        return 0
    from scale import SEED, prepare

    scale_args = argparse.Namespace(seed=SEED, queries=args.queries)
    prepare(args.entries, scale_args, root, lambda line: print(line, file=sys.stderr))
    report: dict[str, Any] = {"entries": args.entries, "vectors": "random unit vectors"}
    for child in ("fill", "dense", "lexical"):
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--entries",
                str(args.entries),
                "--keep",
                str(args.keep),
                "--queries",
                str(args.queries),
                "--child",
                child,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        report[child] = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(report, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
