"""Direct (tier-2) answers read by a person: composed answers against the score-order ones.

    .venv/bin/python bench/answers.py [--locomo ../shared/bench/locomo/locomo_dev.json]

Two sets, each answered two ways from the same retrieval (the engine's, lifecycle and caches
off: no use is recorded, so question order does not matter):
- composed: `bridge.query.direct` (sentences and list items that carry the question's words,
  in the note's order, under their heading, cited; at most `query_answer_words` = 120 words);
- score-order: what tier 2 answered before, the top note's blocks best first up to 120 words.

Template vault (tests/fixtures/answers/template_questions.json, 35 questions written with the
sentence that answers each): the answer holds the key text; it holds a metadata line (a
Relations or Raw Concept line, or the frontmatter summary); it holds a code block the question
did not name an identifier of; its length; the tier the product gives the question.
LoCoMo (dev split): an evidence turn counts as in the answer when one of its sentences of 4+
words is there verbatim (the same rule for both ways, so whole turns are not favoured).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.locomo import Question, imported, load  # noqa: E402
from bridge.core.compose import named_identifiers  # noqa: E402
from bridge.core.markdown import excerpt_text  # noqa: E402
from bridge.core.text import word_count  # noqa: E402
from bridge.index.analysis import query_terms  # noqa: E402
from bridge.query.direct import direct_answer  # noqa: E402
from bridge.query.engine import QueryEngine  # noqa: E402
from bridge.query.lifecycle import StatusOnlyLifecycle  # noqa: E402
from bridge.query.models import Source  # noqa: E402
from bridge.runtime import Bridge, open_bridge  # noqa: E402
from bridge.settings import Settings  # noqa: E402

QUESTIONS = ROOT / "tests" / "fixtures" / "answers" / "template_questions.json"
TEMPLATE = ROOT / "vault-template"
WORDS = 120
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def norm(text: str) -> str:
    return " ".join(text.split()).lower()


def score_order(sources: Sequence[Source], words: int = WORDS) -> str:
    """The answer tier 2 gave before: the top note's packed blocks, best first."""
    if not sources or not sources[0].blocks:
        return ""
    chosen: list[str] = []
    used = 0
    for block in sources[0].blocks:
        n = word_count(block.text)
        if chosen and used + n > words:
            break
        chosen.append(block.text)
        used += n
    return "\n\n".join(chosen)


@dataclass
class Ways:
    composed: str
    score_order: str
    tier: int


def answer_both(bridge: Bridge, engine: QueryEngine, q: str, scope: str | None) -> Ways:
    terms = query_terms(q)
    found = engine.retrieve(terms, engine.params.default_budget, 10, scope)
    direct = direct_answer(
        bridge.index, q, terms, found.sources, WORDS, engine.params.answer_second_note
    )
    tier = engine.query(q, scope=scope).tier
    return Ways(direct.text if direct else "", score_order(found.sources), tier)


def metadata_texts(bridge: Bridge) -> list[str]:
    """Every Relations / Raw Concept line and frontmatter summary of the vault, normalised."""
    out: list[str] = []
    for path in bridge.index.paths():
        note = bridge.store.read(path).parse()
        for block in note.blocks:
            section = (block.heading_path[-1] if block.heading_path else "").lower()
            if section in ("relations", "raw concept"):
                out.append(norm(excerpt_text(block.text)))
        if note.entry.summary:
            out.append(norm(note.entry.summary))
    return [t for t in out if len(t.split()) >= 3]


def template_run(console: Console) -> dict[str, dict[str, float]]:
    cases = json.loads(QUESTIONS.read_text())["questions"]
    with tempfile.TemporaryDirectory() as tmp:
        import shutil

        vault = Path(tmp) / "vault"
        shutil.copytree(TEMPLATE, vault)
        bridge = open_bridge(Settings(vault=vault, state_dir=Path(tmp) / "state"))
        bridge.sync()
        engine = QueryEngine(bridge.index, StatusOnlyLifecycle(), bridge.engine.params)
        meta = metadata_texts(bridge)
        rows: dict[str, list[tuple[bool, bool, bool, int]]] = {"composed": [], "score-order": []}
        tiers: Counter[int] = Counter()
        misses: list[str] = []
        for case in cases:
            ways = answer_both(bridge, engine, case["q"], None)
            tiers[ways.tier] += 1
            named = named_identifiers(case["q"])
            for name, text in (("composed", ways.composed), ("score-order", ways.score_order)):
                flat = norm(text)
                key = norm(case["key"]) in flat
                has_meta = any(m in flat for m in meta)
                code = "```" in text and not named
                rows[name].append((key, has_meta, code, word_count(text)))
                if name == "composed" and not key:
                    misses.append(case["q"])
        bridge.close()
    table = Table(title=f"Template vault: {len(cases)} questions, answers of at most {WORDS} words")
    for column in ("answer", "key sentence", "metadata line", "unasked code", "words (median)"):
        table.add_column(column, justify="right")
    summary: dict[str, dict[str, float]] = {}
    for name, results in rows.items():
        n = len(results)
        figures = {
            "key": 100 * sum(r[0] for r in results) / n,
            "metadata": 100 * sum(r[1] for r in results) / n,
            "code": 100 * sum(r[2] for r in results) / n,
            "words": statistics.median(r[3] for r in results),
        }
        summary[name] = figures
        table.add_row(
            name,
            f"{figures['key']:.1f}%",
            f"{figures['metadata']:.1f}%",
            f"{figures['code']:.1f}%",
            f"{figures['words']:.0f}",
        )
    console.print(table)
    console.print(f"product tiers for these questions: {dict(sorted(tiers.items()))}")
    if misses:
        console.print("composed answers without the key sentence: " + "; ".join(misses))
    return summary


def turn_in(answer: str, turn: str) -> bool:
    flat = norm(answer)
    return any(
        len(s.split()) >= 4 and norm(s) in flat for s in _SENTENCE.split(" ".join(turn.split()))
    )


def locomo_run(console: Console, path: Path) -> dict[str, float]:
    data, texts, questions = load(path)
    with imported(data) as bridge:
        engine = QueryEngine(bridge.index, StatusOnlyLifecycle(), bridge.engine.params)
        hits = {"composed": 0.0, "score-order": 0.0}
        lengths: dict[str, list[int]] = {"composed": [], "score-order": []}

        def evidence_share(q: Question, answer: str) -> float:
            turns = [texts[(q.conversation, t)] for t in q.evidence]
            return sum(turn_in(answer, t) for t in turns) / len(turns)

        share: Callable[[Question, str], float] = evidence_share
        for q in questions:
            ways = answer_both(bridge, engine, q.text, f"conversations/{q.conversation}")
            for name, text in (("composed", ways.composed), ("score-order", ways.score_order)):
                hits[name] += share(q, text)
                lengths[name].append(word_count(text))
    table = Table(title=f"LoCoMo dev: {len(questions)} questions, answers of at most {WORDS} words")
    table.add_column("answer")
    table.add_column("evidence turn in the answer", justify="right")
    table.add_column("words (median)", justify="right")
    out: dict[str, float] = {}
    for name in hits:
        out[name] = 100 * hits[name] / len(questions)
        table.add_row(name, f"{out[name]:.1f}%", f"{statistics.median(lengths[name]):.0f}")
    console.print(table)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--locomo", type=Path, help="LoCoMo JSON (e.g. the dev split)")
    args = parser.parse_args(argv)
    console = Console()
    template_run(console)
    if args.locomo:
        locomo_run(console, args.locomo)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
