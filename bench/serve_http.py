"""A real vault through `serve` over HTTP: tier-2 answers in the first minute and after.

    python bench/serve_http.py --vault ~/hub --state DIR [--set KEY=VALUE ...]
                               [--questions 220] [--json]

Starts the real `vault-bridge serve` on the vault with the state dir given (keep one between
runs: the index and the vectors are then warm, as on a person's machine where Obsidian starts
the bridge), and the moment it answers asks `--questions` fresh questions spread evenly over
its first minute, then as many others over the minute after the next one (seconds 120-180).
One question at a time, each on the same keep-alive connection (the plugin's way), timed by
the client from sending to the last byte of the answer. The questions are bench/questions.py's
(a note's title words and a rare word of its body, no two with the same search terms), so
no cache answers one: every answer is the engine's tier 2 (or the out-of-domain answer).
`--set embed_model=off` measures lexical only; the table says what was on. `--profile FILE`
samples the server with py-spy through the first phase and says which threads were busy.
`--cold` first drops the state dir's files from this machine's page cache (Linux:
`posix_fadvise(DONTNEED)`), as after a reboot: the first minute then reads the index from
disk (a disk cache below the machine, as in a VM, may still hold them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from load import serve, start_profiler
from load_report import profile_summary
from questions import vault_questions
from rich.console import Console
from rich.table import Table

PHASES = (("first minute", 0.0), ("a minute later", 2.0))  # start, in phase lengths


def _config(path: Path, overrides: list[str]) -> None:
    lines = []
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--set wants KEY=VALUE, not {item!r}")
        lines.append(f"{key.strip()} = {json.dumps(value.strip())}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def drop_from_page_cache(folder: Path) -> int:
    """Ask the kernel to forget the cached pages of every file under `folder`; the bytes
    now out of the cache (pages another process maps stay)."""
    dropped = 0
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)  # dirty pages cannot be dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            dropped += os.fstat(fd).st_size
        finally:
            os.close(fd)
    return dropped


def _cut(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 1),
        "p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1),
        "max": round(ordered[-1], 1),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    questions = [q.text for q in vault_questions(args.vault, args.questions * len(PHASES))]
    if len(questions) < args.questions * len(PHASES):
        raise SystemExit(f"the vault gives only {len(questions)} distinct questions")
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.toml"
        _config(config, args.set)
        log = Path(tmp) / "serve.log"
        report: dict[str, Any] = {"settings": args.set, "phases": {}, "cold": args.cold}
        if args.cold:
            report["dropped_mb"] = round(drop_from_page_cache(args.state) / 1e6, 1)
        with serve(args.vault, args.state, config, log) as server, server.client() as client:
            started = time.monotonic()
            profiler = None
            if args.profile is not None:  # the first phase: what runs while people ask
                profiler = start_profiler(server.proc.pid, args.seconds, args.profile)
            for number, (label, offset) in enumerate(PHASES):
                asked = questions[number * args.questions : (number + 1) * args.questions]
                gap = args.seconds / len(asked)
                times: list[float] = []
                tiers: Counter[str] = Counter()
                for i, text in enumerate(asked):
                    due = started + offset * args.seconds + i * gap
                    time.sleep(max(0.0, due - time.monotonic()))
                    sent = time.perf_counter()
                    answer = client.post("/v1/query", json={"query": text})
                    times.append((time.perf_counter() - sent) * 1000)
                    answer.raise_for_status()
                    body = answer.json()
                    tiers["ood" if body.get("ood") else str(body.get("tier"))] += 1
                if profiler is not None and number == 0:
                    profiler.wait()
                    report["profile"] = profile_summary(args.profile, args.seconds)
                status = client.get("/v1/status").json()
                report["phases"][label] = _cut(times) | {
                    "questions": len(times),
                    "tiers": dict(tiers),
                    "semantic": status.get("semantic", {}).get("state"),
                }
        report["log_tail"] = log.read_text(encoding="utf-8", errors="replace")[-600:]
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True, help="state dir (kept: warm)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--questions", type=int, default=220, help="per phase")
    parser.add_argument("--seconds", type=float, default=60.0, help="phase length")
    parser.add_argument("--profile", type=Path, help="py-spy the first phase into FILE")
    parser.add_argument("--cold", action="store_true", help="state files out of the page cache")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.vault = args.vault.resolve()
    report = run(args)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    what = ", ".join(args.set) or "product defaults"
    if args.cold:
        what += ", state out of the page cache"
    table = Table(title=f"serve over HTTP ({what})")
    for col in ("phase", "questions", "p50 ms", "p99 ms", "max ms", "tiers", "semantic"):
        table.add_column(col)
    for label, row in report["phases"].items():
        table.add_row(
            label,
            str(row["questions"]),
            str(row["p50"]),
            str(row["p99"]),
            str(row["max"]),
            json.dumps(row["tiers"]),
            str(row["semantic"]),
        )
    Console().print(table)
    if "profile" in report:
        Console().print(f"first phase, threads busy: {report['profile']['thread_busy']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
