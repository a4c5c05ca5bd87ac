"""Real-vault questions: does the page that answers come first? Off-topic questions flagged?

    python bench/hub.py --vault ~/hub [--state DIR] [--set KEY=VALUE ...] [--json]

The vault is the public Obsidian Hub (`../shared/bench/obsidian-hub/`, unpack it anywhere
outside the checkout); the questions are `bench/data/hub_questions.json`, written before
anything was measured and kept fixed: 52 questions as people ask them (39 in their own
words, not the page's), each with every note that answers it, and 12 off-topic questions.

Every question goes through the product's query engine as `vault-bridge query` asks it
(`open_bridge` with the settings given, `limit` 10, uses recorded as the product records
them, nothing opened). Reported: the first source answers, an answer among the first 3,
mean reciprocal rank over the first 10 sources, off-topic questions answered "Nothing in
memory" (`ood`), real questions wrongly flagged, and which tier answered. `--set` changes a
setting (`--set embed_model=off` measures lexical-only); the table says what was on.
`--state` keeps the index (and vectors) between runs; the first run builds them.
`--channels` also ranks every real question by the dense channel alone (its own passage
search, nothing recorded) and lists where the fused answer lost, or won, what it found; with
`--lexical FILE` (a lexical-only run's `--json --per-question` output) it also reports the
bounds: the answer within the first 1 / 3 / 10 of either channel, beside the product. The
lifecycle state (uses, importance) starts afresh each run, so one run's answers cannot
reorder the next run's.

`--questions bench/data/help_questions.json` asks a vault in six languages instead (a sample of
the Obsidian help vault, listed in `bench/data/help_vault.txt`); its questions give their
language, and the report counts those whose first source sits in another language's folder.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bridge.core.language import folder_language
from bridge.query.models import QueryResult
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings

QUESTIONS = Path(__file__).parent / "data" / "hub_questions.json"


@dataclass(frozen=True)
class Asked:
    """One question as the bench scores it."""

    qid: str
    words: str  # "own", "page" or "off" (off-topic)
    rank: int | None  # 1-based rank of the first answering source among the first 10
    ood: bool
    tier: int
    first: str | None
    latency_ms: float
    lang: str | None = None  # the question's language, when the questions file gives it


def _settings(vault: Path, state: Path, overrides: list[str]) -> Settings:
    values: dict[str, Any] = {}
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--set wants KEY=VALUE, not {item!r}")
        values[key.strip()] = value.strip()
    return Settings(vault=vault, state_dir=state, **values)


def _rank(result: QueryResult, answers: set[str]) -> int | None:
    """The place of the first source that answers; a source answers through its copies too
    (`also_in`: one source for a page and its copies)."""
    for i, source in enumerate(result.sources[:10], start=1):
        if source.path in answers or answers.intersection(source.also_in):
            return i
    return None


def ask_all(bridge: Bridge, data: dict[str, Any]) -> list[Asked]:
    """Every question once, in file order, through the engine's tiers."""
    out: list[Asked] = []
    for q in data["questions"]:
        result = bridge.engine.query(q["question"], limit=10)
        first = result.sources[0].path if result.sources and not result.ood else None
        rank = None if result.ood else _rank(result, set(q["answers"]))
        out.append(
            Asked(
                q["id"],
                q["words"],
                rank,
                result.ood,
                result.tier,
                first,
                result.latency_ms,
                q.get("lang"),
            )
        )
    for q in data["off_topic"]:
        result = bridge.engine.query(q["question"], limit=10)
        first = result.sources[0].path if result.sources and not result.ood else None
        out.append(Asked(q["id"], "off", None, result.ood, result.tier, first, result.latency_ms))
    return out


def _within(rank: int | None, n: int) -> bool:
    return rank is not None and rank <= n


