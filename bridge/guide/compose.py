"""The guide from plain facts: no files, no index, no clock (bridge.guide.gather collects them).

Two bounded parts scale with the vault: the outline (folders to `max_depth`, at most
`max_folders`, chosen level by level, biggest first, so a huge vault still shows its main
branches) and the ranking (every note sorted once, the top `top` kept).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from bridge.core.dialect import OBSIDIAN, Dialect, describe, tree_path
from bridge.core.lifecycle import DEFAULT, LifecycleParams
from bridge.core.maturity import DEFAULT_STATUS_NAMES, Maturity, StatusMapping
from bridge.core.paths import NOTE_SUFFIX, parent
from bridge.core.review_policy import ReviewPolicy
from bridge.guide.conventions import conventions
from bridge.guide.dialect import SAMPLE_RULE, dialect_rules
from bridge.guide.example import BUILT_IN_WHY, RULE, built_in_example, built_in_path
from bridge.guide.models import DialectGuide, ExampleEntry, FolderCount, Guide, Outline, TopEntry

TOP_ENTRIES = 10
OUTLINE_DEPTH = 3
OUTLINE_FOLDERS = 60
DOMAINS_SHOWN = 30


@dataclass(frozen=True)
class NoteFact:
    """One indexed note with its lifecycle numbers as of now."""

    path: str
    title: str
    status: str | None
    importance: float
    recency: float = 0.0
    size: int = 0


@dataclass(frozen=True)
class VaultExample:
    """A note chosen as the example (`example.example_flaws` found nothing wrong with it)."""

    path: str
    text: str


@dataclass(frozen=True)
class GuideFacts:
    """Everything the guide says, gathered from a live bridge or written by hand in a test."""

    vault: str
    notes: Sequence[NoteFact]
    summaries: Mapping[str, str] = field(default_factory=dict)
    example: VaultExample | None = None
    policy: ReviewPolicy = field(default_factory=ReviewPolicy)
    status_names: Mapping[Maturity, str] = field(default_factory=lambda: dict(DEFAULT_STATUS_NAMES))
    lifecycle: LifecycleParams = DEFAULT
    exclude: Sequence[str] = ()
    max_note_bytes: int = 8 * 1024 * 1024
    top: int = TOP_ENTRIES
    dialect: Dialect = OBSIDIAN
    # A real note showing the dialect's conventions (`dialect.sample_flaws` found none).
    dialect_sample: VaultExample | None = None


def rank(notes: Iterable[NoteFact]) -> list[NoteFact]:
    """Most important first; among equals the more recently updated, then by path."""
    return sorted(notes, key=lambda n: (-n.importance, -n.recency, n.path))


def _ancestors(path: str) -> Iterable[str]:
    folder = parent(path)
    while folder:
        yield folder
        folder = parent(folder)


def outline(
    paths: Iterable[str], max_depth: int = OUTLINE_DEPTH, max_folders: int = OUTLINE_FOLDERS
) -> Outline:
    """Folders with the number of notes under each (all depths), bounded for big vaults."""
    counts: dict[str, int] = {}
    total = root = 0
    for path in paths:
        total += 1
        if "/" not in path:
            root += 1
        for folder in _ancestors(path):
            counts[folder] = counts.get(folder, 0) + 1
    shown: set[str] = set()
    level = [f for f in counts if "/" not in f]
    depth = 1
    # Trigger: a vault with thousands of folders. Why: the guide is read into a context window.
    # Outcome: fill the budget level by level, biggest folders first, children only of shown
    # parents, so what is listed is always a connected top of the tree.
    while level and depth <= max_depth and len(shown) < max_folders:
        for folder in sorted(level, key=lambda f: (-counts[f], f))[: max_folders - len(shown)]:
            shown.add(folder)
        depth += 1
        level = [f for f in counts if f.count("/") == depth - 1 and parent(f) in shown]
    folders = [
        FolderCount(path=f, depth=f.count("/") + 1, notes=counts[f])
        for f in sorted(shown, key=lambda f: f.split("/"))
    ]
    return Outline(
        notes=total,
        root_notes=root,
        max_depth=max_depth,
        folders_total=len(counts),
        folders=folders,
        truncated=len(shown) < len(counts),
    )


def compose_guide(facts: GuideFacts) -> Guide:
    """The guide of a vault described by `facts`."""
    dialect = facts.dialect
    # The outline shows the tree's levels: folders, namespaces or dotted names.
    tree = outline(tree_path(dialect, n.path) + NOTE_SUFFIX for n in facts.notes)
    domains = [f for f in tree.folders if f.depth == 1][:DOMAINS_SHOWN]
    mapping = StatusMapping(facts.status_names)
    if facts.example is not None:
        example = ExampleEntry(
            source="vault", path=facts.example.path, why=RULE, text=facts.example.text
        )
    else:
        example = ExampleEntry(
            source="built_in",
            path=built_in_path(dialect),
            why=BUILT_IN_WHY,
            text=built_in_example(mapping, dialect),
        )
    sample = facts.dialect_sample
    dialect_guide = DialectGuide(
        name=dialect.name,
        described=describe(dialect),
        rules=dialect_rules(dialect),
        sample=None
        if sample is None
        else ExampleEntry(source="vault", path=sample.path, why=SAMPLE_RULE, text=sample.text),
    )
    top = [
        TopEntry(
            path=n.path,
            title=n.title,
            summary=facts.summaries.get(n.path, ""),
            status=n.status,
            importance=round(n.importance, 1),
        )
        for n in rank(facts.notes)[: facts.top]
    ]
    return Guide(
        vault=facts.vault,
        notes=tree.notes,
        conventions=conventions(
            facts.policy,
            facts.status_names,
            facts.lifecycle,
            facts.exclude,
            facts.max_note_bytes,
            domains,
        ),
        dialect=dialect_guide,
        example=example,
        outline=tree,
        top=top,
    )
