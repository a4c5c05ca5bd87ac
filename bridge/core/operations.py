"""Curation operations: what an agent (or the bridge's LLM) asks the executor to do.

These models are the boundary with agents and models, so their errors are written for a model
to act on: a path that leaves the vault names the path and the rule, an unknown field is named
with the fields that exist. Pure: no files, no clock. The executor decides what an operation
does to the vault (DESIGN section 6).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from bridge.core.paths import NOTE_SUFFIX, link_target, normalise_note_path
from bridge.core.relations import parse_wikilink

OpType = Literal["ADD", "UPDATE", "UPSERT", "MERGE", "DELETE", "MOVE"]
OP_TYPES: tuple[OpType, ...] = ("ADD", "UPDATE", "UPSERT", "MERGE", "DELETE", "MOVE")
CONTENT_FIELDS = ("title", "summary", "tags", "relations", "raw_concept", "narrative", "snippets")
INDEX_NAME = "_index.md"
MIN_FOLDERS, MAX_FOLDERS = 2, 3
MAX_BATCH = 1000  # operations in one batch, on every entry point

# What no note can hold. A lone UTF-16 surrogate (JSON `"\ud800"`) has no UTF-8 form, so the
# write failed after the batch's earlier operations were written; a NUL makes the note read
# back as binary. One-line fields go into YAML frontmatter or a list line, where a control
# character (DEL, C1) or U+FFFE/U+FFFF made the note's own frontmatter unreadable. White space
# controls are fine: one-line fields collapse white space.
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\ufffe\uffff]")
_HEX = re.compile("[0-9a-f]{1,64}")


def shown(text: str) -> str:
    """`text` safe to print or send as JSON: a lone surrogate is spelled `\\ud800`."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _refuse(found: re.Match[str], what: str) -> ValueError:
    char = found.group()
    return ValueError(
        f"holds {what} ({shown(repr(char))[1:-1]}) at character {found.start()}, which a note "
        "cannot store; send valid text"
    )


def _text(value: str) -> str:
    if (found := _SURROGATE.search(value)) is not None:
        raise _refuse(found, "a lone UTF-16 surrogate")
    if "\x00" in value:
        raise ValueError(f"holds a NUL character at character {value.index(chr(0))}; send text")
    return value


def _line(value: str) -> str:
    _text(value)
    if (found := _CONTROL.search(value)) is not None:
        raise _refuse(found, "a control character")
    return value


Text = Annotated[str, AfterValidator(_text)]  # any text a note's body can hold
Line = Annotated[str, AfterValidator(_line)]  # text for a frontmatter value or a list line


def _clean_target(text: str) -> tuple[str, str | None]:
    """A relation target in any agent spelling -> (wikilink inner text, reason or None)."""
    raw = text.strip()
    reason: str | None = None
    if raw.startswith("[["):
        inner, _, rest = raw[2:].partition("]]")
        reason = rest.strip().lstrip("-–—:").strip() or None
    else:
        inner, sep, rest = raw.partition(" - ")
        if sep:
            reason = rest.strip() or None
        inner = inner.strip()
        if inner.startswith("@"):
            inner = inner[1:]
        if inner.lower().endswith(NOTE_SUFFIX):
            inner = link_target(inner)
    link = parse_wikilink(inner)
    if not link.target or any(c in inner for c in "[]\n"):
        raise ValueError(f"`{text}` is not a relation; write it as @domain/topic/entry.md")
    return inner.strip(), reason


