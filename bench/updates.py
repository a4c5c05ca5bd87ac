"""Superseded facts: among two near-identical notes, does the current one come first?

    python bench/updates.py [--facts 240] [--seed 7] [--variants near,wide,distractor] [--json]

This is where the lifecycle must earn its place (DESIGN section 3). A generated vault holds,
for each fact, an older note and a newer note that supersedes it, worded alike so that their
relevance to the question is near-equal: the same context paragraph, the same sentence with
another value ("deploys to eu-west-1" / "deploys to us-east-2"), and one word more in one of
them ("now", "still"), as edits leave it. Each pair gets a history a real vault has:

- `updated`: the old note 90-400 days ago, the new one 0-45 days ago;
- uses (recorded in the state database at their dates, as the bridge records them): in a third
  of the pairs the old note was used much more (5-20 uses while it was current), in a third
  the new one was (3-10 recent uses), in a third neither was used;
- in a quarter of the pairs a human confirmed the new note (`status: core`); in another fifth
  the old note had earned `status: stable` from its uses.

Three variants, each on its own vault (`--variants`):

- `near`: the one-word difference above (the best blocks 2-3% apart, inside the lifecycle's 5%
  tolerance, which was tuned on this variant);
- `wide`: a 3-4-word phrase instead ("as of this quarter"), as a fuller edit leaves it: the
  pair's relevance differs by more than the tolerance in many pairs;
- `distractor`: the `near` pairs plus, for each service, an unrelated note that is recent
  (0-2 days), confirmed by a human (`status: core`) and much used (20-40 uses this month) and
  shares the service's name with the questions: it must not rank above either note of a pair.

Each question is asked with `search` (so asking does not credit anything) through the product's
engine (`open_bridge`: state lifecycle, the dense channel on and every note embedded, as the
product runs by default; `--set embed_model=off` for lexical only), and the pair's current note
must rank above the old one. The same questions run with the lifecycle's tolerance at 0
(relevance alone) and at other tolerances, from one vault and one state, so the rows compare
like with like.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import random
import statistics
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bridge.query.engine import QueryEngine
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings

SERVICES = (
    "billing", "search", "checkout", "payments", "reports", "notifications", "ledger", "catalog",
    "identity", "gateway", "inventory", "shipping", "pricing", "analytics", "exports", "imports",
    "audit", "scheduler", "media", "sync",
)  # fmt: skip

# attribute: (question, sentence with {svc} and {value}, values of the same number of words)
ATTRIBUTES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "deploy_region": (
        "Which region does the {svc} service deploy to?",
        "The {svc} service deploys to the {value} region through the release pipeline.",
        ("eu-west-1", "us-east-2", "ap-south-1", "eu-north-1", "us-west-2"),
    ),
    "database": (
        "Which database does the {svc} service store its records in?",
        "The {svc} service stores its records in {value} with nightly snapshots.",
        ("Postgres", "MySQL", "CockroachDB", "DynamoDB", "MongoDB"),
    ),
    "owner": (
        "Which team owns the {svc} service?",
        "The {svc} service is owned by the {value} team, who answer its pages.",
        ("platform", "payments", "growth", "core", "infrastructure"),
    ),
    "rate_limit": (
        "What is the rate limit of the {svc} service API?",
        "The {svc} service API allows {value} requests per minute per client key.",
        ("600", "1200", "300", "900", "2400"),
    ),
    "backup_window": (
        "When is the backup window of the {svc} service?",
        "The {svc} service backup window opens at {value} UTC every night.",
        ("01:00", "02:30", "03:15", "04:00", "23:45"),
    ),
    "oncall_channel": (
        "Which channel does the {svc} service on-call use?",
        "The {svc} service on-call rotation talks in the {value} channel during incidents.",
        ("#ops-alerts", "#svc-oncall", "#incidents", "#pager", "#war-room"),
    ),
    "timeout": (
        "What request timeout does the {svc} service use?",
        "The {svc} service gives up on upstream requests after {value} seconds.",
        ("5", "10", "15", "30", "45"),
    ),
    "queue": (
        "Which queue does the {svc} service consume?",
        "The {svc} service consumes jobs from the {value} queue in order.",
        ("kafka-main", "sqs-standard", "rabbit-jobs", "redis-stream", "pubsub-events"),
    ),
    "cache": (
        "What cache does the {svc} service put in front of reads?",
        "The {svc} service puts {value} in front of its reads with a short TTL.",
        ("Redis", "Memcached", "Varnish", "Hazelcast", "Ehcache"),
    ),
    "language": (
        "Which language is the {svc} service written in?",
        "The {svc} service is written in {value} and built by the shared CI.",
        ("Go", "Rust", "Kotlin", "Python", "TypeScript"),
    ),
    "runbook": (
        "Where is the runbook of the {svc} service?",
        "The {svc} service runbook lives in the {value} space of the wiki.",
        ("ops", "platform", "handbook", "runbooks", "incident"),
    ),
    "sla": (
        "What availability does the {svc} service promise?",
        "The {svc} service promises {value} availability over each calendar month.",
        ("99.9%", "99.95%", "99.5%", "99.99%", "99%"),
    ),
}
# What one note of a pair has more than the other, as edits leave it: one word ("now"), or a
# phrase of 3-4 words that none of the questions asks about.
GAPS: dict[str, tuple[str, ...]] = {
    "near": ("currently", "now", "today", "still"),
    "wide": (
        "as of this quarter",
        "for the time being",
        "since the last migration",
        "for now anyway",
        "as of today",
        "since last spring",
    ),
}
VARIANTS = ("near", "wide", "distractor")
# The rest of a note, the same in both of a pair (a superseding note copies its context).
CONTEXT = (
    "It belongs to the {svc} domain and follows the shared service conventions.",
    "Changes to it go through the weekly change review, and the decision is logged.",
    "Ask the owners in the team channel before touching production settings.",
    "Dashboards for {svc} show latency, errors and saturation side by side.",
    "The settings are kept in the configuration repository next to the code.",
)
# The distractor: the service team's week. It names the service and uses each question's
# words in another sense ("the sales region", "a cache of snacks"), so it is found and
# competes, and it answers none of the questions.
DISTRACTOR = (
    "The sales region leads asked the {svc} service team to deploy a demo for them.",
    "The {svc} service team keeps its hiring records in a shared database of candidates.",
    "The {svc} service team owns the coffee machine rota this month.",
    "The {svc} service team set a rate limit of two pizzas per person for the API hack day.",
    "The {svc} service team's backup plan for the offsite is the room with the big window.",
    "The {svc} service on-call party invitations go out in the social channel.",
    "The {svc} service team asked for a timeout on meeting requests during the freeze.",
    "The {svc} service team will consume the cake in the queue outside the kitchen.",
    "The {svc} service team put a cache of snacks in front of the reading room.",
    "The {svc} service onboarding guide is written in plain language.",
    "The {svc} service party runbook is where the playlist lives.",
    "The {svc} service team promises full availability for the summer party.",
)


@dataclass(frozen=True)
class Pair:
    question: str
    current: str
    old: str
    history: str  # old-used, new-used, unused
    human_core: bool
    distractor: str | None = None  # the unrelated note that must stay below both


def _frontmatter(title: str, status: str, updated: dt.datetime, author: str) -> str:
    stamp = updated.strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        f"---\ntitle: {title}\nstatus: {status}\ncreated: {stamp}\nupdated: {stamp}\n"
        f"author: {author}\n---\n"
    )


def _note(
    title: str, sentence: str, context: str, status: str, updated: dt.datetime, author: str
) -> str:
    head = _frontmatter(title, status, updated, author)
    return f"{head}# {title}\n\n{sentence}\n\n{context}\n"


Use = tuple[str, str, dt.datetime]  # (path, status, when)


def generate(
    vault: Path, facts: int, rng: random.Random, now: dt.datetime, gap: str = "near"
) -> tuple[list[Pair], list[Use]]:
    """Write the pairs; return them and the uses to record, as (path, status, when).

    `gap`: what one note has more than the other (`GAPS`). The `near` vault of a seed is the
    same as before the variants existed (the same draws in the same order)."""
    combos = [(s, a) for a in ATTRIBUTES for s in SERVICES]
    rng.shuffle(combos)
    pairs: list[Pair] = []
    uses: list[Use] = []
    for number, (svc, attribute) in enumerate(combos[:facts]):
        question, sentence, values = ATTRIBUTES[attribute]
        old_value, new_value = rng.sample(values, 2)
        title = f"{svc.title()} {attribute.replace('_', ' ')}"
        old_at = now - dt.timedelta(days=rng.uniform(90, 400))
        new_at = now - dt.timedelta(days=rng.uniform(0, 45))
        history = ("old-used", "new-used", "unused")[number % 3]
        human_core = rng.random() < 0.25
        old_status = "stable" if (not human_core and rng.random() < 0.27) else "draft"
        old_text = sentence.format(svc=svc, value=old_value)
        new_text = sentence.format(svc=svc, value=new_value)
        # One word (`near`) or a phrase (`wide`) more in one of the two at random, as edits
        # leave it, so neither is always shorter; `near` keeps their relevance near-equal.
        filler = rng.choice(GAPS[gap])
        service = f"The {svc} service "
        if rng.random() < 0.5:
            old_text = old_text.replace(service, f"{service}{filler} ", 1)
        else:
            new_text = new_text.replace(service, f"{service}{filler} ", 1)
        context = " ".join(rng.sample(CONTEXT, 3)).format(svc=svc)
        names = [f"{attribute}_a", f"{attribute}_b"]
        rng.shuffle(names)  # the file name says nothing about which one is current
        folder = f"services/{svc}"
        old_path, new_path = f"{folder}/{names[0]}.md", f"{folder}/{names[1]}.md"
        (vault / folder).mkdir(parents=True, exist_ok=True)
        (vault / old_path).write_text(
            _note(title, old_text, context, old_status, old_at, "agent:ops")
        )
        new_status, new_author = ("core", "human") if human_core else ("draft", "agent:ops")
        (vault / new_path).write_text(
            _note(title, new_text, context, new_status, new_at, new_author)
        )
        if history == "old-used":
            for _ in range(rng.randint(5, 20)):
                uses.append((old_path, old_status, old_at + (new_at - old_at) * rng.random()))
        elif history == "new-used":
            for _ in range(rng.randint(3, 10)):
                uses.append((new_path, new_status, new_at + (now - new_at) * rng.random()))
        pairs.append(Pair(question.format(svc=svc), new_path, old_path, history, human_core))
    return pairs, uses


def add_distractors(
    vault: Path, pairs: Sequence[Pair], rng: random.Random, now: dt.datetime
) -> tuple[list[Pair], list[Use]]:
    """One unrelated, recent, human-confirmed, much-used note per service (`DISTRACTOR`)."""
    uses: list[Use] = []
    paths: dict[str, str] = {}
    for pair in pairs:
        svc = pair.current.split("/")[1]
        if svc in paths:
            continue
        paths[svc] = path = f"services/{svc}/team_week.md"
        title = f"{svc.title()} team week"
        body = "\n\n".join(line.format(svc=svc) for line in DISTRACTOR)
        updated = now - dt.timedelta(days=rng.uniform(0, 2))
        (vault / path).write_text(_note(title, body, "", "core", updated, "human"))
        for _ in range(rng.randint(20, 40)):
            uses.append((path, "core", now - dt.timedelta(days=rng.uniform(0, 30))))
    with_distractor = [
        dataclasses.replace(p, distractor=paths[p.current.split("/")[1]]) for p in pairs
    ]
    return with_distractor, uses


def current_first(engine: QueryEngine, pairs: Sequence[Pair]) -> tuple[dict[str, Any], list[bool]]:
    """Share of questions whose current note ranks above the old one, overall and by kind.

    With distractors, also the share where the distractor ranks above neither note of the
    pair (`relevant first`), the share where it was returned at all (`distractor found`), and
    per question whether it passed a relevant note (to compare rows)."""
    wins: dict[str, list[bool]] = {"all": [], "old-used": [], "new-used": [], "unused": []}
    wins["human core"] = []
    wins["relevant first"] = []
    wins["distractor found"] = []
    passed: list[bool] = []
    for pair in pairs:
        order = [s.path for s in engine.search(pair.question, limit=10).sources]
        rank = {p: i for i, p in enumerate(order)}
        won = rank.get(pair.current, 99) < rank.get(pair.old, 99)
        wins["all"].append(won)
        wins[pair.history].append(won)
        if pair.human_core:
            wins["human core"].append(won)
        if pair.distractor is not None:
            at = rank.get(pair.distractor)
            relevant = [rank[p] for p in (pair.current, pair.old) if p in rank]
            passed.append(at is not None and any(at < r for r in relevant))
            wins["relevant first"].append(not passed[-1])
            wins["distractor found"].append(at is not None)
    return {k: round(100 * sum(v) / len(v), 1) for k, v in wins.items() if v}, passed


def relevance_gaps(engine: QueryEngine, pairs: Sequence[Pair]) -> dict[str, float]:
    """How far apart the two notes of a pair are in relevance (their best blocks' scores,
    relevance alone), median and 95th percentile, in % of the higher."""
    gaps: list[float] = []
    for pair in pairs:
        best: dict[str, float] = {}
        for source in engine.search(pair.question, limit=10).sources:
            best[source.path] = max((b.score for b in source.blocks), default=0.0)
        high = max(best.get(pair.current, 0.0), best.get(pair.old, 0.0))
        if high > 0:
            gaps.append(100 * abs(best.get(pair.current, 0.0) - best.get(pair.old, 0.0)) / high)
    gaps.sort()
    return {
        "median": round(statistics.median(gaps), 1),
        "p95": round(gaps[min(len(gaps) - 1, int(0.95 * len(gaps)))], 1),
        "over_tolerance": round(100 * sum(g > 5.0 for g in gaps) / len(gaps), 1),
    }


def run_variant(
    variant: str, facts: int, seed: int, tolerances: Sequence[float], overrides: dict[str, Any]
) -> dict[str, Any]:
    """One variant's rows: its own vault and state, every tolerance over the same questions."""
    rng = random.Random(seed)
    now = dt.datetime.now(dt.UTC)
    with tempfile.TemporaryDirectory() as tmp:
        vault, state = Path(tmp) / "vault", Path(tmp) / "state"
        vault.mkdir()
        pairs, uses = generate(vault, facts, rng, now, "wide" if variant == "wide" else "near")
        if variant == "distractor":
            pairs, more = add_distractors(vault, pairs, rng, now)
            uses += more
        bridge: Bridge = open_bridge(Settings(vault=vault, state_dir=state, **overrides))
        try:
            bridge.sync()
            bridge.prepare_semantic(embed=True)  # as `serve` has it once embedding is done
            for path, status, when in sorted(uses, key=lambda u: u[2]):
                bridge.lifecycle.record_access({path: status}, when)
            default = bridge.engine.params.ranking.lifecycle_tolerance
            rows = []
            gaps: dict[str, float] = {}
            passed_off: list[bool] = []
            for tolerance in sorted({*tolerances, default, 0.0}):
                ranking = dataclasses.replace(
                    bridge.engine.params.ranking, lifecycle_tolerance=tolerance
                )
                params = dataclasses.replace(bridge.engine.params, ranking=ranking)
                engine = QueryEngine(
                    bridge.index, bridge.engine.lifecycle, params, dense=bridge.semantic
                )
                label = "off" if tolerance == 0 else f"{tolerance:g}"
                if tolerance == default:
                    label += " (default)"
                if tolerance == 0:
                    gaps = relevance_gaps(engine, pairs)
                shares, passed = current_first(engine, pairs)
                row: dict[str, Any] = {"tolerance": label, **shares}
                if passed:
                    # Questions where relevance alone kept the distractor below both notes
                    # and the lifecycle let it pass one: its harm, counted directly.
                    passed_off = passed if tolerance == 0 else passed_off  # 0 comes first
                    lifted = zip(passed, passed_off, strict=True)
                    row["lifted"] = sum(p and not o for p, o in lifted)
                rows.append(row)
        finally:
            bridge.close()
    notes = 2 * len(pairs) + (len({p.distractor for p in pairs}) if variant == "distractor" else 0)
    return {"variant": variant, "notes": notes, "relevance_gap_pct": gaps, "rows": rows}


