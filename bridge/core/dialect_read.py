"""Reading a note's Markdown in its dialect: its blocks, a section's text and its links.

`entry.parse_note` asks here what differs by tool: a Logseq page is an outline (sections are
heading blocks, a link may sit in a property), Foam's link reference definitions are no text,
a Dendron link puts its label first and may name a vault. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from bridge.core import logseq
from bridge.core.dialect import Dendron, Dialect, Foam, Logseq
from bridge.core.markdown import Block, Heading, Structure, parse_structure
from bridge.core.relations import (
    LinkSyntax,
    WikiLink,
    find_wikilinks,
    links_in_blocks,
    links_in_frontmatter,
)

_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]+\S")


def link_syntax(dialect: Dialect) -> LinkSyntax:
    """How the dialect orders a link's parts (Dendron: `[[alias|target]]`)."""
    return "dendron" if isinstance(dialect, Dendron) else "obsidian"


def note_structure(dialect: Dialect, body: str) -> Structure:
    """Headings and blocks as the tool sees them: a Logseq page is an outline, and Foam's
    link reference definitions (`[label]: target "Title"`, written for other Markdown tools)
    are no text of the note."""
    structure = parse_structure(body)
    if isinstance(dialect, Logseq):
        return logseq.outline_structure(structure, body.split("\n"))
    if isinstance(dialect, Foam):
        blocks = tuple(
            b
            for b in structure.blocks
            if not all(_LINK_DEFINITION.match(line) for line in b.text.split("\n"))
        )
        return Structure(structure.headings, blocks, structure.line_count)
    return structure


def outline_section(
    dialect: Dialect, body_lines: list[str], headings: Iterable[Heading], name: str
) -> str | None:
    """A section's text in a Logseq page (the children of its heading block, as Markdown);
    None in a dialect whose sections are Markdown headings."""
    if not isinstance(dialect, Logseq):
        return None
    for heading in headings:
        if heading.text.strip().lower() == name:
            start, end = logseq.section_lines(body_lines, heading.line)
            return logseq.outline_markdown(body_lines[start:end])
    return ""


def _property_links(dialect: Dialect, meta: Mapping[str, Any]) -> list[WikiLink]:
    """Links in properties: frontmatter `related:`; any `[[Page]]` in a Logseq property (but
    `alias::` and `title::`, which name the page itself)."""
    syntax = link_syntax(dialect)
    links = links_in_frontmatter(meta["related"], syntax) if "related" in meta else []
    if isinstance(dialect, Logseq):
        for key, value in meta.items():
            if key not in {"alias", "title", "related"} and isinstance(value, str):
                links += find_wikilinks(value, origin="frontmatter")
    return links


def _other_vault(dialect: Dendron, link: WikiLink) -> WikiLink:
    """A link into a vault this workspace does not hold keeps `dendron://name/` in its target,
    so it resolves to nothing (Dendron cannot open it either) rather than to a namesake."""
    name = link.vault.removeprefix("dendron://").rstrip("/")
    if not link.vault or not dialect.vault_names or name in dialect.vault_names:
        return link
    return replace(link, target=link.vault + link.target, vault="")


def note_links(
    dialect: Dialect, blocks: Iterable[Block], meta: Mapping[str, Any]
) -> list[WikiLink]:
    """Every link of a note, as its tool reads them: in its blocks and in its properties."""
    links = links_in_blocks(blocks, syntax=link_syntax(dialect))
    links += _property_links(dialect, meta)
    if isinstance(dialect, Dendron):
        links = [_other_vault(dialect, link) for link in links]
    return links
