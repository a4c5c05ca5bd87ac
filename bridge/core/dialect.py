"""A vault's dialect: which personal-wiki tool keeps it, and what follows for the bridge.

Obsidian, Logseq, Dendron and Foam all keep Markdown files with `[[wikilinks]]`, but each names
a page, writes its properties, spells a link and builds its tree its own way (DESIGN section
2). A dialect is a plain value, read from the vault's configuration by `bridge.vault.dialects`
or named by the `dialect` setting; the functions here say, for each one, how a file's place
in the context tree, its link names and the tool's own files follow from it. Pure: paths and
settings in, paths and names out.

Obsidian is the default, and for it every function answers as the bridge always has.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal, assert_never
from urllib.parse import quote, unquote

from bridge.core.logseq_dates import format_date, parse_date
from bridge.core.paths import NOTE_SUFFIX, link_target, parent, stem

DialectName = Literal["obsidian", "logseq", "dendron", "foam"]


@dataclass(frozen=True)
class Obsidian:
    """Folders are the tree, YAML frontmatter holds the properties, links name paths."""

    name: Literal["obsidian"] = "obsidian"


@dataclass(frozen=True)
class Foam:
    """Obsidian's conventions, with Foam's title rule (`title`, then the first heading) and
    its link reference definitions."""

    name: Literal["foam"] = "foam"


@dataclass(frozen=True)
class Logseq:
    """A Logseq graph: `key:: value` page properties, outliner blocks, namespaces.

    The values come from `logseq/config.edn` (Logseq's defaults when it says nothing; a graph
    without `:file/name-format` is `:legacy`, as Logseq reads it).
    """

    file_name_format: Literal["triple-lowbar", "legacy"] = "triple-lowbar"
    pages: str = "pages"
    journals: str = "journals"
    journal_file_format: str = "yyyy_MM_dd"
    journal_title_format: str = "MMM do, yyyy"
    hidden: tuple[str, ...] = ()
    name: Literal["logseq"] = "logseq"


@dataclass(frozen=True)
class Dendron:
    """A Dendron workspace: a dotted file name `a.b.c.md` is the tree path `a/b/c`.

    `vaults` are the vault folders of `dendron.yml` relative to the bridge's root (`""` when
    the root is the vault itself); notes outside them are not Dendron's. `vault_names` are
    their names, which a cross-vault link spells (`dendron://name/a.b`).
    """

    vaults: tuple[str, ...] = ("",)
    vault_names: tuple[str, ...] = ()
    name: Literal["dendron"] = "dendron"


Dialect = Obsidian | Logseq | Dendron | Foam
OBSIDIAN = Obsidian()


def describe(dialect: Dialect) -> str:
    """The dialect with what configures it, in one line (status, the guide, the index's
    fingerprint: a vault read in another dialect is indexed anew)."""
    match dialect:
        case Obsidian():
            return "obsidian"
        case Foam():
            return "foam"
        case Logseq():
            return (
                f"logseq (file names: {dialect.file_name_format}, pages in "
                f"`{dialect.pages}/`, journals in `{dialect.journals}/` as "
                f"{dialect.journal_file_format}, titled {dialect.journal_title_format!r}"
                + (f", hidden: {', '.join(dialect.hidden)}" if dialect.hidden else "")
                + ")"
            )
        case Dendron():
            shown = ", ".join(f"`{v or '.'}`" for v in dialect.vaults)
            return f"dendron (vaults: {shown})"
        case _:
            assert_never(dialect)


# -- which files are notes ------------------------------------------------------------------


def tool_files(dialect: Dialect) -> tuple[str, ...]:
    """`.gitignore` patterns of the tool's own files: never notes, whatever `exclude` says.

    Logseq keeps backups (`logseq/bak/`), deleted pages (`logseq/.recycle/`) and old versions
    (`logseq/version-files/`) under `logseq/`, beside its configuration: nothing there is a page,
    and a stale backup must never answer a question. Its `:hidden` paths are hidden from the
    graph. Foam's Jekyll template builds `_site/`, a copy of every note.
    """
    match dialect:
        case Obsidian():
            return ()
        case Logseq():
            hidden = tuple("/" + h.strip().strip("/") for h in dialect.hidden if h.strip("/ "))
            return ("/logseq/", *hidden)
        case Dendron():
            return ()
        case Foam():
            return ("/_site/",)
        case _:
            assert_never(dialect)


def note_roots(dialect: Dialect) -> tuple[str, ...]:
    """The folders that hold the notes (empty: the whole vault). A Dendron workspace's notes
    are in its vaults; `LICENSE.md` beside `dendron.yml` is no note of Dendron's."""
    match dialect:
        case Dendron():
            return () if "" in dialect.vaults else dialect.vaults
        case Obsidian() | Logseq() | Foam():
            return ()
        case _:
            assert_never(dialect)


# -- Logseq page names ----------------------------------------------------------------------


def _logseq_decode(dialect: Logseq, file_stem: str) -> str:
    """The page name Logseq reads from a file name (`A___B` -> `A/B`, `%3F` -> `?`)."""
    if dialect.file_name_format == "triple-lowbar":
        name = file_stem.replace("___", "/")
    elif "%" in file_stem:
        name = file_stem  # legacy: a percent-encoded name (`A%2FB`)
    else:
        name = file_stem.replace(".", "/")  # the oldest legacy names: `A.B` is `A/B`
    name = unquote(name)
    # A name Windows reserves or one ending in a dot gets a trailing `/` (`___`) on disk.
    return name.rstrip("/") or name


