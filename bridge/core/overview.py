"""Folder overviews: what each folder holds, and the bridge-owned region of its `_index.md`.

Pure: plain facts in, values and text out. The adapter (`bridge.overviews`) reads the vault,
and only ever writes the text between the two markers of a note that already holds them:

    <!-- vault-bridge:overview -->
    - [[engineering/auth/jwt_expiry|JWT expiry]] — Access tokens live 24 h. (stable)
    <!-- /vault-bridge:overview -->

Everything outside the markers is the human's and must come back byte for byte, so the region
is located on the text as written (line endings, a byte order mark and frontmatter untouched),
and anything ambiguous (two openings, a closing before the opening, markers only inside a code
block) is refused rather than guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bridge.core import frontmatter as fm
from bridge.core.paths import link_target, normalise_folder, parent, stem

OPEN_MARKER = "<!-- vault-bridge:overview -->"
CLOSE_MARKER = "<!-- /vault-bridge:overview -->"
INDEX_NAME = "_index.md"
EMPTY_LINE = "_No notes in this folder yet._"
# How far a subfolder without its own `_index.md` is listed inside its parent's region.
NEST_DEPTH = 2
NEST_LIMIT = 25

# Characters a wikilink target cannot carry (`#` and `^` would be read as a heading or a block).
_LINK_BREAKERS = frozenset("#^[]|")
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class NoteFacts:
    """What the overview needs to know about one note; nothing is read from disk here."""

    path: str
    title: str
    summary: str = ""
    status: str | None = None
    # The tree level that holds the note when it is not its folder (a Dendron note's dotted
    # name, a Logseq page's namespace); None: its folder.
    folder: str | None = None

    @property
    def level(self) -> str:
        return parent(self.path) if self.folder is None else self.folder


@dataclass(frozen=True)
class OverviewEntry:
    """A note listed in its folder's overview."""

    path: str
    title: str
    summary: str
    status: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "title": self.title,
            "summary": self.summary,
            "status": self.status,
        }


@dataclass(frozen=True)
class Subfolder:
    """A folder directly below: `entries` counts its notes at every depth, `_index.md` aside."""

    name: str
    path: str
    entries: int
    index: str | None = None  # its own `_index.md`, which the overview links to

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "entries": self.entries, "index": self.index}


@dataclass(frozen=True)
class FolderOverview:
    """One folder: its notes (sorted by title) and its subfolders (sorted by name)."""

    folder: str
    entries: tuple[OverviewEntry, ...] = ()
    subfolders: tuple[Subfolder, ...] = ()
    index: str | None = None  # the folder's own `_index.md`, if it has one

    def to_json(self) -> dict[str, Any]:
        return {
            "folder": self.folder,
            "index": self.index,
            "entries": [e.to_json() for e in self.entries],
            "subfolders": [s.to_json() for s in self.subfolders],
        }


def is_index_note(path: str) -> bool:
    """True for a folder's `_index.md` (the name DESIGN section 2 gives it, spelled exactly)."""
    return path.rsplit("/", 1)[-1] == INDEX_NAME


def index_path(folder: str) -> str:
    """Where a folder's `_index.md` lives (`_index.md` itself for the vault root `""`)."""
    return f"{folder}/{INDEX_NAME}" if folder else INDEX_NAME


def clean_folder(folder: str) -> str:
    """A folder as the user gave it, as a vault path (`/a/b/` -> `a/b`; `""` is the root).

    Raises `ValueError` (`UnsafePathError`) for a folder that would leave the vault or that no
    note can be in: the path rules of `normalise_folder`.
    """
    return normalise_folder(folder)


def ancestors(path: str) -> list[str]:
    """The folders holding `path`, innermost first, ending with the root `""`."""
    out = []
    folder = parent(path)
    while True:
        out.append(folder)
        if not folder:
            return out
        folder = parent(folder)


