"""Fit the ranker's weights on real vaults' questions, and judge them on vaults left out.

    python bench/fit_ranker.py collect --vault hub=DIR --vault logseq=DIR --vault dendron=DIR
        [--locomo ../shared/bench/locomo/locomo_dev.json] --state-root DIR --out FEATURES.json
    python bench/fit_ranker.py fit FEATURES.json [--write] [--json]

`collect` asks every question of each vault through the product's own retrieval (the
candidates and their features as `bridge.query.retrieval` computes them, the dense channel on,
every note embedded, lifecycle neutral) and keeps, per question, every candidate's features
and whether it answers. The questions are the fixed files in `bench/data/` (`hub`, `logseq`,
`dendron`: written before anything was measured) and LoCoMo's dev split (a session note
answers when it holds an evidence turn).

`fit` fits the weights of `bridge.core.ranker.FEATURES` with a pairwise logistic regression
(scikit-learn at fit time; only the weights ship): for each real question, each answering
candidate against each other candidate; every vault weighs the same, every question within
it the same. It reports, per vault, the answer first / within 3 / within 10 and MRR over the
candidates: **in sample** (weights fitted on every vault) and **left out** (fitted on all the
other vaults). The confidence that the first source answers is a logistic regression over
`bridge.core.ranker.CONFIDENCE`, fitted the same way (real questions: did the first answer;
off-topic questions: never). `--write` writes `bridge/core/ranker_weights.py` from the fit on
every vault.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from real_vaults import embedded_bridge, vault_questions

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS_FILE = ROOT / "bridge" / "core" / "ranker_weights.py"
BUDGET = 500
LIMIT = 10


# -- collect --------------------------------------------------------------------------------


def _ask(bridge: Any, text: str, scope: str | None = None) -> tuple[Any, float]:
    """The retrieval of `text`, and the share of its words' rarity in words no note holds."""
    from bridge.core.text import normalise_query
    from bridge.index.analysis import query_terms

    terms = query_terms(normalise_query(text))
    total, unknown = bridge.engine.retriever.evidence.words_weight(terms)
    found = bridge.engine.retrieve(terms, BUDGET, LIMIT, scope, text)
    return found, unknown / total if total > 0 else 0.0


def _row(qid: str, kind: str, asked: tuple[Any, float], answers: set[str]) -> dict[str, Any]:
    from bridge.core.ranker import CONFIDENCE

    found, unknown = asked
    inputs = dict(zip(CONFIDENCE, found.evidence.inputs, strict=True))
    return {
        "id": qid,
        "kind": kind,
        "paths": [r.path for r in found.ranked],
        "features": [list(r.features) for r in found.ranked],
        "answers": sorted(answers),
        "evidence": {"unknown": unknown, "closeness": inputs.get("closeness", 0.0)},
    }


def _probes(bridge: Any) -> list[float]:
    """Each off-topic probe's best passage cosine in this vault (`bridge.semantic.calibration`):
    where the vault's off-topic line is drawn from."""
    from bridge.semantic.calibration import probe_vectors

    semantic = bridge.semantic
    if semantic is None or len(semantic.matrix) == 0:
        return []
    vectors = probe_vectors(semantic.embedder)
    return [hits[0].score for v in vectors if (hits := semantic.matrix.search(v, 1))]


def collect_vault(name: str, vault: Path, state: Path) -> tuple[list[dict[str, Any]], list[float]]:
    real, off = vault_questions(name)
    rows = []
    with embedded_bridge(vault, state) as bridge:
        probes = _probes(bridge)
        for q in real:
            rows.append(
                _row(q["id"], q.get("words", "own"), _ask(bridge, q["question"]), set(q["answers"]))
            )
        for q in off:
            rows.append(_row(q["id"], "off", _ask(bridge, q["question"]), set()))
    return rows, probes


