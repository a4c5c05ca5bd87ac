"""The vault's conventions in words, from the settings that decide them (pure).

The text states the rules the bridge actually enforces with this vault's settings (its review
rules, status words, lifecycle constants, exclude patterns), so an agent's first curation follows
them instead of guessing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bridge.core.lifecycle import LifecycleParams
from bridge.core.maturity import Maturity
from bridge.core.operations import INDEX_NAME, MAX_FOLDERS, MIN_FOLDERS
from bridge.core.review_policy import REVIEW_RULES, ReviewPolicy
from bridge.guide.models import (
    Conventions,
    FolderCount,
    FrontmatterKey,
    Placement,
    ReviewRule,
    Section,
)

# What each rule of the review policy holds back, and why (docs/curation.md, "Review").
RULE_TEXT: Mapping[str, tuple[str, str]] = {
    "stale_base": (
        "any operation whose `base_hash` no longer matches the note",
        "the note changed since you read it; applying could overwrite that change",
    ),
    "all": ("every operation", "this vault asks a human to approve every change"),
    "add": ("every ADD", "this vault asks a human to approve each new entry"),
    "update": ("every UPDATE", "this vault asks a human to approve each edit"),
    "delete": (
        "every DELETE",
        "it removes knowledge people may rely on (an approved DELETE moves the note to `.trash/`)",
    ),
    "merge": (
        "every MERGE",
        "it removes the merged entries and rewrites every link to them across the vault",
    ),
    "move": (
        "every MOVE",
        "it changes where people find a note and rewrites every link to it across the vault",
    ),
    "update_human": (
        "a change to a note a human wrote last (one the bridge never wrote for an agent, or "
        "edited since; a MOVE of it too)",
        "humans win: an agent never silently overwrites a person's text",
    ),
}


def _size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"


def _number(x: float) -> str:
    return f"{x:g}"


def review_rules(policy: ReviewPolicy) -> list[ReviewRule]:
    """The active rules in the order the policy checks them (stale base first)."""
    order = ("stale_base", "all", *(r for r in REVIEW_RULES if r not in ("stale_base", "all")))
    return [
        ReviewRule(rule=rule, waits=RULE_TEXT[rule][0], why=RULE_TEXT[rule][1])
        for rule in order
        if rule in policy.rules
    ]


def conventions(
    policy: ReviewPolicy,
    status_names: Mapping[Maturity, str],
    params: LifecycleParams,
    exclude: Sequence[str],
    max_note_bytes: int,
    domains: Sequence[FolderCount],
) -> Conventions:
    """The conventions of a vault with these settings and top-level folders."""
    draft, stable, core = (status_names[m] for m in Maturity)
    frontmatter = [
        FrontmatterKey(
            key="title", meaning="the entry's name, also its `# H1`", written_by="your `title`"
        ),
        FrontmatterKey(
            key="summary", meaning="one sentence a reader can act on", written_by="your `summary`"
        ),
        FrontmatterKey(key="tags", meaning="topic words, a list", written_by="your `tags`"),
        FrontmatterKey(
            key="status",
            meaning=f"maturity (`{draft}`, `{stable}`, `{core}`): new entries start `{draft}`; "
            "a human who sets it wins",
            written_by="the bridge",
        ),
        FrontmatterKey(
            key="created, updated", meaning="ISO 8601 times", written_by="the bridge, on each write"
        ),
        FrontmatterKey(
            key="author",
            meaning="who wrote last: `human` or `agent:<name>`",
            written_by="the bridge, from your `author` argument",
        ),
        FrontmatterKey(
            key="(any other key)", meaning="kept untouched", written_by="whoever added it"
        ),
    ]
    sections = [
        Section(
            heading="## Relations",
            holds="`- [[domain/topic/entry]] - reason`, one per line",
            operation_field="relations",
        ),
        Section(
            heading="## Raw Concept",
            holds="provenance lines `- Task:`, `- Changes:`, `- Source:`, `- Author:`",
            operation_field="raw_concept",
        ),
        Section(
            heading="## Narrative",
            holds="the explanation in plain Markdown prose",
            operation_field="narrative",
        ),
        Section(
            heading="## Snippets",
            holds="fenced code blocks with their language",
            operation_field="snippets",
        ),
    ]
    relations = [
        'In an operation: `"relations": ["@domain/topic/entry.md - why they relate"]` '
        "(or `{target, reason}` objects).",
        "In the file: `- [[domain/topic/entry]] - why they relate` under `## Relations`, so "
        "Obsidian's backlinks and graph view show it.",
        "Every wikilink of a note is a relation (Relations, body, frontmatter `related:`), "
        "resolved as in Obsidian; UPDATE adds relations; a link to nothing is reported, never "
        "removed.",
    ]
    placement = Placement(
        patterns=[
            "domain/topic/entry.md",
            "domain/topic/subtopic/entry.md",
            f"folder/{INDEX_NAME}",
        ],
        min_folders=MIN_FOLDERS,
        max_folders=MAX_FOLDERS,
        domains=list(domains),
        naming=[
            "lower-case words joined by `_`, e.g. `session_refresh.md` (`@` and a missing "
            "`.md` are accepted)",
            'no spaces, `..`, absolute paths, dot names, `\\ : * ? " < > |` or `# ^ [ ]`; no '
            "Windows reserved names (`con`, `nul`...), no trailing dot or space",
        ],
        not_notes=[
            "dot folders (`.obsidian/`, `.trash/`, `.git/`) and files that are not `.md`",
            "the `exclude` patterns (gitignore rules, any case): "
            + (", ".join(f"`{g}`" for g in exclude) or "none"),
            "sync conflict copies, and notes over "
            f"{_size(max_note_bytes)} (`max_note_bytes`, not indexed)",
        ],
    )
    lifecycle = [
        f"Importance 0-{_number(params.max_importance)}: a new entry starts at "
        f"{_number(params.initial_importance)}, gains +{_number(params.access_bonus)} per use "
        f"and +{_number(params.update_bonus)} per update, and decays x"
        f"{_number(params.daily_decay)} a day.",
        f"The daily decay job writes `status`: `{stable}` from {_number(params.promote_validated)}"
        f", `{core}` from {_number(params.promote_core)}; back to `{stable}` below "
        f"{_number(params.demote_core)} and to `{draft}` below "
        f"{_number(params.demote_validated)}.",
        "Among near-equal results the more used, fresher note ranks first; relevance always "
        "comes first.",
    ]
    uses = [
        "Uses teach the memory: a note gains importance when it is used, not when it merely "
        "appears in results. Open a source with `memory_read(path, from_query=query_id)`; say "
        "whether it helped with `memory_feedback(query_id, path, helpful)`.",
        "Before an ADD, search: UPDATE the entry that exists (its `hash` as `base_hash`) rather "
        "than add a near-duplicate; an ADD of an existing path fails and returns it.",
    ]
    return Conventions(
        frontmatter=frontmatter,
        sections=sections,
        relations=relations,
        placement=placement,
        review=review_rules(policy),
        review_high_impact=policy.list_high_impact,
        statuses={m.value: status_names[m] for m in Maturity},
        lifecycle=lifecycle,
        uses=uses,
    )
