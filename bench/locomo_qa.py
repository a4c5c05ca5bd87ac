"""LoCoMo answer accuracy: questions answered through the full query path, graded by an LLM judge.

    python bench/locomo_qa.py --model openai/gpt-4o-mini --judge openai/gpt-4o \\
        [--data ../shared/bench/locomo/locomo_dev.json] [--limit 50] [--budget-words 1500] [--json]

Every conversation is imported into a fresh vault (`vault-bridge import`'s code path). Each
question of categories 1-4 is asked with `engine.query` scoped to its conversation, with the
bridge's LLM answerer attached (`--model`), so the answer comes from whichever tier the engine
picks: a cached or direct excerpt (tiers 0-2) or the model (tiers 3-4). A judge model (`--judge`)
compares each answer with the gold answer and says whether it is correct. The result is accuracy
per category, the tiers used and latency. Model keys come from the providers' usual variables
(OPENAI_API_KEY, ANTHROPIC_API_KEY...); `ollama/<model>` runs locally.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from bench.locomo_common import CATEGORIES
from bridge.importer.service import import_transcripts
from bridge.importer.transcript import parse_transcripts
from bridge.llm.client import LLMClient, LLMConfig, LLMError
from bridge.runtime import open_bridge
from bridge.settings import Settings

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/bench/locomo/locomo_dev.json"
JUDGE_PROMPT = """\
You grade answers to questions about a long conversation. The gold answer is correct. Say
whether the candidate answer gives the same information (wording, extra detail and a different
date format are fine; a different fact, a missing key part or "I don't know" are not).

Question: {question}
Gold answer: {gold}
Candidate answer: {answer}

Reply with JSON only: {{"correct": true}} or {{"correct": false}}."""


@dataclass(frozen=True)
class QA:
    conversation: str
    question: str
    answer: str
    category: int


@dataclass(frozen=True)
class Graded:
    qa: QA
    answer: str
    correct: bool
    tier: int
    latency_ms: float
    error: str | None = None


def load_questions(data: object) -> list[QA]:
    """Questions of categories 1-4 that have a gold answer, with their conversation name."""
    items = data if isinstance(data, list) else [data]
    out = []
    for item, transcript in zip(items, parse_transcripts(data), strict=True):
        for qa in item.get("qa", []):
            category = int(qa.get("category", 0))
            if category in CATEGORIES and "answer" in qa:
                out.append(QA(transcript.name, str(qa["question"]), str(qa["answer"]), category))
    return out


def judge(client: LLMClient, qa: QA, answer: str) -> bool:
    """The judge's verdict; an unreadable verdict counts as wrong."""
    prompt = JUDGE_PROMPT.format(question=qa.question, gold=qa.answer, answer=answer)
    reply = client.complete([{"role": "user", "content": prompt}], client.budget()).content
    try:
        start = reply.index("{")
        verdict = json.loads(reply[start : reply.index("}", start) + 1])
        return bool(verdict.get("correct"))
    except (ValueError, AttributeError):
        return reply.strip().lower().startswith(("correct", "true", "yes"))


def run(
    data: object,
    questions: list[QA],
    model: str,
    judge_client: LLMClient,
    budget_words: int,
    timeout: float,
) -> list[Graded]:
    """Answer and grade every question; errors count as wrong answers and are reported."""
    graded = []
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        settings = Settings(
            vault=vault,
            state_dir=Path(tmp) / "state",
            llm_model=model,
            llm_timeout_seconds=timeout,
        )
        bridge = open_bridge(settings)
        try:
            import_transcripts(bridge.store, data)
            bridge.sync()
            for qa in questions:
                start = time.perf_counter()
                scope = f"conversations/{qa.conversation}"
                try:
                    result = bridge.engine.query(
                        qa.question, budget_words=budget_words, scope=scope
                    )
                    answer = result.answer or ""
                    latency = (time.perf_counter() - start) * 1000
                    correct = judge(judge_client, qa, answer) if answer else False
                    graded.append(Graded(qa, answer, correct, result.tier, latency))
                except LLMError as exc:
                    latency = (time.perf_counter() - start) * 1000
                    graded.append(Graded(qa, "", False, -1, latency, str(exc)))
        finally:
            bridge.close()
    return graded


def summarise(graded: list[Graded]) -> dict[str, object]:
    """Accuracy overall and per category (percent), tiers used, latency and errors."""

    def accuracy(items: list[Graded]) -> float:
        return round(100 * sum(g.correct for g in items) / len(items), 1) if items else 0.0

    by_category: dict[str, list[Graded]] = defaultdict(list)
    for g in graded:
        by_category[CATEGORIES[g.qa.category]].append(g)
    latencies = sorted(g.latency_ms for g in graded) or [0.0]
    return {
        "questions": len(graded),
        "accuracy": accuracy(graded),
        "per_category": {
            name: {"questions": len(by_category[name]), "accuracy": accuracy(by_category[name])}
            for name in CATEGORIES.values()
        },
        "tiers": {str(k): v for k, v in sorted(Counter(g.tier for g in graded).items())},
        "latency_ms": {
            "p50": round(statistics.median(latencies), 1),
            "p95": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 1),
        },
        "errors": [{"question": g.qa.question, "error": g.error} for g in graded if g.error],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--model", required=True, help="litellm model that answers (tiers 3-4)")
    parser.add_argument("--judge", required=True, help="litellm model that grades the answers")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo-format JSON")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--budget-words", type=int, default=1500, help="excerpt word budget")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per model request")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    data = json.loads(args.data.read_text())
    questions = load_questions(data)[: args.limit]
    judge_client = LLMClient(LLMConfig(args.judge, timeout_seconds=args.timeout))
    graded = run(data, questions, args.model, judge_client, args.budget_words, args.timeout)
    result = {"model": args.model, "judge": args.judge, **summarise(graded)}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    table = Table(title=f"LoCoMo answer accuracy, {len(graded)} questions ({args.data.name})")
    table.add_column("slice")
    table.add_column("questions", justify="right")
    table.add_column("accuracy %", justify="right")
    table.add_row("overall", str(len(graded)), f"{result['accuracy']}")
    per = result["per_category"]
    assert isinstance(per, dict)
    for name, values in per.items():
        table.add_row(name, str(values["questions"]), f"{values['accuracy']}")
    console = Console()
    console.print(table)
    console.print(f"tiers: {result['tiers']}  latency: {result['latency_ms']}")
    errors = result["errors"]
    if isinstance(errors, list) and errors:
        console.print(f"[yellow]{len(errors)} questions failed (model errors); see --json[/]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
