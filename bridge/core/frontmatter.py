"""YAML frontmatter: lenient reading and the surgical one-key edit.

Reading uses PyYAML's safe loader with limits (a hand-made or hostile note must not hang or
exhaust the process, nor crash every command with one impossible date); `split` and `load` are
the two steps python-frontmatter's handler runs when a note is read (`bridge.core.properties`),
and `set_key` checks its own edit with `load`. Writing never re-serialises the block: Obsidian
users hand-format their YAML (key order, quotes, comments, dates), and a round trip through a
YAML library would rewrite all of it. `set_key` changes the lines of one key and keeps every
other byte.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, SequenceNode

_OPEN = re.compile(r"\A(\ufeff?)---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
# The line after an opening `---` that shows a block was meant: `key:` or `key: value`.
_KEY_LINE = re.compile(r"[^\s#:\-][^:\r\n]*:(?:[ \t]|\r?$)", re.MULTILINE)
# Limits of what a note's frontmatter may ask the loader to build. Real properties are a few
# dozen keys; a 314-byte chain of aliases nine deep expands to 43 million values.
MAX_YAML_CHARS = 256 * 1024
MAX_YAML_ALIASES = 100
MAX_YAML_DEPTH = 50
MAX_YAML_VALUES = 50_000


class FrontmatterError(ValueError):
    """Frontmatter that cannot be edited safely (malformed YAML, not a mapping...)."""


class FrontmatterTooComplexError(FrontmatterError):
    """Frontmatter over the loader's limits (aliases, nesting, size): read as text instead."""


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc]
    """The safe loader, with values it cannot build kept as the text a person wrote."""


def _lenient(construct: Any) -> Any:
    """A scalar constructor that keeps the raw text when the value is impossible.

    `created: 2026-02-30`, month 13, hour 25, year 0000, a 5,000-digit integer: PyYAML raises
    `ValueError` from deep in the loader, which crashed every command that read the note.
    """

    def build(loader: Any, node: Any) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, OverflowError):
            return loader.construct_scalar(node)

    return build


_Loader.add_constructor(
    "tag:yaml.org,2002:timestamp", _lenient(SafeConstructor.construct_yaml_timestamp)
)
_Loader.add_constructor("tag:yaml.org,2002:int", _lenient(SafeConstructor.construct_yaml_int))
_Loader.add_constructor("tag:yaml.org,2002:float", _lenient(SafeConstructor.construct_yaml_float))