def compute_overviews(
    notes: Iterable[NoteFacts], folders: Collection[str] | None = None
) -> dict[str, FolderOverview]:
    """Every folder's overview (or only those in `folders`), from the facts of every note.

    A folder exists when a note sits in it or below it; the vault root `""` always exists and
    is a folder like any other (its notes and top-level folders, its `_index.md` at the root).
    Every note is listed in its folder, entries and plain notes alike (a human's note is
    knowledge too), except `_index.md`, which is the folder's overview, not one of its notes.
    Subfolder counts are recursive and leave `_index.md` files out too.

    With `folders`, only those are built; notes in other folders then only count toward their
    ancestors, so their title and summary may be left empty by the caller. A requested folder
    that holds nothing gets an empty overview.
    """
    listed: dict[str, list[NoteFacts]] = {}
    direct: dict[str, int] = {}  # notes directly in each folder (`_index.md` aside)
    indexes: dict[str, str] = {}
    for note in notes:
        folder = note.level
        if is_index_note(note.path):
            indexes.setdefault(folder, note.path)
            direct.setdefault(folder, 0)
            continue
        direct[folder] = direct.get(folder, 0) + 1
        if folders is None or folder in folders:
            listed.setdefault(folder, []).append(note)
    # Rolled up per folder, not per note: a vault has far fewer folders than notes.
    counts: dict[str, int] = {"": 0}
    for folder, count in direct.items():
        for above in [folder, *ancestors(folder)] if folder else [""]:
            counts[above] = counts.get(above, 0) + count
    wanted = sorted(counts) if folders is None else sorted(set(folders))
    children: dict[str, list[str]] = {}
    for folder in counts:
        if folder:
            children.setdefault(parent(folder), []).append(folder)
    result = {}
    for folder in wanted:
        entries = sorted(
            (OverviewEntry(n.path, n.title, n.summary, n.status) for n in listed.get(folder, [])),
            key=lambda e: (e.title.casefold(), e.title, e.path),
        )
        subfolders = [
            Subfolder(sub.rsplit("/", 1)[-1], sub, counts[sub], indexes.get(sub))
            for sub in children.get(folder, [])
        ]
        subfolders.sort(key=lambda s: (s.name.casefold(), s.name))
        result[folder] = FolderOverview(
            folder, tuple(entries), tuple(subfolders), indexes.get(folder)
        )
    return result


# -- the region's Markdown ---------------------------------------------------------------------


def _flat(text: str) -> str:
    """One line of text that cannot open a comment that hides the rest of the region."""
    return " ".join(text.split()).replace("<!--", "&lt;!--")


def _alias(text: str) -> str:
    """Text safe inside `[[target|...]]`: no `|` nor brackets that would end the link."""
    return _flat(text).replace("|", "-").replace("[", "(").replace("]", ")")


def _link(path: str, label: str) -> str:
    target = link_target(path)
    if any(c in _LINK_BREAKERS for c in target):
        # Obsidian cannot link to such a name (a human's `C# tips.md`): name it, do not break it.
        return f"{_flat(label)} (`{_flat(path)}`)"
    return f"[[{target}|{_alias(label)}]]"


def _entries(count: int) -> str:
    return f"{count} {'entry' if count == 1 else 'entries'}"


def depth(folder: str) -> int:
    """How many folders deep `folder` is (the root `""` is 0)."""
    return folder.count("/") + 1 if folder else 0


def within(folder: str, top: str, levels: int = NEST_DEPTH) -> bool:
    """True when `folder` is `top` or lies at most `levels` folders below it."""
    if top and folder != top and not folder.startswith(f"{top}/"):
        return False
    return depth(folder) - depth(top) <= levels


def render_region(
    overview: FolderOverview, nested: Mapping[str, FolderOverview] | None = None
) -> str:
    """The Markdown between the markers: one list line per subfolder, then one per note.

    A subfolder with its own `_index.md` is a link to it with its count. One without has no
    page to open, so when `nested` holds its overview its notes are listed under it, indented,
    down to `NEST_DEPTH` folders and `NEST_LIMIT` notes per nested folder (the rest are
    counted): that keeps a domain's `_index.md` a usable table of contents, as a person would
    write it, without making a big vault's root overview list the whole vault. Nested notes
    show title and status only: summaries are for the folder's own notes, so an `_index.md`
    does not repeat (and compete in search with) the summaries of a whole subtree.

    Deterministic (sorted, no dates), so an unchanged folder renders the very same text and the
    caller writes nothing. Every line starts with `- ` (after its indent), so no title or
    summary can turn a line into a marker or a code fence.
    """
    lines = _render(overview, nested or {}, 0)
    return "\n".join(lines or [EMPTY_LINE]) + "\n"


def _render(
    overview: FolderOverview, nested: Mapping[str, FolderOverview], level: int
) -> list[str]:
    indent = "  " * level
    lines = []
    for sub in overview.subfolders:
        label = f"{sub.name}/"
        shown = _link(sub.index, label) if sub.index else _flat(label)
        lines.append(f"{indent}- {shown} ({_entries(sub.entries)})")
        inner = nested.get(sub.path) if sub.index is None and level < NEST_DEPTH else None
        if inner is not None:
            lines += _render(inner, nested, level + 1)
    entries = overview.entries
    if level and len(entries) > NEST_LIMIT:
        rest = len(entries) - NEST_LIMIT
        entries = entries[:NEST_LIMIT]
    else:
        rest = 0
    for entry in entries:
        title = entry.title.strip() or stem(entry.path)
        line = f"{indent}- {_link(entry.path, title)}"
        if not level and entry.summary.strip():
            line += f" — {_flat(entry.summary)}"
        if entry.status:
            line += f" ({_flat(entry.status)})"
        lines.append(line)
    if rest:
        lines.append(f"{indent}- … {rest} more")
    return lines


