"""Editing an existing note in place: change what an operation gives, keep every other byte.

People format their notes by hand, so an agent's UPDATE must not re-render the file: frontmatter
keys change through the surgical `set_key`, and a body section is replaced only when the
operation gives it. Relations and Raw Concept lines are edited line by line (a relation already
listed keeps its alias and line; a new one is appended). Text outside the known sections, unknown
frontmatter keys, CRLF line endings and a byte order mark all survive. Pure: text in, text out.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bridge.core import frontmatter as fm
from bridge.core.entry import SECTIONS
from bridge.core.markdown import Block, Heading, parse_structure
from bridge.core.paths import link_target
from bridge.core.properties import read as read_properties
from bridge.core.relations import (
    LinkSyntax,
    WikiLink,
    find_wikilinks,
    is_pattern,
    parse_wikilink,
)

_TITLES = {"relations": "Relations", "raw concept": "Raw Concept"}
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class RelationLine:
    """A relation to write: the wikilink inner text (`a/b/c`, `a/b#h|alias`; Dendron's
    `alias|a.b` with `syntax="dendron"`) and its reason."""

    target: str
    reason: str | None = None
    syntax: LinkSyntax = "obsidian"

    def render(self) -> str:
        reason = f" - {self.reason}" if self.reason else ""
        return f"- {parse_wikilink(self.target, syntax=self.syntax).render()}{reason}"


SetKey = Callable[[str, str, object], str]


@dataclass(frozen=True)
class PatchStyle:
    """How a dialect keeps what an UPDATE changes (`dialect_write` makes one per dialect).

    `summary_key` names the summary (Dendron's `desc`); `h1_is_title` says whether the first
    `# H1` is the title (not in Dendron, whose title is the `title` key); `set_key` edits one
    property (Dendron writes times in epoch milliseconds); `syntax` is how links are spelled.
    """

    summary_key: str = "summary"
    h1_is_title: bool = True
    set_key: SetKey = fm.set_key
    syntax: LinkSyntax = "obsidian"


@dataclass(frozen=True)
class EntryPatch:
    """What an UPDATE (or a MERGE into an existing entry) changes. None / empty: untouched.

    `relations` are added (a target already listed gets the new reason); `raw_concept` lines
    are set by key (`Source`, `Task`...), other lines kept; `narrative` and `snippets` replace
    their sections.
    """

    title: str | None = None
    summary: str | None = None
    tags: tuple[str, ...] | None = None
    relations: tuple[RelationLine, ...] = ()
    raw_concept: tuple[tuple[str, str], ...] = ()
    narrative: str | None = None
    snippets: tuple[tuple[str, str], ...] | None = None
    updated: dt.datetime | None = None
    author: str | None = None


def relation_key(target: str) -> str:
    """How two relation targets are compared when no resolver is at hand."""
    return link_target(parse_wikilink(target).target).lower().lstrip("@/")


def render_snippets(snippets: Sequence[tuple[str, str]]) -> list[str]:
    """Fenced code blocks (a fence longer than any backtick run inside the code)."""
    lines: list[str] = []
    for language, code in snippets:
        runs = [len(m.group(0)) for m in re.finditer(r"`+", code)]
        fence = "`" * max(3, max(runs, default=0) + 1)
        if lines:
            lines.append("")
        lines += [f"{fence}{language}", *code.rstrip("\n").split("\n"), fence]
    return lines


# -- sections -----------------------------------------------------------------------------------


def _section(headings: Sequence[Heading], n_lines: int, name: str) -> tuple[int, int, int] | None:
    """(heading line, first content line, end line) of a known section, matched like the parser."""
    for i, heading in enumerate(headings):
        if heading.text.strip().lower() != name:
            continue
        end = n_lines
        for later in headings[i + 1 :]:
            if later.level <= heading.level:
                end = later.line
                break
        return heading.line, heading.line + 1, end
    return None


def _section_blocks(blocks: Sequence[Block], start: int, end: int) -> list[Block]:
    return [b for b in blocks if start <= b.start_line < end and b.kind == "list_item"]


def _place_new_section(body_lines: list[str], headings: Sequence[Heading], name: str) -> int:
    """Where a missing section goes: before the next known section in entry order, else the end."""
    later = SECTIONS[SECTIONS.index(name) + 1 :]
    for heading in headings:
        if heading.text.strip().lower() in later:
            return heading.line
    return len(body_lines)


def _set_section(body: str, name: str, content: list[str]) -> str:
    """Replace a section's content (or add the section) and return the new body.

    A missing section with nothing to put in it is not added: a new entry is written without
    empty sections (`render_entry`), and an UPDATE keeps it so.
    """
    lines = body.split("\n")
    structure = parse_structure(body)
    found = _section(structure.headings, len(lines), name)
    if found is None and not any(line.strip() for line in content):
        return body
    if found is not None:
        _, start, end = found
        tail = lines[end:]
        block = [*content, ""] if tail else [*content]
        return "\n".join([*lines[:start], *block, *tail]).rstrip("\n") + "\n"
    at = _place_new_section(lines, structure.headings, name)
    title = _TITLES.get(name, name.capitalize())
    new = [f"## {title}", *content, ""]
    before, after = lines[:at], lines[at:]
    while before and not before[-1].strip():
        before.pop()
    spacer = [""] if before else []
    return "\n".join([*before, *spacer, *new, *after]).rstrip("\n") + "\n"


def _edit_list_section(
    body: str,
    name: str,
    wanted: Sequence[tuple[str, str]],
    match: Callable[[Block, str], bool],
) -> str:
    """Set list items by key: a matching item is replaced, others appended after the last item.

    `wanted` is (key, line) pairs; `match(block, key)` says whether an existing item is the one
    for `key`. Items not named are kept byte for byte.
    """
    if not wanted:
        return body
    lines = body.split("\n")
    structure = parse_structure(body)
    found = _section(structure.headings, len(lines), name)
    if found is None:
        return _set_section(body, name, [line for _, line in wanted])
    _, start, end = found
    items = _section_blocks(structure.blocks, start, end)
    replacements: dict[int, tuple[int, str]] = {}
    appended: list[str] = []
    for key, line in wanted:
        block = next((b for b in items if match(b, key)), None)
        if block is None:
            appended.append(line)
        elif block.text.strip() != line.strip():
            replacements[block.start_line] = (block.end_line, line)
    out: list[str] = []
    insert_at = items[-1].end_line if items else start
    if not items and appended and start < len(lines) and lines[start].strip():
        appended.append("")  # the section held only text: keep a blank line before it
    i = 0
    while i < len(lines):
        if i == insert_at and appended:
            out += appended
            appended = []
        if i in replacements:
            stop, line = replacements[i]
            out.append(line)
            i = stop
            continue
        out.append(lines[i])
        i += 1
    if appended:
        out += appended
    return "\n".join(out)


def _relation_match(
    key: Callable[[str], str], syntax: LinkSyntax = "obsidian"
) -> Callable[[Block, str], bool]:
    def match(block: Block, wanted: str) -> bool:
        links = find_wikilinks(block.text, syntax=syntax)
        return any(key(link.target) == wanted for link in links)

    return match


def _raw_concept_match(block: Block, wanted: str) -> bool:
    text = block.text.strip().lstrip("-*+").strip()
    name, sep, _ = text.partition(":")
    return bool(sep) and name.strip().lower() == wanted.lower()


def _relation_lines(
    body: str,
    relations: Sequence[RelationLine],
    key: Callable[[str], str],
    syntax: LinkSyntax = "obsidian",
) -> list[tuple[str, str]]:
    """(key, line) pairs for the Relations section; a listed target keeps its link and alias."""
    structure = parse_structure(body)
    lines = body.split("\n")
    found = _section(structure.headings, len(lines), "relations")
    existing: dict[str, tuple[WikiLink, Block]] = {}
    if found is not None:
        for block in _section_blocks(structure.blocks, found[1], found[2]):
            for link in find_wikilinks(block.text, syntax=syntax):
                existing.setdefault(key(link.target), (link, block))
    wanted: list[tuple[str, str]] = []
    for relation in relations:
        k = key(parse_wikilink(relation.target, syntax=syntax).target)
        if k in existing:
            link, block = existing[k]
            if relation.reason is None:
                continue  # already listed, nothing new to say
            reason = f" - {relation.reason}"
            wanted.append((k, f"- {link.render()}{reason}"))
        elif k not in {w for w, _ in wanted}:
            wanted.append((k, relation.render()))
    return wanted


# -- the patch ----------------------------------------------------------------------------------


def patch_entry(
    text: str,
    patch: EntryPatch,
    key: Callable[[str], str] = relation_key,
    style: PatchStyle = PatchStyle(),
) -> str:
    """`text` with the patch applied and nothing else changed.

    Raises `FrontmatterError` for frontmatter the bridge must not edit (malformed YAML).
    `key` maps a relation target to what identifies it (the executor resolves targets to
    paths, so `[[jwt_expiry]]` and `@engineering/auth/jwt_expiry.md` are the same relation).
    `style` is how the vault's dialect keeps properties and spells links.
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    work = text.replace("\r\n", "\n")
    parts = fm.split(work)
    meta = read_properties(work)
    head, body = work[: parts.body_start], parts.body

    h1 = next((h for h in parse_structure(body).headings if h.level == 1), None)
    if not style.h1_is_title:
        h1 = None
    if patch.title is not None and h1 is not None and h1.text != patch.title:
        lines = body.split("\n")
        lines[h1.line] = f"# {patch.title}"
        body = "\n".join(lines)
    if patch.relations:
        wanted = _relation_lines(body, patch.relations, key, style.syntax)
        match = _relation_match(key, style.syntax)
        body = _edit_list_section(body, "relations", wanted, match)
    if patch.raw_concept:
        wanted = [(k, f"- {k}: {v}") for k, v in patch.raw_concept]
        body = _edit_list_section(body, "raw concept", wanted, _raw_concept_match)
    if patch.narrative is not None:
        body = _set_section(body, "narrative", patch.narrative.strip("\n").split("\n"))
    if patch.snippets is not None:
        body = _set_section(body, "snippets", render_snippets(patch.snippets))

    result = head + body
    changes: list[tuple[str, object]] = []
    if patch.title is not None and ("title" in meta or h1 is None):
        changes.append(("title", patch.title))
    if patch.summary is not None:
        changes.append((style.summary_key, patch.summary))
    if patch.tags is not None:
        changes.append(("tags", list(patch.tags)))
    if patch.updated is not None:
        changes.append(("updated", patch.updated))
    if patch.author is not None:
        changes.append(("author", patch.author))
    for name, value in changes:
        if name in meta and _same_value(meta[name], value):
            continue
        result = style.set_key(result, name, value)
    return result.replace("\n", newline) if newline != "\n" else result


def _same_value(current: object, new: object) -> bool:
    if isinstance(new, list) and isinstance(current, list):
        return [str(v) for v in current] == [str(v) for v in new]
    return fm.format_scalar(current) == fm.format_scalar(new)


def drop_relations(text: str, drop: Callable[[str], bool], syntax: LinkSyntax = "obsidian") -> str:
    """`text` without the Relations items whose every link target satisfies `drop`.

    A MERGE uses it so the merged entry does not list itself among its relations.
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    work = text.replace("\r\n", "\n")
    parts = fm.split(work)
    body = parts.body
    lines = body.split("\n")
    structure = parse_structure(body)
    found = _section(structure.headings, len(lines), "relations")
    if found is None:
        return text
    doomed: set[int] = set()
    for block in _section_blocks(structure.blocks, found[1], found[2]):
        links = find_wikilinks(block.text, syntax=syntax)
        if links and all(drop(link.target) for link in links):
            doomed.update(range(block.start_line, block.end_line))
    if not doomed:
        return text
    kept = [line for i, line in enumerate(lines) if i not in doomed]
    result = work[: parts.body_start] + "\n".join(kept)
    return result.replace("\n", newline) if newline != "\n" else result


# -- links ----------------------------------------------------------------------------------------


def _mask_code(body: str) -> str:
    """The body with code blocks and code spans blanked, every offset unchanged."""
    out: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            out.append(" " * len(line))
            continue
        if opening:
            fence = opening.group(1)
            out.append(" " * len(line))
            continue
        out.append(_CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line))
    return "\n".join(out)


# A Logseq tag without brackets: `#` after a space or a line's start, then the name up to
# white space or punctuation a name cannot end with (`#billing/cycle/dunning.` ends a sentence).
_BARE_TAG = re.compile(r"(?<![^\s(])#([^\s#,;!?\"'()\[\]{}]+?)(?=[.:]?(?:[\s,;!?\"')\]}]|$))")
# `tags:: a, b`: its plain items name pages as much as `[[a]]` does.
_TAGS_LINE = re.compile(r"^([ \t]*(?:[-*+][ \t]+)?tags::[ \t]*)(.*)$", re.M | re.I)


def rewrite_tags(text: str, old_names: Sequence[str], new_name: str) -> str:
    """A Logseq page's bare references to a renamed page pointed at its new name: `#old/name`
    in the text and plain items of `tags::` (`[[...]]` forms are links: `rewrite_links`).

    Names match as Logseq matches them, in any case; a tag naming another page (`#dunning`
    for `billing/cycle/dunning`) and code stay as they are. A new name that a bare tag cannot
    hold (a space) is written `#[[new name]]`.
    """
    olds = {name.lower() for name in old_names}
    bare = new_name if not re.search(r"[\s#,;!?\"'()\[\]{}]", new_name) else f"[[{new_name}]]"
    parts = fm.split(text)
    masked = text[: parts.body_start] + _mask_code(text[parts.body_start :])
    edits: list[tuple[int, int, str]] = []
    for line in _TAGS_LINE.finditer(masked):
        start = line.start(2)
        for item in re.finditer(r"[^,]+", line.group(2)):
            name = item.group(0).strip()
            if not name.startswith("[[") and name.lstrip("#").lower() in olds:
                at = start + item.start() + item.group(0).index(name)
                hashed = name.startswith("#")
                edits.append((at, at + len(name), f"#{bare}" if hashed else new_name))
    for tag in _BARE_TAG.finditer(masked):
        inside = any(a <= tag.start() < b for a, b, _ in edits)
        if not inside and tag.group(1).lower() in olds:
            edits.append((tag.start(1), tag.end(1), bare))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def rewrite_links(
    text: str,
    resolve: Callable[[str], str | None],
    moves: Mapping[str, str],
    spell: Callable[[WikiLink, str], str],
    syntax: LinkSyntax = "obsidian",
) -> str:
    """Point every link that resolves to a key of `moves` at its new path.

    Heading, block and alias parts are kept; links inside code are examples and stay as they
    are. `resolve` maps a link target to a note path (as Obsidian would, from this note);
    `spell` chooses how the new target is written (a bare name stays bare when it is unique).
    """
    parts = fm.split(text)
    masked = text[: parts.body_start] + _mask_code(text[parts.body_start :])
    pieces: list[str] = []
    last = 0
    for match in _WIKILINK.finditer(masked):
        link = parse_wikilink(match.group(2), embed=bool(match.group(1)), syntax=syntax)
        path = resolve(link.target)
        if path is None or path not in moves or is_pattern(link.target, path):
            continue
        pieces += [text[last : match.start()], link.render(spell(link, moves[path]))]
        last = match.end()
    if not pieces:
        return text
    return "".join(pieces) + text[last:]
