"""Which note the guide shows as its example entry, by rule (pure).

An agent copies the shape of the example, so it must be a note the bridge reads without a
problem and that uses the whole format: frontmatter with a title, a summary and a known
status; relations; a Raw Concept and a Narrative; at an entry's place in the tree. Among such
notes the most important wins (the vault's own best practice), then the shortest (the guide is
read into a context window). A vault with none gets a built-in entry, rendered by the same
function that writes an ADD.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, TypeVar

from bridge.core.dialect import OBSIDIAN, Dialect, Foam, Logseq, Obsidian, file_for, tree_path
from bridge.core.dialect_write import render_new, spell_target
from bridge.core.entry import Entry, RawConcept, Relation, Snippet, parse_note, render_entry
from bridge.core.maturity import Maturity, StatusMapping
from bridge.core.note_fields import summary_key
from bridge.core.operations import INDEX_NAME, MAX_FOLDERS, MIN_FOLDERS

EXAMPLE_MAX_CHARS = 2500
"""A longer note would crowd the guide; the next best-formed one is shown instead."""

RULE = (
    "the most important note that is a complete entry (frontmatter with title, summary and a "
    "known status; relations; Raw Concept; Narrative; 2-3 folders deep; under "
    f"{EXAMPLE_MAX_CHARS:,} characters), the shortest among equals"
)

BUILT_IN_PATH = "product/pricing/seat_minimum.md"
BUILT_IN_ID = "k3x9m2q7v1w8z4n6p0r5t2y"  # a Dendron id, as Dendron makes them
BUILT_IN_WHY = (
    "no note of this vault is a complete entry yet; this is how the bridge writes one for an ADD"
)


class Ranked(Protocol):
    """What example ordering needs to know about a note."""

    @property
    def path(self) -> str: ...

    @property
    def importance(self) -> float: ...

    @property
    def size(self) -> int: ...


T = TypeVar("T", bound=Ranked)


def example_order(notes: Sequence[T]) -> list[T]:
    """Candidates, best first: importance (to 0.1, so a day's decay does not decide), then the
    smaller file, then the path."""
    return sorted(notes, key=lambda n: (-round(n.importance, 1), n.size, n.path))


def example_flaws(
    path: str, text: str, mapping: StatusMapping, dialect: Dialect = OBSIDIAN
) -> list[str]:
    """Why the note at `path` is not a good example; empty when it is one."""
    note = parse_note(path, text, dialect)
    flaws = [p.message for p in note.problems]
    meta = note.frontmatter
    # A Logseq page is named by its file; the other dialects name an entry by `title`.
    if not isinstance(dialect, Logseq) and not str(meta.get("title") or "").strip():
        flaws.append("no `title` in the frontmatter")
    if not note.entry.summary:
        flaws.append(f"no `{summary_key(dialect)}`")
    if mapping.maturity_for(note.entry.status) is None:
        flaws.append("no known `status`")
    if not note.entry.relations:
        flaws.append("no relations under `## Relations`")
    if note.entry.raw_concept.is_empty():
        flaws.append("an empty `## Raw Concept`")
    if not note.entry.narrative:
        flaws.append("an empty `## Narrative`")
    folders = tree_path(dialect, path).count("/")
    if path.rsplit("/", 1)[-1].lower() == INDEX_NAME or not MIN_FOLDERS <= folders <= MAX_FOLDERS:
        flaws.append("not at domain/topic[/subtopic]/entry.md")
    if len(text) > EXAMPLE_MAX_CHARS:
        flaws.append(f"longer than {EXAMPLE_MAX_CHARS:,} characters")
    return flaws


def built_in_example(mapping: StatusMapping, dialect: Dialect = OBSIDIAN) -> str:
    """The fallback example: a complete entry as an agent's ADD would create it in a vault
    of this dialect."""
    at = dt.datetime(2026, 11, 20, 16, 40, tzinfo=dt.UTC)
    entry = Entry(
        title="Seat minimum",
        summary="Team plans are billed for at least three seats, even with fewer members.",
        tags=("pricing", "billing", "plans"),
        status=mapping.status_for(Maturity.DRAFT),
        created=at,
        updated=at,
        author="agent:claude-code",
        relations=(
            Relation("product/pricing/team_plan", "the plan the minimum applies to"),
            Relation("billing/cycle/renewal", "renewals recount seats against the minimum"),
        ),
        raw_concept=RawConcept(
            task="record the seat minimum agreed for team plans",
            changes="minimum raised from two to three seats",
            source="pricing review 2026-11-20; src/billing/seats.py",
            author="agent:claude-code, 2026-11-20T16:40:00Z",
        ),
        narrative=(
            "A team plan is billed for max(members, 3) seats. The minimum keeps small teams on\n"
            "the same price floor as the annual plan; removing members below three does not\n"
            "lower the invoice."
        ),
        snippets=(Snippet("python", "billed_seats = max(len(members), SEAT_MINIMUM)"),),
    )
    if isinstance(dialect, Obsidian | Foam):
        return render_entry(entry)
    spelled = tuple(replace(r, target=spell_target(dialect, r.target)) for r in entry.relations)
    path = file_for(dialect, BUILT_IN_PATH)
    return render_new(dialect, replace(entry, relations=spelled), path, BUILT_IN_ID)


def built_in_path(dialect: Dialect) -> str:
    """Where the built-in example would be written in a vault of this dialect."""
    return file_for(dialect, BUILT_IN_PATH)
