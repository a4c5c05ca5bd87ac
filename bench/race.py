"""A human append racing an agent UPDATE of the same note: is a human line ever lost?

    python bench/race.py [--trials 1000] [--json]

For each trial, an agent-written note (small, or 260 KB) gets an UPDATE through the curation
executor (the same single writer `serve` uses) while a second thread appends one unique line
to the file the way an editor or a script does, at a random moment inside the measured duration
of an UPDATE, so the append lands before, during and after the write. Afterwards the line must
be in the note, or (when the write saw the human edit) the UPDATE must be waiting for review.
The same trials run once more with the compare-and-swap switched off (the write as it was
before issue 12: read, build, rename), to show what the check prevents.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bridge.core.operations import parse_operations
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from bridge.vault import store as store_module

SIZES = {"small note": 1, "260 KB note": 260_000}


def _narrative(size: int, rng: random.Random) -> str:
    words = ("deploy", "billing", "tokens", "review", "cache", "region", "owner", "window")
    out: list[str] = []
    length = 0
    while length < size:
        line = " ".join(rng.choice(words) for _ in range(12)) + "."
        out.append(line)
        length += len(line) + 1
    return "\n".join(out)


@contextmanager
def _unchecked_writes() -> Iterator[None]:
    """The write without the compare-and-swap, as it was before (for the comparison row)."""
    real = store_module.VaultStore.write

    def write(self: Any, rel_path: str, data: bytes, expected: Any = None) -> Any:
        return real(self, rel_path, data)

    store_module.VaultStore.write = write  # type: ignore[method-assign]
    try:
        yield
    finally:
        store_module.VaultStore.write = real  # type: ignore[method-assign]


def _update(bridge: Bridge, path: str, number: int) -> str:
    ops = parse_operations(
        [{"type": "UPDATE", "path": path, "summary": f"revision {number} of the summary"}]
    )
    return bridge.executor.apply(ops, "agent:race").results[0].status


def run(trials: int, seed: int, checked: bool) -> dict[str, Any]:
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    for label, size in SIZES.items():
        with tempfile.TemporaryDirectory() as tmp:
            vault, state = Path(tmp) / "vault", Path(tmp) / "state"
            vault.mkdir()
            bridge = open_bridge(Settings(vault=vault, state_dir=state, review_rules=[]))
            path = "ops/race/note.md"
            add = [
                {"type": "ADD", "path": path, "title": "Race", "narrative": _narrative(size, rng)}
            ]
            added = bridge.executor.apply(parse_operations(add), "agent:race").results[0]
            if added.status != "applied":
                raise SystemExit(f"could not create the note: {added.message}")
            durations = []
            for number in range(5):  # how long one UPDATE takes here
                started = time.perf_counter()
                _update(bridge, path, -number)
                durations.append(time.perf_counter() - started)
            window = statistics.median(durations) * 1.5
            note = vault / path
            lost = review = applied = 0
            for number in range(trials):
                line = f"human line {number} {rng.getrandbits(64):x}"
                delay = rng.uniform(0, window)

                def append(text: str = line, pause: float = delay, file: Path = note) -> None:
                    time.sleep(pause)
                    with file.open("a", encoding="utf-8") as handle:
                        handle.write(f"\n{text}\n")

                human = threading.Thread(target=append)
                human.start()
                status = _update(bridge, path, number)
                human.join()
                review += status == "pending_review"
                applied += status == "applied"
                if line not in note.read_text(encoding="utf-8"):
                    lost += 1
                # A person resolves it: the human's text becomes the note the agent edits next.
                for pending in bridge.reviews.list(("pending", "conflict")):
                    bridge.reviews.reject(pending.id, "race bench")
            bridge.close()
        out[label] = {
            "trials": trials,
            "human_lines_lost": lost,
            "updates_applied": applied,
            "updates_sent_to_review": review,
            "update_ms_p50": round(statistics.median(durations) * 1000, 2),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    checked = run(args.trials, args.seed, True)
    with _unchecked_writes():
        unchecked = run(args.trials, args.seed, False)
    result = {"compare_and_swap": checked, "without_the_check": unchecked}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    table = Table(title=f"A human append racing an agent UPDATE, {args.trials} trials each")
    for column in ("write", "note", "human lines lost", "applied", "sent to review", "UPDATE p50"):
        table.add_column(column, justify="left" if column in ("write", "note") else "right")
    for name, rows in (("compare-and-swap", checked), ("without the check", unchecked)):
        for label, row in rows.items():
            table.add_row(
                name,
                label,
                str(row["human_lines_lost"]),
                str(row["updates_applied"]),
                str(row["updates_sent_to_review"]),
                f"{row['update_ms_p50']} ms",
            )
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