def collect_locomo(path: Path, state: Path) -> tuple[list[dict[str, Any]], list[float]]:
    sys.path.append(str(ROOT))
    from bench.locomo_common import Setup, imported, load, recall

    data, texts, questions = load(path)
    rows = []
    with imported(data, Setup(vectors=state / "locomo-vectors")) as bridge:
        vault = bridge.settings.vault
        notes: dict[str, str] = {}
        for i, q in enumerate(questions):
            scope = f"conversations/{q.conversation}"
            asked = _ask(bridge, q.text, scope)
            answers = set()
            for rel in (r.path for r in asked[0].ranked):
                if rel not in notes:
                    notes[rel] = (vault / rel).read_text(encoding="utf-8")
                if recall(q, notes[rel], texts) > 0:  # it holds an evidence turn
                    answers.add(rel)
            rows.append(_row(f"l{i:04d}", f"c{q.category}", asked, answers))
        probes = _probes(bridge)
    return rows, probes


# -- fit ------------------------------------------------------------------------------------


def _fitted_names() -> list[str]:
    from bridge.core.ranker import FEATURES, FIXED

    return [f for f in FEATURES if f not in FIXED]


def _real(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["kind"] != "off"]


def fit_weights(by_vault: dict[str, list[dict[str, Any]]], c: float = 1.0) -> dict[str, float]:
    """Pairwise logistic regression over the vaults' real questions (see the module doc)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from bridge.core.ranker import FEATURES

    names = _fitted_names()
    cols = [FEATURES.index(n) for n in names]
    xs: list[Any] = []
    ws: list[float] = []
    for rows in by_vault.values():
        real = [r for r in _real(rows) if set(r["answers"]) & set(r["paths"])]
        for row in real:
            feats = np.asarray(row["features"], dtype=float)[:, cols]
            good = [i for i, p in enumerate(row["paths"]) if p in row["answers"]]
            bad = [i for i, p in enumerate(row["paths"]) if p not in row["answers"]]
            if not good or not bad:
                continue
            diffs = (feats[good][:, None, :] - feats[bad][None, :, :]).reshape(-1, len(cols))
            weight = 1.0 / (len(real) * len(diffs))
            xs.append(diffs)
            ws.extend([weight] * len(diffs))
    x = np.vstack(xs)
    w = np.asarray(ws)
    x2 = np.vstack([x, -x])
    y = np.concatenate([np.ones(len(x)), np.zeros(len(x))])
    model = LogisticRegression(fit_intercept=False, C=c, max_iter=5000)
    model.fit(x2, y, sample_weight=np.concatenate([w, w]) * len(by_vault) * 1000)
    return {n: float(v) for n, v in zip(names, model.coef_[0], strict=True)}


def lexical_view(by_vault: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """The rows as the product sees them with the dense channel off: its features are 0 and
    the candidates only it found are not candidates."""
    from bridge.core.ranker import DENSE_FEATURES, FEATURES

    dense = [FEATURES.index(n) for n in DENSE_FEATURES]
    found = [FEATURES.index(n) for n in ("entry", "block", "window", "relation")]
    out: dict[str, list[dict[str, Any]]] = {}
    for name, rows in by_vault.items():
        kept = []
        for row in rows:
            pairs = [
                (p, [0.0 if i in dense else v for i, v in enumerate(f)])
                for p, f in zip(row["paths"], row["features"], strict=True)
                if any(f[i] > 0 for i in found)
            ]
            kept.append(
                {
                    **row,
                    "paths": [p for p, _ in pairs],
                    "features": [f for _, f in pairs],
                    "evidence": {**row["evidence"], "closeness": 0.0},
                }
            )
        out[name] = kept
    return out


def _vector(weights: dict[str, float]) -> list[float]:
    from bridge.core.ranker import FEATURES, FIXED

    return [FIXED.get(n, weights.get(n, 0.0)) for n in FEATURES]


def _order(row: dict[str, Any], vector: Sequence[float]) -> list[int]:
    scores = [math.fsum(a * b for a, b in zip(f, vector, strict=True)) for f in row["features"]]
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def rank_of(row: dict[str, Any], vector: Sequence[float]) -> int | None:
    for place, i in enumerate(_order(row, vector)[:LIMIT], start=1):
        if row["paths"][i] in row["answers"]:
            return place
    return None


def rates(ranks: Sequence[int | None]) -> dict[str, float]:
    n = max(1, len(ranks))
    return {
        "questions": len(ranks),
        "first": round(100 * sum(r == 1 for r in ranks) / n, 1),
        "within_3": round(100 * sum(r is not None and r <= 3 for r in ranks) / n, 1),
        "within_10": round(100 * sum(r is not None for r in ranks) / n, 1),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def judge(rows: Sequence[dict[str, Any]], vector: Sequence[float]) -> dict[str, float]:
    return rates([rank_of(r, vector) for r in _real(rows)])


def channel(rows: Sequence[dict[str, Any]], feature: str) -> dict[str, float]:
    """The ranking by one feature alone (ties in candidate order)."""
    from bridge.core.ranker import FEATURES

    vector = [1.0 if n == feature else 0.0 for n in FEATURES]
    return judge(rows, vector)


def confidence_inputs(row: dict[str, Any], vector: Sequence[float]) -> dict[str, float]:
    """What `bridge.core.ranker.confidence` reads, for the row's first candidate, as the
    product works it out (`bridge.query.evidence.confidence_inputs`)."""
    from bridge.core.ranker import FEATURES
    from bridge.query.evidence import confidence_inputs as product_inputs

    if not row["paths"]:
        return {}
    scores = [math.fsum(a * b for a, b in zip(f, vector, strict=True)) for f in row["features"]]
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    first = dict(zip(FEATURES, row["features"][order[0]], strict=True))
    second = scores[order[1]] if len(order) > 1 else None
    held = max(f[FEATURES.index("coverage")] for f in row["features"])
    ev = row["evidence"]
    return product_inputs(
        first, scores[order[0]], second, ev["unknown"], held, ev.get("closeness", 0.0)
    )


def fit_confidence(
    by_vault: dict[str, list[dict[str, Any]]], vector: Sequence[float]
) -> dict[str, Any]:
    """Logistic regression: does the first candidate answer? (off-topic: never). Every vault
    weighs the same."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from bridge.core.ranker import CONFIDENCE

    xs, ys, ws = [], [], []
    for rows in by_vault.values():
        for row in rows:
            inputs = confidence_inputs(row, vector)
            if not inputs:
                continue
            order = _order(row, vector)
            answered = row["kind"] != "off" and row["paths"][order[0]] in row["answers"]
            xs.append([inputs[n] for n in CONFIDENCE])
            ys.append(1.0 if answered else 0.0)
            ws.append(1.0 / len(rows))
    model = LogisticRegression(C=1.0, max_iter=5000)
    model.fit(np.asarray(xs), np.asarray(ys), sample_weight=np.asarray(ws) * 1000)
    return {
        "weights": {n: float(v) for n, v in zip(CONFIDENCE, model.coef_[0], strict=True)},
        "bias": float(model.intercept_[0]),
    }