# -- finding and replacing the region ----------------------------------------------------------


class MarkerError(ValueError):
    """Markers that do not delimit exactly one region; the message says what is wrong."""


@dataclass(frozen=True)
class RegionSpan:
    """Where the region's content lies: `text[start:end]` is between the two marker lines."""

    start: int
    end: int
    eol: str  # the line ending of the opening marker line, used for the new content


def _lines(text: str, offset: int) -> Iterable[tuple[int, str, str]]:
    """(start, content, line ending) of each line from `offset`; only `\\n` ends a line."""
    position = offset
    while position < len(text):
        newline = text.find("\n", position)
        end = len(text) if newline < 0 else newline + 1
        line = text[position:end]
        content = line.rstrip("\n")
        eol = line[len(content) :]
        if content.endswith("\r"):
            content, eol = content[:-1], "\r" + eol
        yield position, content, eol
        position = end


def _is_marker(content: str, marker: str) -> bool:
    """The line holds the marker alone; indented by at most 3 spaces (more is a code block)."""
    stripped = content.lstrip(" ")
    return len(content) - len(stripped) <= 3 and stripped.rstrip() == marker


def _closes(match: re.Match[str], fence: tuple[str, int]) -> bool:
    """A fence line that ends the open block: same character, at least as long, nothing after."""
    run = match.group(2)
    return run[0] == fence[0] and len(run) >= fence[1] and not match.group(3).strip()


def locate_region(text: str) -> RegionSpan | None:
    """The region of a note's text; None when it has no markers (outside code blocks).

    Markers count only on a line of their own, outside the frontmatter and outside fenced code
    blocks (a note that explains the markers shows them in a code block and must stay as it
    is). Raises `MarkerError` when the markers are not one opening followed by one closing.
    """
    start = fm.split(text).body_start  # after the frontmatter (and a byte order mark)
    opens: list[tuple[int, str]] = []  # (offset after the line, its line ending)
    closes: list[int] = []  # offsets where the closing line starts
    fence: tuple[str, int] | None = None
    for offset, content, eol in _lines(text, start):
        match = _FENCE.match(content)
        if fence is not None:
            if match and _closes(match, fence):
                fence = None
            continue
        if match and not (match.group(2)[0] == "`" and "`" in match.group(3)):
            fence = (match.group(2)[0], len(match.group(2)))  # (CommonMark: no ` in ``` info)
            continue
        if _is_marker(content, OPEN_MARKER):
            opens.append((offset + len(content) + len(eol), eol))
        elif _is_marker(content, CLOSE_MARKER):
            closes.append(offset)
    if not opens and not closes:
        return None
    if len(opens) != 1 or len(closes) != 1:
        raise MarkerError(
            f"{len(opens)} opening `{OPEN_MARKER}` and {len(closes)} closing `{CLOSE_MARKER}` "
            "markers; a note needs exactly one of each"
        )
    (after_open, eol), before_close = opens[0], closes[0]
    if not eol:
        raise MarkerError("the opening marker is the last line; the closing one must follow it")
    if before_close < after_open:
        raise MarkerError("the closing marker comes before the opening one")
    return RegionSpan(after_open, before_close, eol)


def replace_region(text: str, region: str) -> str | None:
    """`text` with only the region's content replaced by `region`; None when it cannot be.

    The markers and every character outside them are kept as they are; the new lines take the
    line ending of the opening marker's line (a CRLF note stays CRLF). None when the note has
    no markers or bad ones (`locate_region` says which). An unchanged region gives back text
    equal to `text`, so the caller can skip the write.
    """
    try:
        span = locate_region(text)
    except MarkerError:
        return None
    if span is None:
        return None
    lines = region.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    content = "".join(line + span.eol for line in lines)
    return text[: span.start] + content + text[span.end :]


def in_region(texts: Sequence[str]) -> list[bool]:
    """For each of a note's blocks (their texts, in order), whether it lies in the bridge's
    overview region (the markers' blocks included).

    The region repeats other notes' titles and summaries: it describes those notes, the way a
    Relations section does, and searching or quoting it finds the copy instead of the notes.
    """
    out: list[bool] = []
    inside = False
    for raw in texts:
        text = raw.strip()
        if text == OPEN_MARKER or text.startswith(OPEN_MARKER + "\n"):
            inside = True
        out.append(inside)
        if text == CLOSE_MARKER or text.endswith("\n" + CLOSE_MARKER):
            inside = False
    return out


def without_region(text: str) -> str:
    """`text` without the content of its overview region (the markers stay); unchanged when it
    has none or bad markers."""
    try:
        span = locate_region(text)
    except MarkerError:
        return text
    return text if span is None else text[: span.start] + text[span.end :]
