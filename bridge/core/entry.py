"""The entry model: any note read leniently, and the five-part entry rendered for new writes.

A note in the vault is knowledge whether or not it follows the entry format: a daily note has a
title and blocks; an entry also has Relations, Raw Concept, Narrative and Snippets sections and
lifecycle frontmatter. `parse_note` never fails; what it could not understand becomes a
`Problem` so `status`/`doctor` can report it and the store can refuse to write the note.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from bridge.core import frontmatter as fm
from bridge.core import logseq
from bridge.core.dialect import OBSIDIAN, Dialect, Logseq
from bridge.core.dialect_read import note_links, note_structure, outline_section
from bridge.core.markdown import Block, Heading
from bridge.core.note_fields import (
    as_datetime,
    date_keys,
    read_fields,
    summary_key,
    uses_epoch_ms,
)
from bridge.core.note_fields import text as text_value
from bridge.core.properties import read as read_properties
from bridge.core.relations import LinkSyntax, WikiLink

ProblemCode = Literal[
    "malformed_frontmatter",
    "duplicate_frontmatter",
    "empty",
    "binary",
    "too_large",
    "not_utf8",
    "unreadable",
    "outside_vault",
    "unresolved_link",
    "missing",
    "yaml_too_complex",
    "special_file",
    "bad_value",
    "write_conflict",
]

KNOWN_KEYS = ("title", "summary", "tags", "status", "created", "updated", "author")
SECTIONS = ("relations", "raw concept", "narrative", "snippets")
# Sections that describe the note (what it links to, where it came from), not the knowledge.
METADATA_SECTIONS = frozenset({"relations", "raw concept"})
RAW_CONCEPT_KEYS = ("task", "changes", "source", "author")


@dataclass(frozen=True)
class Problem:
    """Something wrong with a note, in words that name the file and say what to do."""

    path: str
    code: ProblemCode
    message: str
    # A note with a blocking problem is never written by the bridge until a human fixes it.
    blocks_writes: bool = True


@dataclass(frozen=True)
class Relation:
    """An edge to another entry: the wikilink target as written, and why they relate."""

    target: str
    reason: str | None = None
    alias: str | None = None
    heading: str | None = None
    block: str | None = None


@dataclass(frozen=True)
class RawConcept:
    """Provenance of an entry: the task, what changed, the source and who wrote it."""

    task: str = ""
    changes: str = ""
    source: str = ""
    author: str = ""
    extra: tuple[tuple[str, str], ...] = ()

    def is_empty(self) -> bool:
        return not (self.task or self.changes or self.source or self.author or self.extra)


@dataclass(frozen=True)
class Snippet:
    """A code block of the Snippets section."""

    language: str
    code: str


@dataclass(frozen=True)
class Entry:
    """ByteRover's five-part record <Relations, Raw Concept, Narrative, Snippets, Lifecycle>."""

    title: str
    summary: str = ""
    tags: tuple[str, ...] = ()
    status: str | None = None
    created: dt.datetime | None = None
    updated: dt.datetime | None = None
    author: str | None = None
    relations: tuple[Relation, ...] = ()
    raw_concept: RawConcept = RawConcept()
    narrative: str = ""
    snippets: tuple[Snippet, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


def first_blocking(problems: Iterable[Problem]) -> Problem | None:
    """The first of `problems` that stops the bridge writing a note, if any."""
    return next((p for p in problems if p.blocks_writes), None)


@dataclass(frozen=True)
class Note:
    """A note as the bridge understands it; built from text, never written back from here."""

    path: str
    title: str
    frontmatter: Mapping[str, Any]
    body: str
    body_line: int
    headings: tuple[Heading, ...]
    blocks: tuple[Block, ...]
    links: tuple[WikiLink, ...]
    entry: Entry
    problems: tuple[Problem, ...] = ()
    # Other names of the note (`aliases`/`alias`; Logseq's `alias::`), shown and searched like
    # its title.
    aliases: tuple[str, ...] = ()
    # What describes the note: its summary, else `description`, `desc` or `excerpt`.
    description: str = ""
    # Names its links may use besides its path (a Logseq page's name, title and aliases).
    names: tuple[str, ...] = ()
    dialect: Dialect = OBSIDIAN

    @property
    def writable(self) -> bool:
        """False when the bridge must leave the note alone until a human fixes it."""
        return self.blocking is None

    @property
    def blocking(self) -> Problem | None:
        """The first problem that stops the bridge writing the note, if any (its message is
        what a refused write says)."""
        return first_blocking(self.problems)

    @property
    def is_entry(self) -> bool:
        """True for notes that use at least one of the entry sections."""
        return any(h.text.strip().lower() in SECTIONS for h in self.headings)


def _section_blocks(blocks: tuple[Block, ...], name: str) -> list[Block]:
    inside: dict[tuple[str, ...], bool] = {}  # blocks of one section share their heading path
    out = []
    for block in blocks:
        path = block.heading_path
        hit = inside.get(path)
        if hit is None:
            hit = inside[path] = any(h.strip().lower() == name for h in path)
        if hit:
            out.append(block)
    return out


def _section_text(body_lines: list[str], headings: tuple[Heading, ...], name: str) -> str:
    for i, heading in enumerate(headings):
        if heading.text.strip().lower() != name:
            continue
        end = len(body_lines)
        for later in headings[i + 1 :]:
            if later.level <= heading.level:
                end = later.line
                break
        return "\n".join(body_lines[heading.line + 1 : end]).strip()
    return ""


def _strip_bullet(text: str) -> str:
    first, *rest = text.strip().split("\n")
    first = first.lstrip()
    if first[:1] in {"-", "*", "+"}:
        first = first[1:].lstrip()
    return "\n".join([first, *(line.strip() for line in rest)]).strip()


def _raw_concept(blocks: list[Block]) -> RawConcept:
    known: dict[str, str] = {}
    extra: list[tuple[str, str]] = []
    for block in blocks:
        if block.kind != "list_item":
            continue
        key, sep, value = _strip_bullet(block.text).partition(":")
        if not sep:
            continue
        name = key.strip().lower()
        if name in RAW_CONCEPT_KEYS and name not in known:
            known[name] = value.strip()
        else:
            extra.append((key.strip(), value.strip()))
    return RawConcept(**known, extra=tuple(extra))


def _snippets(blocks: list[Block], outline: bool = False) -> tuple[Snippet, ...]:
    out = []
    for block in blocks:
        if block.kind != "code":
            continue
        source = logseq.block_content(block.text) if outline else block.text
        lines = source.split("\n")
        fence = lines[0].strip()[:3]
        body = lines[1:-1] if len(lines) > 1 and lines[-1].strip().startswith(fence) else lines[1:]
        out.append(Snippet(block.info, "\n".join(body)))
    return tuple(out)


def _status(value: object) -> str | None:
    """A status word; anything else (a list, a mapping) is no status (reported by
    `_bad_values`)."""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value).strip() or None
    return None


