"""Markdown structure with source positions: a note's headings and blocks, and its text
outside code.

A block is a line range of the note as written, so the bridge can point at, and later splice,
exact lines of a human's note without reformatting it. Blocks come from a line scanner that
follows CommonMark's block rules closely enough for notes (ATX headings, fenced code, list
items, table rows, quotes, paragraphs); inline questions (what is a code span) go to mistune.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import mistune

BlockKind = Literal["paragraph", "list_item", "table_row", "code", "quote"]

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_TABLE_ROW = re.compile(r"^ {0,3}\|")
_TABLE_SEPARATOR = re.compile(
    r"^ {0,3}\|?[ \t]*:?-{1,}:?[ \t]*(\|[ \t]*:?-{1,}:?[ \t]*)*\|?[ \t]*$"
)
_QUOTE = re.compile(r"^ {0,3}>")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")


@dataclass(frozen=True)
class Heading:
    """An ATX heading and the line it sits on (0-based, relative to the body)."""

    level: int
    text: str
    line: int


@dataclass(frozen=True)
class Block:
    """One retrievable unit of a note: a paragraph, list item, table row, quote or code block.

    `text` is the raw Markdown of the block, exactly as written, so an excerpt shows the human's
    own words and a transcript turn can be found verbatim.
    """

    kind: BlockKind
    text: str
    heading_path: tuple[str, ...]
    start_line: int
    end_line: int
    block_id: str | None = None
    info: str = ""


@dataclass(frozen=True)
class Structure:
    """Headings and blocks of a Markdown body."""

    headings: tuple[Heading, ...]
    blocks: tuple[Block, ...]
    line_count: int


def _heading_at(line: str) -> tuple[int, str] | None:
    match = _HEADING.match(line)
    if not match:
        return None
    return len(match.group(1)), (match.group(2) or "").strip()


def _fence_closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return (
        len(line) - len(line.lstrip(" ")) <= 3
        and stripped.startswith(marker[0] * len(marker))
        and set(stripped) == {marker[0]}
    )


def _starts_with_word(line: str) -> bool:
    """True when the first non-blank character is a letter: then the line cannot open a
    heading, fence, list item, table row, quote or thematic break (all start with a mark or a
    digit), which lets the scanner skip those patterns for ordinary prose."""
    return line.lstrip(" \t")[:1].isalpha()


# Scanned by hand, not by mistune: its block parser keeps no source lines, and a block is lines.
class _Scanner:
    """Walks the lines once, emitting headings and blocks in document order."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.headings: list[Heading] = []
        self.blocks: list[Block] = []
        self.path: list[tuple[int, str]] = []
        self._path_tuple: tuple[str, ...] | None = None  # shared by the blocks of a section

    def heading_path(self) -> tuple[str, ...]:
        if self._path_tuple is None:
            self._path_tuple = tuple(text for _, text in self.path)
        return self._path_tuple

    def emit(self, kind: BlockKind, start: int, end: int, info: str = "") -> None:
        text = "\n".join(self.lines[start:end]).rstrip()
        if not text.strip():
            return
        block_id = None
        last = self.lines[end - 1]
        if kind != "code" and "^" in last:
            found = _BLOCK_ID.search(last)
            block_id = found.group(1) if found else None
        self.blocks.append(Block(kind, text, self.heading_path(), start, end, block_id, info))

    def scan(self) -> Structure:
        i, n = 0, len(self.lines)
        while i < n:
            line = self.lines[i]
            if not line.strip() or _THEMATIC_BREAK.match(line):
                i += 1
                continue
            if _starts_with_word(line) and not line.startswith(("    ", "\t")):
                # Prose: no block marker can match a line whose first character is a letter.
                i = self.scan_while(i, "paragraph", self.continues_paragraph)
                continue
            heading = _heading_at(line)
            if heading:
                level, text = heading
                self.headings.append(Heading(level, text, i))
                while self.path and self.path[-1][0] >= level:
                    self.path.pop()
                self.path.append((level, text))
                self._path_tuple = None
                i += 1
                continue
            if line.startswith(("    ", "\t")) and not _LIST_ITEM.match(line):
                # CommonMark indented code: four spaces after a blank line, outside a list.
                i = self.scan_while(i, "code", lambda s: s.startswith(("    ", "\t")))
                continue
            fence = _FENCE_OPEN.match(line)
            if fence and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):
                i = self.scan_fence(i, fence.group(2), fence.group(3).strip())
                continue
            if _LIST_ITEM.match(line):
                i = self.scan_list_item(i)
            elif _TABLE_ROW.match(line):
                if not _TABLE_SEPARATOR.match(line):
                    self.emit("table_row", i, i + 1)
                i += 1
            elif _QUOTE.match(line):
                i = self.scan_while(i, "quote", lambda s: bool(_QUOTE.match(s)))
            else:
                i = self.scan_while(i, "paragraph", self.continues_paragraph)
        return Structure(tuple(self.headings), tuple(self.blocks), n)

    def scan_fence(self, start: int, marker: str, info: str) -> int:
        i = start + 1
        while i < len(self.lines) and not _fence_closes(self.lines[i], marker):
            i += 1
        end = min(i + 1, len(self.lines))  # an unclosed fence runs to the end, as in CommonMark
        self.emit("code", start, end, info.split()[0] if info else "")
        return end

    def continues_paragraph(self, line: str) -> bool:
        if _starts_with_word(line):
            return True
        return not (
            _heading_at(line)
            or _FENCE_OPEN.match(line)
            or _LIST_ITEM.match(line)
            or _TABLE_ROW.match(line)
            or _QUOTE.match(line)
            or _THEMATIC_BREAK.match(line)
        )

    def scan_while(self, start: int, kind: BlockKind, keep: Callable[[str], bool]) -> int:
        i = start + 1
        while i < len(self.lines) and self.lines[i].strip() and keep(self.lines[i]):
            i += 1
        self.emit(kind, start, i)
        return i

    def scan_list_item(self, start: int) -> int:
        """A list item with its continuation lines; a nested item starts a block of its own."""
        i = start + 1
        while i < len(self.lines):
            line = self.lines[i]
            if not line.strip():
                # A blank line continues the item only when indented text follows it.
                nxt = i + 1
                if (
                    nxt < len(self.lines)
                    and self.lines[nxt].startswith(("  ", "\t"))
                    and not _LIST_ITEM.match(self.lines[nxt])
                ):
                    i = nxt
                    continue
                break
            if _LIST_ITEM.match(line) or _heading_at(line) or _FENCE_OPEN.match(line):
                break
            if _TABLE_ROW.match(line) or _THEMATIC_BREAK.match(line):
                break
            i += 1
        self.emit("list_item", start, i)
        return i