class RelationSpec(BaseModel):
    """A related entry: `target` as `@domain/topic/entry.md` (or `[[...]]`), and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: Line = Field(description="@domain/topic/entry.md of the related entry")
    reason: Line | None = Field(None, description="Why the two entries relate, one line")

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        # Agents (and ByteRover) often write a relation as one string: `@a/b.md - reason`.
        if isinstance(value, str):
            return {"target": value}
        return value

    @model_validator(mode="after")
    def _normalise(self) -> RelationSpec:
        inner, reason = _clean_target(self.target)
        object.__setattr__(self, "target", inner)
        if self.reason is None and reason is not None:
            object.__setattr__(self, "reason", reason)
        if self.reason is not None:
            object.__setattr__(self, "reason", " ".join(self.reason.split()) or None)
        return self


class RawConceptSpec(BaseModel):
    """Provenance lines of the Raw Concept section; empty fields are left as they are."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: Line = Field("", description="What the agent was doing")
    changes: Line = Field("", description="What changed")
    source: Line = Field("", description="Where the knowledge comes from (files, conversation)")
    author: Line = Field("", description="Who wrote it; default: the curating agent and time")

    @field_validator("*", mode="after")
    @classmethod
    def _one_line(cls, value: str) -> str:
        return " ".join(value.split())