def _bad_values(path: str, meta: dict[str, Any], dialect: Dialect) -> list[Problem]:
    """Frontmatter values the bridge interprets but cannot use, as doctor findings.

    Dates that are not dates are ignored (recency falls back as for a note without them) and
    do not stop the bridge from writing other keys. A `status` that is not a word does: the
    decay job would otherwise replace a value a person put there. Where the tool writes
    epoch milliseconds (Dendron), a whole number is a date.
    """
    found: list[Problem] = []
    epoch = uses_epoch_ms(dialect)
    created, updated = date_keys(dialect)
    for key in (*created, *updated):
        value = meta.get(key)
        if value is not None and value != "" and as_datetime(value, epoch) is None:
            shown = str(value)[:40]
            found.append(
                Problem(
                    path,
                    "bad_value",
                    f"{path}: `{key}: {shown}` is not a date (YYYY-MM-DD or ISO 8601); ignored",
                    blocks_writes=False,
                )
            )
    status = meta.get("status")
    if status is not None and _status(status) is None and status != "":
        found.append(
            Problem(
                path,
                "bad_value",
                f"{path}: `status` is a {type(status).__name__}, not a word such as draft, "
                "stable or core; the bridge will not write this note until it is one",
            )
        )
    return found


@dataclass(frozen=True)
class Properties:
    """A note's frontmatter as the bridge reads it, before its Markdown is looked at."""

    meta: dict[str, Any]
    body: str
    body_line: int
    problems: tuple[Problem, ...]
    dialect: Dialect = OBSIDIAN

    @property
    def status(self) -> str | None:
        return _status(self.meta.get("status"))

    @property
    def updated(self) -> dt.datetime | None:
        epoch = uses_epoch_ms(self.dialect)
        for key in date_keys(self.dialect)[1]:
            if self.meta.get(key) not in (None, ""):
                return as_datetime(self.meta.get(key), epoch)
        return None

    @property
    def blocking(self) -> Problem | None:
        """The first problem that stops the bridge writing the note, if any."""
        return first_blocking(self.problems)


