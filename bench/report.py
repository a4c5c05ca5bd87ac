"""The tables README.md and docs/benchmarks.md quote, rendered from `bench/results/*.json`.

    .venv/bin/python bench/report.py            # print every table, to paste into the docs

`tests/test_doc_figures.py` renders the same tables and fails when a doc does not hold them
verbatim: a figure edited by hand, or a rerun committed without its docs, is caught.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
VAULTS = ("logseq", "dendron", "hub")
NAMES = {
    "logseq": "Logseq docs",
    "dendron": "Dendron site",
    "hub": "Obsidian Hub",
    "locomo": "LoCoMo dev",
}


@cache
def result(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _rates(r: dict[str, Any]) -> str:
    return f"{_pct(r['first'])} | {_pct(r['within_3'])} | {_pct(r['within_10'])} | {r['mrr']:.3f}"


def ranker_rows() -> list[str]:
    """The ranker's candidates ordered by its weights: each vault left out of the fit, in
    sample, and each channel alone (both channels on)."""
    fit = result("ranker_fit")["channels"]["vaults"]
    rows = []
    for name in (*VAULTS, "locomo"):
        res = fit[name]
        n = res["in_sample"]["questions"]
        rows.append(f"| {NAMES[name]} ({n}) | left out | **{_rates(res['left_out'])}** |")
        rows.append(f"| | in sample | {_rates(res['in_sample'])} |")
        rows.append(f"| | meaning alone (best passage) | {_rates(res['dense_alone'])} |")
        rows.append(f"| | words alone (entry BM25) | {_rates(res['entry_alone'])} |")
    return rows


def product_rows() -> list[str]:
    """The real vaults' questions through the product (`bench/hub.py`): both channels, words
    only, meaning alone."""
    rows = []
    for name in VAULTS:
        both, words = result(name), result(f"{name}_lexical")
        alone = both["channels"]["dense_alone"]

        def cells(r: dict[str, Any]) -> str:
            return f"{_pct(r['first'])} | {_pct(r['within_3'])} | {r['mrr']:.3f}"

        flagged = f"{both['off_topic_flagged']} of {both['off_topic']}"
        n = both["all"]["questions"]
        rows.append(
            f"| {NAMES[name]} ({n}) | **{cells(both['all'])}** | {flagged} | "
            f"{both['real_flagged']} | {cells(words['all'])} | {cells(alone)} |"
        )
    return rows


def answer_rows() -> list[str]:
    """`bench/answers.py`: what the product answers to real and off-topic questions."""
    rows = []
    for name in VAULTS:
        r = result("answers")[name]
        real = r["real"]

        def share(key: str, whole: int = real, r: dict[str, Any] = r) -> str:
            return _pct(100 * r[key] / whole) if whole else "-"

        rows.append(
            f"| {NAMES[name]} ({real}) | **{share('from_answering_note')}** | "
            f"{share('from_another_note')} | {share('quotes_an_answering_sentence')} | "
            f"{share('to_llm_tier')} | {r['refused']} | {r['far_refused']} of {r['far']} | "
            f"{r['near_refused']} of {r['near']} |"
        )
    return rows


def threshold_rows() -> list[str]:
    """The decision's thresholds (`bench/fit_ranker.py`): each vault in sample and left out."""
    rows = []
    t = result("ranker_fit")["thresholds"]
    for name in (*VAULTS, "locomo"):
        v = t["vaults"][name]
        for label, part in (("left out", v["left_out"]), ("in sample", v["in_sample"])):
            off = f"{part['off_topic_refused']} of {v['off_topic']}" if v["off_topic"] else "-"
            rows.append(
                f"| {NAMES[name]} | {label} | {part['real_refused']} of {v['real']} | {off} | "
                f"{_pct(part['tier_two_answering'])} | {_pct(part['tier_two_another'])} |"
            )
    return rows


def locomo_rows() -> list[str]:
    """`bench/locomo.py --deployed`: evidence recall at 200 / 500 / 1000 words."""
    rows = []
    for name, label in (("locomo", "both channels (default)"), ("locomo_lexical", "words only")):
        run = result(name)
        for part, when in (
            (run, "no use recorded"),
            (run["deployed_3pass"], "third pass: uses, caches, decay"),
        ):
            at = part["recall_at_words"]
            multi = part["per_category"]["multi-hop"]["500"]
            rows.append(
                f"| {label} | {when} | {at['200']} | **{at['500']}** | {at['1000']} | {multi} |"
            )
    base = result("locomo")["baseline"]["recall_at_words"]
    cells = f"{base['200']} | {base['500']} | {base['1000']}"
    rows.append(f"| tantivy, one document per turn | - | {cells} | - |")
    return rows


def superseded_rows() -> list[str]:
    """`bench/updates.py`: the current note first among near-identical pairs."""
    rows = []
    for name, label in (("updates", "both channels (default)"), ("updates_lexical", "words only")):
        for variant in result(name)["variants"]:
            if variant["variant"] == "distractor":
                continue
            cells = {r["tolerance"]: r["all"] for r in variant["rows"]}
            rows.append(
                f"| {label} | {variant['variant']} | **{_pct(cells['0.05 (default)'])}** | "
                f"{_pct(cells['off'])} |"
            )
    return rows


