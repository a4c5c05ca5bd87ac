"""A tier-2 answer's time beside its floor: the question's embedding and one BM25 search.

    .venv/bin/python bench/tier2_floor.py --vault ~/hub --state DIR [--rounds 3] [--json]

The vault's bridge with its defaults (the dense channel on, every note embedded, lifecycle
on, no LLM), the real-vault questions of `bench/data/<questions>` asked through
`QueryEngine.search` (tier-2 retrieval: candidates, features, the ranker, the word budget;
no cache, nothing recorded). The floor, measured on the same questions in the same loop,
alternately: the question embedded by the same model, then one BM25 search of the entry index
for its words (top 10) — what no tier-2 answer can be faster than. Medians over every
question and round, wall clock, one question at a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from bridge.core.text import normalise_query
    from bridge.index.analysis import query_terms
    from bridge.runtime import open_bridge
    from bridge.settings import Settings

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--questions", type=Path, default=ROOT / "bench/data/hub_questions.json")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = json.loads(args.questions.read_text(encoding="utf-8"))
    questions = [q["question"] for q in data["questions"]]
    bridge = open_bridge(Settings(vault=args.vault, state_dir=args.state, cache_size=0))
    try:
        bridge.sync()
        bridge.prepare_semantic(embed=True)
        semantic = bridge.semantic
        assert semantic is not None, "the dense channel is off"
        engine = bridge.engine
        for q in questions[:5]:  # warm: model, detector, page cache
            engine.search(q)
        answer: list[float] = []
        floor: list[float] = []
        for _ in range(args.rounds):
            for q in questions:
                terms = query_terms(normalise_query(q))
                start = time.perf_counter()
                semantic.embedder.embed([q], "query")
                bridge.index.search_entries(terms, 10)
                floor.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                engine.search(q)
                answer.append((time.perf_counter() - start) * 1000)
    finally:
        bridge.close()
    result: dict[str, Any] = {
        "questions": len(questions),
        "rounds": args.rounds,
        "tier2_p50_ms": round(statistics.median(answer), 2),
        "floor_p50_ms": round(statistics.median(floor), 2),
    }
    result["ratio"] = round(result["tier2_p50_ms"] / result["floor_p50_ms"], 2)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"tier 2 p50 {result['tier2_p50_ms']} ms, floor p50 {result['floor_p50_ms']} ms "
            f"(embedding + one BM25 search): {result['ratio']}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