def fit_on_topic(
    by_vault: dict[str, list[dict[str, Any]]], vector: Sequence[float]
) -> dict[str, Any]:
    """Logistic regression: is the question about the vault at all? Real questions against
    off-topic ones, of the vaults that have both (a conversation's questions are all real);
    within a vault real and off-topic questions weigh the same, and every vault the same."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from bridge.core.ranker import ON_TOPIC

    xs, ys, ws = [], [], []
    for rows in by_vault.values():
        real = sum(1 for r in rows if r["kind"] != "off")
        off = len(rows) - real
        if not real or not off:
            continue
        for row in rows:
            inputs = confidence_inputs(row, vector) or {"unknown": row["evidence"]["unknown"]}
            is_real = row["kind"] != "off"
            xs.append([inputs.get(n, 0.0) for n in ON_TOPIC])
            ys.append(1.0 if is_real else 0.0)
            ws.append(1.0 / (real if is_real else off))
    model = LogisticRegression(C=1.0, max_iter=5000)
    model.fit(np.asarray(xs), np.asarray(ys), sample_weight=np.asarray(ws) * 1000)
    return {
        "weights": {n: float(v) for n, v in zip(ON_TOPIC, model.coef_[0], strict=True)},
        "bias": float(model.intercept_[0]),
    }


def fit(path: Path, write: bool, as_json: bool, c: float) -> dict[str, Any]:
    """Both weight sets: with the dense channel, and without it (`lexical_view`)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    both: dict[str, list[dict[str, Any]]] = data["vaults"]
    report = {"channels": fit_mode(both, c), "lexical": fit_mode(lexical_view(both), c)}
    report["thresholds"] = fit_thresholds(both, report["channels"])
    if write:
        _write(report, "python bench/fit_ranker.py fit FEATURES --write")
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        for mode, part in report.items():
            _print(mode, part)
    return report


