"""Superseded facts: among two near-identical notes, does the current one come first?

    python bench/updates.py [--facts 240] [--seed 7] [--json]

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

Each question is asked with `search` (so asking does not credit anything) through the product's
engine (`open_bridge`: state lifecycle), and the pair's current note must rank above the old
one. The same questions run with the lifecycle's tolerance at 0 (relevance alone) and at other
tolerances, from one vault and one state, so the rows compare like with like.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import random
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
FILLERS = ("currently", "now", "today", "still")
# The rest of a note, the same in both of a pair (a superseding note copies its context).
CONTEXT = (
    "It belongs to the {svc} domain and follows the shared service conventions.",
    "Changes to it go through the weekly change review, and the decision is logged.",
    "Ask the owners in the team channel before touching production settings.",
    "Dashboards for {svc} show latency, errors and saturation side by side.",
    "The settings are kept in the configuration repository next to the code.",
)


@dataclass(frozen=True)
class Pair:
    question: str
    current: str
    old: str
    history: str  # old-used, new-used, unused
    human_core: bool


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


def generate(
    vault: Path, facts: int, rng: random.Random, now: dt.datetime
) -> tuple[list[Pair], list[tuple[str, str, dt.datetime]]]:
    """Write the pairs; return them and the uses to record, as (path, status, when)."""
    combos = [(s, a) for a in ATTRIBUTES for s in SERVICES]
    rng.shuffle(combos)
    pairs: list[Pair] = []
    uses: list[tuple[str, str, dt.datetime]] = []
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
        # One word more in one of the two at random ("now", "still"), as edits leave it, so
        # their relevance is near-equal but not identical and neither is always shorter.
        filler = rng.choice(FILLERS)
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


def current_first(engine: QueryEngine, pairs: Sequence[Pair]) -> dict[str, Any]:
    """Share of questions whose current note ranks above the old one, overall and by kind."""
    wins: dict[str, list[bool]] = {"all": [], "old-used": [], "new-used": [], "unused": []}
    wins["human core"] = []
    for pair in pairs:
        order = [s.path for s in engine.search(pair.question, limit=10).sources]
        rank = {p: i for i, p in enumerate(order)}
        won = rank.get(pair.current, 99) < rank.get(pair.old, 99)
        wins["all"].append(won)
        wins[pair.history].append(won)
        if pair.human_core:
            wins["human core"].append(won)
    return {k: round(100 * sum(v) / len(v), 1) for k, v in wins.items() if v}


def run(facts: int, seed: int, tolerances: Sequence[float]) -> dict[str, Any]:
    rng = random.Random(seed)
    now = dt.datetime.now(dt.UTC)
    with tempfile.TemporaryDirectory() as tmp:
        vault, state = Path(tmp) / "vault", Path(tmp) / "state"
        vault.mkdir()
        pairs, uses = generate(vault, facts, rng, now)
        bridge: Bridge = open_bridge(Settings(vault=vault, state_dir=state))
        try:
            bridge.sync()
            for path, status, when in sorted(uses, key=lambda u: u[2]):
                bridge.lifecycle.record_access({path: status}, when)
            default = bridge.engine.params.ranking.lifecycle_tolerance
            rows = []
            for tolerance in sorted({*tolerances, default, 0.0}):
                ranking = dataclasses.replace(
                    bridge.engine.params.ranking, lifecycle_tolerance=tolerance
                )
                params = dataclasses.replace(bridge.engine.params, ranking=ranking)
                engine = QueryEngine(bridge.index, bridge.engine.lifecycle, params)
                label = "off" if tolerance == 0 else f"{tolerance:g}"
                if tolerance == default:
                    label += " (default)"
                rows.append({"tolerance": label, **current_first(engine, pairs)})
        finally:
            bridge.close()
    return {"facts": len(pairs), "notes": 2 * len(pairs), "seed": seed, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=240, help="pairs of notes (max 240)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tolerances", default="0.02,0.1", help="lifecycle tolerances to try")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    tolerances = [float(s) for s in args.tolerances.split(",") if s.strip()]
    result = run(min(args.facts, len(SERVICES) * len(ATTRIBUTES)), args.seed, tolerances)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    columns = ["all", "old-used", "new-used", "unused", "human core"]
    table = Table(
        title=f"Current note ranked above its superseded twin, % of {result['facts']} questions"
    )
    table.add_column("lifecycle tolerance")
    for column in columns:
        table.add_column(column, justify="right")
    for row in result["rows"]:
        table.add_row(row["tolerance"], *(f"{row.get(c, 0):.1f}" for c in columns))
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
