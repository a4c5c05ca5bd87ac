"""How long the dense channel takes to embed a whole vault, as `serve` does it in the background.

    python bench/embed_time.py --vault ~/hub [--threads 1] [--json]

A fresh state dir: the vault is indexed, then every note is planned and embedded on
`--threads` cores (serve uses `embed_threads`, default 1). Reported: notes, passages,
seconds, passages a second, words embedded a second, and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from bridge.runtime import open_bridge
from bridge.settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
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
            status = bridge.prepare_semantic(embed=True) or {}
            seconds = time.perf_counter() - start
        finally:
            bridge.close()
    sections = int(str(status.get("sections", 0)))
    report = {
        "notes": status.get("embedded"),
        "passages": sections,
        "languages": status.get("languages"),
        "index_seconds": round(indexed, 1),
        "embed_seconds": round(seconds, 1),
        "passages_per_second": round(sections / seconds, 1) if seconds else None,
        "threads": args.threads,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    print(json.dumps(report, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