class SnippetSpec(BaseModel):
    """A code block of the Snippets section."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    language: Line = Field("", description="Fence language, e.g. `ts`")
    code: Text

    @field_validator("language", mode="after")
    @classmethod
    def _language(cls, value: str) -> str:
        value = value.strip()
        if any(c.isspace() or c == "`" for c in value):
            raise ValueError(f"snippet language `{value}` must be one word such as `python`")
        return value


class Operation(BaseModel):
    """One change to the context tree. Content fields left out (null) are not touched."""

    # `from` is a Python keyword: the field is `move_from`, spelled `from` in JSON both ways.
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    type: OpType = Field(description="ADD | UPDATE | UPSERT | MERGE | DELETE | MOVE")
    path: Line = Field(
        description="domain/topic[/subtopic]/entry.md inside the vault (MOVE: the new path)"
    )
    move_from: Line | None = Field(
        None,
        alias="from",
        description="MOVE: the note's current path; it moves to `path` with its history",
    )
    title: Line | None = None
    summary: Line | None = None
    tags: list[Line] | None = None
    relations: list[RelationSpec] | None = None
    raw_concept: RawConceptSpec | None = None
    narrative: Text | None = Field(None, description="Free Markdown; replaces the Narrative")
    snippets: list[SnippetSpec] | None = None
    reason: Line = Field("", description="Why this operation, one line (shown to reviewers)")
    confidence: Literal["high", "low"] = "high"
    impact: Literal["high", "low"] = "low"
    merge_from: list[Line] = Field(
        default_factory=list, description="MERGE: entries folded into `path` and removed"
    )
    base_hash: str | None = Field(
        None, description="Content hash of the note as the author last saw it"
    )

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("confidence", "impact", mode="before")
    @classmethod
    def _level(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("path", mode="after")
    @classmethod
    def _path(cls, value: str) -> str:
        return normalise_note_path(value)

    @field_validator("merge_from", mode="after")
    @classmethod
    def _sources(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(normalise_note_path(v) for v in value))

    @field_validator("move_from", mode="after")
    @classmethod
    def _moved(cls, value: str | None) -> str | None:
        return None if value is None else normalise_note_path(value)

    @field_validator("title", "summary", mode="after")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is None:
            return None
        cleaned = " ".join(value.split())
        if not cleaned:
            raise ValueError("must not be empty; leave the field out to keep the current value")
        return cleaned

    @field_validator("tags", mode="after")
    @classmethod
    def _tags(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        tags = [t.strip().lstrip("#").strip() for t in value]
        bad = [t for t in tags if not t or any(c.isspace() or c in ",[]" for c in t)]
        if bad:
            raise ValueError(f"tags must be single words without `#`, got {bad}")
        return list(dict.fromkeys(tags))

    @field_validator("base_hash", mode="after")
    @classmethod
    def _hash(cls, value: str | None) -> str | None:
        cleaned = value.strip().lower() if value else None
        if cleaned is not None and not _HEX.fullmatch(cleaned):
            raise ValueError(
                f"`{shown(value or '')[:80]}` is not a content hash: give the hex "
                "`base_hash` a read or search returned (a prefix of 8 or more digits will do)"
            )
        return cleaned

    @model_validator(mode="after")
    def _shape(self) -> Operation:
        if self.type in ("ADD", "MOVE"):
            # A note the bridge creates must have a name every platform and link can carry;
            # UPSERT and MERGE into a new path are checked when the planner finds no note.
            try:
                strict = normalise_note_path(self.path, new=True)
            except ValueError as exc:
                raise ValueError(str(exc)) from exc
            if strict != self.path:
                raise ValueError(f"write the new name `{self.path}` in NFC form: `{strict}`")
        if self.type == "MERGE":
            if not self.merge_from:
                raise ValueError("MERGE needs `merge_from`: the entries to fold into `path`")
            if self.path in self.merge_from:
                raise ValueError(f"MERGE: `{self.path}` cannot be merged into itself")
        elif self.merge_from:
            raise ValueError(f"`merge_from` is only for MERGE, not {self.type}")
        if self.type == "MOVE":
            if self.move_from is None:
                raise ValueError("MOVE needs `from`: the note's current path (`path` is the new)")
            if self.move_from == self.path:
                raise ValueError(f"MOVE: `{self.path}` is already there")
        elif self.move_from is not None:
            raise ValueError(f"`from` is only for MOVE, not {self.type}")
        if self.type in ("DELETE", "MOVE"):
            given = [f for f in CONTENT_FIELDS if getattr(self, f) is not None]
            if given:
                raise ValueError(f"{self.type} takes no content, but {', '.join(given)} given")
        if self.type in ("UPDATE", "UPSERT") and not any(
            getattr(self, f) is not None for f in CONTENT_FIELDS
        ):
            raise ValueError(
                f"{self.type} changes nothing: give at least one of the content fields"
            )
        return self

    def label(self) -> str:
        """`ADD a/b/c.md` (with the merged or moved entries), for messages and commits."""
        text = f"{self.type} {self.path}"
        if self.merge_from:
            text += " <- " + ", ".join(self.merge_from)
        if self.move_from:
            text += f" <- {self.move_from}"
        return text

    @property
    def subject(self) -> str:
        """The note the operation starts from: `from` for a MOVE, else `path`."""
        return self.move_from or self.path


def check_new_entry_path(path: str) -> None:
    """Refuse a new entry outside the `domain/topic[/subtopic]/entry.md` hierarchy.

    Existing notes anywhere can be updated or deleted; only new ones must sit 2 or 3 folders deep
    so the tree stays navigable (an `_index.md` overview may sit in any folder).
    """
    strict = normalise_note_path(path, new=True)  # names every platform and link can carry
    if strict != path:
        raise ValueError(f"write the new name `{path}` in NFC form: `{strict}`")
    folders = path.count("/")
    if path.rsplit("/", 1)[-1].lower() == INDEX_NAME and folders >= 1:
        return
    if not MIN_FOLDERS <= folders <= MAX_FOLDERS:
        raise ValueError(
            f"new entries go in `domain/topic/entry.md` or `domain/topic/subtopic/entry.md` "
            f"(2 or 3 folders); `{path}` is in {folders}"
        )


@dataclass(frozen=True)
class InvalidOperation:
    """An operation that did not validate: where it was and why, in words a model can use."""

    index: int
    type: str
    path: str
    message: str


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        message = str(item["msg"]).removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            fields = ", ".join(f.alias or name for name, f in Operation.model_fields.items())
            message = f"unknown field; the fields are: {fields}"
        elif item["type"] == "literal_error" and where == "type":
            message = f"type must be one of {', '.join(OP_TYPES)}"
        parts.append(f"`{where}`: {message}" if where else message)
    return shown("; ".join(parts))  # a key or a value may hold what JSON output cannot


def parse_operation(index: int, data: object) -> Operation | InvalidOperation:
    """Validate one operation; an invalid one comes back as `InvalidOperation`, never raises.

    Every field is checked here, before any operation of the batch is planned or written
    (`Text`, `Line`): what is echoed back (`type`, `path`) is made safe to print.
    """
    raw = data if isinstance(data, dict) else {}
    op_type = shown(str(raw.get("type", "")).upper())
    path = shown(str(raw.get("path", "")))
    if not isinstance(data, dict):
        return InvalidOperation(index, op_type, path, "an operation must be a JSON object")
    try:
        return Operation.model_validate(data)
    except ValidationError as exc:
        return InvalidOperation(index, op_type, path, _describe(exc))


def batch_items(data: object) -> list[Any]:
    """The operations of a batch document, unvalidated: a list, or `{"operations": [...]}`.

    Both forms are documented, so every entry point (CLI, API, MCP, the LLM's reply) unwraps
    them here, once: the CLI had sent the wrapped form wrapped again to a running `serve`.
    Raises `ValueError` for any other shape and for more than `MAX_BATCH` operations (one
    limit everywhere, so a batch that works alone also works through a running bridge).
    """
    items = data.get("operations") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError('operations must be a JSON list or an object {"operations": [...]}')
    if len(items) > MAX_BATCH:
        raise ValueError(
            f"a batch holds at most {MAX_BATCH} operations, this one {len(items)}; split it"
        )
    return items


HUMAN = "human"  # the writer name of a person's edit; never an agent's name
MAX_AUTHOR = 100


def agent_author(name: str) -> str:
    """`claude-code` or `agent:claude-code` -> `agent:claude-code`; refuses empty names.

    The limit is on the author as written (`agent:` included): a 95-character name passed the
    API's check on what was sent and then failed at write time as 101 characters.
    """
    cleaned = name.strip()
    if cleaned.startswith("agent:"):
        cleaned = cleaned[len("agent:") :].strip()
    if not cleaned or any(c.isspace() for c in cleaned) or cleaned == HUMAN:
        raise ValueError(f"agent name `{shown(name)[:120]}` must be one word, e.g. `claude-code`")
    try:
        _line(cleaned)
    except ValueError as exc:
        raise ValueError(f"agent name {exc}") from None
    author = f"agent:{cleaned}"
    if len(author) > MAX_AUTHOR:  # the API's limit, so the CLI accepts what `serve` accepts
        raise ValueError(
            f"an author is at most {MAX_AUTHOR} characters with its `agent:` prefix, this one "
            f"{len(author)}"
        )
    return author


def batch_author(data: object) -> str | None:
    """The `author` a wrapped batch names (`{"operations": [...], "author": "agent:x"}`), or None.

    The API takes the author from the same document, so a file that names one is attributed
    alike with or without `serve`. Raises `ValueError` when `author` is not a string.
    """
    if not isinstance(data, dict) or data.get("author") is None:
        return None
    author = data["author"]
    if not isinstance(author, str):
        raise ValueError('author must be a string such as "agent:my-bot"')
    return author


def parse_operations(data: object) -> list[Operation | InvalidOperation]:
    """A batch from JSON data: a list of operations or `{"operations": [...]}`.

    Raises `ValueError` only when the whole document has the wrong shape (`batch_items`);
    each invalid operation is returned in its place so the rest of the batch can still run.
    """
    return [parse_operation(i, item) for i, item in enumerate(batch_items(data))]


def load_json(text: str) -> Any:
    """JSON text as data; `ValueError` says where the JSON is broken."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from exc


def operation_schema() -> dict[str, Any]:
    """The JSON schema of a batch, `{"operations": [Operation...]}`, for prompts and docs."""
    item = Operation.model_json_schema()
    defs = item.pop("$defs", {})
    # `$ref`s point at `#/$defs/...`, so the definitions must sit at the root of the document.
    return {
        "type": "object",
        "properties": {"operations": {"type": "array", "items": item}},
        "required": ["operations"],
        "$defs": defs,
    }
