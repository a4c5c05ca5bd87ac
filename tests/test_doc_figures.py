"""The figures the README and docs/benchmarks.md quote are the ones the benches wrote.

`bench/results/*.json` are the `--json` outputs of the runs the docs quote (their commands are
in bench/results/README.md). A figure edited by hand, or a rerun whose JSON was committed
without the docs (or the other way round), fails here: the README's figures paragraph must
hold, in bold and in order, exactly the values computed below from the JSON, and no other
percentage; docs/benchmarks.md must hold the table rows built from the same JSON.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from tests.conftest import ROOT

RESULTS = ROOT / "bench" / "results"
README_FIGURES = "Measured without an LLM"  # how the README's figures paragraph starts


@cache
def result(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RESULTS / f"{name}.json").read_text())
    return data


def _at500(run: dict[str, Any]) -> float:
    return float(run["recall_at_words"]["500"])


def _superseded(name: str, variant: str, tolerance: str = "0.05 (default)") -> dict[str, Any]:
    (found,) = [v for v in result(name)["variants"] if v["variant"] == variant]
    (row,) = [r for r in found["rows"] if r["tolerance"] == tolerance]
    return dict(row)


def readme_figures() -> list[str]:
    """The README's figures, in the order its paragraph states them."""
    dense, lexical = result("locomo"), result("locomo_lexical")
    no_boost = result("locomo_no_speaker_boost")
    unscoped = dense["variants"]["unscoped"][0]
    percents = [
        _at500(dense),
        _at500(dense["baseline"]),
        _at500(dense["deployed_3pass"]),
        _at500(lexical),
        _at500(lexical["deployed_3pass"]),
    ]
    boost_points = round(_at500(dense) - _at500(no_boost), 1)
    later = [
        _at500(no_boost),
        _at500(unscoped),
        _superseded("updates", "near")["all"],
        _superseded("updates", "near", "off")["all"],
        _superseded("updates_lexical", "near")["all"],
        _superseded("updates", "wide")["all"],
    ]
    return [
        *(f"{v:.1f}%" for v in percents),
        f"{boost_points:.1f}",
        *(f"{v:.1f}%" for v in later),
        str(_superseded("updates", "distractor")["lifted"]),
        f"{result('hub')['all']['first']:.1f}%",
        f"{result('hub_lexical')['all']['first']:.1f}%",
        f"{result('hub')['all']['within_3']:.1f}%",
        str(result("hub")["off_topic_flagged"]),
        f"{result('help')['all']['first']:.1f}%",
        f"{result('help')['all']['within_3']:.1f}%",
        str(result("help")["other_language_first"]["count"]),
    ]


def readme_paragraph() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(README_FIGURES)
    return text[start : text.index("\n\n", start)]


def test_the_readme_quotes_the_benches_figures() -> None:
    paragraph = readme_paragraph()
    quoted = re.findall(r"\*\*([\d.,]+%?)\*\*", paragraph)
    assert quoted == readme_figures()
    # Every percentage is one of them: a figure added without its JSON fails.
    loose = re.findall(r"\d+(?:\.\d+)?%", re.sub(r"\*\*[^*]+\*\*", "", paragraph))
    assert loose == [], f"percentages not taken from bench/results: {loose}"


def test_each_result_is_the_run_its_command_names() -> None:
    # The settings each JSON was made with are the ones the docs attribute to it.
    assert result("locomo")["settings"] == []
    assert set(result("locomo")["variants"]) == {"deployed", "repeat", "days", "unscoped"}
    assert result("locomo_lexical")["settings"] == ["embed_model=off"]
    assert result("locomo_no_speaker_boost")["settings"] == ["rank_speaker_boost=1"]
    assert result("locomo_tolerance_10")["settings"] == ["rank_lifecycle_tolerance=0.1"]
    assert result("updates")["settings"] == []
    assert result("updates_lexical")["settings"] == ["embed_model=off"]
    assert result("locomo_even")["settings"] == ["dense_share_exact=0.5", "dense_share_vague=0.5"]
    assert result("hub")["settings"] == []
    assert result("hub_lexical")["settings"] == ["embed_model=off"]
    assert result("hub_even")["settings"] == ["dense_share_exact=0.5", "dense_share_vague=0.5"]
    listed = (RESULTS / "README.md").read_text()
    for path in sorted(RESULTS.glob("*.json")):
        assert f"`{path.name}`" in listed, f"{path.name} has no command in bench/results/README.md"