def _check_limits(root: Node) -> None:
    """Refuse a node graph whose aliases, nesting or expanded size are over the limits.

    Aliases make the graph a DAG whose nodes are shared; what a reader of the values (the index,
    JSON answers) sees is the expansion. Sizes are counted with one visit per node, iteratively,
    so the check itself stays linear and never recurses.
    """
    expanded: dict[int, int] = {}
    seen: set[int] = set()
    aliases = 0
    stack: list[tuple[Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if depth > MAX_YAML_DEPTH:
            raise FrontmatterTooComplexError(
                f"frontmatter nests deeper than {MAX_YAML_DEPTH} levels"
            )
        children = _children(node)
        if done:
            total = 1 + sum(expanded.get(id(c), 1) for c in children)
            if total > MAX_YAML_VALUES:
                raise FrontmatterTooComplexError(
                    f"frontmatter expands to more than {MAX_YAML_VALUES:,} values "
                    "(aliases of aliases)"
                )
            expanded[key] = total
            continue
        if key in seen:
            aliases += 1
            if aliases > MAX_YAML_ALIASES:
                raise FrontmatterTooComplexError(
                    f"frontmatter uses more than {MAX_YAML_ALIASES} aliases (`*name`)"
                )
            if key not in expanded:
                raise FrontmatterTooComplexError("frontmatter refers to itself (a recursive alias)")
            continue
        seen.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in reversed(children))


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def _load_yaml(yaml_text: str) -> Any:
    if len(yaml_text) > MAX_YAML_CHARS:
        raise FrontmatterTooComplexError(f"frontmatter is over {MAX_YAML_CHARS // 1024} KB")
    loader = _Loader(yaml_text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_limits(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


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
    unclosed: bool = False  # a `---` first line, then `key:`, and no closing `---` line


def split(text: str) -> Split:
    """Separate the frontmatter block (if any) from the body. Never raises.

    A block that is opened and never closed is no block (Obsidian shows such a note as text,
    so does the index), but `unclosed` says so, for `doctor` to report it. A `---` first line
    followed by anything but `key:` is a horizontal rule, not a block someone forgot to close.
    """
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
    unclosed = opening is not None and _KEY_LINE.match(text, opening.end()) is not None
    return Split(False, "", text[start:], 0, 0, start, 0, unclosed=unclosed)


# The simple frontmatter most notes have: `key: value` lines whose values are plain scalars or
# one-line lists of them. Read without the YAML parser (see `_load_simple`).
# By hand ahead of PyYAML (python-frontmatter's loader): its parser is a note's costliest step.
_SIMPLE_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
_SIMPLE_MAX_CHARS = 8192
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_MARKS = frozenset(",[]{}:")
_UNPRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
_SCALAR_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "null", "bool", "int", "float", "timestamp")
)


@lru_cache(maxsize=1)
def _scalar_loader() -> tuple[Any, frozenset[str] | None]:
    """A loader for its resolver and constructors, and the first characters that some
    implicit type (bool, int, date...) may claim; None when any first character may."""
    loader = _Loader("")
    resolvers = loader.yaml_implicit_resolvers
    wildcard = None in resolvers or bool(loader.yaml_path_resolvers)
    return loader, None if wildcard else frozenset(resolvers)


def _plain(text: str, flow: bool) -> bool:
    """True when YAML reads `text` (non-empty, stripped) as one plain scalar of exactly these
    characters: no indicator first, no comment or mapping inside, nothing unprintable."""
    return (
        text[0] not in _INDICATORS
        and text.isprintable()
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and not (flow and not _FLOW_MARKS.isdisjoint(text))
    )


def _scalar(text: str) -> Any:
    """The value YAML gives the plain scalar `text`: PyYAML's own resolver (which type) and
    constructors (the lenient ones of `_Loader`), so the result is the parser's exactly."""
    loader, typed = _scalar_loader()
    if typed is not None and text[:1] not in typed:
        return text  # no implicit type starts so: the resolver would say string
    tag = loader.resolve(yaml.ScalarNode, text, (True, False))
    if tag not in _SCALAR_TAGS:
        raise LookupError(tag)
    return loader.yaml_constructors[tag](loader, yaml.ScalarNode(tag, text))


def _load_simple(yaml_text: str) -> dict[Any, Any] | None:
    """The mapping of frontmatter made only of simple lines, or None for anything else.

    Lines `key: plain scalar`, `key: [plain, plain]` and `key:` are read here, each value typed
    by YAML's own resolver and constructors, so the mapping is the parser's; one line of any
    other shape (quotes, comments, nesting, continuation lines, `\r`) and the whole block goes
    to the YAML parser.
    """
    if len(yaml_text) > _SIMPLE_MAX_CHARS:
        return None
    data: dict[Any, Any] = {}
    try:
        for line in yaml_text.split("\n"):
            if not line or line.isspace():
                continue
            match = _SIMPLE_LINE.fullmatch(line)
            if match is None:
                return None
            key = match.group(1)
            text = (match.group(2) or "").rstrip(" ")
            if not text:
                value: Any = _scalar("")
            elif text[0] == "[" and text[-1] == "]":
                inner = text[1:-1]
                items = inner.split(",") if inner.strip(" ") else []
                value = []
                for item in items:
                    item = item.strip(" ")
                    if not item or not _plain(item, flow=True):
                        return None
                    value.append(_scalar(item))
            elif _plain(text, flow=False):
                value = _scalar(text)
            else:
                return None
            data[_scalar(key)] = value
    except (LookupError, yaml.YAMLError):
        return None
    return data


# What YAML was reading when it met the end: `[a, b` is found broken only at the closing `---`.
_UNCLOSED = {
    "while parsing a flow sequence": "a `[` list that is never closed",
    "while parsing a flow mapping": "a `{` mapping that is never closed",
    "while scanning a quoted scalar": "a quoted value that is never closed",
}


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """` at line N: what is wrong`, N a 1-based file line (the opening `---` is line 1).

    For an unclosed `[`, `{` or quote, YAML notices only at the end of the text and points at
    the closing `---`, not the line to fix: the line where the unclosed thing starts is named.
    """
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    unclosed = _UNCLOSED.get(str(getattr(exc, "context", None)))
    context_mark = getattr(exc, "context_mark", None)
    if unclosed is not None and context_mark is not None:
        mark, problem = context_mark, f"{unclosed} ({problem})"
    return f" at line {mark.line + 2}: {problem}" if mark is not None else f": {problem}"


def load(yaml_text: str) -> dict[str, Any]:
    """Parse frontmatter YAML into a mapping, or raise `FrontmatterError` saying why."""
    if not yaml_text.strip():
        return {}
    simple = _load_simple(yaml_text)
    if simple is not None:
        return {str(k): v for k, v in simple.items()}
    try:
        data = _load_yaml(yaml_text)
    except RecursionError as exc:
        raise FrontmatterTooComplexError("frontmatter nests too deep to read") from exc
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"malformed YAML frontmatter{_yaml_problem(exc)}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontmatterError(
            f"frontmatter is a {type(data).__name__}, not a set of `key: value` lines"
        )
    return {str(k): v for k, v in data.items()}


