"""YAML frontmatter: lenient reading and the surgical one-key edit.

Reading uses python-frontmatter's YAML handler (safe loader). Writing never re-serialises the
block: Obsidian users hand-format their YAML (key order, quotes, comments, dates), and a
round trip through a YAML library would rewrite all of it. `set_key` changes the lines of one
key and keeps every other byte.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

_OPEN = re.compile(r"\A(\ufeff?)---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
_PLAIN_SAFE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_ ./+:@-]*$")
_yaml = YAMLHandler()


class FrontmatterError(ValueError):
    """Frontmatter that cannot be edited safely (malformed YAML, not a mapping...)."""


@dataclass(frozen=True)
class Split:
    """A note cut into its frontmatter block and body, with the positions needed to edit it.

    `yaml_start`/`yaml_end` delimit the YAML text inside the fences; `body_line` is the file
    line (0-based) where the body starts, so block positions can be reported as file lines.
    """

    has_block: bool
    yaml_text: str
    body: str
    yaml_start: int
    yaml_end: int
    body_start: int
    body_line: int


def split(text: str) -> Split:
    """Separate the frontmatter block (if any) from the body. Never raises."""
    opening = _OPEN.match(text)
    if opening:
        closing = _CLOSE.search(text, opening.end())
        if closing:
            body_start = closing.end()
            if text.startswith("\r\n", body_start):
                body_start += 2
            elif text.startswith("\n", body_start):
                body_start += 1
            return Split(
                True,
                text[opening.end() : closing.start()],
                text[body_start:],
                opening.end(),
                closing.start(),
                body_start,
                text.count("\n", 0, body_start),
            )
    start = 1 if text.startswith("\ufeff") else 0
    return Split(False, "", text[start:], 0, 0, start, 0)


def load(yaml_text: str) -> dict[str, Any]:
    """Parse frontmatter YAML into a mapping, or raise `FrontmatterError` saying why."""
    if not yaml_text.strip():
        return {}
    try:
        data = _yaml.load(yaml_text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(f"malformed YAML frontmatter{where}: {problem}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(
            f"frontmatter is a {type(data).__name__}, not a set of `key: value` lines"
        )
    return {str(k): v for k, v in data.items()}


def format_scalar(value: object) -> str:
    """A YAML scalar spelled the way a person would write it, quoting only when needed."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        value = value.astimezone(dt.UTC) if value.tzinfo else value
        return value.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    if isinstance(value, int | float | dt.date):
        return str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_scalar(v) for v in value) + "]"
    text = str(value)
    if (
        _PLAIN_SAFE.match(text)
        and ": " not in text
        and not text.endswith(":")
        and yaml.safe_load(text) == text
        and text == text.strip()
    ):
        return text
    return json.dumps(text, ensure_ascii=False)


def _key_span(lines: list[str], key: str) -> tuple[int, int] | None:
    """Lines [start, end) holding a top-level key and its indented continuation."""
    pattern = re.compile(rf"^(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')[ \t]*:")
    for i, line in enumerate(lines):
        if pattern.match(line):
            end = i + 1
            while end < len(lines) and (
                lines[end].startswith((" ", "\t", "- ")) or lines[end].strip() == "-"
            ):
                end += 1
            return i, end
    return None


def _trailing_comment(line: str) -> str:
    """A ` # comment` after a plain value, kept when the value changes."""
    match = re.search(r"[ \t]+#.*$", line)
    if match and '"' not in line and "'" not in line:
        return match.group(0)
    return ""


def set_key(text: str, key: str, value: object) -> str:
    """Return `text` with frontmatter `key` set to `value`, every other byte unchanged.

    Adds the key at the end of the block when missing, and a block when the note has none.
    Refuses malformed frontmatter: a human must fix it first, and guessing could lose text.
    """
    newline = "\r\n" if "\r\n" in text[:4096] else "\n"
    rendered = f"{key}: {format_scalar(value)}"
    parts = split(text)
    if not parts.has_block:
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return f"{bom}---{newline}{rendered}{newline}---{newline}{parts.body}"
    before = load(parts.yaml_text)  # raises FrontmatterError for YAML we must not touch
    lines = parts.yaml_text.split(newline)
    span = _key_span(lines, key)
    if span is None:
        if lines and lines[-1] == "":
            lines.insert(len(lines) - 1, rendered)
        else:
            lines.append(rendered)
            lines.append("")
    else:
        start, end = span
        lines[start:end] = [rendered + _trailing_comment(lines[start])]
    new_yaml = newline.join(lines)
    after = load(new_yaml)
    expected = {**before, key: load(rendered).get(key)}
    if after != expected:
        raise FrontmatterError(f"could not set `{key}` without changing other keys")
    return text[: parts.yaml_start] + new_yaml + text[parts.yaml_end :]