def read_note_properties(path: str, text: str, dialect: Dialect = OBSIDIAN) -> Properties:
    """The frontmatter part of `parse_note`: properties, body and every problem a note can
    have (they all come from here). Never raises.

    Why apart: the decay job needs each note's status, `updated` and whether it may be
    written, nothing of its Markdown, and parsing the Markdown of every note is most of it.

    A Logseq page's `key:: value` page properties join its YAML frontmatter, if it has any
    (Logseq reads both); the body then starts after them.
    """
    problems: list[Problem] = []
    parts = fm.split(text)
    meta: dict[str, Any] = {}
    body, body_line = parts.body, parts.body_line
    if parts.has_block:
        try:
            meta = read_properties(text)
        except fm.FrontmatterTooComplexError as exc:
            message = f"{path}: {exc}; read as plain text until a person simplifies it"
            problems.append(Problem(path, "yaml_too_complex", message))
            body, body_line = text.lstrip("\ufeff"), 0
        except fm.FrontmatterError as exc:
            problems.append(Problem(path, "malformed_frontmatter", f"{path}: {exc}"))
            # Index the whole file as text so nothing in it becomes unfindable.
            body, body_line = text.lstrip("\ufeff"), 0
        second = fm.split(body.lstrip("\r\n"))
        if not problems and second.has_block and second.yaml_text.strip():
            problems.append(
                Problem(
                    path,
                    "duplicate_frontmatter",
                    f"{path}: a second `---` frontmatter block follows the first; only the first "
                    "is read as properties, merge them",
                    blocks_writes=False,
                )
            )
    elif parts.unclosed:
        problems.append(
            Problem(
                path,
                "malformed_frontmatter",
                f"{path}: the frontmatter opened by `---` on line 1 is never closed (no `---` "
                "line after it); read as plain text until a person adds the closing line",
            )
        )
    if isinstance(dialect, Logseq) and not problems:
        page = logseq.page_properties(body)
        if page.values:
            meta = {**meta, **page.values}
            rest = body.split("\n")[page.end :]
            body, body_line = "\n".join(rest), body_line + page.end
    if not text.strip():
        problems.append(Problem(path, "empty", f"{path}: the note is empty", blocks_writes=False))
    problems += _bad_values(path, meta, dialect)
    return Properties(meta, body, body_line, tuple(problems), dialect)


