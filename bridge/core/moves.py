"""Links that keep pointing where they pointed when a note moves (a MOVE operation).

Moving `a/b/old.md` to `c/d/new.md` changes what links mean in three ways: links to the note
must follow it; a bare `[[name]]` elsewhere may now find the moved note first (it is shorter or
earlier in Obsidian's order); and the moved note's own links relative to its folder now start
from another folder. For each link of a note, the note it resolved to before the move is
compared with what it resolves to after; where they differ, the link is respelled to the note
it meant (the moved one at its new path), keeping its `|alias`, `#heading` and `^block` parts.
Pure: resolvers in, text out.
"""

from __future__ import annotations

from collections.abc import Callable

from bridge.core.entry_edit import rewrite_links
from bridge.core.paths import link_target, stem
from bridge.core.relations import (
    LinkResolver,
    LinkSyntax,
    WikiLink,
    find_wikilinks,
    is_pattern,
)


def relink(
    text: str,
    source: tuple[str, str],
    moved: tuple[str, str],
    before: LinkResolver,
    after: LinkResolver,
    spell: Callable[[WikiLink, str], str] | None = None,
    syntax: LinkSyntax = "obsidian",
) -> str:
    """`text` of a note at `source` (its path before, after the move) with every link kept.

    `moved` is (old path, new path) of the note that moves; `before` and `after` resolve
    links over the vault's paths before and after it. `spell` names a note in a link as the
    vault's dialect does (default: Obsidian's, a bare name where it is unique) and `syntax`
    writes the link.
    """
    was_at, now_at = source
    old, new = moved
    wanted: dict[str, str] = {}
    changed: dict[str, str] = {}  # link target -> the note it meant, for those that change
    for link in find_wikilinks(text, syntax=syntax):  # frontmatter `related:` links too
        if not link.target or link.target in changed:
            continue  # `[[#heading]]` points into the note itself, wherever it is
        meant = before.resolve(link.target, was_at)
        if meant is None:
            continue  # unresolved before: left as it is (reported by doctor)
        if is_pattern(link.target, meant):
            continue
        meant = new if meant == old else meant
        if after.resolve(link.target, now_at) != meant:
            changed[link.target] = meant
            wanted[meant] = meant
    if not changed:
        return text

    def obsidian(link: WikiLink, path: str) -> str:
        bare = stem(path)
        if "/" not in link.target and after.resolve(bare, now_at) == path:
            return bare
        return link_target(path)

    return rewrite_links(text, changed.get, wanted, spell or obsidian, syntax)
