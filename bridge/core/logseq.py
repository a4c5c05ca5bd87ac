"""Logseq's Markdown: `key:: value` properties and the outline of blocks.

A Logseq page starts with its page properties, `key:: value` lines before the first block (or
a first block made of nothing else), and is an outline: every block a `- ` bullet, children
indented below it (a tab each level, as Logseq writes them). A block's own properties
(`id::`, `collapsed::`) are lines under its first one. Headings are blocks too (`- ## Usage`),
and what sits below a heading block in the outline is its section.

Pure: text in, values out; `set_property` edits one property line and keeps every other byte,
as `frontmatter.set_key` does for YAML.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from bridge.core.markdown import Block, Heading, Structure

# Logseq's property keys are words of letters, digits, `-`, `_`, `.` and `/` (`logseq.order-
# list-type`); `::` then the value. `key::` alone is a property without a value.
_PROPERTY = re.compile(r"^[ \t]*([A-Za-z0-9_][A-Za-z0-9_\-./]*)::(?:[ \t]+(.*?))?[ \t]*$")
_BULLET = re.compile(r"^([ \t]*)[-*+](?:[ \t]+|$)")
_HEADING_BLOCK = re.compile(r"^[ \t]*[-*+][ \t]+(#{1,6})[ \t]+(.*?)[ \t]*$")
# Properties Logseq writes for itself on a block: noise in an excerpt.
TOOL_BLOCK_PROPERTIES = frozenset({"id", "collapsed", "heading"})


@dataclass(frozen=True)
class PageProperties:
    """A page's `key:: value` lines: the values as written (keys lower case), the lines they
    span (`start`, `end`: 0-based, end excluded) and where the outline begins."""

    values: dict[str, str]
    lines: dict[str, int]
    start: int
    end: int


def property_of(line: str) -> tuple[str, str] | None:
    """(key, value) of a `key:: value` line, None for any other line."""
    found = _PROPERTY.match(line)
    if found is None:
        return None
    return found.group(1).lower(), (found.group(2) or "").strip()


def page_properties(text: str) -> PageProperties:
    """The page properties at the top of `text` (Logseq's pre-block, or a first block made of
    properties only). None there: empty values, `start == end == 0`."""
    lines = text.split("\n")
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    start = i
    values: dict[str, str] = {}
    where: dict[str, int] = {}
    first_bullet = i < len(lines) and _BULLET.match(lines[i]) is not None
    while i < len(lines):
        line = lines[i]
        candidate = line
        if first_bullet and i == start:
            candidate = _BULLET.sub("", line, count=1)
        elif first_bullet and _BULLET.match(line):
            break  # the next block
        found = property_of(candidate)
        if found is None:
            break
        key, value = found
        values.setdefault(key, value)
        where.setdefault(key, i)
        i += 1
    if not values:
        return PageProperties({}, {}, 0, 0)
    return PageProperties(values, where, start, i)


def split_list(value: str) -> tuple[str, ...]:
    """A list property's names: `[[a b]], c, #d` -> (`a b`, `c`, `d`). Commas inside `[[...]]`
    belong to the name."""
    parts: list[str] = []
    current = ""
    i = 0
    while i < len(value):
        if value.startswith("[[", i):
            end = value.find("]]", i)
            end = len(value) if end < 0 else end + 2
            current += value[i:end]
            i = end
            continue
        if value[i] == ",":
            parts.append(current)
            current = ""
        else:
            current += value[i]
        i += 1
    parts.append(current)
    names = []
    for part in parts:
        name = part.strip().removeprefix("#")
        if name.startswith("[[") and name.endswith("]]"):
            name = name[2:-2]
        if name.strip():
            names.append(name.strip())
    return tuple(names)


# -- the outline ------------------------------------------------------------------------------


def _width(indent: str) -> int:
    """An indentation's depth in columns (a tab counts as one level's worth: 2 spaces)."""
    return sum(2 if c == "\t" else 1 for c in indent)


def _clean_block(block: Block) -> Block:
    """The block without the lines of Logseq's own properties; `id::` becomes its id."""
    kept: list[str] = []
    block_id = block.block_id
    for line in block.text.split("\n"):
        found = property_of(line) if "::" in line else None
        if found is not None and found[0] in TOOL_BLOCK_PROPERTIES and kept:
            if found[0] == "id":
                block_id = found[1]
            continue
        kept.append(line)
    text = "\n".join(kept)
    if text == block.text and block_id == block.block_id:
        return block
    return replace(block, text=text, block_id=block_id)


def _code_block(block: Block) -> Block:
    """A bullet whose content is a fenced code block is a code block (a Snippet)."""
    first = block.text.split("\n", 1)[0]
    content = _BULLET.sub("", first, count=1).strip()
    if block.kind != "list_item" or not content.startswith(("```", "~~~")):
        return block
    info = content.lstrip("`~").strip().split()
    return replace(block, kind="code", info=info[0] if info else "")


