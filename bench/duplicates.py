"""Where to draw the near-duplicate line: copies, near-copies and new notes of real vaults.

    python bench/duplicates.py VAULT:STATE [VAULT:STATE ...] [--sample 150] [--seed 47] [--json]

For a sample of each vault's notes (a title, at least 5 words of summary or first paragraph,
20 words of body), the text an ADD would carry is built four ways and scored as the product
scores an ADD (`bridge.semantic.duplicates.nearest_copy`, and the passage-only look it had
before, `SemanticIndex.nearest`):

- copy: the note's title, summary and first 150 words of body, as if pasted into a new note;
- copy of the head: title and summary alone (the case that scored 0.72 and was missed);
- near-copy: the same facts shuffled: title words and sentences in reverse order, every
  fourth word dropped (mechanical, so the bench needs no model);
- new: the note's own head scored with the note itself left out, which is a new note on a topic
  the vault already covers (the nearest other note is its neighbour, not its copy). Real vaults
  hold real near-copies too (templated notes), so a few "new" notes are duplicates.

Reported per method: quantiles of each kind's scores, and for each line the share of copies
and near-copies flagged and of new notes flagged wrongly. Each vault's vectors must exist
(`vault-bridge reindex --vault VAULT --state-dir STATE` makes them); nothing is written.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from bridge.core.entry import Note
from bridge.runtime import Bridge, open_bridge
from bridge.semantic.duplicates import head_of, nearest_copy, note_head
from bridge.settings import Settings
from bridge.vault.store import NoteError

KINDS = ("copy", "copy of the head", "near-copy", "new")
LINES = (0.70, 0.75, 0.78, 0.80, 0.82, 0.84, 0.86, 0.88, 0.90)


def _body_words(note: Note, skip: str) -> list[str]:
    words: list[str] = []
    for block in note.blocks:
        if block.kind in ("paragraph", "list_item") and block.text.strip() != skip:
            words += block.text.split()
    return words


def _near(title: str, summary: str, body: list[str]) -> tuple[str, str]:
    sentences = re.split(r"(?<=[.!?])\s+", " ".join([summary, *body[:60]]))
    words = " ".join(reversed(sentences)).split()
    kept = [w for i, w in enumerate(words) if i % 4 != 3]
    return " ".join(reversed(title.split())), " ".join(kept)


def probes(note: Note) -> dict[str, tuple[str, str, str | None]] | None:
    """kind -> (head, whole text, path to leave out) for one note; None when too short.

    Only notes with a summary (`summary`, `description`, `desc`): an agent's ADD has one, and
    a copy of a note without one is a copy of its body, which the passages already match.
    """
    head = note_head(note)
    if head is None:
        return None
    title, _, summary = head.partition("\n")
    body = _body_words(note, summary)
    if len(summary.split()) < 5 or len(body) < 20:
        return None
    copy_text = "\n".join([title, summary, " ".join(body[:150])])
    near_title, near_text = _near(title, summary, body)
    return {
        "copy": (head, copy_text, None),
        "copy of the head": (head, head, None),
        "near-copy": (head_of(near_title, near_text[:300]), f"{near_title}\n{near_text}", None),
        "new": (head, head, note.path),
    }


def _reader(bridge: Bridge) -> Callable[[str], Note | None]:
    def read(path: str) -> Note | None:
        try:
            return bridge.store.read(path).parse()
        except NoteError:
            return None

    return read


def measure(vault: Path, state: Path, sample: int, seed: int) -> dict[str, dict[str, list[float]]]:
    """kind -> method -> scores, for `sample` notes of the vault."""
    bridge = open_bridge(Settings(vault=vault, state_dir=state))
    try:
        bridge.sync()
        bridge.prepare_semantic(embed=False)
        semantic = bridge.semantic
        if semantic is None:
            raise SystemExit("the dense channel is off: nothing to measure")
        read = _reader(bridge)
        paths = sorted(bridge.index.paths())
        random.Random(seed).shuffle(paths)
        out: dict[str, dict[str, list[float]]] = {
            k: {"passages": [], "passages and heads": []} for k in KINDS
        }
        taken = 0
        for path in paths:
            note = read(path)
            made = probes(note) if note is not None else None
            if made is None:
                continue
            for kind, (head, text, leave_out) in made.items():
                before = semantic.nearest(text, exclude=leave_out)
                now = nearest_copy(semantic, read, leave_out, head, text)
                out[kind]["passages"].append(before[1] if before else 0.0)
                out[kind]["passages and heads"].append(now[1] if now else 0.0)
            taken += 1
            if taken >= sample:
                break
        return out
    finally:
        bridge.close()


def summarise(scores: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    """Quantiles per kind and method, and what each line flags."""
    result: dict[str, Any] = {"notes": len(scores["copy"]["passages"]), "methods": {}}
    for method in ("passages", "passages and heads"):
        kinds = {k: np.array(scores[k][method]) for k in KINDS}
        quantiles = {
            k: [round(float(np.quantile(v, q)), 3) for q in (0.1, 0.5, 0.9)] if len(v) else []
            for k, v in kinds.items()
        }
        lines = {
            f"{line:.2f}": {k: round(float((v >= line).mean()), 3) for k, v in kinds.items()}
            for line in LINES
        }
        result["methods"][method] = {"quantiles": quantiles, "flagged": lines}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("vaults", nargs="+", help="VAULT:STATE pairs")
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    merged: dict[str, dict[str, list[float]]] = {
        k: {"passages": [], "passages and heads": []} for k in KINDS
    }
    report: dict[str, Any] = {"vaults": {}}
    for pair in args.vaults:
        vault, _, state = pair.partition(":")
        scores = measure(Path(vault), Path(state), args.sample, args.seed)
        report["vaults"][Path(vault).name] = summarise(scores)
        for kind in KINDS:
            for method, values in scores[kind].items():
                merged[kind][method] += values
    report["all"] = summarise(merged)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    console = Console()
    for name, part in [*report["vaults"].items(), ("all vaults", report["all"])]:
        for method, data in part["methods"].items():
            table = Table(title=f"{name}: {part['notes']} notes, {method}")
            table.add_column("line")
            for kind in KINDS:
                table.add_column(f"{kind} flagged", justify="right")
            for line, flagged in data["flagged"].items():
                table.add_row(line, *(f"{100 * flagged[k]:.1f}%" for k in KINDS))
            table.add_row("p10/p50/p90", *("/".join(map(str, data["quantiles"][k])) for k in KINDS))
            console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