def fit_mode(by_vault: dict[str, list[dict[str, Any]]], c: float) -> dict[str, Any]:
    """Weights fitted on every vault, each vault judged in sample and left out."""
    weights = fit_weights(by_vault, c)
    vector = _vector(weights)
    report: dict[str, Any] = {"weights": weights, "vaults": {}}
    for name, rows in by_vault.items():
        others = {k: v for k, v in by_vault.items() if k != name}
        left = _vector(fit_weights(others, c)) if others else None
        real = _real(rows)
        report["vaults"][name] = {
            "in_sample": judge(rows, vector),
            "left_out": judge(rows, left) if left else rates([]),
            "candidates_hold_answer": round(
                100 * statistics.fmean(bool(set(r["answers"]) & set(r["paths"])) for r in real), 1
            ),
            "dense_alone": channel(rows, "dense_abs"),
            "entry_alone": channel(rows, "entry"),
        }
    report["confidence"] = fit_confidence(by_vault, vector)
    report["on_topic"] = fit_on_topic(by_vault, vector)
    report["calibration"] = fit_calibration(by_vault, vector)
    return report


def fit_thresholds(
    by_vault: dict[str, list[dict[str, Any]]], channels: dict[str, Any]
) -> dict[str, Any]:
    """The decision's thresholds on the confidence, chosen on the vaults' questions and
    judged by vault left out.

    `ood`: the highest on-topic probability (`bridge.core.ranker.on_topic`) under which at
    most 2% of any vault's real questions would be answered "Nothing in memory" (a question
    one note holds every word of never is).
    `direct`: the lowest confidence from which at most 10% of any vault's real questions get
    a direct answer from a note that does not answer.
    """
    from bridge.core.ranker import RankerWeights, confidence, on_topic
    from bridge.core.tiers import EVERY_WORD

    weights = RankerWeights(
        {},
        (0.0, 0.0),
        channels["confidence"]["weights"],
        channels["confidence"]["bias"],
        "",
        on_topic=channels["on_topic"]["weights"],
        on_topic_bias=channels["on_topic"]["bias"],
    )
    vector = _vector(channels["weights"])
    facts: dict[str, list[tuple[bool, float, bool, bool, float]]] = {}
    for name, rows in by_vault.items():
        out = []
        for row in rows:
            inputs = confidence_inputs(row, vector) or {"unknown": row["evidence"]["unknown"]}
            conf = confidence(inputs, weights) if "score" in inputs else 0.0
            topic = on_topic(inputs, weights)
            named = inputs.get("held", 0.0) >= EVERY_WORD
            first = bool(row["paths"]) and row["paths"][_order(row, vector)[0]] in row["answers"]
            out.append((row["kind"] != "off", conf, named, first, topic))
        facts[name] = out

    def refused(name: str, ood: float) -> tuple[int, int, int, int]:
        real = [f for f in facts[name] if f[0]]
        off = [f for f in facts[name] if not f[0]]
        return (
            len(real),
            sum(1 for *_, n, _, t in real if t < ood and not n),
            len(off),
            sum(1 for *_, n, _, t in off if t < ood and not n),
        )

    def highest_ood(names: Sequence[str]) -> float:
        # A conversation's questions name its speakers, which is never "nothing in memory"
        # (`is_out_of_domain`): only the vaults with off-topic questions choose the line.
        names = [n for n in names if any(not f[0] for f in facts[n])] or list(names)
        best = 0.0
        for step in range(1, 200):
            ood = step / 400
            if all(refused(n, ood)[1] <= 0.02 * refused(n, ood)[0] for n in names):
                best = ood
        return best

    def tier_two(name: str, direct: float) -> tuple[float, float]:
        real = [f for f in facts[name] if f[0]]
        right = sum(1 for f in real if f[1] >= direct and f[3])
        wrong = sum(1 for f in real if f[1] >= direct and not f[3])
        return right / max(1, len(real)), wrong / max(1, len(real))

    def lowest_direct(names: Sequence[str]) -> float:
        for step in range(5, 96):
            direct = step / 100
            if all(tier_two(n, direct)[1] <= 0.10 for n in names):
                return direct
        return 0.95

    report: dict[str, Any] = {
        "ood": highest_ood(list(facts)),
        "direct": lowest_direct(list(facts)),
        "vaults": {},
    }
    for name in facts:
        others = [n for n in facts if n != name] or [name]
        left_ood, left_direct = highest_ood(others), lowest_direct(others)
        real, rf, off, of = refused(name, report["ood"])
        _, lrf, _, lof = refused(name, left_ood)
        right, wrong = tier_two(name, report["direct"])
        lright, lwrong = tier_two(name, left_direct)
        report["vaults"][name] = {
            "real": real,
            "off_topic": off,
            "in_sample": {
                "real_refused": rf,
                "off_topic_refused": of,
                "tier_two_answering": round(100 * right, 1),
                "tier_two_another": round(100 * wrong, 1),
            },
            "left_out": {
                "ood": left_ood,
                "direct": left_direct,
                "real_refused": lrf,
                "off_topic_refused": lof,
                "tier_two_answering": round(100 * lright, 1),
                "tier_two_another": round(100 * lwrong, 1),
            },
        }
    return report


