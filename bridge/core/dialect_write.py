"""Writing in a vault's dialect: a property edit, a new entry, an UPDATE's patch.

Each tool must open what the bridge writes as its own: a Logseq page gets `key:: value`
properties and outliner blocks, never YAML; a Dendron note its `id`, `title`, `desc` and
epoch-millisecond `created`/`updated`; Obsidian and Foam the entry format of
docs/file-format.md. A human's note keeps its own form: an edit goes where the note keeps
that property (a Logseq page with YAML frontmatter has it edited there), and no note is
converted. Pure: text in, text out.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Callable, Container
from typing import assert_never
from urllib.parse import quote, unquote

from bridge.core import frontmatter as fm
from bridge.core import logseq
from bridge.core.dialect import (
    Dendron,
    Dialect,
    Foam,
    Logseq,
    Obsidian,
    is_file_path,
    page_name,
)
from bridge.core.entry import Entry, entry_sections, render_entry
from bridge.core.entry_edit import EntryPatch, PatchStyle, patch_entry
from bridge.core.logseq_entry import patch_page, render_page
from bridge.core.paths import NOTE_SUFFIX, link_target, parent
from bridge.core.properties import read as read_properties


def epoch_ms(moment: dt.datetime) -> int:
    """A time as Dendron writes it: milliseconds since 1970."""
    return int(moment.timestamp() * 1000)


def _dendron_value(text: str, key: str, value: object) -> object:
    """A time is written as the note already keeps that key: epoch milliseconds unless the
    note has it as a date (`updated: 2026-11-20`), which stays a date."""
    if not isinstance(value, dt.datetime):
        return value
    current = read_properties(text).get(key)
    if isinstance(current, dt.date | str) and not str(current).strip().isdigit():
        return value
    return epoch_ms(value)


def set_property_text(dialect: Dialect, text: str, key: str, value: object) -> str:
    """`text` with the property `key` set to `value` where the note keeps its properties,
    every other byte unchanged. Raises `FrontmatterError` for YAML the bridge must not edit.
    """
    match dialect:
        case Obsidian() | Foam():
            return fm.set_key(text, key, value)
        case Dendron():
            return fm.set_key(text, key, _dendron_value(text, key, value))
        case Logseq():
            if fm.split(text).has_block:
                return fm.set_key(text, key, value)
            return logseq.set_property(text, key, _logseq_value(value))
        case _:
            assert_never(dialect)


def _logseq_value(value: object) -> object:
    if isinstance(value, dt.datetime):
        return fm.format_scalar(value)
    return value


def property_editor(dialect: Dialect) -> Callable[[str, str, object], str]:
    """`set_property_text` for one dialect, as a function of (text, key, value)."""
    return lambda text, key, value: set_property_text(dialect, text, key, value)


# -- entries ----------------------------------------------------------------------------------


def spell_link(dialect: Dialect, path: str, title: str | None = None) -> str:
    """How a link written by the bridge names the existing note at `path`: its path (as the
    bridge always wrote in Obsidian and Foam vaults), a Logseq page's name (`[[Auth/Key
    Rotation]]`, never `[[pages/Auth___Key Rotation]]`), a Dendron note's dotted name.

    `title` is the note's title as read: a Logseq page's `title::` is its name, so a page
    `pages/sso.md` titled "Single sign-on" is `[[Single sign-on]]` (Logseq would open a new,
    empty page for `[[sso]]`)."""
    match dialect:
        case Obsidian() | Foam():
            return link_target(path)
        case Logseq():
            return title or page_name(dialect, path)
        case Dendron():
            return page_name(dialect, path)
        case _:
            assert_never(dialect)


def spell_target(dialect: Dialect, target: str) -> str:
    """How a link names a note that does not exist yet, given as a path or tree path
    (`billing/plans/annual` is `[[billing.plans.annual]]` in Dendron)."""
    match dialect:
        case Obsidian() | Foam():
            return target
        case Logseq():
            if is_file_path(dialect, target + NOTE_SUFFIX):
                return page_name(dialect, target + NOTE_SUFFIX)
            return target
        case Dendron():
            if is_file_path(dialect, target + NOTE_SUFFIX) and "/" in target:
                return page_name(dialect, target + NOTE_SUFFIX)
            return tree_target(target)
        case _:
            assert_never(dialect)


def tree_target(target: str) -> str:
    """A tree path as a dotted name: `a/b/c` -> `a.b.c`."""
    return ".".join(part for part in target.split("/") if part)


def render_dendron(entry: Entry, note_id: str) -> str:
    """A new Dendron note: `id`, `title`, `desc`, `updated` and `created` first, as Dendron
    writes them (times in epoch milliseconds), then the bridge's keys; the title is the
    `title` key (Dendron shows it above the note), so the body has no `# H1`."""
    lines = [
        "---",
        f"id: {note_id}",
        f"title: {fm.format_scalar(entry.title)}",
        f"desc: {fm.format_scalar(entry.summary)}",
    ]
    for key in ("updated", "created"):
        moment = getattr(entry, key)
        if moment is not None:
            lines.append(f"{key}: {epoch_ms(moment)}")
    if entry.tags:
        lines.append(f"tags: {fm.format_scalar(list(entry.tags))}")
    for key in ("status", "author"):
        value = getattr(entry, key)
        if value is not None:
            lines.append(f"{key}: {fm.format_scalar(value)}")
    for key, value in entry.extra.items():
        lines.append(f"{key}: {fm.format_scalar(value)}")
    lines.append("---")
    for number, (heading, content) in enumerate(entry_sections(entry, "dendron")):
        lines += ([] if number == 0 else [""]) + [f"## {heading}", *content]
    return "\n".join(lines).rstrip("\n") + "\n"


