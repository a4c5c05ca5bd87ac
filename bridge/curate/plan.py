"""Planning: what an operation would do to the files, computed without writing anything.

A plan is the list of file changes (bytes before, bytes after) an operation makes. The executor
shows it as a diff for review, applies it, or keeps its "before" bytes so a reject can undo it.
Planning again at approval time against the current files is how an approved review applies
exactly what a human saw, or notices that the note has changed since.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bridge.core import frontmatter as fm
from bridge.core.dialect import (
    Foam,
    Logseq,
    Obsidian,
    file_for,
    is_file_path,
    link_names,
    page_name,
    tree_path,
)
from bridge.core.dialect_read import link_syntax
from bridge.core.dialect_write import (
    moved_text,
    patch_note,
    relink_definitions,
    render_new,
    spell_link,
    spell_target,
)
from bridge.core.entry import Entry, Note, RawConcept, Snippet, parse_note
from bridge.core.entry_edit import (
    EntryPatch,
    RelationLine,
    drop_relations,
    relation_key,
    rewrite_links,
    rewrite_tags,
)
from bridge.core.frontmatter import FrontmatterError
from bridge.core.moves import relink
from bridge.core.operations import Operation, check_new_entry_path
from bridge.core.paths import NOTE_SUFFIX, link_target, normalise_note_path, stem
from bridge.core.relations import LinkResolver, LinkSyntax, WikiLink, parse_wikilink
from bridge.core.review_policy import EffectiveType
from bridge.curate.merge import merged_content, relation_of
from bridge.vault.store import NoteError, NoteFile, VaultStore

# target: the note the operation writes; source: a note it removes (to the trash); moved: the
# note a MOVE renames to the target's path (no trash); link: a note whose links it rewrites.
Role = Literal["target", "source", "moved", "link"]
_ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_EXISTING_CHARS = 4000


@dataclass(frozen=True)
class FileChange:
    """One file an operation changes. `before` None: new file; `after` None: moved to trash."""

    path: str
    before: bytes | None
    after: bytes | None
    role: Role


@dataclass(frozen=True)
class Plan:
    """An operation turned into file changes, with the hashes it was computed against."""

    op: Operation
    type: EffectiveType
    changes: tuple[FileChange, ...]
    bases: Mapping[str, str | None]
    notes: tuple[str, ...] = ()

    @property
    def target(self) -> FileChange:
        return next(c for c in self.changes if c.role == "target")


class PlanError(Exception):
    """The operation cannot be done; the message says what to do instead."""

    def __init__(self, message: str, existing: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.existing = existing


def new_note_id() -> str:
    """A Dendron note id as Dendron makes one: 23 characters of `0-9a-z` (a note of another
    dialect does not use it)."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(23))


def _iso(moment: dt.datetime) -> str:
    return fm.format_scalar(moment)


