"""What a note says about itself, read the way its tool reads it: title, aliases, tags,
status, summary and description, created and updated.

The keys differ by dialect (Logseq's `description::`, Dendron's `desc` and epoch-millisecond
dates) and so does the title rule (Obsidian's first `# H1`; Foam's `title` first; Logseq's page
name; Dendron's `title`). Values that are not what their key needs (a date that is no date, a
status that is a list) are reported by `bad_values`, as for any note. Pure.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, assert_never

from bridge.core.dialect import (
    Dendron,
    Dialect,
    Foam,
    Logseq,
    Obsidian,
    journal_date,
    link_names,
    page_name,
)
from bridge.core.logseq import split_list
from bridge.core.paths import stem

# What describes a note, first found wins (DESIGN section 3's `description`/`summary`).
DESCRIPTION_KEYS = ("summary", "description", "desc", "excerpt")
ALIAS_KEYS = ("aliases", "alias")
# The keys each dialect keeps dates under; Logseq's graphs with block timestamps wrote
# `created-at`/`updated-at` in epoch milliseconds.
_CREATED = {"logseq": ("created", "created-at"), "other": ("created",)}
_UPDATED = {"logseq": ("updated", "updated-at"), "other": ("updated",)}


@dataclass(frozen=True)
class NoteFields:
    """A note's own fields as its tool shows them."""

    title: str  # the note's title (what a reader sees)
    entry_title: str  # the entry's `title`: the property when there is one
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    summary: str  # the value of the key the bridge writes the summary to
    description: str  # what describes the note: the summary, else a description of any key
    created: dt.datetime | None
    updated: dt.datetime | None
    # Names a link may use for the note beyond its path (a Logseq page's name, `title::` and
    # aliases): the resolver's. Empty where the tool resolves links by path only.
    names: tuple[str, ...]


def summary_key(dialect: Dialect) -> str:
    """The key the bridge reads and writes an entry's summary under."""
    match dialect:
        case Obsidian() | Foam():
            return "summary"
        case Logseq():
            return "description"
        case Dendron():
            return "desc"
        case _:
            assert_never(dialect)


def text(value: object) -> str:
    """A property value as one string; nothing for None."""
    return "" if value is None else str(value).strip()


def as_tags(value: object, logseq: bool = False) -> tuple[str, ...]:
    """Tags from a list or a string (`"a, b"`, `#a #b`; Logseq: comma-separated page names,
    which may hold spaces)."""
    if isinstance(value, str) and logseq:
        return split_list(value)
    if isinstance(value, str):
        return tuple(t.lstrip("#") for t in value.replace(",", " ").split() if t.strip("#"))
    if isinstance(value, list | tuple):
        return tuple(str(t).lstrip("#") for t in value if t is not None and str(t).strip("#"))
    return ()


def as_aliases(value: object) -> tuple[str, ...]:
    """Aliases from a list or a comma-separated string (`[[ ]]` around a name removed)."""
    if isinstance(value, str):
        return split_list(value)
    if isinstance(value, list | tuple):
        return tuple(n for v in value if v is not None for n in split_list(str(v)))
    return ()


def as_datetime(value: object, epoch_ms: bool = False) -> dt.datetime | None:
    """A date or time; a date alone is midnight UTC, a naive time is UTC.

    `epoch_ms`: a whole number is milliseconds since 1970 (Dendron writes `1636510026672`).
    """
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    if epoch_ms and isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if epoch_ms and isinstance(value, int) and not isinstance(value, bool):
        try:
            return dt.datetime.fromtimestamp(value / 1000, tz=dt.UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        try:
            parsed = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
    return None


def uses_epoch_ms(dialect: Dialect) -> bool:
    """True where whole numbers are dates in epoch milliseconds."""
    return isinstance(dialect, Dendron | Logseq)


def _first_text(meta: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    return next((found for key in keys if (found := text(meta.get(key)))), "")


def date_keys(dialect: Dialect) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The keys `created` and `updated` are read from."""
    kind = "logseq" if isinstance(dialect, Logseq) else "other"
    return _CREATED[kind], _UPDATED[kind]


def _date(meta: Mapping[str, Any], keys: tuple[str, ...], epoch: bool) -> dt.datetime | None:
    for key in keys:
        if meta.get(key) not in (None, ""):
            return as_datetime(meta.get(key), epoch)
    return None


def _dendron_title(path: str) -> str:
    """Dendron's title of a note without `title`: its last name part, capitalised."""
    last = stem(path).rsplit(".", 1)[-1]
    return last[:1].upper() + last[1:]


def read_fields(dialect: Dialect, path: str, meta: Mapping[str, Any], h1: str | None) -> NoteFields:
    """The fields of the note at `path` with properties `meta` and first `# H1` `h1`."""
    own_title = text(meta.get("title"))
    epoch = uses_epoch_ms(dialect)
    created_keys, updated_keys = date_keys(dialect)
    created = _date(meta, created_keys, epoch)
    updated = _date(meta, updated_keys, epoch)
    aliases = next((found for key in ALIAS_KEYS if (found := as_aliases(meta.get(key)))), ())
    summary = text(meta.get(summary_key(dialect)))
    description = summary or _first_text(meta, DESCRIPTION_KEYS)
    tags = as_tags(meta.get("tags"), logseq=isinstance(dialect, Logseq))
    names: tuple[str, ...] = ()
    match dialect:
        case Obsidian():
            title = h1 or own_title or stem(path)
        case Foam():
            title = own_title or h1 or stem(path)
            names = link_names(dialect, path)
        case Logseq():
            title = own_title or page_name(dialect, path)
            names = tuple(dict.fromkeys([*link_names(dialect, path), title, *aliases]))
            day = journal_date(dialect, path)
            if created is None and day is not None:
                created = dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
        case Dendron():
            title = own_title or _dendron_title(path)
        case _:
            assert_never(dialect)
    return NoteFields(
        title=title,
        entry_title=own_title or title,
        aliases=aliases,
        tags=tags,
        summary=summary,
        description=description,
        created=created,
        updated=updated,
        names=names,
    )