def logseq_file_name(dialect: Logseq, page: str) -> str:
    """The file name (no folder, with `.md`) Logseq gives the page `page`."""
    safe = quote(page, safe=" !$&'()+,;=@[]^`{}~/")  # what a file name cannot hold, encoded
    if dialect.file_name_format == "triple-lowbar":
        safe = safe.replace("/", "___")
    else:
        safe = safe.replace("/", "%2F")
    return safe + NOTE_SUFFIX


def journal_date(dialect: Logseq, path: str) -> dt.date | None:
    """The day of a journal page (`journals/2026_11_02.md`), None for any other note."""
    if parent(path) != dialect.journals:
        return None
    return parse_date(stem(path), dialect.journal_file_format)


def page_name(dialect: Dialect, path: str) -> str:
    """The name a link uses for the note at `path`, as the tool shows it.

    Obsidian and Foam: the path without `.md` (as the bridge always wrote links). Logseq: the
    page name (namespaces decoded; a journal's date as its title). Dendron: the dotted name.
    """
    match dialect:
        case Obsidian() | Foam():
            return link_target(path)
        case Logseq():
            day = journal_date(dialect, path)
            if day is not None:
                return format_date(day, dialect.journal_title_format)
            return _logseq_decode(dialect, stem(path))
        case Dendron():
            return stem(path)
        case _:
            assert_never(dialect)


def link_names(dialect: Dialect, path: str) -> tuple[str, ...]:
    """Names beyond Obsidian's path rules that a link may use to reach `path`, from the path
    alone (aliases come from the note's text): a Logseq page's name; for Foam, a folder's
    `index.md` or `README.md` is what a link to the folder opens. Empty for Obsidian and
    Dendron, whose links resolve by path and file name."""
    match dialect:
        case Logseq():
            return (page_name(dialect, path),)
        case Foam():
            folder = parent(path)
            return (folder,) if folder and stem(path).lower() in {"index", "readme"} else ()
        case Obsidian() | Dendron():
            return ()
        case _:
            assert_never(dialect)


def pages_by_reference(dialect: Dialect) -> bool:
    """True where a link to a name no file has is no broken link: in Logseq a page exists
    from its first reference (`[[Fixed issues]]`, a tag), with or without a file."""
    return isinstance(dialect, Logseq)


# -- the context tree -------------------------------------------------------------------------


def _dendron_vault(dialect: Dendron, path: str) -> str | None:
    """The vault folder holding `path` directly (notes of a vault sit in its top level)."""
    folder = parent(path)
    return folder if folder in dialect.vaults else None


def tree_path(dialect: Dialect, path: str) -> str:
    """The note's place in the context tree, as `a/b/c` (no `.md`).

    Obsidian and Foam: the folders. Logseq: a page's namespace (`pages/a___b___c.md` is
    `a/b/c`; namespaces in lower case, as Logseq matches them), journals under `journals/`.
    Dendron: the dotted name (`a.b.c.md` is `a/b/c`), under its vault's name when the
    workspace has several.
    """
    match dialect:
        case Obsidian() | Foam():
            return link_target(path)
        case Logseq():
            if parent(path) != dialect.pages:
                return link_target(path)
            # Logseq's page names ignore case: `Auth/Sessions` and `auth/keys` share `auth`.
            *spaces, leaf = _logseq_decode(dialect, stem(path)).strip("/").split("/")
            return "/".join([*(space.lower() for space in spaces), leaf])
        case Dendron():
            vault = _dendron_vault(dialect, path)
            if vault is None:
                return link_target(path)
            dotted = "/".join(part for part in stem(path).split(".") if part)
            if len(dialect.vaults) > 1:
                return f"{vault}/{dotted}" if vault else dotted
            return dotted
        case _:
            assert_never(dialect)


def tree_folders(dialect: Dialect, path: str) -> tuple[str, ...]:
    """Every level above the note in the tree: `a/b/c` -> `a`, `a/b`."""
    parts = tree_path(dialect, path).split("/")[:-1]
    return tuple("/".join(parts[: i + 1]) for i in range(len(parts)))


def tree_parent(dialect: Dialect, path: str) -> str:
    """The tree level that holds the note (`""` at the top)."""
    return parent(tree_path(dialect, path))


def file_for(dialect: Dialect, tree: str) -> str:
    """Where a new note at the tree path `tree` (`a/b/c.md`) is written.

    Obsidian and Foam: there. Logseq: the namespaced page `pages/a___b___c.md`. Dendron: the
    dotted name in the (first) vault, `vault/a.b.c.md`.
    """
    name = link_target(tree)
    match dialect:
        case Obsidian() | Foam():
            return tree
        case Logseq():
            return f"{dialect.pages}/{logseq_file_name(dialect, name)}"
        case Dendron():
            parts = name.split("/")
            vault = dialect.vaults[0]
            if len(dialect.vaults) > 1 and parts[0] in dialect.vaults:
                vault, parts = parts[0], parts[1:]
            dotted = ".".join(parts) + NOTE_SUFFIX
            return f"{vault}/{dotted}" if vault else dotted
        case _:
            assert_never(dialect)


def is_file_path(dialect: Dialect, path: str) -> bool:
    """True when `path` names a file in the dialect's own layout rather than a tree path:
    a Logseq page in `pages/` or `journals/`, a Dendron note directly in a vault."""
    match dialect:
        case Obsidian() | Foam():
            return True
        case Logseq():
            return parent(path) in {dialect.pages, dialect.journals}
        case Dendron():
            return _dendron_vault(dialect, path) is not None
        case _:
            assert_never(dialect)