def speed_rows() -> list[str]:
    """Tier 2 in process beside its floor (`bench/tier2_floor.py`), and through `serve` on the
    Hub in its first minute and after (`bench/serve_http.py`): milliseconds, machine-bound."""
    floor = result("tier2_floor")
    rows = [
        f"| in process, {floor['questions']} questions x {floor['rounds']} | "
        f"{floor['tier2_p50_ms']:.1f} | - | floor {floor['floor_p50_ms']:.1f} ms: "
        f"**{floor['ratio']:.1f}x** |"
    ]
    for phase, r in result("serve_http_hub")["phases"].items():
        rows.append(
            f"| through `serve`, {phase}, {r['questions']} questions | **{r['p50']:.1f}** | "
            f"{r['p99']:.1f} | max {r['max']:.1f} ms |"
        )
    return rows


def scale_rows() -> list[str]:
    """`bench/scale.py`: generated vaults, lexical only, beside raw tantivy on the same notes."""
    rows = []
    for r in result("scale"):
        tier2, raw = r["paired"]["paired_ms"]["tier2"], r["paired"]["paired_ms"]["raw"]
        cold, raw_cold = r["cold"]["cold_index_s"], r["raw"]["cold_index_s"]
        rows.append(
            f"| {r['entries']:,} | {tier2['p50']:.1f} / {tier2['p99']:.1f} | "
            f"{raw['p50']:.2f} ({tier2['p50'] / raw['p50']:.0f}x) | "
            f"{cold:.1f} s ({cold / raw_cold:.1f}x) | "
            f"{r['warm']['warm_start_s']:.2f} s | {r['query']['peak_rss_mb']:.0f} MB | "
            f"{r['cold']['index_mb']:.0f} MB |"
        )
    return rows


def load_rows() -> list[str]:
    """`bench/load.py`: fresh questions over HTTP while an agent curates and a human edits."""
    data = result("load")
    rows = []
    for step in data["steps"]:
        client, server = step["latency_ms"], step["server_ms"]
        rows.append(
            f"| {step['offered_qps']:.0f} | **{step['achieved_qps']:.1f}** | "
            f"{client['p50']:.0f} / {client['p99']:.0f} | {server['p50']:.1f} / "
            f"{server['p99']:.1f} | {step['cpu_cores']['server']:.2f} |"
        )
    return rows


def readme_rows() -> list[str]:
    """README.md's headline figures, each with whether it is in sample or left out."""
    fit = result("ranker_fit")["channels"]["vaults"]
    answers = result("answers")
    left = " / ".join(_pct(fit[n]["left_out"]["first"]) for n in VAULTS)
    first = " / ".join(_pct(result(n)["all"]["first"]) for n in VAULTS)
    tier2 = " / ".join(
        _pct(100 * answers[n]["from_answering_note"] / answers[n]["real"]) for n in VAULTS
    )
    off = sum(answers[n]["far_refused"] + answers[n]["near_refused"] for n in VAULTS)
    off_all = sum(answers[n]["far"] + answers[n]["near"] for n in VAULTS)
    locomo = result("locomo")
    near = next(v for v in result("updates")["variants"] if v["variant"] == "near")
    current = next(r["all"] for r in near["rows"] if r["tolerance"] == "0.05 (default)")
    return [
        f"| the page that answers comes first (Logseq / Dendron / Hub) | **{left}** | "
        "each vault left out of the fit | [ranker](docs/benchmarks.md#the-right-note-first) |",
        f"| ... through the product, as asked | **{first}** | in sample | "
        "[real vaults](docs/benchmarks.md#real-vaults-through-the-product) |",
        f"| a direct answer quotes a note that answers | **{tier2}** | in sample | "
        "[answers](docs/benchmarks.md#answers-a-person-can-trust) |",
        f'| off-topic questions answered "Nothing in memory" | **{off} of {off_all}** | in sample '
        "| [answers](docs/benchmarks.md#answers-a-person-can-trust) |",
        f"| LoCoMo evidence recall at 500 words | **{_pct(locomo['recall_at_words']['500'])}** | "
        "dev split, in sample | [LoCoMo](docs/benchmarks.md#locomo-evidence-recall) |",
        f"| the current of two near-identical notes first | **{_pct(current)}** | in sample | "
        "[superseded facts](docs/benchmarks.md#superseded-facts) |",
    ]


TABLES = {
    "ranker": ranker_rows,
    "product": product_rows,
    "answers": answer_rows,
    "thresholds": threshold_rows,
    "locomo": locomo_rows,
    "superseded": superseded_rows,
    "speed": speed_rows,
    "scale": scale_rows,
    "load": load_rows,
    "readme": readme_rows,
}


def main() -> None:
    for name, rows in TABLES.items():
        print(f"## {name}")
        print("\n".join(rows()))
        print()


if __name__ == "__main__":
    main()