def _tiers(run: dict[str, Any]) -> str:
    names = {"3 (excerpts, no LLM)": "3", "4 (excerpts, no LLM)": "4"}
    counts = {names.get(k, k): v for k, v in run["tiers"].items()}
    return " · ".join(f"{k}: {v:,}" for k, v in sorted(counts.items()))


def _recall_cells(run: dict[str, Any]) -> str:
    at = run["recall_at_words"]
    multi = run["per_category"]["multi-hop"]["500"]
    return f"{at['200']} | {at['500']} | {at['1000']} | {multi}"


def locomo_rows() -> list[str]:
    """docs/benchmarks.md's table of LoCoMo runs (issue 24), one row per pass."""
    dense = result("locomo")
    variants = dense["variants"]
    rows = [f"| lab (no uses recorded) | {_recall_cells(dense)} | - | - |"]
    labels = {
        "deployed": ("deployed, pass 1", "pass 2 (decay job first, same day)", "pass 3 (the same)"),
        "repeat": ("repeat, pass 1", "pass 2 (no decay between)"),
        "days": ("days, day 0", "day 7 (decay job daily since)", "day 30 (the same)"),
        "unscoped": ("unscoped (whole vault), pass 1",),
    }
    for name, names in labels.items():
        for label, run in zip(names, variants[name], strict=True):
            decay = run["decay_changes_before"]
            rows.append(f"| {label} | {_recall_cells(run)} | {_tiers(run)} | {decay} |")
    for name, what in (("locomo_lexical", "lexical-only"), ("locomo_no_speaker_boost", "no boost")):
        other = result(name)
        for label, run in (("lab", other), ("deployed", other["deployed"])):
            rows.append(f"| {what}: {label} | {_recall_cells(run)} | - | - |")
        third = other["deployed_3pass"]
        rows.append(f"| {what}: 3rd pass | {_recall_cells(third)} | {_tiers(third)} | - |")
    return rows


TOLERANCES = {"off": "off", "0.02": "2%", "0.05 (default)": "5% (default)", "0.1": "10%"}


def superseded_rows() -> list[str]:
    """docs/benchmarks.md's superseded-facts tables: dense (default) and lexical-only."""
    rows = []
    columns = ("all", "old-used", "new-used", "unused", "human core")
    for variant, label in (("near", "one word"), ("wide", "3-4 words")):
        for tolerance, shown in TOLERANCES.items():
            dense = _superseded("updates", variant, tolerance)
            lexical = _superseded("updates_lexical", variant, tolerance)
            cells = " | ".join(f"{dense[c]:.1f}" for c in columns)
            rows.append(f"| {label} | {shown} | {cells} | {lexical['all']:.1f} |")
    for tolerance, shown in TOLERANCES.items():
        dense = _superseded("updates", "distractor", tolerance)
        lexical = _superseded("updates_lexical", "distractor", tolerance)
        rows.append(
            f"| {shown} | {dense['relevant first']:.1f} | {dense['lifted']} "
            f"| {lexical['relevant first']:.1f} | {lexical['lifted']} |"
        )
    return rows


