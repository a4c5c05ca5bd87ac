"""How long the dense channel takes to embed a whole vault, as `serve` does it in the background.

    python bench/embed_time.py --vault ~/hub [--threads 1] [--json]

A fresh state dir: the vault is indexed, then every note is planned and embedded on
`--threads` cores (serve uses `embed_threads`, default 1). Reported: notes, passages,
seconds, passages a second, and the process's peak RSS.

`--questions FILE` embeds as `serve` does instead, in its background thread at low priority,
while this thread asks the file's questions (bench/data/hub_questions.json) over and over
through the engine's `search` (tier-2 retrieval, no cache): the latency of answers while the
vault is being embedded, the figure a person opening Obsidian meets in the first minutes.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings


def _while_asking(bridge: Bridge, questions: Path, asked: list[float]) -> dict[str, object]:
    """Embed in the background as `serve` does; ask questions here until it is done."""
    semantic = bridge.semantic
    if semantic is None:
        raise SystemExit("the dense channel is off")
    texts = [q["question"] for q in json.loads(questions.read_text(encoding="utf-8"))["questions"]]
    semantic.start()
    while semantic.state != "ready":
        for text in texts:
            begin = time.perf_counter()
            bridge.engine.search(text, limit=10)
            asked.append((time.perf_counter() - begin) * 1000)
    return semantic.status()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--questions", type=Path, help="ask these while embedding")
    args = parser.parse_args(argv)
    asked: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            vault=args.vault.resolve(), state_dir=Path(tmp), embed_threads=args.threads
        )
        bridge = open_bridge(settings)
        try:
            start = time.perf_counter()
            bridge.sync()
            indexed = time.perf_counter() - start
            start = time.perf_counter()
            if args.questions is None:
                status = bridge.prepare_semantic(embed=True) or {}
            else:
                status = _while_asking(bridge, args.questions, asked)
            seconds = time.perf_counter() - start
        finally:
            bridge.close()
    sections = int(str(status.get("sections", 0)))
    report: dict[str, object] = {
        "notes": status.get("embedded"),
        "passages": sections,
        "languages": status.get("languages"),
        "index_seconds": round(indexed, 1),
        "embed_seconds": round(seconds, 1),
        "while_asking": args.questions is not None,
        "passages_per_second": round(sections / seconds, 1) if seconds else None,
        "threads": args.threads,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    if asked:
        ordered = sorted(asked)
        report["queries_while_embedding"] = {
            "n": len(ordered),
            "p50_ms": round(statistics.median(ordered), 2),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2),
            "max_ms": round(ordered[-1], 2),
        }
    print(json.dumps(report, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
