"""LoCoMo evidence recall: the bridge's tiered query engine against a per-turn BM25 baseline.

    python bench/locomo.py --data ../shared/bench/locomo/locomo_dev.json [--deployed] [--json]

Every conversation is imported into a fresh vault (`vault-bridge import`'s code path) and
every question of categories 1-4 is asked through the query engine at each word budget.

Lab: the engine reads lifecycle facts from the notes (status, `updated`) and records no uses, so
every question meets the same vault state: retrieval alone.

`--deployed` adds the product as it runs: the default engine of `open_bridge` (state database,
uses credited as the product credits them, caches on), every question asked once in dataset
order, and the client opening the first source of each answer (as a person clicks the top
result or an agent calls `memory_read` with the answer's `query_id`). Then three passes over the
same state, with the daily decay job run between passes (it writes the maturity changes the
uses earned, which re-indexes those notes); recall is that of the third pass. Each budget runs
on its own fresh vault. `tier1_mismatches` counts tier-1 (fuzzy cache) answers whose sources
differ from a fresh uncached search of the same question; `tier1_other_question` those among
them where the fresh searches of the two questions differ too (the rest are near-equals the
uses since caching reordered).
Recall of a question = the share of its evidence turns whose full text appears in the returned
excerpts; every returned excerpt word counts against the budget. The baseline is a plain
tantivy index with one document per turn ("speaker: text"), the raw question as the query, and
the ranked turns cut at the budget.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy
from rich.console import Console
from rich.table import Table

from bridge.importer.service import import_transcripts
from bridge.importer.transcript import parse_transcripts
from bridge.query.engine import QueryEngine
from bridge.query.lifecycle import StatusOnlyLifecycle
from bridge.query.models import QueryResult
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
BUDGETS = (200, 500, 1000)
_ID = re.compile(r"D:?(\d+):0*(\d+)")


@dataclass(frozen=True)
class Question:
    conversation: str
    text: str
    category: int
    evidence: tuple[str, ...]


def _norm(text: str) -> str:
    return " ".join(text.split())


def clean_evidence(raw: Iterable[str], turns: dict[str, str]) -> tuple[str, ...]:
    """Split joined ids, repair `D:11:26` and `D30:05`, drop ids that name no turn."""
    ids: list[str] = []
    for item in raw:
        for match in _ID.finditer(str(item)):
            turn_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if turn_id in turns and turn_id not in ids:
                ids.append(turn_id)
    return tuple(ids)


def load(path: Path) -> tuple[list[dict[str, Any]], dict[tuple[str, str], str], list[Question]]:
    data = json.loads(path.read_text())
    transcripts = parse_transcripts(data)
    texts: dict[tuple[str, str], str] = {}
    for transcript in transcripts:
        for session in transcript.sessions:
            for turn in session.turns:
                texts[(transcript.name, turn.id)] = f"{turn.speaker}: {turn.text}"
    questions = []
    for item, transcript in zip(data, transcripts, strict=True):
        turns = {tid: t for (name, tid), t in texts.items() if name == transcript.name}
        for qa in item.get("qa", []):
            category = int(qa.get("category", 0))
            if category not in CATEGORIES:
                continue
            evidence = clean_evidence(qa.get("evidence", []), turns)
            if evidence:
                questions.append(Question(transcript.name, str(qa["question"]), category, evidence))
    return data, texts, questions


def recall(q: Question, excerpts: str, texts: dict[tuple[str, str], str]) -> float:
    haystack = _norm(excerpts)
    found = 0
    for turn_id in q.evidence:
        # The excerpt shows "Speaker: text"; the turn's own words must all be there.
        if _norm(texts[(q.conversation, turn_id)]) in haystack:
            found += 1
    return found / len(q.evidence)


# Settings every bridge of this run gets (`--set KEY=VALUE`), and a folder whose vectors are
# kept between runs (`--vectors`): passages are keyed by their text, so a fresh vault of the
# same conversations embeds nothing the folder already holds.
OVERRIDES: dict[str, str] = {}
VECTORS: Path | None = None


@contextmanager
def imported(data: object) -> Iterator[Bridge]:
    """The product's default bridge on a fresh temporary vault holding every conversation of
    `data` (imported as `vault-bridge import` does), indexed and embedded (the dense channel
    is on by default); closed and removed after."""
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        state = Path(tmp) / "state"
        if VECTORS is not None:
            VECTORS.mkdir(parents=True, exist_ok=True)
            state.mkdir()
            (state / "semantic").symlink_to(VECTORS.resolve(), target_is_directory=True)
        bridge = open_bridge(Settings(vault=vault, state_dir=state, **OVERRIDES))
        try:
            import_transcripts(bridge.store, data)
            bridge.sync()
            bridge.prepare_semantic(embed=True)
            yield bridge
        finally:
            bridge.close()


def run_bridge(
    data: object, texts: dict[tuple[str, str], str], questions: list[Question]
) -> dict[str, Any]:
    with imported(data) as bridge:
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
    return _summarise(scores) | {"latency_ms": _percentiles(latencies), "ood": flagged}


def run_deployed(
    data: object,
    texts: dict[tuple[str, str], str],
    questions: list[Question],
    passes: int,
    opens: bool = False,
) -> dict[str, Any]:
    """Recall of the last of `passes` passes through the product's own engine (see module doc).

    `opens`: the client also opens the first source of every answer (a use, credited).
    """
    scores: dict[int, list[tuple[int, float]]] = defaultdict(list)
    tiers: dict[str, int] = defaultdict(int)
    mismatches = tier1 = other_question = 0
    latencies: list[float] = []
    for budget in BUDGETS:
        with imported(data) as bridge:
            engine = bridge.engine
            for number in range(1, passes + 1):
                if number > 1:
                    bridge.decay(dt.datetime.now(dt.UTC))  # the daily job between passes
                for q in questions:
                    scope = f"conversations/{q.conversation}"
                    start = time.perf_counter()
                    result = engine.query(q.text, budget_words=budget, limit=100, scope=scope)
                    latencies.append((time.perf_counter() - start) * 1000)
                    if result.tier == 1:
                        tier1 += 1
                        options = {"budget_words": budget, "limit": 100, "scope": scope}
                        fresh = _paths(engine.search(q.text, **options))
                        if fresh != _paths(result):
                            mismatches += 1
                            # Uses since the answer was cached can reorder near-equals; a
                            # different question is one whose own fresh search differs.
                            if fresh != _paths(engine.search(result.reused_from or "", **options)):
                                other_question += 1
                    if opens and result.sources:  # the client opens the top result
                        engine.use(result.query_id, result.sources[0].path)
                    if number == passes:
                        tiers[_tier_label(result)] += 1
                        excerpts = "\n".join(b.text for s in result.sources for b in s.blocks)
                        scores[budget].append((q.category, recall(q, excerpts, texts)))
    return _summarise(scores) | {
        "latency_ms": _percentiles(latencies),
        "tiers": dict(sorted(tiers.items())),
        "tier1_answers": tier1,
        "tier1_mismatches": mismatches,
        "tier1_other_question": other_question,
    }


def _paths(result: QueryResult) -> list[str]:
    return [s.path for s in result.sources]


def _tier_label(result: QueryResult) -> str:
    if result.ood:
        return "ood"
    if result.tier >= 3 and result.answer is None:
        return f"{result.tier} (excerpts, no LLM)"
    return str(result.tier)


def run_baseline(texts: dict[tuple[str, str], str], questions: list[Question]) -> dict[str, Any]:
    schema_builder = tantivy.SchemaBuilder()
    schema_builder.add_text_field("text", stored=True, tokenizer_name="en_stem")
    schema_builder.add_text_field("conv", stored=True, tokenizer_name="raw")
    schema = schema_builder.build()
    index = tantivy.Index(schema)
    writer = index.writer()
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
    return _summarise(scores) | {"latency_ms": _percentiles(latencies)}


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {"p50": round(statistics.median(ordered), 3), "p95": round(p95, 3)}


def _summarise(scores: dict[int, list[tuple[int, float]]]) -> dict[str, Any]:
    overall = {str(b): round(100 * statistics.fmean(r for _, r in scores[b]), 1) for b in BUDGETS}
    per: dict[str, dict[str, float]] = {}
    for category, name in CATEGORIES.items():
        per[name] = {
            str(b): round(
                100 * statistics.fmean([r for c, r in scores[b] if c == category] or [0]), 1
            )
            for b in BUDGETS
        }
    return {"recall_at_words": overall, "per_category": per}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo-format JSON file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--deployed",
        action="store_true",
        help="also run the product's default engine with uses recorded: once and three passes",
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
    global VECTORS
    VECTORS = args.vectors
    for item in args.set:
        key, _, value = item.partition("=")
        OVERRIDES[key.strip()] = value.strip()
    data, texts, questions = load(args.data)
    ours = run_bridge(data, texts, questions)
    base = run_baseline(texts, questions)
    result: dict[str, Any] = {
        "questions": len(questions),
        "settings": args.set,
        **ours,
        "baseline": base,
    }
    engines: list[tuple[str, dict[str, Any]]] = [("vault-bridge (lab)", ours)]
    if args.deployed:
        once = run_deployed(data, texts, questions, 1, opens=True)
        three = run_deployed(data, texts, questions, 3, opens=True)
        result["deployed"] = once
        result["deployed_3pass"] = three
        result["tier1_mismatches"] = int(once["tier1_mismatches"]) + int(three["tier1_mismatches"])
        engines += [("vault-bridge deployed", once), ("deployed, 3rd pass", three)]
    engines.append(("tantivy per turn", base))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    what = ", ".join(args.set) or "product defaults (dense channel on)"
    table = Table(
        title=f"LoCoMo evidence recall, {len(questions)} questions ({args.data.name}; {what})"
    )
    table.add_column("engine")
    table.add_column("slice")
    for b in BUDGETS:
        table.add_column(f"@{b} words", justify="right")
    for label, res in engines:
        rows = [("overall", res["recall_at_words"])]
        rows += list(res["per_category"].items())
        for slice_name, values in rows:
            table.add_row(label, slice_name, *(f"{values[str(b)]:.1f}" for b in BUDGETS))
    Console().print(table)
    for label, res in engines[1:-1]:
        Console().print(
            f"{label}: tiers {res['tiers']}, tier-1 answers {res['tier1_answers']}, "
            f"tier-1 mismatches {res['tier1_mismatches']} "
            f"(another question's answer: {res['tier1_other_question']}), "
            f"latency p50 {res['latency_ms']['p50']} ms"
        )
    Console().print(
        f"query latency: vault-bridge p50 {ours['latency_ms']['p50']} ms, "
        f"p95 {ours['latency_ms']['p95']} ms; baseline p50 {base['latency_ms']['p50']} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