def parse_note(path: str, text: str, dialect: Dialect = OBSIDIAN) -> Note:
    """Understand any note, as its dialect's tool does. Never raises; problems are returned
    on the note."""
    props = read_note_properties(path, text, dialect)
    meta, body, body_line = props.meta, props.body, props.body_line
    structure = note_structure(dialect, body)
    body_lines = body.split("\n")
    h1 = next((h.text for h in structure.headings if h.level == 1 and h.text), None)
    fields = read_fields(dialect, path, meta, h1)
    links = note_links(dialect, structure.blocks, meta)
    narrative = outline_section(dialect, body_lines, structure.headings, "narrative")
    if narrative is None:
        narrative = _section_text(body_lines, structure.headings, "narrative")

    relations = tuple(
        Relation(link.target, link.reason, link.alias, link.heading, link.block)
        for link in links
        if link.origin == "relations"
    )
    outline = isinstance(dialect, Logseq)
    entry = Entry(
        title=fields.entry_title,
        summary=fields.summary,
        tags=fields.tags,
        status=props.status,
        created=fields.created,
        updated=fields.updated,
        author=text_value(meta.get("author")) or None,
        relations=relations,
        raw_concept=_raw_concept(_section_blocks(structure.blocks, "raw concept")),
        narrative=narrative,
        snippets=_snippets(_section_blocks(structure.blocks, "snippets"), outline),
        extra={k: v for k, v in meta.items() if k not in _known_keys(dialect)},
    )
    return Note(
        path=path,
        title=fields.title,
        frontmatter=meta,
        body=body,
        body_line=body_line,
        headings=structure.headings,
        blocks=structure.blocks,
        links=tuple(links),
        entry=entry,
        problems=props.problems,
        aliases=fields.aliases,
        description=fields.description,
        names=fields.names,
        dialect=dialect,
    )


def _known_keys(dialect: Dialect) -> tuple[str, ...]:
    """The keys the entry model holds itself; the rest is `Entry.extra`."""
    created, updated = date_keys(dialect)
    return (*KNOWN_KEYS, summary_key(dialect), *created, *updated)


def _fence_for(code: str) -> str:
    longest = max((len(run) for run in code.split("\n") if set(run.strip()) == {"`"}), default=0)
    return "`" * max(3, longest + 1)


def entry_sections(entry: Entry, syntax: LinkSyntax = "obsidian") -> list[tuple[str, list[str]]]:
    """The body sections of a new entry that have content, in order: (heading, Markdown lines).

    A section with nothing in it is left out rather than written as a bare heading: an empty
    `## Snippets` under every note is noise to a reader, and a missing section reads as empty
    anyway. An UPDATE that gives one later adds it in its place (`entry_edit`).
    """
    relations = [
        f"- {WikiLink(r.target, r.heading, r.block, r.alias, syntax=syntax).render()}"
        + (f" - {r.reason}" if r.reason else "")
        for r in entry.relations
    ]
    rc = entry.raw_concept
    raw = [f"- {key.capitalize()}: {v}" for key in RAW_CONCEPT_KEYS if (v := getattr(rc, key))]
    raw += [f"- {key}: {value}" for key, value in rc.extra]
    narrative = [entry.narrative.strip()] if entry.narrative.strip() else []
    snippets: list[str] = []
    for snippet in entry.snippets:
        fence = _fence_for(snippet.code)
        snippets += [f"{fence}{snippet.language}", snippet.code, fence, ""]
    sections = zip(
        ("Relations", "Raw Concept", "Narrative", "Snippets"),
        (relations, raw, narrative, snippets),
        strict=True,
    )
    return [(heading, content) for heading, content in sections if content]


def render_entry(entry: Entry) -> str:
    """The Markdown of a new entry: frontmatter, H1 and the body sections that have content
    (`entry_sections`)."""
    lines = ["---", f"title: {fm.format_scalar(entry.title)}"]
    if entry.summary:
        lines.append(f"summary: {fm.format_scalar(entry.summary)}")
    lines.append(f"tags: {fm.format_scalar(list(entry.tags))}")
    for key in ("status", "created", "updated", "author"):
        value = getattr(entry, key)
        if value is not None:
            lines.append(f"{key}: {fm.format_scalar(value)}")
    for key, value in entry.extra.items():
        lines.append(f"{key}: {fm.format_scalar(value)}")
    lines += ["---", f"# {entry.title}"]
    for heading, content in entry_sections(entry):
        lines += ["", f"## {heading}", *content]
    return "\n".join(lines).rstrip("\n") + "\n"