def parse_structure(body: str) -> Structure:
    """Split a Markdown body into headings and blocks, keeping line positions."""
    return _Scanner(body.split("\n")).scan()


_inline = mistune.create_markdown(renderer=None, plugins=["table", "strikethrough"])


def _flatten(nodes: list[dict[str, object]], out: list[str]) -> None:
    for node in nodes:
        kind = node.get("type")
        if kind in {"codespan", "block_code", "block_html", "inline_html"}:
            out.append(" ")
            continue
        raw = node.get("raw")
        if kind == "text" and isinstance(raw, str):
            out.append(raw)
        elif kind in {"softbreak", "linebreak"}:
            out.append("\n")
        children = node.get("children")
        if isinstance(children, list):
            _flatten(children, out)
        if kind in {"paragraph", "block_text", "list_item", "table_cell", "heading"}:
            out.append("\n")


def text_outside_code(markdown: str) -> str:
    """The text of a Markdown fragment with code spans and code blocks blanked out.

    Used to find links: `[[x]]` inside backticks is an example, not a link. The cheap common
    case (no backtick at all) skips the parser, which keeps indexing of large vaults fast.
    """
    if "`" not in markdown and "~~~" not in markdown and "<" not in markdown:
        return markdown
    tokens = _inline(markdown)
    out: list[str] = []
    if isinstance(tokens, list):
        _flatten(tokens, out)
    return "".join(out)


_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_MARKER_STARTS = frozenset("-*+0123456789")


def excerpt_text(block_text: str) -> str:
    """A block as shown in an excerpt: without its list marker and trailing `^block-id`.

    Those are formatting, not words: they would only eat into the caller's word budget.
    """
    text = block_text
    if text.lstrip(" \t")[:1] in _MARKER_STARTS:
        text = _LIST_MARKER.sub("", text, count=1)
    if "^" in text:  # the id regex scans the whole text: only when there can be one
        text = _BLOCK_ID.sub("", text)
    return text.rstrip()