def dense_rows() -> list[str]:
    """docs/benchmarks.md's LoCoMo table with and without the dense channel."""
    runs = [result("locomo_lexical"), result("locomo"), result("locomo_even")]

    def words(run: dict[str, Any], bold: bool) -> str:
        at = run["recall_at_words"]
        middle = f"**{at['500']}**" if bold else str(at["500"])
        return f"{at['200']} / {middle} / {at['1000']}"

    def row(label: str, pick: Any) -> str:
        return (
            f"| {label} | "
            + " | ".join(words(pick(run), i == 1) for i, run in enumerate(runs))
            + " |"
        )

    def categories(run: dict[str, Any]) -> str:
        cat = run["per_category"]
        return " / ".join(str(cat[c]["500"]) for c in ("temporal", "open-domain", "single-hop"))

    multi = " | ".join(
        f"{r['per_category']['multi-hop']['500']} / "
        f"{r['deployed_3pass']['per_category']['multi-hop']['500']}"
        for r in runs
    )
    return [
        row("lab", lambda run: run),
        row("deployed", lambda run: run["deployed"]),
        row("deployed, 3rd pass", lambda run: run["deployed_3pass"]),
        f"| multi-hop @500 (lab / 3rd pass) | {multi} |",
        "| temporal / open-domain / single-hop @500 (lab) | "
        + " | ".join(categories(r) for r in runs)
        + " |",
    ]


def hub_rows() -> list[str]:
    """docs/benchmarks.md's real-vault table: lexical-only, dense (default), fixed even share."""
    runs = [result("hub_lexical"), result("hub"), result("hub_even")]

    def row(label: str, cell: Any) -> str:
        cells = [cell(run) for run in runs]
        cells[1] = f"**{cells[1]}**"
        return f"| {label} | {' | '.join(cells)} |"

    def split(measure: str) -> Any:
        return lambda run: f"{run['own'][measure]:.1f}% / {run['page'][measure]:.1f}%"

    return [
        row("first source answers (all 52)", lambda run: f"{run['all']['first']:.1f}%"),
        f"| ... own words (39) / page words (13) | {' | '.join(split('first')(r) for r in runs)} |",
        row("an answer within the first 3", lambda run: f"{run['all']['within_3']:.1f}%"),
        f"| ... own words / page words | {' | '.join(split('within_3')(r) for r in runs)} |",
        row("mean reciprocal rank (first 10)", lambda run: f"{run['all']['mrr']:.3f}"),
        row(
            'off-topic questions answered "Nothing in memory"',
            lambda run: f"{run['off_topic_flagged']} of {run['off_topic']}",
        ),
    ]


def bound_rows() -> list[str]:
    """docs/benchmarks.md's table of the two channels' bounds on the hub questions."""
    bound = result("hub")["bounds"]
    labels = {
        "lexical": "lexical-only product (dense channel off)",
        "dense": "dense channel alone",
        "either": "either of the two (an oracle)",
        "product": "**the product (fused)**",
    }
    return [
        f"| {label} | " + " | ".join(f"{bound[name][k]:.1f}%" for k in ("1", "3", "10")) + " |"
        for name, label in labels.items()
    ]


def help_rows() -> list[str]:
    """docs/benchmarks.md's six-language table: lexical-only, dense (default)."""
    runs = [result("help_lexical"), result("help")]

    def rates(group: str) -> Any:
        def cell(run: dict[str, Any]) -> str:
            r = run["all"] if group == "all" else run["by_language"][group]
            return f"{r['first']:.1f}% / {r['within_3']:.1f}% / {r['mrr']:.3f}"

        return cell

    def row(label: str, cell: Any) -> str:
        return f"| {label} | {cell(runs[0])} | **{cell(runs[1])}** |"

    def other(run: dict[str, Any]) -> str:
        return (
            f"{run['other_language_first']['count']} of {run['other_language_first']['questions']}"
        )

    return [
        row("all 44: first / within 3 / MRR", rates("all")),
        row("English (28)", rates("en")),
        row("first source in another language's folder", other),
        row(
            'off-topic answered "Nothing in memory" / real flagged',
            lambda run: f"{run['off_topic_flagged']} of {run['off_topic']} / {run['real_flagged']}",
        ),
    ]


def test_docs_benchmarks_tables_are_the_benches_figures() -> None:
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    rows = [
        *locomo_rows(),
        *superseded_rows(),
        *hub_rows(),
        *bound_rows(),
        *dense_rows(),
        *help_rows(),
    ]
    missing = [row for row in rows if row not in text]
    wrong = "\n".join(missing)
    assert missing == [], f"rows of docs/benchmarks.md that differ from bench/results:\n{wrong}"
