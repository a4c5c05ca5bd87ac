"""LoCoMo evidence recall: the bridge's tiered query engine against a per-turn BM25 baseline.

    python bench/locomo.py --data ../shared/bench/locomo/locomo_dev.json [--deployed]
        [--variants repeat,days,unscoped] [--set KEY=VALUE] [--vectors DIR] [--json]

Every conversation is imported into a fresh vault (`vault-bridge import`'s code path) and
every question of categories 1-4 is asked through the query engine at each word budget, with
the product's default settings (the dense channel on) unless `--set` says otherwise.

Lab: the engine reads lifecycle facts from the notes (status, `updated`) and records no uses, so
every question meets the same vault state: retrieval alone.

`--deployed` adds the product as it runs (bench/locomo_deployed.py): uses recorded, the client
opening the top result, caches on, three passes with the daily decay job between; recall and
the tiers that answered, for each pass. `--variants` adds more such runs: `repeat` (every
question asked twice, no decay between: the caches answer), `days` (passes on day 0, 7 and 30,
the clock moved and the decay job run daily), `unscoped` (questions asked of the whole vault).
`tier1_mismatches` counts tier-1 (fuzzy cache) answers whose sources differ from a fresh
uncached search of the same question; `tier1_other_question` those among them where the
fresh searches of the two questions differ too (the rest are near-equals the uses since
caching reordered).
Recall of a question = the share of its evidence turns whose full text appears in the returned
excerpts; every returned excerpt word counts against the budget. The baseline is a plain
tantivy index with one document per turn ("speaker: text"), the raw question as the query, and
the ranked turns cut at the budget.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import tantivy
from rich.console import Console
from rich.table import Table

# `bench.` from this checkout when run as a script.
sys.path.append(str(Path(__file__).resolve().parents[1]))

from bench.locomo_common import (
    BUDGETS,
    Question,
    Setup,
    imported,
    load,
    recall,
    summarise,
)
from bench.locomo_deployed import VARIANTS, run_variants
from bridge.query.engine import QueryEngine
from bridge.query.lifecycle import StatusOnlyLifecycle


def run_bridge(
    data: object, texts: dict[tuple[str, str], str], questions: list[Question], setup: Setup
) -> dict[str, Any]:
    with imported(data, setup) as bridge:
        engine = QueryEngine(
            bridge.index, StatusOnlyLifecycle(), bridge.engine.params, dense=bridge.semantic
        )
        scores: dict[int, list[tuple[int, float]]] = defaultdict(list)
        latencies: list[float] = []
        flagged = 0  # answerable questions answered "Nothing in memory" (all are answerable)
        for budget in BUDGETS:
            for q in questions:
                start = time.perf_counter()
                scope = f"conversations/{q.conversation}"
                result = engine.query(q.text, budget_words=budget, limit=100, scope=scope)
                flagged += result.ood
                latencies.append((time.perf_counter() - start) * 1000)
                assert result.words <= budget, (q.text, result.words)
                excerpts = "\n".join(b.text for s in result.sources for b in s.blocks)
                scores[budget].append((q.category, recall(q, excerpts, texts)))
    return summarise(scores) | {"latency_ms": _percentiles(latencies), "ood": flagged}


def run_baseline(texts: dict[tuple[str, str], str], questions: list[Question]) -> dict[str, Any]:
    schema_builder = tantivy.SchemaBuilder()
    schema_builder.add_text_field("text", stored=True, tokenizer_name="en_stem")
    schema_builder.add_text_field("conv", stored=True, tokenizer_name="raw")
    schema = schema_builder.build()
    index = tantivy.Index(schema)
    # One writer thread: one segment, so tied hits come in the order the turns were added.
    # With a thread per core the turns were split over segments as the threads took them,
    # and tied hits reordered from run to run (@500 64.4 or 64.5).
    writer = index.writer(num_threads=1)
    for (conv, _), text in texts.items():
        writer.add_document(tantivy.Document(text=text, conv=conv))
    writer.commit()
    index.reload()
    searcher = index.searcher()
    scores: dict[int, list[tuple[int, float]]] = defaultdict(list)
    latencies: list[float] = []
    for q in questions:
        start = time.perf_counter()
        query, _errors = index.parse_query_lenient(q.text, ["text"])
        conv = tantivy.Query.term_query(schema, "conv", q.conversation)
        both = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, query), (tantivy.Occur.Must, conv)]
        )
        hits = searcher.search(both, 200).hits
        ranked = [searcher.doc(address)["text"][0] for _, address in hits]
        latencies.append((time.perf_counter() - start) * 1000)
        for budget in BUDGETS:
            kept, used = [], 0
            for text in ranked:
                words = len(text.split())
                if used + words > budget:
                    break  # the text is cut here
                kept.append(text)
                used += words
            scores[budget].append((q.category, recall(q, "\n".join(kept), texts)))
    return summarise(scores) | {"latency_ms": _percentiles(latencies)}


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {"p50": round(statistics.median(ordered), 3), "p95": round(p95, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--deployed",
        action="store_true",
        help="also run the product's default engine with uses recorded: three passes",
    )
    parser.add_argument(
        "--variants",
        default="",
        help=f"more runs of the deployed product, comma-separated: {', '.join(list(VARIANTS)[1:])}",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting for every bridge (--set embed_model=off: lexical only)",
    )
    parser.add_argument("--vectors", type=Path, help="keep passage vectors here between runs")
    args = parser.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if args.deployed:
        variants.insert(0, "deployed")
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(
            f"unknown variant(s) {', '.join(sorted(unknown))}; choose from {list(VARIANTS)}"
        )
    overrides = tuple((k.strip(), v.strip()) for k, _, v in (s.partition("=") for s in args.set))
    setup = Setup(overrides, args.vectors)
    data, texts, questions = load(args.data)
    ours = run_bridge(data, texts, questions, setup)
    base = run_baseline(texts, questions)
    result: dict[str, Any] = {
        "questions": len(questions),
        "settings": args.set,
        **ours,
        "baseline": base,
    }
    runs = run_variants(variants, data, texts, questions, setup)
    if runs:
        result["variants"] = runs
    if "deployed" in runs:
        result["deployed"], result["deployed_3pass"] = runs["deployed"][0], runs["deployed"][2]
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    _print(result, args.data.name, args.set)
    return 0


def pass_label(variant: str, number: int, run: dict[str, Any]) -> str:
    """`deployed, pass 1`, `days, day 7 (pass 2)`, ..."""
    if variant == "days":
        return f"days, day {run['day']} (pass {number})"
    return f"{variant}, pass {number}"


def _print(result: dict[str, Any], data_name: str, settings: list[str]) -> None:
    what = ", ".join(settings) or "product defaults (dense channel on)"
    table = Table(
        title=f"LoCoMo evidence recall, {result['questions']} questions ({data_name}; {what})"
    )
    table.add_column("engine")
    table.add_column("slice")
    for b in BUDGETS:
        table.add_column(f"@{b} words", justify="right")
    engines: list[tuple[str, dict[str, Any]]] = [("vault-bridge (lab)", result)]
    for variant, runs in result.get("variants", {}).items():
        engines += [(pass_label(variant, n, r), r) for n, r in enumerate(runs, 1)]
    engines.append(("tantivy per turn", result["baseline"]))
    for label, res in engines:
        rows = [("overall", res["recall_at_words"])]
        rows += list(res["per_category"].items())
        for slice_name, values in rows:
            table.add_row(label, slice_name, *(f"{values[str(b)]:.1f}" for b in BUDGETS))
    Console().print(table)
    for label, res in engines[1:-1]:
        Console().print(
            f"{label}: tiers {res['tiers']}, "
            f"decay changes before it {res['decay_changes_before']}, "
            f"tier-1 answers {res['tier1_answers']}, tier-1 mismatches {res['tier1_mismatches']} "
            f"(another question's answer: {res['tier1_other_question']})"
        )
    ours, base = result["latency_ms"], result["baseline"]["latency_ms"]
    Console().print(
        f"query latency: vault-bridge p50 {ours['p50']} ms, p95 {ours['p95']} ms; "
        f"baseline p50 {base['p50']} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
