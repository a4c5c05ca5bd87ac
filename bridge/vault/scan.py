"""A full pass over the vault: what `status` and `doctor` report.

It reads every note once through the store (so it never writes) and keeps going past any bad
note: a listing must never crash on one file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bridge.core.entry import Note, Problem
from bridge.core.paths import parent
from bridge.core.relations import LinkResolver, edges
from bridge.vault.store import NoteError, VaultStore


@dataclass
class VaultReport:
    """Counts and problems of one vault, as of one scan."""

    notes: list[Note] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    relations: int = 0
    unresolved: int = 0

    @property
    def entries(self) -> int:
        return sum(1 for note in self.notes if note.is_entry)

    @property
    def folders(self) -> int:
        found: set[str] = set()
        for path in self.paths:
            folder = parent(path)
            while folder:
                found.add(folder)
                folder = parent(folder)
        return len(found)

    @property
    def malformed(self) -> int:
        return len({p.path for p in self.problems if p.code != "unresolved_link"})

    def summary(self) -> dict[str, int]:
        return {
            "notes": len(self.paths),
            "entries": self.entries,
            "folders": self.folders,
            "relations": self.relations,
            "unresolved_links": self.unresolved,
            "problem_notes": self.malformed,
        }


def scan_vault(store: VaultStore, progress: Callable[[str], None] | None = None) -> VaultReport:
    """Read and parse every note, then resolve every link against the whole vault."""
    report = VaultReport()
    for path in store.iter_paths():
        report.paths.append(path)
        if progress:
            progress(path)
        try:
            note = store.read(path).parse()
        except NoteError as exc:
            report.problems.append(exc.problem)
            continue
        report.notes.append(note)
        report.problems.extend(note.problems)
    resolver = LinkResolver(report.paths)
    for note in report.notes:
        resolved, unresolved = resolver.resolve_all(note.links, note.path)
        report.relations += len(edges(resolved, note.path))
        report.unresolved += len(unresolved)
        for link in unresolved:
            where = f" (line {note.body_line + link.line + 1})" if link.line is not None else ""
            report.problems.append(
                Problem(
                    note.path,
                    "unresolved_link",
                    f"{note.path}{where}: link {link.render()} points at no note",
                    blocks_writes=False,
                )
            )
    return report
