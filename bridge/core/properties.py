"""A note's properties, read through python-frontmatter with the bridge's own two steps.

python-frontmatter is the reader: `frontmatter.parse` asks its handler to find the block and to
load its YAML. Its stock `YAMLHandler` would do both in ways a vault cannot use: its boundary
is any line of three or more dashes anywhere (Obsidian's block is a `---` first line closed by
`---` or `...`), and its `yaml.load` builds an alias bomb's 43 million values and raises on
`created: 2026-02-30`, crashing every command that reads the note. `NoteHandler` keeps the
library's protocol and swaps in `frontmatter.split` and the bounded, lenient `frontmatter.load`.

Reading only: the handler refuses to export, because writing never re-serialises a block
(`frontmatter.set_key` changes one key's lines and keeps every other byte).
"""

from __future__ import annotations

from typing import Any

import frontmatter as python_frontmatter
from frontmatter.default_handlers import YAMLHandler

from bridge.core.frontmatter import load, split


class NoteHandler(YAMLHandler):
    """python-frontmatter's YAML handler with Obsidian's block and the bounded loader."""

    def detect(self, text: str) -> bool:
        return split(text).has_block

    def split(self, text: str) -> tuple[str, str]:
        """The block's YAML and the body; `ValueError` (the library then reads no properties)
        when `text` has no block, a `---` first line never closed included."""
        parts = split(text)
        if not parts.has_block:
            raise ValueError("no frontmatter block")
        return parts.yaml_text, parts.body

    def load(self, fm: str, **kwargs: object) -> dict[str, Any]:
        """The mapping, or `FrontmatterError` / `FrontmatterTooComplexError` saying why not."""
        return load(fm)

    def export(self, metadata: dict[str, object], **kwargs: object) -> str:
        raise NotImplementedError(
            "the bridge never re-serialises frontmatter: edit one key with frontmatter.set_key"
        )


HANDLER = NoteHandler()


def read(text: str) -> dict[str, Any]:
    """The properties of a note (its whole text): {} when it has no block.

    Raises `FrontmatterError` (or `FrontmatterTooComplexError`) for a block that cannot be read.
    python-frontmatter strips a text before splitting it, so a note whose first line is blank
    would show it a block that Obsidian does not see: the block is found on the text as it
    is, and only the block goes to the library (the body, possibly megabytes, is not copied
    for nothing).
    """
    parts = split(text)
    if not parts.has_block:
        return {}
    metadata, _ = python_frontmatter.parse(text[: parts.body_start], handler=HANDLER)
    return metadata