def rank_rates(ranks: list[int | None]) -> dict[str, float]:
    """First, within 3 and MRR over the first 10 of 1-based ranks (None: not in the first 10)."""
    n = max(1, len(ranks))
    return {
        "questions": len(ranks),
        "first": round(100 * sum(r == 1 for r in ranks) / n, 1),
        "within_3": round(100 * sum(_within(r, 3) for r in ranks) / n, 1),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def summarise(asked: list[Asked]) -> dict[str, Any]:
    """The bench's figures: hit@1, hit@3 and MRR per kind of question, off-topic flagged."""
    real = [a for a in asked if a.words != "off"]
    off = [a for a in asked if a.words == "off"]

    def rates(group: list[Asked]) -> dict[str, float]:
        return rank_rates([a.rank for a in group])

    # In a vault laid out by language folders (`en/`, `zh/`...): a first source from another
    # language's folder than the question's (questions that give their `lang` only).
    with_lang = [a for a in real if a.lang is not None]
    other = [
        a
        for a in with_lang
        if a.first is not None and folder_language(a.first) not in (None, a.lang)
    ]
    return {
        "all": rates(real),
        "own": rates([a for a in real if a.words == "own"]),
        "page": rates([a for a in real if a.words == "page"]),
        "off_topic_flagged": sum(a.ood for a in off),
        "off_topic": len(off),
        "real_flagged": sum(a.ood for a in real),
        "tiers": dict(sorted(Counter(str(a.tier) for a in asked).items())),
        "latency_ms_median": round(statistics.median(a.latency_ms for a in asked), 2),
        "misses": [a.qid for a in real if a.rank != 1],
        "other_language_first": (
            {"questions": len(with_lang), "count": len(other), "ids": [a.qid for a in other]}
            if with_lang
            else None
        ),
        "by_language": {
            lang: rates([a for a in with_lang if a.lang == lang])
            for lang in sorted({a.lang for a in with_lang if a.lang is not None})
        },
    }


def speed(bridge: Bridge, data: dict[str, Any], rounds: int) -> dict[str, Any]:
    """Tier-2 retrieval time with and without the dense channel, alternated question by
    question in this process (same vault, same index, same moment): `search` runs the
    retrieval a query's tier 2 runs, without the caches that would answer a repeat."""
    questions = [q["question"] for q in data["questions"]]
    retriever = bridge.engine.retriever
    dense = retriever.dense
    times: dict[str, list[float]] = {"hybrid": [], "lexical": []}
    for _ in range(rounds):
        for text in questions:
            for label, channel in (("hybrid", dense), ("lexical", None)):
                retriever.dense = channel
                start = time.perf_counter()
                bridge.engine.search(text, limit=10)
                times[label].append((time.perf_counter() - start) * 1000)
    retriever.dense = dense

    def cut(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "p50": round(statistics.median(ordered), 2),
            "p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 2),
        }

    out = {label: cut(values) for label, values in times.items()}
    out["p50_ratio"] = round(out["hybrid"]["p50"] / out["lexical"]["p50"], 2)
    return out


def channels(bridge: Bridge, data: dict[str, Any], asked: list[Asked]) -> dict[str, Any] | None:
    """The dense channel alone beside the product's fused answer, question by question.

    Each real question's notes in the order of their best passage (the channel's own
    search, `depth` passages, as the engine asks it; nothing recorded), against the rank
    the product gave (`asked`). `lost` lists the questions whose answer the channel alone
    had within 3 and the fused answer did not: where the fusion threw away what the channel
    found (the other way round: `won`). None without a dense channel.
    """
    semantic = bridge.semantic
    if semantic is None:
        return None
    depth = bridge.engine.retriever.params.dense.depth
    given = {a.qid: a.rank for a in asked}
    dense: dict[str, int | None] = {}
    for q in data["questions"]:
        found = semantic.find(q["question"], None, depth)
        if not found.hits:
            continue  # a language the model does not serve: lexical only
        notes: list[str] = []
        for hit in found.hits:
            path = bridge.index.path_of(hit.nid)
            if path is not None and path not in notes:
                notes.append(path)
        answers = set(q["answers"])
        dense[q["id"]] = next((i for i, p in enumerate(notes[:10], 1) if p in answers), None)

    return {
        "dense_ranks": dense,
        "dense_alone": rank_rates(list(dense.values())),
        "fused_same_questions": rank_rates([given[qid] for qid in dense]),
        "lost": {
            q: [r, given[q]] for q, r in dense.items() if _within(r, 3) and not _within(given[q], 3)
        },
        "won": {
            q: [r, given[q]] for q, r in dense.items() if _within(given[q], 3) and not _within(r, 3)
        },
    }


def bounds(asked: list[Asked], dense: dict[str, int | None], lexical: Path) -> dict[str, Any]:
    """What the two channels could give at best: the share of real questions whose answer is
    within the first k of the lexical-only product (a run with `--set embed_model=off
    --per-question`, its JSON at `lexical`), of the dense channel alone, of either one, and
    of the product (fused), for k = 1, 3, 10.

    Why: "either" is an oracle that picks, for each question, the channel that has its
    answer; a fusion that ranks only what one channel put in its first k does no better.
    When the product is near it, what is missing is in the channels, not in their fusion.
    """
    lex_run = json.loads(lexical.read_text(encoding="utf-8"))
    lex = {q["qid"]: q["rank"] for q in lex_run["per_question"] if q["words"] != "off"}
    real = [a for a in asked if a.words != "off"]
    if set(lex) != {a.qid for a in real}:
        raise SystemExit(f"{lexical} holds other questions than this run")
    n = max(1, len(real))

    def share(hit: Any, k: int) -> float:
        return round(100 * sum(bool(hit(a, k)) for a in real) / n, 1)

    rows = {
        "lexical": lambda a, k: _within(lex[a.qid], k),
        "dense": lambda a, k: _within(dense.get(a.qid), k),
        "either": lambda a, k: _within(lex[a.qid], k) or _within(dense.get(a.qid), k),
        "product": lambda a, k: _within(a.rank, k),
    }
    return {
        "questions": len(real),
        **{name: {str(k): share(hit, k) for k in (1, 3, 10)} for name, hit in rows.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, required=True)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--state", type=Path, help="state dir to keep (default: a temp one)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--per-question", action="store_true")
    parser.add_argument(
        "--speed",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="also time tier-2 retrieval with and without the dense channel, alternated",
    )
    parser.add_argument(
        "--channels",
        action="store_true",
        help="also rank by the dense channel alone, beside the fused answer",
    )
    parser.add_argument(
        "--lexical",
        type=Path,
        metavar="JSON",
        help="with --channels: a lexical-only run's JSON (--per-question), for the bounds",
    )
    args = parser.parse_args(argv)
    if args.lexical and not args.channels:
        parser.error("--lexical needs --channels")
    data = json.loads(args.questions.read_text(encoding="utf-8"))
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        state = args.state or Path(tmp) / "state"
        for old in state.glob("state.sqlite*"):  # no uses carried over from an earlier run
            old.unlink()
        settings = _settings(args.vault.resolve(), state, args.set)
        bridge = open_bridge(settings)
        try:
            start = time.perf_counter()
            bridge.sync()
            ready = bridge.prepare_semantic(embed=True)
            built = time.perf_counter() - start
            asked = ask_all(bridge, data)
            timing = speed(bridge, data, args.speed) if args.speed else None
            by_channel = channels(bridge, data, asked) if args.channels else None
        finally:
            bridge.close()
    report = summarise(asked) | {
        "settings": args.set,
        "index_seconds": round(built, 1),
        "semantic": ready,
        "speed": timing,
        "channels": by_channel,
    }
    if args.lexical and by_channel is not None:
        report["bounds"] = bounds(asked, by_channel["dense_ranks"], args.lexical)
    if args.per_question:
        report["per_question"] = [a.__dict__ for a in asked]
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    table = Table(title=f"Hub questions ({', '.join(args.set) or 'product defaults'})")
    for col in ("questions", "n", "first source", "within 3", "MRR"):
        table.add_column(col)
    for kind in ("all", "own", "page"):
        r = report[kind]
        table.add_row(
            kind, str(r["questions"]), f"{r['first']}%", f"{r['within_3']}%", str(r["mrr"])
        )
    console = Console()
    console.print(table)
    if timing is not None:
        console.print(f"tier-2 retrieval, alternated: {timing}")
    console.print(
        f"off-topic flagged {report['off_topic_flagged']} of {report['off_topic']}; real "
        f"questions flagged {report['real_flagged']}; tiers {report['tiers']}; median "
        f"{report['latency_ms_median']} ms; misses {' '.join(report['misses'])}"
    )
    if by_channel is not None:
        shown = {k: v for k, v in by_channel.items() if k != "dense_ranks"}
        console.print(f"dense channel alone: {shown}")
    if "bounds" in report:
        bound = Table(title="answer within the first k (real questions)")
        for col in ("ranked by", "k = 1", "3", "10"):
            bound.add_column(col)
        for name in ("lexical", "dense", "either", "product"):
            bound.add_row(name, *(f"{report['bounds'][name][k]}%" for k in ("1", "3", "10")))
        console.print(bound)
    if report["other_language_first"] is not None:
        console.print(
            f"first source in another language's folder: {report['other_language_first']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