def render_new(dialect: Dialect, entry: Entry, path: str, note_id: str = "") -> str:
    """The text of a new entry at `path`, in the dialect (`note_id`: a Dendron note's id)."""
    match dialect:
        case Obsidian() | Foam():
            return render_entry(entry)
        case Logseq():
            return render_page(entry, page_name(dialect, path))
        case Dendron():
            return render_dendron(entry, note_id)
        case _:
            assert_never(dialect)


def patch_note(
    dialect: Dialect,
    text: str,
    patch: EntryPatch,
    key: Callable[[str], str],
    path: str,
) -> str:
    """`text` (the note at `path`) with an UPDATE's patch applied in the dialect, every
    other byte unchanged. Raises `FrontmatterError` for YAML the bridge must not edit."""
    match dialect:
        case Obsidian() | Foam():
            return patch_entry(text, patch, key)
        case Dendron():
            style = PatchStyle("desc", False, property_editor(dialect), "dendron")
            return patch_entry(text, patch, key, style)
        case Logseq():
            return patch_page(text, patch, key, page_name(dialect, path))
        case _:
            assert_never(dialect)


# -- a note that moves --------------------------------------------------------------------------


def moved_text(dialect: Dialect, text: str, new_path: str) -> str:
    """The text of a note that moves to `new_path`, changed only where it names itself.

    Logseq reads a page's name from its `title::` when it has one, not from the file: a page
    that kept `title:: Auth/Sessions` in `pages/auth___login___sessions.md` would still be
    `Auth/Sessions` in the graph, in its old namespace. So `title::` says the new name (the
    name Logseq reads from the new file), as Logseq's own rename writes it; a page without
    `title::` is named by its file and is not touched. Obsidian, Foam and Dendron name a note
    by its file (Dendron's `title` is the label it shows): the text stays as it is.
    """
    if not isinstance(dialect, Logseq):
        return text
    if fm.split(text).has_block:
        titled = "title" in read_properties(text)
    else:
        titled = "title" in logseq.page_properties(text).values
    if not titled:
        return text
    return set_property_text(dialect, text, "title", page_name(dialect, new_path))


# `[label]: target "Title"`: a link reference definition (Foam writes one for each wikilink of
# a note, with the target relative to the note's folder, `<...>` around one with spaces).
_DEFINITION = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]+)(<[^>\n]*>|\S+)(?=[ \t]|$)", re.M)


def relink_definitions(
    text: str, source: tuple[str, str], moved: tuple[str, str], paths: Container[str]
) -> str:
    """Foam's link reference definitions of a note kept pointing where they pointed when a
    note moves: a definition of the moved note names its new file, and the moved note's own
    definitions are made relative to its new folder.

    `source` is the note's path before and after the move, `moved` the moved note's, `paths`
    the vault's notes before it. A target that names no note (a web address, an image) stays
    as it is, and so does its form: with or without `.md`, `<...>` or percent-encoded.
    """
    was_at, now_at = source
    old, new = moved

    def respell(match: re.Match[str]) -> str:
        written = match.group(2)
        bracketed = written.startswith("<")
        raw = written[1:-1] if bracketed else written
        encoded = "%" in raw
        target = unquote(raw) if encoded else raw
        if "://" in target or target.startswith(("#", "/")):
            return match.group(0)
        path = posixpath.normpath(posixpath.join(parent(was_at), target))
        suffix = "" if path.lower().endswith(NOTE_SUFFIX) else NOTE_SUFFIX
        if path + suffix not in paths:
            return match.group(0)
        path = new if path + suffix == old else path + suffix
        respelled = posixpath.relpath(path, parent(now_at) or ".")
        respelled = respelled[: len(respelled) - len(suffix)] if suffix else respelled
        if respelled == target:
            return match.group(0)
        if encoded:
            respelled = quote(respelled, safe="/")
        return match.group(1) + (f"<{respelled}>" if bracketed else respelled)

    return _DEFINITION.sub(respell, text)
