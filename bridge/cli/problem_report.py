"""How a scan's problems are told: one sentence (`status`, `setup`) or the list (`doctor`).

Notes with problems, unresolved links and skipped folders are counted apart: a vault with 705
dangling links and no broken note has "705 unresolved links in 12 notes", not "0 notes have
problems". Unresolved links are grouped per note, so one note with 10,000 of them is one row
(and one entry in `--json`, which still lists every link).
"""

from __future__ import annotations

from itertools import groupby

from rich.markup import escape
from rich.table import Table

from bridge.cli.app import PATH_COLUMN
from bridge.core.entry import Problem
from bridge.vault.scan import UnresolvedLink, VaultReport

LINKS_SHOWN = 3


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def problem_sentence(report: VaultReport) -> str | None:
    """What is wrong in the vault, in one sentence; None when nothing is."""
    parts = []
    notes_by_code: dict[str, set[str]] = {}
    for problem in report.problems:
        if problem.code != "unresolved_link":
            notes_by_code.setdefault(problem.code.replace("_", " "), set()).add(problem.path)
    if report.malformed:
        listed = ", ".join(f"{code}: {len(notes)}" for code, notes in sorted(notes_by_code.items()))
        verb = "has" if report.malformed == 1 else "have"
        parts.append(f"{_count(report.malformed, 'note')} {verb} problems ({listed})")
    if report.unresolved:
        notes = _count(len(report.unresolved_links), "note")
        parts.append(f"{_count(report.unresolved, 'unresolved link')} in {notes}")
    if report.folder_links:
        skipped = _count(len(report.folder_links), "folder symlink")
        parts.append(f"{skipped} not followed (leaving the vault or looping)")
    return "; ".join(parts) or None


def _links_text(links: list[UnresolvedLink]) -> str:
    shown = [f"{u.link} (line {u.line})" if u.line else u.link for u in links[:LINKS_SHOWN]]
    if len(links) == 1:
        return f"link {shown[0]} points at no note"
    more = " ..." if len(links) > LINKS_SHOWN else ""
    return f"{len(links):,} links point at no note (first: {', '.join(shown)}{more})"


def doctor_table(report: VaultReport) -> Table:
    """One row per problem, and one per note for all of its unresolved links."""
    problems = report.all_problems()
    paths = len({p.path for p in problems})
    if report.folder_links:
        where = "1 note or folder" if paths == 1 else f"{paths:,} notes and folders"
    else:
        where = _count(paths, "note")
    table = Table(title=f"{_count(len(problems), 'problem')} in {where}")
    table.add_column("note", **PATH_COLUMN)
    table.add_column("problem")
    table.add_column("details")
    for path, found in groupby(problems, key=lambda p: p.path):
        for p in found:
            if p.code != "unresolved_link":
                message = p.message.removeprefix(f"{p.path}: ")
                # Rich would eat `[[target]]` as markup: the unresolved link's name vanished.
                table.add_row(escape(path), p.code.replace("_", " "), escape(message))
        links = report.unresolved_links.get(path)
        if links:
            kind = "unresolved link" if len(links) == 1 else "unresolved links"
            table.add_row(escape(path), kind, escape(_links_text(links)))
    return table


def _problem_json(problem: Problem) -> dict[str, object]:
    return {
        "code": problem.code,
        "message": problem.message,
        "writes_blocked": problem.blocks_writes,
    }


def doctor_json(report: VaultReport) -> dict[str, object]:
    """Every problem, by note: each unresolved link is listed, once, with its line."""
    problems = report.all_problems()
    notes = []
    for path, group in groupby(problems, key=lambda p: p.path):
        found = list(group)
        links = report.unresolved_links.get(path, [])
        notes.append(
            {
                "path": path,
                "writes_blocked": any(p.blocks_writes for p in found),
                "problems": [_problem_json(p) for p in found if p.code != "unresolved_link"],
                "unresolved_links": [link.to_json() for link in links],
            }
        )
    return {"count": len(problems), "notes": notes}