def fit_calibration(
    by_vault: dict[str, list[dict[str, Any]]], vector: Sequence[float]
) -> tuple[float, float]:
    """(slope, intercept): a note's score as the probability that it answers (logistic
    regression over every candidate of the real questions; every vault weighs the same)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    xs, ys, ws = [], [], []
    for rows in by_vault.values():
        real = _real(rows)
        for row in real:
            for path, f in zip(row["paths"], row["features"], strict=True):
                xs.append([math.fsum(a * b for a, b in zip(f, vector, strict=True))])
                ys.append(1.0 if path in row["answers"] else 0.0)
                ws.append(1.0 / (len(real) * max(1, len(row["paths"]))))
    model = LogisticRegression(C=1.0, max_iter=5000)
    model.fit(np.asarray(xs), np.asarray(ys), sample_weight=np.asarray(ws) * 1000)
    return float(model.coef_[0][0]), float(model.intercept_[0])


def _print(mode: str, report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    title = "both channels" if mode == "channels" else "the dense channel off"
    table = Table(title=f"The right note first: candidates ranked by the fitted ranker ({title})")
    for col in ("vault", "weights", "questions", "first", "within 3", "within 10", "MRR"):
        table.add_column(col)
    for name, res in report["vaults"].items():
        for label in ("in_sample", "left_out", "dense_alone", "entry_alone"):
            r = res[label]
            table.add_row(
                name,
                label.replace("_", " "),
                str(r["questions"]),
                f"{r['first']:.1f}",
                f"{r['within_3']:.1f}",
                f"{r['within_10']:.1f}",
                f"{r['mrr']:.3f}",
            )
    Console().print(table)
    Console().print({k: round(v, 3) for k, v in report["weights"].items()})


def _write(report: dict[str, Any], command: str) -> None:
    """`bridge/core/ranker_weights.py`: the weights fitted on every vault, with and without the
    dense channel (the only part of the fit that ships)."""
    import textwrap

    from bridge.core.ranker import FEATURES, FIXED

    vaults = ", ".join(
        f"{name} ({res['in_sample']['questions']} questions)"
        for name, res in report["channels"]["vaults"].items()
    )

    def entries(values: dict[str, float]) -> str:
        return "\n".join(f"        {json.dumps(k)}: {round(v, 6)!r}," for k, v in values.items())

    chosen = report["thresholds"]
    thresholds = {"direct": chosen["direct"], "ood": chosen["ood"]}

    def weights(part: dict[str, Any], name: str) -> str:
        note = {n: FIXED.get(n, part["weights"].get(n, 0.0)) for n in FEATURES}
        conf = part["confidence"]
        return (
            f"{name} = RankerWeights(\n"
            f"    note={{\n{entries(note)}\n    }},\n"
            f"    calibration=({round(part['calibration'][0], 6)!r}, "
            f"{round(part['calibration'][1], 6)!r}),\n"
            f"    confidence={{\n{entries(conf['weights'])}\n    }},\n"
            f"    confidence_bias={round(conf['bias'], 6)!r},\n"
            f"    on_topic={{\n{entries(part['on_topic']['weights'])}\n    }},\n"
            f"    on_topic_bias={round(part['on_topic']['bias'], 6)!r},\n"
            f"    source={json.dumps('bench/fit_ranker.py')},\n"
            f"    thresholds={{\n{entries(thresholds)}\n    }},\n"
            ")\n"
        )

    about = textwrap.fill(
        f"Fitted on the real questions of {vaults} (`{command}`); the figures, in sample and "
        "by vault left out, are in docs/benchmarks.md. `FITTED` ranks with both channels, "
        "`FITTED_LEXICAL` when the dense channel gives nothing.",
        width=96,
    )
    text = (
        '"""The ranker\'s weights (`bridge.core.ranker`), written by `bench/fit_ranker.py`.\n\n'
        f"{about}\n"
        '"""\n\n'
        "from bridge.core.ranker import RankerWeights\n\n"
        f"{weights(report['channels'], 'FITTED')}\n"
        f"{weights(report['lexical'], 'FITTED_LEXICAL')}"
    )
    WEIGHTS_FILE.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    col = sub.add_parser("collect")
    col.add_argument("--vault", action="append", default=[], metavar="NAME=DIR")
    col.add_argument("--locomo", type=Path)
    col.add_argument("--state-root", type=Path, required=True)
    col.add_argument("--out", type=Path, required=True)
    fitp = sub.add_parser("fit")
    fitp.add_argument("features", type=Path)
    fitp.add_argument("--write", action="store_true")
    fitp.add_argument("--json", action="store_true")
    fitp.add_argument("--c", type=float, default=1.0)
    fitp.add_argument(
        "--packing",
        type=float,
        default=2.0,
        help="how strongly a note's score carries to its blocks",
    )
    args = parser.parse_args(argv)
    if args.command == "collect":
        out: dict[str, Any] = (
            json.loads(args.out.read_text()) if args.out.exists() else {"vaults": {}, "probes": {}}
        )
        for item in args.vault:
            name, _, folder = item.partition("=")
            rows, probes = collect_vault(name, Path(folder), args.state_root / name)
            out["vaults"][name], out["probes"][name] = rows, probes
            args.out.write_text(json.dumps(out))
        if args.locomo is not None:
            rows, probes = collect_locomo(args.locomo, args.state_root)
            out["vaults"]["locomo"], out["probes"]["locomo"] = rows, probes
            args.out.write_text(json.dumps(out))
        return 0
    fit(args.features, args.write, args.json, args.c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
