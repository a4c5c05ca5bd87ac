"""Answers a person can trust: what the product answers to real and off-topic questions.

    .venv/bin/python bench/answers.py --vault hub=DIR --vault logseq=DIR --vault dendron=DIR
        [--state-root DIR] [--json]

Every question of a vault's fixed file (`bench/data/<name>_questions.json`: real questions with
the notes and the sentences that answer them, short rare-term questions, off-topic questions
far from the vault and near it) is asked through the query engine as `vault-bridge query`
asks it: the product's defaults, the dense channel on and every note embedded, lifecycle on
with uses recorded, caches on, no LLM (so tiers 3 and 4 give excerpts, no answer).

Reported per vault, for the real questions: answered at tier 2 from an answering note (the
first note the answer cites answers, or is a copy of one), from another note, with an
answering sentence quoted, sent to an LLM tier (3 or 4), refused wrongly ("Nothing in
memory"); for the off-topic questions, far and near: refused. The template vault's checks
from tests/fixtures/answers are in the test suite, not here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from real_vaults import embedded_bridge, vault_questions
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _cites_an_answer(result: Any, answers: set[str]) -> bool | None:
    """Whether the first note the answer cites answers (None: no answer given)."""
    if result.tier != 2 or not result.answer or not result.answered_from:
        return None
    first = result.answered_from[0]
    copies = next((s.also_in for s in result.sources if s.path == first), [])
    return first in answers or bool(answers.intersection(copies))


def ask_vault(name: str, vault: Path, state: Path | None) -> dict[str, Any]:
    real, off = vault_questions(name)
    counts = {
        "real": len(real),
        "from_answering_note": 0,
        "from_another_note": 0,
        "quotes_an_answering_sentence": 0,
        "to_llm_tier": 0,
        "refused": 0,
        "far": 0,
        "far_refused": 0,
        "near": 0,
        "near_refused": 0,
    }
    wrong: list[dict[str, Any]] = []
    with embedded_bridge(vault, state) as bridge:
        for q in real:
            result = bridge.engine.query(q["question"], limit=10)
            if result.ood:
                counts["refused"] += 1
                wrong.append({"id": q["id"], "refused": True})
                continue
            if result.tier in (3, 4):
                counts["to_llm_tier"] += 1
                continue
            cites = _cites_an_answer(result, set(q["answers"]))
            if cites:
                counts["from_answering_note"] += 1
            elif cites is False:
                counts["from_another_note"] += 1
                wrong.append({"id": q["id"], "cited": result.answered_from[:1]})
            answer = _norm(result.answer or "")
            if any(_norm(s) in answer for s in q.get("sentences", [])):
                counts["quotes_an_answering_sentence"] += 1
        for q in off:
            kind = q.get("kind", "far")
            counts[kind] += 1
            result = bridge.engine.query(q["question"], limit=10)
            if result.ood:
                counts[f"{kind}_refused"] += 1
            else:
                wrong.append({"id": q["id"], "answered_tier": result.tier})
    return {**counts, "wrong": wrong}


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _print(results: dict[str, dict[str, Any]]) -> None:
    table = Table(title="Answers: real questions and off-topic ones (defaults, no LLM)")
    for col in (
        "vault",
        "real",
        "tier 2 from an answering note",
        "tier 2 from another note",
        "quotes an answering sentence",
        "to an LLM tier",
        "refused",
        "off-topic refused (far / near)",
    ):
        table.add_column(col)
    for name, r in results.items():
        table.add_row(
            name,
            str(r["real"]),
            _pct(r["from_answering_note"], r["real"]),
            _pct(r["from_another_note"], r["real"]),
            _pct(r["quotes_an_answering_sentence"], r["real"]),
            _pct(r["to_llm_tier"], r["real"]),
            str(r["refused"]),
            f"{r['far_refused']}/{r['far']} , {r['near_refused']}/{r['near']}",
        )
    Console().print(table)


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vault", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--state-root", type=Path, help="keep each vault's index and vectors")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = {}
    for item in args.vault:
        name, _, folder = item.partition("=")
        state = args.state_root / name if args.state_root else None
        results[name] = ask_vault(name, Path(folder), state)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _print(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
