"""The figures README.md and docs/benchmarks.md quote are the ones the benches wrote, and the
docs read as a reference, not a diary.

`bench/results/*.json` are the `--json` outputs of the runs the docs quote (their commands are in
bench/results/README.md); `bench/report.py` renders the docs' tables from them. A figure edited
by hand, or a rerun whose JSON was committed without the docs (or the other way round), fails
here.
"""

from __future__ import annotations

import re
from pathlib import Path

from bench import report
from tests.conftest import ROOT

RESULTS = ROOT / "bench" / "results"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_benchmark_tables_are_the_benches_figures() -> None:
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for name, rows in report.TABLES.items():
        if name == "readme":
            continue
        missing = [row for row in rows() if row not in text]
        assert missing == [], f"docs/benchmarks.md lacks the {name} rows {missing}"


def test_every_figure_of_the_readme_has_its_json() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = report.readme_rows()
    assert [row for row in rows if row not in text] == []
    # Every bold figure of the README is one of those rows': none without a bench behind it.
    quoted = re.findall(r"\*\*([\d.,/% of]+)\*\*", text)
    backed = " ".join(rows)
    assert quoted and all(f"**{figure}**" in backed for figure in quoted), quoted


def test_every_result_has_its_command() -> None:
    listed = (RESULTS / "README.md").read_text(encoding="utf-8")
    for path in sorted(RESULTS.glob("*.json")):
        assert f"`{path.name}`" in listed, f"{path.name} has no command in bench/results/README.md"


_DIARY = re.compile(
    r"\b20\d\d-\d\d-\d\d\b|\bissue \d+\b|\bsession\b"
    r"|\b(?:first|second|third|fourth|\d+(?:st|nd|rd|th)) pass\b",
    re.IGNORECASE,
)


def test_no_doc_dates_a_heading_or_names_a_round_of_work() -> None:
    found = []
    for path in DOCS:
        fenced = False  # a heading inside a code block is an example, not the doc's own
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            elif not fenced and line.startswith("#") and _DIARY.search(line):
                found.append(f"{path.name}: {line}")
    assert found == [], found


def test_the_readme_reads_in_five_minutes() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 130, f"README.md has {len(lines)} lines"
    assert len((ROOT / "docs" / "benchmarks.md").read_text().splitlines()) <= 450


_LINK = re.compile(r"\]\(([\w./-]*\.md)?#([\w-]+)\)")
_QUOTED_SECTION = re.compile(r"benchmarks\.md, \"([^\"]+)\"")


def _anchors(path: Path) -> set[str]:
    """The heading anchors GitHub gives `path`: lower case, punctuation dropped, spaces
    as hyphens."""
    anchors = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def test_every_link_to_a_section_finds_it() -> None:
    """A link to a heading that was renamed or removed opens the page at its top; a section
    of docs/benchmarks.md named in quotes must be there too."""
    broken = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for target, anchor in _LINK.findall(text):
            page = (path.parent / target).resolve() if target else path
            if anchor not in _anchors(page):
                broken.append(f"{path.name}: {target}#{anchor}")
        headings = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
        for section in _QUOTED_SECTION.findall(text):
            if f"# {section}\n" not in headings:
                broken.append(f'{path.name}: benchmarks.md, "{section}"')
    assert broken == []
