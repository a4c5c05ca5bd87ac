"""`.obsidian/community-plugins.json`: read with a bound, and one id added in place.

Obsidian loads only the community plugins this JSON array lists. Adding ours must not rewrite
the person's file: it is inserted after the last element, with the separator the file already
uses, and every other byte stays (compact stays compact, tabs stay tabs, escapes stay escapes).
A real list is a few hundred bytes; a file over `MAX_LIST_BYTES` is not a list of plugins
anyone keeps, and is refused before it is read (loading and re-indenting a huge one would take
many times its size in memory).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_LIST_BYTES = 1024 * 1024
_SPACE = " \t\r\n"


class PluginListError(Exception):
    """A list that is not edited: too large, not a regular file, not UTF-8, not a JSON array."""


def read_list(path: Path) -> bytes | None:
    """The file's bytes (None: there is none), refusing before reading what is too large.

    Trigger: a FIFO, device or huge file named `community-plugins.json`. Why: opening a FIFO
    blocks, and reading a huge file whole exhausts memory. Outcome: `PluginListError`.
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise PluginListError("is not a regular file")
    if info.st_size > MAX_LIST_BYTES:
        raise PluginListError(_too_large(info.st_size))
    with path.open("rb") as handle:
        if os.fstat(handle.fileno()).st_size > MAX_LIST_BYTES:  # replaced since the stat
            raise PluginListError(_too_large(os.fstat(handle.fileno()).st_size))
        data = handle.read(MAX_LIST_BYTES + 1)
    if len(data) > MAX_LIST_BYTES:
        raise PluginListError(_too_large(len(data)))
    return data


def _too_large(size: int) -> str:
    return (
        f"is {size / 1024 / 1024:.1f} MB, over the {MAX_LIST_BYTES // 1024 // 1024} MB "
        "a list of plugins ever needs"
    )


@dataclass(frozen=True)
class PluginList:
    """A parsed array and where its text can take one more element."""

    text: str
    ids: list[object]
    after_last: int  # just after the last element, or just after `[` when there is none
    separator: str  # the white space the file puts before an element
    empty_inside: str  # the white space between `[` and `]` of an empty array

    def with_id(self, plugin_id: str) -> str:
        """The text with `plugin_id` appended and everything else as it was."""
        item = json.dumps(plugin_id, ensure_ascii=False)
        head, tail = self.text[: self.after_last], self.text[self.after_last :]
        if self.ids:
            return f"{head},{self.separator}{item}{tail}"
        if "\n" not in self.empty_inside:
            return f"{head}{item}{tail[len(self.empty_inside) :]}"
        newline = "\r\n" if "\r\n" in self.text else "\n"
        return f"{head}{newline}  {item}{newline}{tail[len(self.empty_inside) :]}"


def parse_list(data: bytes) -> PluginList:
    """The JSON array in `data` with its layout; `PluginListError` when it is not one.

    Each element is decoded by the json module itself (`raw_decode`), so strings with commas,
    brackets or escapes are read exactly as JSON reads them; only the white space and commas
    between elements are looked at here.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PluginListError("is not UTF-8 text") from exc
    decoder = json.JSONDecoder()
    start = _skip(text, 1 if text.startswith("\ufeff") else 0)
    if not text.startswith("[", start):
        raise PluginListError("is not a JSON list")
    pos = _skip(text, start + 1)
    lead = text[start + 1 : pos]
    ids: list[object] = []
    separator = lead
    after_last = start + 1
    while not text.startswith("]", pos):
        try:
            value, after_last = decoder.raw_decode(text, pos)
        except ValueError as exc:
            raise PluginListError("is not a JSON list") from exc
        ids.append(value)
        pos = _skip(text, after_last)
        if text.startswith(",", pos):
            following = _skip(text, pos + 1)
            separator = text[pos + 1 : following]  # the last one: nearest to ours
            pos = following
            if text.startswith("]", pos):
                raise PluginListError("is not a JSON list (a comma before `]`)")
        elif not text.startswith("]", pos):
            raise PluginListError("is not a JSON list")
    if _skip(text, pos + 1) != len(text):
        raise PluginListError("is not a JSON list (text after `]`)")
    return PluginList(text, ids, after_last, separator, "" if ids else lead)


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos
