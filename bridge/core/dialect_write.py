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
from collections.abc import Callable
from typing import assert_never

from bridge.core import frontmatter as fm
from bridge.core import logseq
from bridge.core.dialect import Dendron, Dialect, Foam, Logseq, Obsidian
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


PropertyEdit = Callable[[str, str, object], str]


def property_editor(dialect: Dialect) -> PropertyEdit:
    """`set_property_text` for one dialect, as a function of (text, key, value)."""
    return lambda text, key, value: set_property_text(dialect, text, key, value)
