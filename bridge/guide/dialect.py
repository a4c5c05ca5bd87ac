"""What the guide says about the vault's dialect, and which real note shows it (pure).

An agent sends the same operations to every vault; the bridge writes them in the vault's own
conventions. The guide says which, in words an agent can check a note against, and shows one
real note of the vault that follows them, so the agent sees what people write there.
"""

from __future__ import annotations

from typing import assert_never

from bridge.core.dialect import Dendron, Dialect, Foam, Logseq, Obsidian, tree_path
from bridge.core.entry import parse_note
from bridge.core.logseq import page_properties

SAMPLE_MAX_CHARS = 2500
SAMPLE_RULE = (
    "the most important note of the vault that shows its properties the tool's way and reads "
    f"without a problem, under {SAMPLE_MAX_CHARS:,} characters"
)


def dialect_rules(dialect: Dialect) -> list[str]:
    """How notes are written in this dialect, as the bridge reads and writes them."""
    match dialect:
        case Obsidian():
            return [
                "Obsidian: YAML frontmatter, folders are the tree, links name paths "
                "(`[[domain/topic/entry]]`, `[[target|shown text]]`)."
            ]
        case Foam():
            return [
                "Foam: YAML frontmatter; a note's title is its `title` key, else its first "
                "`# heading`; folders are the tree; link reference definitions at the end "
                "(`[label]: target`) are Foam's and not read as text.",
                "Links resolve by file name; `[[folder]]` opens `folder/index.md`.",
            ]
        case Logseq():
            return [
                "Logseq: properties are `key:: value` lines at the top of a page, never YAML; "
                "the body is an outline of `- ` blocks, children indented by a tab.",
                f"A page's name is its file name: `{dialect.pages}/a___b___c.md` is the "
                "namespace page `a/b/c`; your path `a/b/c.md` names it and is the tree's "
                "levels. A `title` that differs from the page's name is written as `alias::`.",
                "Your `summary` is `description::`; `tags::`, `status::`, `created::`, "
                "`updated::` (ISO times) and `author::` follow. The sections are heading "
                "blocks (`- ## Relations`) with their lines as child blocks.",
                "Relations are written as `[[Page Name]]` (`[[a/b/c]]` for a namespace page); "
                "a link resolves by a page's name, title or `alias::`, and a page without a "
                "file is still a page (no broken link).",
                f"Journals are `{dialect.journals}/` pages named by their day "
                f"(`{dialect.journal_title_format}`); `logseq/` (backups, settings) is not "
                "memory.",
            ]
        case Dendron():
            where = ", ".join(f"`{v}/`" for v in dialect.vaults if v) or "the root"
            return [
                "Dendron: the tree is the dotted file name: your path `a/b/c.md` is the note "
                f"`a.b.c.md` in {where}; notes outside the vaults are not Dendron's.",
                "YAML frontmatter starts with `id`, `title`, `desc` (your `summary`), then "
                "`updated` and `created` in epoch milliseconds; the title is `title`, not a "
                "`# heading`.",
                "Links are `[[a.b.c]]`, with a label before the target: `[[shown text|a.b.c]]`; "
                "`dendron://vault/a.b.c` names another vault.",
            ]
        case _:
            assert_never(dialect)


def sample_flaws(dialect: Dialect, path: str, text: str) -> list[str]:
    """Why the note at `path` does not show the dialect's conventions; empty when it does."""
    note = parse_note(path, text, dialect)
    flaws = [p.message for p in note.problems]
    if len(text) > SAMPLE_MAX_CHARS:
        flaws.append(f"longer than {SAMPLE_MAX_CHARS:,} characters")
    match dialect:
        case Logseq():
            if not page_properties(text).values:
                flaws.append("no `key:: value` page properties")
            if not note.blocks:
                flaws.append("no blocks")
        case Dendron():
            meta = note.frontmatter
            if not all(meta.get(k) not in (None, "") for k in ("id", "title", "desc")):
                flaws.append("no `id`, `title` and `desc`")
            if "/" not in tree_path(dialect, path):
                flaws.append("at the top of the hierarchy")
        case Obsidian() | Foam():
            if not note.frontmatter:
                flaws.append("no frontmatter")
        case _:
            assert_never(dialect)
    return flaws
