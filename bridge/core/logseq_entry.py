"""The entry format in a Logseq graph: `key:: value` properties and outliner blocks.

Logseq opens a page as properties (the lines before the first block) and an outline; YAML, a
`## Relations` heading line outside a block or `[[pages/Key Rotation]]` (a page named
`pages/Key Rotation`) would not be its own. So an entry is written as:

    alias:: Dunning letters
    tags:: billing, dunning
    status:: draft
    description:: Letters go out three days after a failed charge.
    created:: 2026-11-02T09:14:00Z
    updated:: 2026-11-02T09:14:00Z
    author:: agent:claude-code

    - ## Relations
        - [[billing/cycle/renewal]] - the charge the letters follow
    - ## Raw Concept
        - Task: document dunning
    - ## Narrative
        - Letters go out...
    - ## Snippets
        - ```ts
          sendDunning(account)
          ```

The page's name is its namespaced file name (`pages/billing___cycle___dunning.md` is
`billing/cycle/dunning`), so an entry's title, when it says more than the name's last part,
is written as an alias: `title::` would rename the page. An UPDATE edits property lines and
the children of a section's heading block, and keeps every other line. (Children are shown
indented by spaces here; Logseq writes, and the bridge writes, a tab per level.)
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence

from bridge.core import frontmatter as fm
from bridge.core.entry import RAW_CONCEPT_KEYS, SECTIONS, Entry
from bridge.core.entry_edit import EntryPatch, RelationLine, relation_key, render_snippets
from bridge.core.logseq import format_value, page_properties, property_of, set_property, split_list
from bridge.core.relations import find_wikilinks

_TITLES = {"relations": "Relations", "raw concept": "Raw Concept", "narrative": "Narrative"}
_SECTION_HEAD = re.compile(r"^-[ \t]+#{1,6}[ \t]+(.+?)[ \t]*$")
_LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|(\d{1,9}[.)]))[ \t]+(.*)$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
INDENT = "\t"


def _block(depth: int, text: str) -> list[str]:
    """A block at `depth`: its first line after the bullet, the rest as its continuation.

    A blank line inside a block keeps the block's indentation, as Logseq writes it: an empty
    line would end the block (and split a code block in two)."""
    first, *rest = text.split("\n")
    pad = INDENT * depth
    return [f"{pad}- {first}".rstrip(), *(f"{pad}  {line}" for line in rest)]


def markdown_blocks(text: str, depth: int = 1) -> list[str]:
    """Markdown as Logseq blocks at `depth`: each paragraph a block, each list item a block
    nested by its indentation, a fenced code block one block (a `### heading` line becomes
    a heading block)."""
    blocks: list[tuple[int, list[str]]] = []
    fence: str | None = None
    current: list[str] | None = None
    for line in text.strip("\n").split("\n"):
        if fence is not None:
            assert current is not None
            current.append(line)
            opening = _FENCE.match(line)
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence, current = None, None
            continue
        opening = _FENCE.match(line)
        if opening:
            current = [line.strip()]
            blocks.append((depth, current))
            fence = opening.group(1)
            continue
        if not line.strip():
            current = None
            continue
        item = _LIST_ITEM.match(line)
        if item:
            level = len(item.group(1).replace("\t", "  ")) // 2
            content = f"{item.group(2)} {item.group(3)}" if item.group(2) else item.group(3)
            current = [content]
            blocks.append((depth + 1 + level, current))
        elif current is not None:
            current.append(line.strip())
        else:
            current = [line.strip()]
            blocks.append((depth, current))
    out: list[str] = []
    for level, lines in blocks:
        out += _block(level, "\n".join(lines))
    return out


def _section(heading: str, content: list[str]) -> list[str]:
    return [f"- ## {heading}", *content]


def section_content(name: str, entry: Entry) -> list[str]:
    """The child blocks of a section of `entry` (empty: the section is left out)."""
    match name:
        case "relations":
            return [line for r in entry.relations for line in _relation(r.target, r.reason)]
        case "raw concept":
            rc = entry.raw_concept
            pairs = [(k.capitalize(), getattr(rc, k)) for k in RAW_CONCEPT_KEYS]
            return [line for k, v in [*pairs, *rc.extra] if v for line in _block(1, f"{k}: {v}")]
        case "narrative":
            return markdown_blocks(entry.narrative) if entry.narrative.strip() else []
        case "snippets":
            pairs = [(s.language, s.code) for s in entry.snippets]
            return _snippet_blocks(pairs)
    return []


def _relation(target: str, reason: str | None) -> list[str]:
    return _block(1, f"[[{target}]]" + (f" - {reason}" if reason else ""))


def _snippet_blocks(snippets: Sequence[tuple[str, str]]) -> list[str]:
    out: list[str] = []
    for language, code in snippets:
        out += _block(1, "\n".join(render_snippets([(language, code)])))
    return out


def title_alias(title: str, page: str) -> str | None:
    """The alias an entry's title becomes, None when the page's name already says it."""
    leaf = page.rsplit("/", 1)[-1]
    if _plain(title) in {_plain(leaf), _plain(page)}:
        return None
    return title


def _plain(text: str) -> str:
    return " ".join(text.replace("_", " ").replace("-", " ").split()).casefold()


def _time(value: dt.datetime) -> str:
    return fm.format_scalar(value)


def render_page(entry: Entry, page: str) -> str:
    """A new page named `page` holding `entry`: properties, then one block per section."""
    props: list[tuple[str, object]] = []
    alias = title_alias(entry.title, page)
    if alias is not None:
        props.append(("alias", alias))
    if entry.tags:
        props.append(("tags", list(entry.tags)))
    if entry.status:
        props.append(("status", entry.status))
    if entry.summary:
        props.append(("description", entry.summary))
    if entry.created is not None:
        props.append(("created", _time(entry.created)))
    if entry.updated is not None:
        props.append(("updated", _time(entry.updated)))
    if entry.author:
        props.append(("author", entry.author))
    props += [(k, v) for k, v in entry.extra.items()]
    lines = [f"{key}:: {format_value(value)}" for key, value in props]
    body: list[str] = []
    for name in SECTIONS:
        content = section_content(name, entry)
        if content:
            body += _section(_TITLES.get(name, name.capitalize()), content)
    if lines and body:
        lines.append("")
    return "\n".join([*lines, *body]) + "\n"


# -- an UPDATE ----------------------------------------------------------------------------------


def _sections(lines: list[str], start: int) -> dict[str, tuple[int, int, int]]:
    """Top-level heading blocks named like an entry section: name -> (heading line, first
    child line, end)."""
    found: dict[str, tuple[int, int, int]] = {}
    heads = [
        (i, m.group(1).strip().lower())
        for i in range(start, len(lines))
        if (m := _SECTION_HEAD.match(lines[i]))
    ]
    tops = [
        i for i in range(start, len(lines)) if lines[i].startswith(("- ", "#")) or lines[i] == "-"
    ]
    for i, name in heads:
        if name not in SECTIONS or name in found:
            continue
        end = next((t for t in tops if t > i), len(lines))
        while end > i + 1 and not lines[end - 1].strip():
            end -= 1
        found[name] = (i, i + 1, end)
    return found


def _set_section(lines: list[str], start: int, name: str, content: list[str]) -> list[str]:
    found = _sections(lines, start).get(name)
    if found is not None:
        _, first, end = found
        return [*lines[:first], *content, *lines[end:]]
    if not content:
        return lines
    later = SECTIONS[SECTIONS.index(name) + 1 :]
    sections = _sections(lines, start)
    at = min((sections[n][0] for n in later if n in sections), default=len(lines))
    while at > start and at == len(lines) and not lines[at - 1].strip():
        at -= 1
    return [*lines[:at], *_section(_TITLES.get(name, name.capitalize()), content), *lines[at:]]


def _indent_of(lines: list[str], first: int, end: int) -> str:
    """The indentation the section's children use (a tab, as Logseq writes; or the spaces a
    person chose), so a new child lines up with them."""
    for line in lines[first:end]:
        if line.strip():
            return line[: len(line) - len(line.lstrip(" \t"))] or INDENT
    return INDENT


def _reindent(block: list[str], pad: str) -> list[str]:
    return [pad + line[len(INDENT) :] if line.startswith(INDENT) else line for line in block]


def _set_items(
    lines: list[str],
    start: int,
    name: str,
    wanted: Sequence[tuple[str, list[str]]],
    match: Callable[[str, str], bool],
) -> list[str]:
    """Child blocks set by key: the child whose first line matches is replaced (with what is
    nested under it), the others are added after the section's last child."""
    found = _sections(lines, start).get(name)
    if found is None:
        return _set_section(lines, start, name, [x for _, block in wanted for x in block])
    _, first, end = found
    pad = _indent_of(lines, first, end)
    out = list(lines)
    added: list[str] = []
    for key, block in wanted:
        block = _reindent(block, pad)
        children = [i for i in range(first, end) if out[i].startswith(f"{pad}- ")]
        at = next((i for i in children if match(out[i], key)), None)
        if at is None:
            added += block
            continue
        stop = next((c for c in children if c > at), end)
        out[at:stop] = block
        end += len(block) - (stop - at)
    return [*out[:end], *added, *out[end:]]


