"""The vault's link graph, kept current one changed note at a time.

`/v1/status` reports the unresolved links, the plugin asks for it every few seconds and opens
notes with their backlinks, and recomputing every link of a large vault after every write
would hold the GIL that answers need. A link can only resolve to a note of the name it spells
(`link_name`: its file name, or the last part of one of its names, `LinkResolver.names_of`),
so a change re-resolves the changed notes' own links and the links elsewhere that spell a
name of a note added, removed or renamed: a handful per batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bridge.core.relations import LinkResolver, link_name, note_name

Links = Sequence[str]  # a note's raw link targets, as written


class LinkGraph:
    """Resolved links between notes, their reverse, and the count of unresolved ones."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._links: dict[str, tuple[str, ...]] = {}  # every note: its raw targets
        self._out: dict[str, tuple[str, ...]] = {}  # notes it links to (distinct, not itself)
        self._missing: dict[str, int] = {}  # its links that resolve to nothing
        self._spelling: dict[str, set[str]] = {}  # a link name -> notes with such a link
        self._back: dict[str, set[str]] = {}  # a note -> the notes linking to it
        self._names: dict[str, frozenset[str]] = {}  # a note -> the names links reach it by
        self.unresolved = 0

    def __len__(self) -> int:
        return len(self._links)

    def build(self, notes: Mapping[str, Links], resolver: LinkResolver) -> None:
        """Every note's links, from nothing."""
        self._reset()
        for path, links in notes.items():
            self._add(path, links, resolver)

    def update(self, changed: Mapping[str, Links | None], resolver: LinkResolver) -> None:
        """Notes changed (their links now) or deleted (None); `resolver` knows the notes as
        they are after the change."""
        came_or_went: set[str] = set()
        for path, links in changed.items():
            before = self._names.get(path, frozenset({note_name(path)}))
            after = resolver.names_of(path) if links is not None else frozenset()
            if (links is None) == (path in self._links) or before != after:
                came_or_went |= before | after
        if came_or_went:
            came_or_went.add("*")
        touched = {src for name in came_or_went for src in self._spelling.get(name, ())}
        touched -= changed.keys()
        again = {src: self._links[src] for src in touched}
        for path in [*changed, *again]:
            self._remove(path)
        for path, links in changed.items():
            if links is not None:
                self._add(path, links, resolver)
        for path, links in again.items():
            self._add(path, links, resolver)

    def edges(self) -> list[tuple[str, str]]:
        """Every resolved link (source, target), by source path."""
        return [(src, dst) for src in sorted(self._out) for dst in self._out[src]]

    def backlinks(self, path: str) -> list[str]:
        """The notes linking to `path`, sorted."""
        return sorted(self._back.get(path, ()))

    def backlink_count(self, path: str) -> int:
        """How many notes link to `path`."""
        return len(self._back.get(path, ()))

    def all_backlinks(self) -> dict[str, list[str]]:
        return {path: sorted(sources) for path, sources in self._back.items() if sources}

    def _add(self, path: str, links: Iterable[str], resolver: LinkResolver) -> None:
        raw = tuple(links)
        self._links[path] = raw
        self._names[path] = resolver.names_of(path)
        out: list[str] = []
        missing = 0
        for target in raw:
            self._spelling.setdefault(link_name(target), set()).add(path)
            resolved = resolver.resolve(target, path)
            if resolved is None:
                missing += 1
            elif resolved != path and resolved not in out:
                out.append(resolved)
                self._back.setdefault(resolved, set()).add(path)
        self._out[path] = tuple(out)
        self._missing[path] = missing
        self.unresolved += missing

    def _remove(self, path: str) -> None:
        raw = self._links.pop(path, None)
        if raw is None:
            return
        self._names.pop(path, None)
        for target in raw:
            spellers = self._spelling.get(link_name(target))
            if spellers is not None:
                spellers.discard(path)
        for resolved in self._out.pop(path, ()):
            sources = self._back.get(resolved)
            if sources is not None:
                sources.discard(path)
                if not sources:
                    del self._back[resolved]
        self.unresolved -= self._missing.pop(path, 0)