def outline_structure(structure: Structure, lines: list[str]) -> Structure:
    """`structure` (the Markdown scanner's) read as an outline.

    A heading block (`- ## Usage`) is a heading, and each block's heading path is the heading
    blocks above it in the outline (its ancestors, and headings before it at its own level), so
    a block's context and an entry's sections follow what Logseq shows. Headings written as
    Markdown lines (`## Usage` without a bullet) keep their place.
    """
    headings: list[Heading] = list(structure.headings)
    blocks: list[Block] = []
    # (indent width, heading level, text); a top-level Markdown heading has width -1.
    stack: list[tuple[int, int, str]] = []
    order: list[tuple[int, Block | Heading]] = [(b.start_line, b) for b in structure.blocks]
    order += [(h.line, h) for h in structure.headings]
    for _, item in sorted(order, key=lambda pair: pair[0]):
        if isinstance(item, Heading):
            while stack and stack[-1][0] == -1 and stack[-1][1] >= item.level:
                stack.pop()
            stack = [s for s in stack if s[0] == -1]
            stack.append((-1, item.level, item.text))
            continue
        block = item
        indent = _BULLET.match(lines[block.start_line]) if block.kind == "list_item" else None
        width = _width(indent.group(1)) if indent else 0
        while stack and stack[-1][0] > width:
            stack.pop()
        heading = _HEADING_BLOCK.match(lines[block.start_line])
        if heading is not None and block.kind == "list_item":
            level, text = len(heading.group(1)), heading.group(2)
            while stack and stack[-1][0] == width and stack[-1][1] >= level:
                stack.pop()
            headings.append(Heading(level, text, block.start_line))
            cleaned = _clean_block(replace(block, heading_path=tuple(t for _, _, t in stack)))
            if "[[" in cleaned.text or "\n" in cleaned.text:
                blocks.append(cleaned)  # its links and text are the page's too
            stack.append((width, level, text))
            continue
        path = tuple(text for _, _, text in stack)
        blocks.append(_code_block(_clean_block(replace(block, heading_path=path))))
    headings.sort(key=lambda h: h.line)
    return Structure(tuple(headings), tuple(blocks), structure.line_count)


def section_lines(lines: list[str], heading_line: int) -> tuple[int, int]:
    """The lines below the heading block at `heading_line` that belong to it: its children
    (deeper bullets and their text), up to the next block at its level or above."""
    bullet = _BULLET.match(lines[heading_line])
    width = _width(bullet.group(1)) if bullet else -1
    end = heading_line + 1
    while end < len(lines):
        line = lines[end]
        if line.strip():
            other = _BULLET.match(line)
            lead = _width(line[: len(line) - len(line.lstrip(" \t"))])
            if other is not None and _width(other.group(1)) <= width:
                break
            if bullet is None and other is None and lead == 0 and line.lstrip().startswith("#"):
                break
            if bullet is not None and other is None and lead <= width:
                break
        end += 1
    while end > heading_line + 1 and not lines[end - 1].strip():
        end -= 1
    return heading_line + 1, end


def _depth(indent: str) -> int:
    """Outline depth of an indentation (a tab or two spaces per level)."""
    return indent.count("\t") + (len(indent) - indent.count("\t")) // 2


def outline_markdown(lines: Iterable[str]) -> str:
    """Blocks as plain Markdown: the shallowest blocks are paragraphs, deeper ones list items
    nested below them, a block's continuation lines its text (a Narrative's reading)."""
    rows = list(lines)
    depths = [_depth(m.group(1)) for line in rows if (m := _BULLET.match(line))]
    base = min(depths, default=0)
    out: list[str] = []
    pad = ""  # what a continuation line of the current block is indented by, as Markdown
    under = ""  # what it is indented by in the outline (the bullet's indent and two spaces)
    for line in rows:
        bullet = _BULLET.match(line)
        if bullet is None:
            out.append(pad + line.removeprefix(under) if line.strip() else "")
            continue
        depth = _depth(bullet.group(1))
        content = line[bullet.end() :]
        under = bullet.group(1) + "  "
        if depth <= base:
            if out:
                out.append("")
            out.append(content)
            pad = ""
        else:
            pad = "  " * (depth - base - 1)
            out.append(f"{pad}- {content}")
            pad += "  "
    return "\n".join(out).strip()


def block_content(text: str) -> str:
    """One block's text without its bullet and indentation (a Snippet's code block)."""
    return outline_markdown(text.split("\n"))


# -- writing ----------------------------------------------------------------------------------


def format_value(value: object) -> str:
    """A property value as Logseq writes it: lists comma-separated, text on one line."""
    if isinstance(value, list | tuple):
        return ", ".join(format_value(v) for v in value)
    return " ".join(str(value).split())


def set_property(text: str, key: str, value: object) -> str:
    """`text` with the page property `key` set to `value`, every other byte unchanged.

    An existing `key::` line is replaced (the first one); a new key goes after the last page
    property, or on a first line of its own when the page has none (Logseq reads a first
    `key:: value` line as a page property). Each line keeps its own line ending; a new line
    takes the ending of the line before it.
    """
    raw = re.split(r"(?<=\n)", text)
    bare = [line.rstrip("\n").rstrip("\r") for line in raw]
    props = page_properties("\n".join(bare))
    rendered = f"{key}:: {format_value(value)}"
    at = props.lines.get(key.lower())
    if at is not None:
        bullet = _BULLET.match(bare[at]) if at == props.start else None
        lead = bullet.group(0) if bullet else bare[at][: len(bare[at]) - len(bare[at].lstrip())]
        raw[at] = lead + rendered + raw[at][len(bare[at]) :]
    elif props.values:
        first = _BULLET.match(bare[props.start])
        lead = "  " + first.group(1) if first else ""
        before = raw[props.end - 1]
        ending = before[len(bare[props.end - 1]) :] or "\n"
        if not before.endswith("\n"):
            raw[props.end - 1] = before + ending
        raw.insert(props.end, lead + rendered + ending)
    else:
        ending = "\r\n" if raw[0].endswith("\r\n") else "\n"
        raw.insert(0, rendered + ending)
    return "".join(raw)