SetProperty = Callable[[str, str, object], str]


def patch_page(
    text: str,
    patch: EntryPatch,
    key: Callable[[str], str] = relation_key,
    page: str = "",
) -> str:
    """`text` (a Logseq page) with the patch applied and nothing else changed.

    Properties are set line by line where the page keeps them (its `key:: value` lines, or
    its YAML frontmatter if it has one); the summary is `description`, a new title one more
    alias (unless `page`, the page's name, already says it). A section's children are
    replaced, or its relations and Raw Concept lines set by target and key. Raises
    `FrontmatterError` for YAML the bridge must not edit.
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    work = text.replace("\r\n", "\n")
    parts = fm.split(work)
    head, body = work[: parts.body_start], parts.body
    yaml = fm.load(parts.yaml_text) if parts.has_block else {}
    props = page_properties(body)
    lines = body.split("\n")
    start = props.end
    if patch.relations:
        wanted = _relation_children(lines, start, patch.relations, key)
        lines = _set_items(lines, start, "relations", wanted, _links_to(key))
    if patch.raw_concept:
        wanted_raw = [(k, _block(1, f"{k}: {v}")) for k, v in patch.raw_concept]
        lines = _set_items(lines, start, "raw concept", wanted_raw, _raw_key)
    if patch.narrative is not None:
        content = markdown_blocks(patch.narrative) if patch.narrative.strip() else []
        lines = _set_section(lines, start, "narrative", content)
    if patch.snippets is not None:
        lines = _set_section(lines, start, "snippets", _snippet_blocks(patch.snippets))
    result = head + "\n".join(lines)
    before = {k: fm.format_scalar(v) for k, v in yaml.items()} if parts.has_block else props.values
    setter: SetProperty = fm.set_key if parts.has_block else set_property
    for name, value in _property_changes(patch, before, page):
        result = setter(result, name, value)
    return result.replace("\n", newline) if newline != "\n" else result


def _property_changes(
    patch: EntryPatch, before: dict[str, str], page: str
) -> list[tuple[str, object]]:
    """The properties an UPDATE sets that do not hold the value already."""
    changes: list[tuple[str, object]] = []
    if patch.title is not None:
        aliases = split_list(before.get("alias", ""))
        named = [before.get("title", page), *aliases]
        if title_alias(patch.title, page) is not None and not any(
            _plain(patch.title) == _plain(name) for name in named
        ):
            changes.append(("alias", [*aliases, patch.title]))
    if patch.summary is not None:
        changes.append(("description", patch.summary))
    if patch.tags is not None:
        changes.append(("tags", list(patch.tags)))
    if patch.updated is not None:
        changes.append(("updated", _time(patch.updated)))
    if patch.author is not None:
        changes.append(("author", patch.author))
    return [(k, v) for k, v in changes if before.get(k) != format_value(v)]


def _relation_children(
    lines: list[str], start: int, relations: Sequence[RelationLine], key: Callable[[str], str]
) -> list[tuple[str, list[str]]]:
    found = _sections(lines, start).get("relations")
    existing: dict[str, str] = {}
    if found is not None:
        for i in range(found[1], found[2]):
            for link in find_wikilinks(lines[i]):
                existing.setdefault(key(link.target), link.render())
    wanted: list[tuple[str, list[str]]] = []
    for relation in relations:
        k = key(relation.target)
        if k in existing:
            if relation.reason is None:
                continue
            wanted.append((k, _block(1, f"{existing[k]} - {relation.reason}")))
        elif k not in {w for w, _ in wanted}:
            wanted.append((k, _relation(relation.target, relation.reason)))
    return wanted


def _links_to(key: Callable[[str], str]) -> Callable[[str, str], bool]:
    def match(line: str, wanted: str) -> bool:
        return any(key(link.target) == wanted for link in find_wikilinks(line))

    return match


def _raw_key(line: str, wanted: str) -> bool:
    text = line.strip().lstrip("-").strip()
    name, sep, _ = text.partition(":")
    return bool(sep) and name.strip().lower() == wanted.lower() and property_of(text) is None