def _written_plain(text: str, in_list: bool) -> bool:
    """True when `text` reads back as itself written without quotes (in a `[a, b]` list item
    when `in_list`): the reader's own rule (`_plain`), and YAML's reading of it checked.

    So a summary such as `Tokens expire after 24 h; refresh tokens after 30 days.` is written
    as a person would, without quotes.
    """
    if not text or text != text.strip() or not _plain(text, flow=in_list):
        return False
    try:
        return bool(yaml.safe_load(text) == text)
    except yaml.YAMLError:
        return False


def format_scalar(value: object, in_list: bool = False) -> str:
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
        return "[" + ", ".join(format_scalar(v, in_list=True) for v in value) + "]"
    text = str(value)
    if _written_plain(text, in_list):
        return text
    # JSON's escapes are YAML's; a character YAML cannot print (DEL, C1, U+FFFE) is escaped too.
    return _UNPRINTABLE.sub(
        lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False)
    )


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
    Each line keeps its own line ending; a new line takes the frontmatter's own (the opening
    fence's), never one guessed from the rest of the file: a note with LF frontmatter and one
    CRLF line in its body had its closing fence merged into `status: draft---`.
    """
    rendered = f"{key}: {format_scalar(value)}"
    parts = split(text)
    if not parts.has_block:
        first_break = text.find("\n")
        newline = "\r\n" if first_break > 0 and text[first_break - 1] == "\r" else "\n"
        bom = "\ufeff" if text.startswith("\ufeff") else ""
        return f"{bom}---{newline}{rendered}{newline}---{newline}{parts.body}"
    before = load(parts.yaml_text)  # raises FrontmatterError for YAML we must not touch
    newline = "\r\n" if text[: parts.yaml_start].endswith("\r\n") else "\n"
    raw = re.split(r"(?<=\n)", parts.yaml_text)  # lines with their own endings
    bare = [line.rstrip("\n").rstrip("\r") for line in raw]
    span = _key_span(bare, key)
    if span is None:
        at = len(raw) - 1 if raw and raw[-1] == "" else len(raw)
        if at > 0 and not raw[at - 1].endswith("\n"):
            raw[at - 1] += newline
        raw.insert(at, rendered + newline)
    else:
        start, end = span
        ending = raw[end - 1][len(bare[end - 1]) :]
        raw[start:end] = [rendered + _trailing_comment(bare[start]) + ending]
    new_yaml = "".join(raw)
    after = load(new_yaml)
    expected = {**before, key: load(rendered).get(key)}
    if after != expected:
        raise FrontmatterError(f"could not set `{key}` without changing other keys")
    return text[: parts.yaml_start] + new_yaml + text[parts.yaml_end :]
