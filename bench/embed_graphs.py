"""The bundled model's three graphs: the file as onnxruntime folds it, the file with its
embedding table looked up as int8 (the default), and the integer kernels
(`embed_int8_kernels`).

    python bench/embed_graphs.py --vault ~/hub [--rounds 5] [--json]

Each graph in a fresh child process (so each RSS is its own), one thread: RSS once the model
is loaded (a rewritten graph read from a kept copy, as every start after the first), a
question's time (the hub questions, `--rounds` times each, median), passages a
second (300 passages of up to 150 words from the vault's notes, batches as the product makes
them), and the vectors' cosine to the file's graph (min and mean over passages and questions)
and whether they are the file's bit for bit.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

QUESTIONS = Path(__file__).parent / "data" / "hub_questions.json"
GRAPHS = ("file", "lookup", "kernels")


def _rss_mb() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4096 >> 20


def _texts(vault: Path) -> list[str]:
    texts = []
    for file in sorted(vault.rglob("*.md"))[::6]:
        words = file.read_text(encoding="utf-8", errors="ignore").split()
        if len(words) > 40:
            texts.append(" ".join(words[:150]))
        if len(texts) == 300:
            break
    return texts


def child(graph: str, vault: Path, rounds: int, out: Path) -> dict[str, Any]:
    from bridge.semantic import bundled

    before = _rss_mb()
    start = time.perf_counter()
    if graph == "file":
        weights = bundled.installed_file(bundled.WEIGHTS)
        tokenizer = bundled.installed_file(bundled.TOKENIZER)
        model = bundled.OnnxEmbedder(weights, tokenizer, bundled.identity())
    else:  # the rewritten graph from its kept copy, as every start after the first
        model = bundled.bundled_embedder(cache=out, kernels=graph == "kernels")
    load = time.perf_counter() - start
    loaded = _rss_mb()
    questions = [q["question"] for q in json.loads(QUESTIONS.read_text())["questions"]]
    for text in questions[:5]:
        model.embed([text], "query")
    times = []
    for _ in range(rounds):
        for text in questions:
            began = time.perf_counter()
            model.embed([text], "query")
            times.append((time.perf_counter() - began) * 1000)
    texts = _texts(vault)
    began = time.perf_counter()
    passages = model.embed(texts, "passage")
    seconds = time.perf_counter() - began
    np.save(out / f"{graph}_p.npy", passages)
    np.save(out / f"{graph}_q.npy", model.embed(questions, "query"))
    return {
        "graph": graph,
        "load_seconds": round(load, 2),
        "rss_loaded_mb": loaded - before,
        "question_ms_p50": round(statistics.median(times), 2),
        "passages_per_second": round(len(texts) / seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", choices=GRAPHS, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.vault, args.rounds, args.out)))
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        from bridge.semantic import bundled

        weights = bundled.installed_file(bundled.WEIGHTS)
        for graph in GRAPHS:
            if graph != "file":  # kept, as the first start keeps it
                bundled.rewritten_graph(weights, Path(tmp), kernels=graph == "kernels")
            command = [sys.executable, __file__, "--vault", str(args.vault), "--rounds"]
            command += [str(args.rounds), "--child", graph, "--out", tmp]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        for row in rows:
            cosines = []
            same = True
            for kind in ("p", "q"):
                mine = np.load(Path(tmp) / f"{row['graph']}_{kind}.npy")
                theirs = np.load(Path(tmp) / f"file_{kind}.npy")
                cosines.append((mine * theirs).sum(axis=1))
                same = same and bool(np.array_equal(mine, theirs))
            row["identical_to_file"] = same
            every = np.concatenate(cosines)
            row["cosine_to_file_min"] = round(float(every.min()), 5)
            row["cosine_to_file_mean"] = round(float(every.mean()), 5)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="The bundled model's graphs (one thread, each in its own process)")
    for key in rows[0]:
        table.add_column(key)
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