def run(
    facts: int,
    seed: int,
    tolerances: Sequence[float],
    variants: Sequence[str] = VARIANTS,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    settings = dict(overrides or {})
    results = [run_variant(v, facts, seed, tolerances, settings) for v in variants]
    return {
        "facts": facts,
        "seed": seed,
        "settings": [f"{k}={v}" for k, v in settings.items()],
        "variants": results,
    }


COLUMNS = ("all", "old-used", "new-used", "unused", "human core", "relevant first", "lifted")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=240, help="pairs of notes (max 240)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tolerances", default="0.02,0.1", help="lifecycle tolerances to try")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="near, wide, distractor")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting for every bridge (--set embed_model=off: lexical only)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    tolerances = [float(s) for s in args.tolerances.split(",") if s.strip()]
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(sorted(unknown))}; choose from {VARIANTS}")
    overrides = dict(item.partition("=")[::2] for item in args.set)
    facts = min(args.facts, len(SERVICES) * len(ATTRIBUTES))
    result = run(facts, args.seed, tolerances, variants, overrides)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    what = ", ".join(args.set) or "product defaults (dense channel on)"
    table = Table(
        title=f"Current note ranked above its superseded twin, % of {facts} questions ({what})"
    )
    table.add_column("variant")
    table.add_column("lifecycle tolerance")
    for column in COLUMNS:
        table.add_column(column, justify="right")
    for variant in result["variants"]:
        for row in variant["rows"]:
            cells = (f"{row[c]:g}" if c in row else "-" for c in COLUMNS)
            table.add_row(variant["variant"], row["tolerance"], *cells)
    Console().print(table)
    for variant in result["variants"]:
        gap = variant["relevance_gap_pct"]
        Console().print(
            f"{variant['variant']}: relevance gap median {gap['median']}%, p95 {gap['p95']}%, "
            f"over 5% in {gap['over_tolerance']}% of pairs"
            + (
                f"; distractor returned in {variant['rows'][0]['distractor found']}%"
                if variant["variant"] == "distractor"
                else ""
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
