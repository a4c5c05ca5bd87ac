"""A fresh `serve` on a real vault: how its answers change while it embeds the vault.

    .venv/bin/python bench/fresh_serve.py --vault ~/help --questions bench/data/help_questions.json
    PYTHONPATH=/path/to/older/checkout .venv/bin/python bench/fresh_serve.py ...   # a baseline

Starts `vault-bridge serve` (`bench/load.py`'s `serve`) on the vault with an empty state dir,
as a new user does, and from the moment it answers asks every question of the file (and its
off-topic ones) through `POST /v1/query`, one after the other, round after round until a round
starts with the dense channel `ready`. Each round prints the channel's progress at its start and
what the answers were: the first source answers, within the first 3, English questions whose
first source is in another language's top folder (`en/` is English), real questions answered
"Nothing in memory", off-topic questions flagged. Product defaults otherwise (lifecycle on,
caches on: a round repeats the last round's questions, so the cache answers them unless
something changed; no LLM). Rounds are printed only when their figures or the channel's state
changed.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from load import serve


def _round(client: httpx.Client, data: dict[str, Any], started: float) -> dict[str, Any]:
    semantic = client.get("/v1/status").json()["semantic"]
    row: dict[str, Any] = {
        "second": round(time.monotonic() - started, 1),
        "state": semantic["state"],
        "embedded": semantic["embedded"],
        "pending": semantic["pending"],
        "first": 0,
        "within_3": 0,
        "english_other_first": 0,
        "real_flagged": 0,
    }
    for question in data["questions"]:
        answer = client.post("/v1/query", json={"query": question["question"]}).json()
        paths = [source["path"] for source in answer["sources"]]
        rank = next((i + 1 for i, p in enumerate(paths) if p in set(question["answers"])), None)
        row["first"] += rank == 1
        row["within_3"] += rank is not None and rank <= 3
        english = question.get("lang", "en") == "en"
        row["english_other_first"] += english and bool(paths) and not paths[0].startswith("en/")
        row["real_flagged"] += bool(answer["ood"])
    off_topic = [q if isinstance(q, str) else q["question"] for q in data.get("off_topic", [])]
    row["off_topic_flagged"] = sum(
        bool(client.post("/v1/query", json={"query": text}).json()["ood"]) for text in off_topic
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--json", action="store_true", help="one JSON document at the end")
    args = parser.parse_args()
    data = json.loads(args.questions.read_text())
    rows: list[dict[str, Any]] = []
    shown: tuple[Any, ...] | None = None
    with tempfile.TemporaryDirectory(prefix="fresh-serve-") as tmp:
        config, state = Path(tmp) / "config.toml", Path(tmp) / "state"
        config.write_text("")  # the product's defaults
        started = time.monotonic()
        vault, log = args.vault.resolve(), Path(tmp) / "serve.log"
        with serve(vault, state, config, log) as server, server.client(120) as client:
            rows.append({"answers_from_second": round(time.monotonic() - started, 1)})
            while True:
                row = _round(client, data, started)
                figures = tuple(v for k, v in row.items() if k not in ("second", "pending"))
                if figures != shown:
                    rows.append(row)
                    shown = figures
                    if not args.json:
                        print(json.dumps(row), flush=True)
                if row["state"] == "ready":
                    break
    if args.json:
        print(json.dumps({"questions": len(data["questions"]), "rounds": rows}, indent=2))


if __name__ == "__main__":
    main()
