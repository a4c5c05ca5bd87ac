"""The guide as Markdown, for a model's context (MCP `memory_guide`) or a person (pure).

Compact on purpose: an agent reads it whole at the start of a session. Long summaries are cut;
the lists are already bounded by `compose`.
"""

from __future__ import annotations

from bridge.guide.models import Guide, Outline

SUMMARY_CHARS = 120


def _cut(text: str, limit: int = SUMMARY_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _fence(text: str) -> str:
    """A code fence longer than any backtick run in `text`, so the example shows whole."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _keys(key: str) -> str:
    """`created, updated` -> each key in code; a description in parentheses stays prose."""
    if key.startswith("("):
        return key
    return ", ".join(f"`{k.strip()}`" for k in key.split(","))


def _notes(n: int) -> str:
    return f"{n} note" if n == 1 else f"{n} notes"


def render_outline(outline: Outline) -> list[str]:
    """The folder list, indented by depth, each with its note count (all depths)."""
    lines = [f"- vault root: {_notes(outline.notes)} ({outline.root_notes} directly in it)"]
    for folder in outline.folders:
        name = folder.path.rsplit("/", 1)[-1]
        lines.append(f"{'  ' * folder.depth}- `{name}/` {folder.notes}")
    if outline.truncated:
        hidden = outline.folders_total - len(outline.folders)
        lines.append(
            f"- ({hidden} more folders not listed: deeper than {outline.max_depth} levels or "
            "past the size limit; `memory_tree(folder)` lists any folder)"
        )
    return lines


def _sample(guide: Guide) -> list[str]:
    sample = guide.dialect.sample
    if sample is None:
        return []
    fence = _fence(sample.text)
    return [
        "",
        f"### A note of this vault: `{sample.path}`",
        f"Chosen as {sample.why}.",
        "",
        f"{fence}markdown",
        sample.text.rstrip("\n"),
        fence,
    ]


def render_guide(guide: Guide) -> str:
    """The whole guide as one Markdown document."""
    c = guide.conventions
    out = [
        f"# Memory guide: {guide.vault}",
        "",
        f"This vault is the project's long-term memory ({_notes(guide.notes)}): Obsidian "
        "Markdown that people edit too. Read this once per session, before you write to it.",
        "",
        "## How to use it",
        "- Before answering about the project: `memory_query` (an answer with sources; "
        "`ood: true` means the memory holds nothing on it) or `memory_search` (ranked excerpts).",
        "- Browse with `memory_tree(folder)`; read a note with `memory_read(path)`.",
        "- After a decision, a fix or a learned fact: `memory_curate` with operations; each "
        "result is `applied`, `pending_review` or `failed` (fix the reason and resend).",
        *(f"- {line}" for line in c.uses),
        "",
        f"## This vault's dialect: {guide.dialect.name}",
        "You send the same operations to any vault; the bridge writes them the way this "
        "vault's tool writes its own notes, and never converts a person's note.",
        *(f"- {line}" for line in guide.dialect.rules),
        *_sample(guide),
        "",
        "## Entry format",
        "One entry is one file: frontmatter, a `# Title` and four sections. You send fields in "
        "an operation; the bridge writes the Markdown.",
        "",
        "| frontmatter | meaning | set by |",
        "|---|---|---|",
        *(f"| {_keys(k.key)} | {k.meaning} | {k.written_by} |" for k in c.frontmatter),
        "",
        "| section | holds | operation field |",
        "|---|---|---|",
        *(f"| `{s.heading}` | {s.holds} | `{s.operation_field}` |" for s in c.sections),
        "",
        "Headings match case-insensitively; text outside them is kept where it is.",
        "",
    ]
    ex = guide.example
    label = "a real entry of this vault" if ex.source == "vault" else "built-in example"
    fence = _fence(ex.text)
    out += [
        f"### Example: `{ex.path}` ({label})",
        f"Chosen as {ex.why}.",
        "",
        f"{fence}markdown",
        ex.text.rstrip("\n"),
        fence,
        "",
        "## How relations are written",
        *(f"- {line}" for line in c.relations),
        "",
        "## Where new knowledge goes",
    ]
    p = c.placement
    domains = ", ".join(f"`{d.path}` ({d.notes})" for d in p.domains) or "none yet"
    out += [
        f"- New entries: `{p.patterns[0]}` or `{p.patterns[1]}` ({p.min_folders} or "
        f"{p.max_folders} folders); a folder's overview is `{p.patterns[2]}`.",
        f"- Existing domains (notes): {domains}. Reuse a domain and its topics; start a new "
        "domain only for a new area.",
        *(f"- Names: {line}." for line in p.naming),
        "- Not knowledge: " + "; ".join(p.not_notes) + ".",
        "",
        "## What waits for a human, and why",
    ]
    out += [f"- `{r.rule}`: {r.waits}. Why: {r.why}." for r in c.review] or [
        "- nothing: the review rules are empty"
    ]
    if c.review_high_impact:
        out.append(
            "- `impact: high` changes that apply at once are listed as reviews a human can "
            "still reject (undo)."
        )
    out += [
        "- Everything else applies at once. `pending_review` means a human decides in "
        "Obsidian (`memory_reviews` lists them): never resend it as a new note.",
        "",
        "## Status and importance",
        "- `status` words: " + ", ".join(f"{m} = `{s}`" for m, s in c.statuses.items()) + ".",
        *(f"- {line}" for line in c.lifecycle),
        "",
        "## Folders (notes under each, all depths)",
        *render_outline(guide.outline),
        "",
        "## Most important entries",
    ]
    for i, e in enumerate(guide.top, 1):
        summary = f": {_cut(e.summary)}" if e.summary else ""
        status = f"{e.status}, " if e.status else ""
        out.append(f"{i}. {e.title} `{e.path}` ({status}{e.importance:g}){summary}")
    if not guide.top:
        out.append("(the vault has no notes yet)")
    return "\n".join(out).rstrip() + "\n"
