"""A full pass over the vault: what `status`, `doctor` and `setup` report.

It reads every note once through the store (so it never writes) and keeps going past any bad
note: a listing must never crash on one file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bridge.core.dialect import OBSIDIAN, Dialect, pages_by_reference, tree_folders
from bridge.core.entry import Note, Problem
from bridge.core.relations import LinkResolver, edges
from bridge.vault.store import NoteError, VaultStore


@dataclass(frozen=True)
class UnresolvedLink:
    """A wikilink that names no note: as written, and its file line (None: in properties)."""

    link: str
    line: int | None

    def to_json(self) -> dict[str, object]:
        return {"link": self.link, "line": self.line}


@dataclass
class VaultReport:
    """Counts and problems of one vault, as of one scan.

    `problems` holds the notes' problems, one `unresolved_link` per link; `unresolved_links`
    the same links by note, for reports that group them; `folder_links` the folder symlinks
    that were not followed because they leave the vault or loop.
    """

    notes: list[Note] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    folder_links: list[Problem] = field(default_factory=list)
    unresolved_links: dict[str, list[UnresolvedLink]] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    relations: int = 0
    unresolved: int = 0
    dialect: Dialect = OBSIDIAN

    @property
    def entries(self) -> int:
        return sum(1 for note in self.notes if note.is_entry)

    @property
    def folders(self) -> int:
        """The levels of the context tree: folders, or a dialect's namespaces and dotted
        names."""
        return len({f for path in self.paths for f in tree_folders(self.dialect, path)})

    @property
    def malformed(self) -> int:
        return len({p.path for p in self.problems if p.code != "unresolved_link"})

    def all_problems(self) -> list[Problem]:
        """Every finding, notes' and folders', in path order (what `doctor` lists)."""
        return sorted(self.problems + self.folder_links, key=lambda p: (p.path, p.code))

    def summary(self) -> dict[str, int]:
        return {
            "notes": len(self.paths),
            "entries": self.entries,
            "folders": self.folders,
            "relations": self.relations,
            "unresolved_links": self.unresolved,
            "problem_notes": self.malformed,
            "skipped_folders": len(self.folder_links),
        }


def folder_link_problem(root: Path, rel: str) -> Problem | None:
    """What is wrong with the symlinked folder `rel`, which the walk did not enter.

    Trigger: a folder symlink in the vault. Why: the notes behind one that leaves the vault or
    loops back to a folder above it are never read, and nothing said so. Outcome: a problem
    for those; none for an alias of another folder of the vault (its notes are read there).
    """
    link = root / rel
    try:
        real = link.resolve(strict=True)
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
        return Problem(rel, "outside_vault", f"{rel}: a folder symlink that loops; not followed")
    if real != root and root not in real.parents:
        return Problem(
            rel,
            "outside_vault",
            f"{rel}: a folder symlink that leaves the vault; the notes behind it are not read",
        )
    holder = link.parent.resolve()
    if real == holder or real in holder.parents:
        shown = f"`{real.relative_to(root).as_posix()}`" if real != root else "the vault's root"
        return Problem(
            rel,
            "outside_vault",
            f"{rel}: a folder symlink that loops back to {shown}, which holds it; not followed",
        )
    return None


def scan_vault(store: VaultStore, progress: Callable[[str], None] | None = None) -> VaultReport:
    """Read and parse every note, then resolve every link against the whole vault.

    A link resolves as the vault's tool resolves it: a Logseq page by its name, title or
    alias. In Logseq a link to a page that has no file is no broken link (the page exists
    in the graph from the first reference), so it is neither reported nor counted.
    """
    report = VaultReport(dialect=store.dialect)
    linked: list[str] = []
    for path in store.iter_paths(folder_links=linked.append):
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
    for rel in linked:
        problem = folder_link_problem(store.root, rel)
        if problem is not None:
            report.folder_links.append(problem)
    resolver = LinkResolver(report.paths, {n.path: n.names for n in report.notes if n.names})
    by_reference = pages_by_reference(store.dialect)
    for note in report.notes:
        resolved, unresolved = resolver.resolve_all(note.links, note.path)
        report.relations += len(edges(resolved, note.path))
        if by_reference:
            continue
        report.unresolved += len(unresolved)
        for link in unresolved:
            line = note.body_line + link.line + 1 if link.line is not None else None
            found = UnresolvedLink(link.render(), line)
            report.unresolved_links.setdefault(note.path, []).append(found)
            where = f" (line {line})" if line is not None else ""
            report.problems.append(
                Problem(
                    note.path,
                    "unresolved_link",
                    f"{note.path}{where}: link {found.link} points at no note",
                    blocks_writes=False,
                )
            )
    return report
