"""Relations: agents' `@path.md` mentions and the vault's `[[wikilinks]]`, and how links resolve.

Agents (and ByteRover) name related entries as `@domain/topic/entry.md`; Obsidian needs
`[[domain/topic/entry]]` for backlinks and the graph view. The vault stores wikilinks; the bridge
converts at the edges and resolves links the way Obsidian does, so both sides see one graph.
"""

from __future__ import annotations

import bisect
import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from bridge.core.markdown import Block, text_outside_code
from bridge.core.paths import NOTE_SUFFIX, link_target

LinkOrigin = Literal["relations", "body", "frontmatter"]
# How a link orders its parts: Obsidian's `[[target|alias]]`, or Dendron's `[[alias|target]]`
# (with an optional `dendron://vault/` before the target).
LinkSyntax = Literal["obsidian", "dendron"]
_DENDRON_VAULT = re.compile(r"^dendron://[^/|#\]]*/")

# `[[...]]`; a `!` right before makes it an embed. The `!` is looked at by hand: a pattern that
# starts with an optional `!` cannot use the regex engine's fast search for `[[`, and the scan
# of a note's body would be many times slower.
_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
# Embeds and links of attachments are not knowledge relations.
_ATTACHMENT = re.compile(
    r"\.(png|jpe?g|gif|svg|webp|bmp|avif|pdf|mp3|wav|ogg|m4a|flac|webm|mp4|mov|mkv|canvas|base)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class WikiLink:
    """One `[[target#heading^block|alias]]`, with the parts Obsidian allows kept apart."""

    target: str
    heading: str | None = None
    block: str | None = None
    alias: str | None = None
    embed: bool = False
    origin: LinkOrigin = "body"
    reason: str | None = None
    line: int | None = None
    syntax: LinkSyntax = "obsidian"
    vault: str = ""  # Dendron's `dendron://vault/` before the target, kept when rewritten

    def render(self, target: str | None = None) -> str:
        """The link as Markdown, optionally pointing at a new target (aliases etc. kept), in
        its own syntax."""
        text = self.vault + (target if target is not None else self.target)
        if self.heading:
            text += f"#{self.heading}"
        if self.block:
            text += f"#^{self.block}"
        if self.alias is not None:
            text = f"{self.alias}|{text}" if self.syntax == "dendron" else f"{text}|{self.alias}"
        return f"{'!' if self.embed else ''}[[{text}]]"


def parse_wikilink(
    inner: str, embed: bool = False, syntax: LinkSyntax = "obsidian", **extra: object
) -> WikiLink:
    """Split the inside of `[[...]]` into target, heading, block and alias.

    `syntax="dendron"`: the alias comes first (`[[alias|target]]`) and a `dendron://vault/`
    before the target names the vault (kept apart, so the target resolves like any other).
    """
    alias: str | None = None
    if "|" in inner and syntax == "dendron":
        alias, inner = inner.split("|", 1)
        inner = inner.lstrip()  # `[[label | target]]`: Dendron reads the target trimmed
    elif "|" in inner:
        inner, alias = inner.split("|", 1)
        inner = inner.rstrip("\\")  # `\|` is how a link escapes its pipe inside a table
    vault = ""
    if syntax == "dendron" and (prefix := _DENDRON_VAULT.match(inner)):
        vault, inner = prefix.group(0), inner[prefix.end() :]
    heading: str | None = None
    block: str | None = None
    if "#" in inner:
        inner, fragment = inner.split("#", 1)
        if fragment.startswith("^"):
            block = fragment[1:]
        else:
            heading = fragment
    return WikiLink(
        target=inner.strip(),
        heading=heading,
        block=block,
        alias=alias,
        embed=embed,
        syntax=syntax,
        vault=vault,
        **extra,  # type: ignore[arg-type]
    )


def find_wikilinks(
    text: str,
    origin: LinkOrigin = "body",
    line: int | None = None,
    syntax: LinkSyntax = "obsidian",
) -> list[WikiLink]:
    """Every wikilink to a note in a Markdown fragment, ignoring code and attachments.

    `line` is the fragment's first line: each link gets its own (`doctor` named the first line
    of a wrapped paragraph for a link on its second).
    """
    links = []
    plain = text_outside_code(text)
    for match in _WIKILINK.finditer(plain):
        embed = plain[match.start() - 1 : match.start()] == "!"
        at = None if line is None else line + plain.count("\n", 0, match.start())
        link = parse_wikilink(match.group(1), embed, syntax, origin=origin, line=at)
        if _is_note_link(link):
            links.append(link)
    return links


def _is_note_link(link: WikiLink) -> bool:
    return bool(link.target) and not _ATTACHMENT.search(link.target)


def _reason_after(link_text: str, block_text: str) -> str | None:
    """The `- reason` that follows a link in a Relations list item."""
    _, _, rest = block_text.partition(link_text)
    rest = rest.strip()
    if rest.startswith(("-", "–", "—", ":")):
        return rest[1:].strip() or None
    return None


def links_in_blocks(
    blocks: Iterable[Block],
    relations_heading: str = "relations",
    syntax: LinkSyntax = "obsidian",
) -> list[WikiLink]:
    """Links of a note's body; those in the Relations section carry their reason."""
    found: list[WikiLink] = []
    sections: dict[tuple[str, ...], bool] = {}  # the blocks of a section share its path
    for block in blocks:
        if block.kind == "code" or "[[" not in block.text:
            continue
        in_relations = sections.get(block.heading_path)
        if in_relations is None:
            in_relations = any(h.strip().lower() == relations_heading for h in block.heading_path)
            sections[block.heading_path] = in_relations
        origin: LinkOrigin = "relations" if in_relations else "body"
        for link in find_wikilinks(block.text, origin, block.start_line, syntax):
            if in_relations and block.kind == "list_item":
                reason = _reason_after(link.render(), block.text)
                link = WikiLink(**{**link.__dict__, "reason": reason})
            found.append(link)
    return found


def links_in_frontmatter(value: object, syntax: LinkSyntax = "obsidian") -> list[WikiLink]:
    """Links listed under a frontmatter key such as `related:` (a string or a list of them)."""
    items = value if isinstance(value, list) else [value]
    links: list[WikiLink] = []
    for item in items:
        if not isinstance(item, str):
            continue
        inline = find_wikilinks(item, origin="frontmatter", syntax=syntax)
        if inline:
            links.extend(inline)
        elif item.strip():
            # `related: [a/b/c]` without brackets (YAML turns `[[x]]` unquoted into a list).
            links.append(parse_wikilink(item.strip(), syntax=syntax, origin="frontmatter"))
    return [link for link in links if _is_note_link(link)]


def wikilink_to_agent(path: str) -> str:
    """A resolved note path as agents write it: `a/b/c.md` -> `@a/b/c.md`."""
    return "@" + (path if path.lower().endswith(NOTE_SUFFIX) else path + NOTE_SUFFIX)


def _preference(path: str) -> tuple[int, int, str]:
    """Which of several notes of one name a bare link means: the shallowest, shortest, first."""
    return (path.count("/"), len(path), path)


def _name(path: str) -> str:
    return link_target(path).lower().rsplit("/", 1)[-1]


def note_name(path: str) -> str:
    """The name links find a note by: its file name, lower case, without the suffix."""
    return _name(path)


def is_pattern(target: str, path: str) -> bool:
    """Does the link `target` name many notes, of which `path` is only the first it found?

    A Dendron note reference with a wildcard (`![[proj.auth.*]]`) means every note it
    matches: moving or merging one of them must leave it as it is, not spell that one note.
    """
    return "*" in target and note_name(path) != note_name(target)


def link_name(target: str) -> str:
    """The note name a link target can resolve to: only notes of that name (`note_name`)
    can be its answer, whichever rule of `LinkResolver.resolve` finds it. `""` for a link
    into its own note (`[[#heading]]`); `"*"` for a path that ends in `..` or `.`, or a
    pattern (`a.b.*`), which any note may answer."""
    key = _key(target)
    if not key:
        return ""
    last = key.rsplit("/", 1)[-1]
    return "*" if last in {"", ".", ".."} or "*" in last else last


def _key(target: str) -> str:
    return link_target(target.strip().replace("\\", "/")).lower().lstrip("/")


_MEMO_SIZE = 16_384  # links remembered per resolver: a bounded cache


class LinkResolver:
    """Resolves link targets to note paths the way the vault's tool does.

    Obsidian matches case-insensitively: first the exact path from the vault root, then a path
    relative to the linking note, then any note whose path ends with the target (a bare file name
    is the common case), preferring the shortest path and then alphabetical order so the answer
    is deterministic when two notes share a name.

    `names` are names a note answers to besides its path (a Logseq page's name, `title::` and
    `alias::`; a Foam folder's `index.md`): a link spelling one of them, case-insensitively,
    resolves to that note when no note has that exact path. Obsidian's notes have none
    (Obsidian does not resolve an alias).
    A Dendron note reference with a wildcard (`![[a.b.*]]`) resolves to the first note it
    matches.
    """

    def __init__(
        self, note_paths: Iterable[str], names: Mapping[str, Iterable[str]] | None = None
    ) -> None:
        # File name (lower case, no suffix) -> the notes of that name, in preference order: one
        # path as itself, several as a list. Exact paths are found among them too, so the
        # resolver holds each path once, not again in a second map.
        self._by_name: dict[str, str | list[str]] = {}
        # A name (`_key` of it) -> its notes in preference order; and each note's own names.
        self._by_alias: dict[str, list[str]] = {}
        self._names_of: dict[str, tuple[str, ...]] = {}
        self._memo: dict[tuple[str, str | None], str | None] = {}
        by_name = self._by_name
        for path in sorted(note_paths, key=_preference):
            name = _name(path)
            known = by_name.get(name)
            if known is None:
                by_name[name] = path
            elif isinstance(known, str):
                by_name[name] = [known, path]
            else:
                known.append(path)
        for path in sorted(names or {}, key=_preference):
            self._add_names(path, (names or {})[path])

    def _add_names(self, path: str, names: Iterable[str]) -> None:
        keys = tuple(dict.fromkeys(k for name in names if (k := _key(name))))
        if not keys:
            return
        self._names_of[path] = keys
        for key in keys:
            paths = self._by_alias.setdefault(key, [])
            if path not in paths:
                bisect.insort(paths, path, key=_preference)

    def _drop_names(self, path: str) -> None:
        for key in self._names_of.pop(path, ()):
            paths = self._by_alias.get(key, [])
            if path in paths:
                paths.remove(path)
            if not paths:
                self._by_alias.pop(key, None)

    def names_of(self, path: str) -> frozenset[str]:
        """Every `link_name` a link to `path` can have: its file name and the last part of
        each of its names (the link graph re-resolves links spelling these when it changes)."""
        return frozenset(
            {_name(path), *(k.rsplit("/", 1)[-1] for k in self._names_of.get(path, ()))}
        )

    def updated(
        self,
        added: Iterable[str],
        removed: Iterable[str],
        names: Mapping[str, Iterable[str]] | None = None,
    ) -> LinkResolver:
        """A new resolver with these paths added and removed; this one is left as it is.

        `names`: the names of the added notes (and of notes whose names changed).

        Rebuilding sorts every path of the vault, and the first query after each batch would
        pay for it, while a batch (an agent's ADDs) changes a few names: the name map is
        copied (queries may be reading this one) and only the changed names are re-ordered.
        """
        out = LinkResolver(())
        by_name = out._by_name = dict(self._by_name)
        out._by_alias = {k: list(v) for k, v in self._by_alias.items()}
        out._names_of = dict(self._names_of)
        for path in removed:
            out._drop_names(path)
        for path, given in (names or {}).items():
            out._drop_names(path)
            out._add_names(path, given)
        for path, adding in [*((p, False) for p in removed), *((p, True) for p in added)]:
            name = _name(path)
            paths = list(out._named(name))
            if adding and path not in paths:
                bisect.insort(paths, path, key=_preference)
            elif not adding and path in paths:
                paths.remove(path)
            if not paths:
                by_name.pop(name, None)
            else:
                by_name[name] = paths[0] if len(paths) == 1 else paths
        return out

    def _named(self, name: str) -> list[str] | tuple[str, ...]:
        known = self._by_name.get(name)
        if known is None:
            return ()
        return (known,) if isinstance(known, str) else known

    def _exact(self, key: str) -> str | None:
        """The preferred note whose lower-cased link spelling is `key`."""
        for candidate in self._named(key.rsplit("/", 1)[-1]):
            if link_target(candidate).lower() == key:
                return candidate
        return None

    def resolve(self, target: str, source: str | None = None) -> str | None:
        """The note a link points at, or None when it resolves to nothing.

        Remembered per resolver (which never changes: `updated` makes a new one): relation
        expansion resolves every link of the best notes on every query, and on a real vault
        the best notes include index notes of hundreds of links.
        """
        memo_key = (target, source)
        try:
            return self._memo[memo_key]
        except KeyError:
            pass
        path = self._resolve(target, source)
        if len(self._memo) >= _MEMO_SIZE:
            self._memo.clear()
        self._memo[memo_key] = path
        return path

    def _resolve(self, target: str, source: str | None) -> str | None:
        key = _key(target)
        if not key:
            return source  # `[[#heading]]` points into the linking note itself
        exact = self._exact(key)
        if exact is not None:
            return exact
        named = self._by_alias.get(key)
        if named:
            return named[0]
        if source and "/" in source:
            folder = source.rsplit("/", 1)[0].lower().split("/")
            parts = folder + key.split("/")
            stack: list[str] = []
            for part in parts:
                if part == "..":
                    if stack:
                        stack.pop()
                elif part not in {"", "."}:
                    stack.append(part)
            relative = self._exact("/".join(stack))
            if relative is not None:
                return relative
        for candidate in self._named(key.rsplit("/", 1)[-1]):
            lowered = link_target(candidate).lower()
            if lowered == key or lowered.endswith("/" + key):
                return candidate
        if "*" in key:
            return self._wildcard(key)
        return None

    def _wildcard(self, key: str) -> str | None:
        """The first note (in preference order) whose name matches a `*` pattern."""
        names = sorted(self._by_name, key=lambda n: _preference(n))
        for name in names:
            if fnmatch.fnmatchcase(name, key.rsplit("/", 1)[-1]):
                return self._named(name)[0]
        return None

    def resolve_all(
        self, links: Iterable[WikiLink], source: str
    ) -> tuple[list[tuple[WikiLink, str]], list[WikiLink]]:
        """Split links into resolved (link, path) pairs and unresolved links."""
        resolved: list[tuple[WikiLink, str]] = []
        unresolved: list[WikiLink] = []
        for link in links:
            path = self.resolve(link.target, source)
            if path is None:
                unresolved.append(link)
            else:
                resolved.append((link, path))
        return resolved, unresolved


def edges(resolved: Iterable[tuple[WikiLink, str]], source: str) -> Mapping[str, str | None]:
    """Distinct relation edges of a note: target path -> first reason given, self-links dropped."""
    out: dict[str, str | None] = {}
    for link, path in resolved:
        if path == source:
            continue
        if path not in out or (out[path] is None and link.reason):
            out[path] = link.reason
    return out


def _display(inner: str) -> str:
    link = parse_wikilink(inner)
    if link.alias:
        return link.alias
    return link.target.rsplit("/", 1)[-1].replace("_", " ")


def link_display_text(text: str) -> str:
    """Text with each `[[folder/note|alias]]` replaced by what a reader sees of it.

    For search: a link is a pointer, not content. Indexing its full path would make every note
    that links to `engineering/deploy/rollback` match "deploy rollback" as well as the note
    itself does.
    """
    if "[[" not in text:
        return text
    parts: list[str] = []
    done = 0
    for match in _WIKILINK.finditer(text):
        start = match.start()
        if start and text[start - 1] == "!":
            start -= 1  # an embed shows as its name too, without the `!`
        parts += (text[done:start], _display(match.group(1)))
        done = match.end()
    parts.append(text[done:])
    return "".join(parts)