@dataclass
class Planner:
    """Plans operations against the vault as it is now, for one author at one moment."""

    store: VaultStore
    author: str
    now: dt.datetime
    draft_status: str = "draft"
    # The names the index knows notes by (Logseq titles and aliases), read when links are
    # first resolved; None where links resolve by path alone.
    known_names: Callable[[], Mapping[str, Iterable[str]]] | None = None
    _resolver: LinkResolver | None = field(default=None, init=False)
    _paths: list[str] | None = field(default=None, init=False)
    _page_names: dict[str, str] = field(default_factory=dict, init=False)  # `spelled_path`

    # -- reading -----------------------------------------------------------------------------

    def paths(self) -> list[str]:
        if self._paths is None:
            self._paths = list(self.store.iter_paths())
        return self._paths

    def resolver(self) -> LinkResolver:
        if self._resolver is None:
            dialect = self.store.dialect
            names: dict[str, list[str]] = {}
            known = self.known_names() if self.known_names is not None else {}
            for path in self.paths():
                found = [*link_names(dialect, path), *known.get(path, ())]
                if found:
                    names[path] = found
            self._resolver = LinkResolver(self.paths(), names)
        return self._resolver

    @property
    def syntax(self) -> LinkSyntax:
        """How links are spelled in this vault (Dendron: `[[alias|target]]`)."""
        return link_syntax(self.store.dialect)

    def located(self, op: Operation) -> Operation:
        """`op` with its paths as files of the vault's dialect.

        An agent names a place in the context tree (`billing/cycle/dunning.md`); in a Logseq
        graph that page is `pages/billing___cycle___dunning.md`, in a Dendron vault
        `notes/billing.cycle.dunning.md`. A path that is a file already, or that names an
        existing note, is kept; in an Obsidian or Foam vault every path is a file.
        """
        dialect = self.store.dialect
        if isinstance(dialect, Obsidian | Foam):
            return op

        def locate(path: str) -> str:
            if is_file_path(dialect, path) or self.store.stat(path) is not None:
                return path
            found = self.resolver().resolve(link_target(path))
            if found is not None and found.lower() == file_for(dialect, path).lower():
                return found  # the same page, spelled in another case
            return file_for(dialect, path)

        moved: dict[str, Any] = {
            "path": locate(op.path),
            "merge_from": [locate(p) for p in op.merge_from],
            "move_from": locate(op.move_from) if op.move_from else None,
        }
        if moved == {"path": op.path, "merge_from": op.merge_from, "move_from": op.move_from}:
            return op
        return op.model_copy(update=moved)

    def spelled_path(self, path: str) -> str:
        """How a link written by the bridge names the existing note at `path` (a Logseq page
        by its title, which names it; a note not written yet by the name it will have)."""
        dialect = self.store.dialect
        if not isinstance(dialect, Logseq):
            return spell_link(dialect, path)
        if path not in self._page_names:  # a link per note rewritten asks it again
            try:
                file = self.store.read(path)
            except NoteError:
                file = None
            title = file.properties().meta.get("title") if file is not None else None
            self._page_names[path] = spell_link(
                dialect, path, title if isinstance(title, str) else None
            )
        return self._page_names[path]

    def _spelled(self, target: str, source: str) -> str:
        """A relation's inner link text as the vault's dialect spells it: the note it
        resolves to by its page or dotted name, or the name it will have."""
        dialect = self.store.dialect
        if isinstance(dialect, Obsidian | Foam):
            return target
        link = parse_wikilink(target)  # agents write `target|alias`, whatever the vault
        found = self.resolver().resolve(link.target, source)
        name = self.spelled_path(found) if found else spell_target(dialect, link.target)
        return replace(link, target=name, syntax=self.syntax).render()[2:-2]

    def read(self, path: str) -> NoteFile | None:
        """The note's bytes, None when missing; unusable notes are a `PlanError`."""
        try:
            return self.store.read(path)
        except NoteError as exc:
            if exc.problem.code == "missing":
                return None
            raise PlanError(exc.problem.message) from exc

    def _writable(self, file: NoteFile) -> Note:
        note = file.parse()
        if (blocking := note.blocking) is not None:
            raise PlanError(
                f"{blocking.message}; the bridge does not write this note until a human fixes it"
            )
        return note

    def _missing(self, op_type: str, path: str, hint: str) -> PlanError:
        guess = self.resolver().resolve(link_target(path))
        if guess is None:
            guess = self.resolver().resolve(stem(path))
        also = f" (did you mean `{guess}`?)" if guess and guess != path else ""
        return PlanError(f"{op_type}: no note at `{path}`{also}; {hint}")

    def key_for(self, source: str) -> Callable[[str], str]:
        syntax = self.syntax

        def key(target: str) -> str:
            found = self.resolver().resolve(parse_wikilink(target, syntax=syntax).target, source)
            return found.lower() if found else relation_key(target)

        return key

    def existing(self, file: NoteFile) -> dict[str, Any]:
        """What a failed ADD attaches so the caller can UPDATE or MERGE instead."""
        note = file.parse()
        return {
            "path": file.path,
            "base_hash": file.hash,
            "title": note.title,
            "summary": note.entry.summary,
            "text": file.text[:_EXISTING_CHARS],
        }

    # -- planning ----------------------------------------------------------------------------

    def plan(self, op: Operation) -> Plan:
        """The file changes `op` makes; `PlanError` when it cannot be done."""
        made = self._plan(self.located(op))
        limit = self.store.max_note_bytes
        for change in made.changes:
            if change.after is None:
                continue
            if len(change.after) > limit:
                raise PlanError(
                    f"{op.type}: `{change.path}` would be {len(change.after) / 1_048_576:.1f} MB, "
                    f"over the {limit / 1_048_576:.0f} MB note limit (setting max_note_bytes): "
                    "the bridge could not read it back; split the content into several entries"
                )
            # Read back as the index will: a note the bridge writes must stay one it can write.
            text = change.after.decode("utf-8")
            blocking = parse_note(change.path, text, self.store.dialect).blocking
            if blocking is not None:
                raise PlanError(
                    f"{op.type}: `{change.path}` would not read back ({blocking.message}); "
                    "nothing was written"
                )
        return made

    def _plan(self, op: Operation) -> Plan:
        current = self.read(op.path)
        match op.type:
            case "ADD":
                if current is not None:
                    raise PlanError(
                        f"ADD: `{op.path}` exists; use UPDATE or MERGE (its base_hash is "
                        f"{current.hash})",
                        self.existing(current),
                    )
                return self._add(op)
            case "UPSERT":
                return self._update(op, current) if current is not None else self._add(op)
            case "UPDATE":
                if current is None:
                    raise self._missing("UPDATE", op.path, "use ADD to create it")
                return self._update(op, current)
            case "MERGE":
                return self._merge(op, current)
            case "DELETE":
                if current is None:
                    raise self._missing("DELETE", op.path, "nothing to delete")
                change = FileChange(op.path, current.data, None, "target")
                return Plan(op, "DELETE", (change,), {op.path: current.hash})
            case "MOVE":
                return self._move(op, current)
        raise PlanError(f"unknown operation type {op.type}")  # pragma: no cover

    def _notes_for(self, op: Operation, source: str) -> tuple[str, ...]:
        notes = []
        for relation in op.relations or ():
            if self.resolver().resolve(parse_wikilink(relation.target).target, source) is None:
                notes.append(f"relation `@{relation.target}.md` points to no note yet")
        return tuple(notes)

    def _raw_concept(self, op: Operation) -> RawConcept:
        spec = op.raw_concept
        author = f"{self.author}, {_iso(self.now)}"
        if spec is None:
            return RawConcept(author=author)
        return RawConcept(spec.task, spec.changes, spec.source, spec.author or author)

    def check_new(self, path: str) -> None:
        """Refuse a new note outside the tree's `domain/topic[/subtopic]` levels (the
        dialect's levels: Logseq namespaces, Dendron dotted names) or with an unsafe name."""
        dialect = self.store.dialect
        try:
            normalise_note_path(path, new=True)
            check_new_entry_path(tree_path(dialect, path) + NOTE_SUFFIX)
        except ValueError as exc:
            raise PlanError(f"{exc}") from exc

    def _add(self, op: Operation) -> Plan:
        try:
            self.check_new(op.path)
        except PlanError as exc:
            raise PlanError(f"{op.type}: {exc}") from exc
        dialect = self.store.dialect
        entry = Entry(
            title=op.title or stem(tree_path(dialect, op.path)).replace("_", " "),
            summary=op.summary or "",
            tags=tuple(op.tags or ()),
            status=self.draft_status,
            created=self.now,
            updated=self.now,
            author=self.author,
            relations=tuple(
                relation_of(self._spelled(r.target, op.path), r.reason, self.syntax)
                for r in op.relations or ()
            ),
            raw_concept=self._raw_concept(op),
            narrative=op.narrative or "",
            snippets=tuple(Snippet(s.language, s.code) for s in op.snippets or ()),
        )
        data = render_new(dialect, entry, op.path, new_note_id()).encode("utf-8")
        change = FileChange(op.path, None, data, "target")
        return Plan(op, "ADD", (change,), {op.path: None}, self._notes_for(op, op.path))

    def raw_lines(self, op: Operation) -> tuple[tuple[str, str], ...]:
        if op.raw_concept is None:
            return ()
        rc = self._raw_concept(op)
        pairs = [("Task", rc.task), ("Changes", rc.changes), ("Source", rc.source)]
        return tuple((k, v) for k, v in [*pairs, ("Author", rc.author)] if v)

    def _update(self, op: Operation, current: NoteFile) -> Plan:
        self._writable(current)
        patch = EntryPatch(
            title=op.title,
            summary=op.summary,
            tags=tuple(op.tags) if op.tags is not None else None,
            relations=self.relation_lines(op, op.path),
            raw_concept=self.raw_lines(op),
            narrative=op.narrative,
            snippets=tuple((s.language, s.code) for s in op.snippets) if op.snippets else None,
            updated=self.now,
            author=self.author,
        )
        key = self.key_for(op.path)
        if self.patched(current.text, replace(patch, updated=None, author=None), key, op.path) == (
            current.text
        ):
            # Nothing but the timestamp would change: no write, so no mtime or sync churn.
            change = FileChange(op.path, current.data, current.data, "target")
        else:
            data = self.patched(current.text, patch, key, op.path).encode("utf-8")
            change = FileChange(op.path, current.data, data, "target")
        return Plan(op, "UPDATE", (change,), {op.path: current.hash}, self._notes_for(op, op.path))

    def relation_lines(self, op: Operation, source: str) -> tuple[RelationLine, ...]:
        """The operation's relations as lines to write, spelled in the vault's dialect."""
        return tuple(
            RelationLine(self._spelled(r.target, source), r.reason, self.syntax)
            for r in op.relations or ()
        )

    def patched(self, text: str, patch: EntryPatch, key: Callable[[str], str], path: str) -> str:
        """`text` with `patch` applied as the vault's dialect writes it."""
        try:
            return patch_note(self.store.dialect, text, patch, key, path)
        except FrontmatterError as exc:
            raise PlanError(f"`{path}`: {exc}; the bridge does not write it") from exc

    def rendered(self, entry: Entry, path: str) -> bytes:
        """A new entry at `path` as the vault's dialect writes it."""
        return render_new(self.store.dialect, entry, path, new_note_id()).encode("utf-8")

    def _merge(self, op: Operation, current: NoteFile | None) -> Plan:
        if current is None:  # merging into a new note: the rules for new names apply
            try:
                self.check_new(op.path)
            except PlanError as exc:
                raise PlanError(f"MERGE: {exc}") from exc
        sources: list[tuple[NoteFile, Note]] = []
        for path in op.merge_from:
            file = self.read(path)
            if file is None:
                raise self._missing("MERGE", path, "list only existing notes in `merge_from`")
            sources.append((file, file.parse()))
        gone = {f.path for f, _ in sources}
        target_note = self._writable(current) if current is not None else None
        merged_text = merged_content(self, op, current, target_note, sources, gone)
        bases: dict[str, str | None] = {op.path: current.hash if current else None}
        changes = [FileChange(op.path, current.data if current else None, merged_text, "target")]
        for file, _ in sources:
            bases[file.path] = file.hash
            changes.append(FileChange(file.path, file.data, None, "source"))
        titles = [note.title for _, note in sources]
        changes += self._link_changes(op.path, gone, skip={op.path}, titles=titles)
        # The merged entry may itself link to what it absorbed: point those links at itself.
        moved = {p: op.path for p in gone}
        text = merged_text.decode("utf-8")
        resolve = self._resolve_from(op.path)
        drop = {*gone, op.path}
        text = drop_relations(text, lambda target: resolve(target) in drop, self.syntax)
        spell = self._spell(gone, op.path)
        rewritten = rewrite_links(text, resolve, moved, spell, self.syntax)
        changes[0] = FileChange(op.path, changes[0].before, rewritten.encode("utf-8"), "target")
        return Plan(op, "MERGE", tuple(changes), bases, self._notes_for(op, op.path))

    def _move(self, op: Operation, there: NoteFile | None) -> Plan:
        """The note at `from`, renamed to `path` with its bytes, and every link kept.

        The note's own text changes only where one of its links would mean another note from
        its new folder, where it names itself (a Logseq page's `title::`), or where it points
        relative to its folder (Foam's link reference definitions); frontmatter (`created`,
        `status`, `author`) and Raw Concept stay as they are, and the lifecycle record follows
        it (the executor moves it).
        """
        old, new = op.subject, op.path
        if there is not None:
            raise PlanError(f"MOVE: `{new}` exists; MERGE `{old}` into it, or choose a free path")
        try:
            self.check_new(new)
        except PlanError as exc:
            raise PlanError(f"MOVE: {exc}") from exc
        current = self.read(old)
        if current is None:
            raise self._missing("MOVE", old, "`from` must name an existing note")
        note = self._writable(current)
        dialect = self.store.dialect
        # A Logseq page's `title::` names it: it says the new name (the move's only edit).
        text = moved_text(dialect, current.text, new)
        # After the move the note answers to the names its text gives it there (a Logseq
        # page's new name, and its aliases still: a link by an alias keeps finding it).
        before = self.resolver()
        after = before.updated([new], [old], {new: parse_note(new, text, dialect).names})
        moved = (old, new)
        spell = None if isinstance(dialect, Obsidian | Foam) else self._spell({old}, new)
        notes = set(self.paths())
        # A Logseq page is also named by bare tags and plain `tags::` items: by its name as
        # Logseq shows it (its `title::`, else its file's) and by the name of its file.
        old_names = [note.title, page_name(dialect, old)]

        def relinked(text: str, source: tuple[str, str]) -> str:
            text = relink(text, source, moved, before, after, spell, self.syntax)
            if isinstance(dialect, Foam):
                text = relink_definitions(text, source, moved, notes)
            if isinstance(dialect, Logseq):
                text = rewrite_tags(text, old_names, page_name(dialect, new))
            return text

        text = relinked(text, moved)
        changes = [
            FileChange(new, None, text.encode("utf-8"), "target"),
            FileChange(old, current.data, None, "moved"),
        ]
        names = {stem(old).lower(), stem(new).lower(), *before.names_of(old)}
        names |= {page_name(dialect, p).lower().rsplit("/", 1)[-1] for p in (old, new)}
        for file in self._referencing(names, {old}, definitions=True):
            rewritten = relinked(file.text, (file.path, file.path))
            if rewritten != file.text:
                changes.append(FileChange(file.path, file.data, rewritten.encode("utf-8"), "link"))
        return Plan(op, "MOVE", tuple(changes), {old: current.hash, new: None})

    # -- links -------------------------------------------------------------------------------

    def _resolve_from(self, source: str) -> Callable[[str], str | None]:
        resolver = self.resolver()
        return lambda target: resolver.resolve(target, source)

    def _spell(self, gone: set[str], new_path: str) -> Callable[[WikiLink, str], str]:
        dialect = self.store.dialect
        if not isinstance(dialect, Obsidian | Foam):
            name = self.spelled_path(new_path)  # a page or dotted name
            return lambda link, path: name if path == new_path else self.spelled_path(path)
        after = LinkResolver([p for p in self.paths() if p not in gone] + [new_path])

        def spell(link: WikiLink, path: str) -> str:
            if "/" not in link.target and after.resolve(stem(path)) == path:
                return stem(path)
            return link_target(path)

        return spell

    def _link_changes(
        self, new_path: str, gone: set[str], skip: set[str], titles: Sequence[str] = ()
    ) -> list[FileChange]:
        """Every other note whose links resolve to a removed note, rewritten to `new_path`
        (in a Logseq graph its bare tags and plain `tags::` items too, by the removed pages'
        `titles` and file names)."""
        moves = {p: new_path for p in gone}
        dialect = self.store.dialect
        names = {stem(p).lower() for p in gone}
        names |= {page_name(dialect, p).lower().rsplit("/", 1)[-1] for p in gone}
        names |= {name for p in gone for name in self.resolver().names_of(p)}
        spell = self._spell(gone, new_path)
        logseq = isinstance(dialect, Logseq)
        tag_names = [*titles, *(page_name(dialect, p) for p in gone)] if logseq else []
        new_name = self.spelled_path(new_path) if logseq else ""
        changes = []
        for file in self._referencing(names, gone | skip):
            resolve = self._resolve_from(file.path)
            text = rewrite_links(file.text, resolve, moves, spell, self.syntax)
            if logseq:
                text = rewrite_tags(text, tag_names, new_name)
            if text != file.text:
                changes.append(FileChange(file.path, file.data, text.encode("utf-8"), "link"))
        return changes

    def _referencing(
        self, names: set[str], skip: set[str], definitions: bool = False
    ) -> Iterator[NoteFile]:
        """The notes but `skip` that may reference a note by one of `names` (lower case): a
        `[[link]]`, in a Logseq graph a tag too, and with `definitions` a Foam link reference
        definition. A note a human must fix first is never written: its links stay."""
        dialect = self.store.dialect
        logseq = isinstance(dialect, Logseq)
        defines = definitions and isinstance(dialect, Foam)
        for path in self.paths():
            if path in skip:
                continue
            try:
                file = self.store.read_listed(path)  # listed by `paths`: no second resolve
            except NoteError:
                continue
            lowered = file.text.lower()
            marked = (
                "[[" in lowered
                or (defines and "]:" in lowered)
                or (logseq and ("#" in lowered or "tags::" in lowered))
            )
            named = marked and any(name in lowered for name in names)
            if named and file.properties().blocking is None:  # what stops a write is there
                yield file
