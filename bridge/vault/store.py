"""The vault store: the only code that reads and writes note files.

Contract (DESIGN section 1): reading never changes a byte or an mtime; a write whose bytes equal
the file's current bytes is skipped; every write is atomic (unique temp file in the same folder,
fsync, rename, fsync of the folder) so a crash leaves either the old note or the new one; the
temp names carry `TEMP_MARKER` and a leading dot so Obsidian, sync tools and our watcher ignore
them; nothing is ever read or written outside the vault.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import logging
import os
import secrets
import stat
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bridge.core import frontmatter as fm
from bridge.core.dialect import OBSIDIAN, Dialect
from bridge.core.dialect_write import set_property_text
from bridge.core.entry import Note, Problem, Properties, parse_note, read_note_properties
from bridge.core.paths import UnsafePathError, normalise_folder, normalise_note_path
from bridge.vault import swap
from bridge.vault.changes import ChangeLog, ChangeRecorder
from bridge.vault.ignore import TEMP_MARKER, IgnoreRules
from bridge.vault.journal import WriteJournal

DEFAULT_MAX_NOTE_BYTES = 8 * 1024 * 1024
log = logging.getLogger(__name__)
_BINARY_SNIFF = 8192


def content_hash(data: bytes) -> str:
    """The hash that identifies a note's exact bytes (reviews, own-write suppression, moves)."""
    return hashlib.sha256(data).hexdigest()


class VaultError(Exception):
    """A problem with the vault itself (missing folder...), as a message for the user."""


class NoteError(Exception):
    """A note that cannot be read or written; `problem` says which and why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass(frozen=True)
class NoteFile:
    """A note's bytes as read, with the stat fields used to detect changes cheaply."""

    path: str
    data: bytes
    text: str
    size: int
    mtime_ns: int
    hash: str
    problems: tuple[Problem, ...] = ()
    dialect: Dialect = OBSIDIAN  # the vault's: how the note is read

    @property
    def digest(self) -> bytes:
        """`hash` as bytes, as the index's records keep it."""
        return bytes.fromhex(self.hash)

    def parse(self) -> Note:
        """The parsed note; read problems (e.g. not UTF-8) are merged into its problems."""
        note = parse_note(self.path, self.text, self.dialect)
        if not self.problems:
            return note
        return replace(note, problems=self.problems + note.problems)

    def properties(self) -> Properties:
        """The frontmatter alone (`read_note_properties`), read problems merged the same way."""
        props = read_note_properties(self.path, self.text, self.dialect)
        if not self.problems:
            return props
        return replace(props, problems=self.problems + props.problems)


class WriteConflictError(NoteError):
    """The note changed after the writer read it: the write was not made (or was undone).

    `current` holds the note's bytes as they are now (None: it is gone), so the caller can
    send the change to review with a diff against them.
    """

    def __init__(self, path: str, current: bytes | None) -> None:
        super().__init__(
            Problem(
                path,
                "write_conflict",
                f"{path}: the note changed while the bridge was writing it (a human edit landed "
                "first); nothing was overwritten",
                blocks_writes=False,
            )
        )
        self.current = current


_UNCHECKED: Any = object()


@dataclass(frozen=True)
class WriteResult:
    """What a write did: `changed` is False when the bytes were already there."""

    path: str
    changed: bool
    hash: str


class VaultStore:
    """Lists, reads and atomically writes the notes of one vault folder."""

    def __init__(
        self,
        root: Path,
        ignore: IgnoreRules | None = None,
        max_note_bytes: int = DEFAULT_MAX_NOTE_BYTES,
        journal: WriteJournal | None = None,
        dialect: Dialect = OBSIDIAN,
    ) -> None:
        if not root.exists():
            raise VaultError(f"vault folder {root} does not exist; create it or run `init`")
        if not root.is_dir():
            raise VaultError(f"vault path {root} is not a folder")
        self.root = root.resolve()
        self.ignore = ignore or IgnoreRules()
        self.max_note_bytes = max_note_bytes
        # Every write is recorded here so the watcher does not take it for a human edit.
        self.journal = journal
        # The tool whose conventions the vault follows: notes are read and written in them.
        self.dialect = dialect
        # Every change, for the git commit of the unit of work making it (`recording`).
        self.changes = ChangeRecorder()

    # -- paths -----------------------------------------------------------------------------

    def absolute(self, rel_path: str) -> Path:
        """The file of a vault path, refusing any spelling or symlink that leaves the vault."""
        rel = normalise_note_path(rel_path)
        target = self.root / rel
        if not rel.isascii() and not target.exists():  # no extra stat for ASCII names
            # A note named on macOS is often NFD on disk, while agents and links spell it NFC.
            for form in ("NFD", "NFC"):
                other = self.root / unicodedata.normalize(form, rel)
                if other.exists():
                    target = other
                    break
        try:
            resolved = target.resolve()
        except (RuntimeError, OSError) as exc:  # a symlink loop (RuntimeError before 3.13)
            raise UnsafePathError(f"path `{rel_path}` is a symlink loop") from exc
        if resolved != self.root and self.root not in resolved.parents:
            raise UnsafePathError(f"path `{rel_path}` resolves outside the vault (symlink?)")
        link = self._folder_link(self.relative(target.parent) if target.parent != self.root else "")
        if link is not None:
            # `loop -> .` made `loop/a/b.md` another name of `a/b.md`: written once, indexed
            # twice. The walk never enters a folder symlink; a path through one is refused.
            raise UnsafePathError(self._link_problem(link, rel_path))
        return target

    def _folder_link(self, folder: str) -> str | None:
        """The first folder of the vault path `folder` that is a symlink, else None."""
        current = self.root
        walked: list[str] = []
        for part in folder.split("/"):
            if not part:
                continue
            current = current / part
            walked.append(part)
            try:
                if stat.S_ISLNK(os.lstat(current).st_mode):
                    return "/".join(walked)
            except OSError:
                return None  # not there: nothing under it is either
        return None

    def _link_problem(self, link: str, named: str) -> str:
        try:
            real = (self.root / link).resolve(strict=True)
            where = "inside the vault" if self.root in real.parents or real == self.root else ""
        except (OSError, RuntimeError):
            where = ""
        kind = (
            f"a folder symlink {where}".strip() if where else "a folder symlink leaving the vault"
        )
        return (
            f"`{named}` goes through `{link}`, {kind}; the bridge reads and writes only the "
            "vault's own folders (it never enters a folder symlink)"
        )

    def check_folder(self, folder: str) -> str:
        """A folder a caller names (`normalise_folder`), refused when a symlink is on its way.

        `tree`, `graph`, overviews and MCP `memory_tree` answered an empty 200 for a folder
        symlink that leaves the vault; the walk never enters one, so it is a bad path.
        """
        rel = normalise_folder(folder)
        link = self._folder_link(rel)
        if link is not None:
            raise UnsafePathError(self._link_problem(link, folder))
        return rel

    def relative(self, path: Path) -> str:
        """The vault path of a file under the root (POSIX separators)."""
        return path.relative_to(self.root).as_posix()

    # -- listing ---------------------------------------------------------------------------

    def iter_paths(
        self, under: str = "", folder_links: Callable[[str], None] | None = None
    ) -> Iterator[str]:
        """Vault paths of every note in a deterministic walk, by the ignore rules. Never raises.

        `under` limits the walk to one folder of the vault (the watcher rescans a folder that
        appeared or was renamed); an ignored, missing or unsafe folder yields nothing. Folder
        symlinks are never entered (one may leave the vault or loop); `folder_links` is told
        the vault path of each, for `doctor`.
        """
        top = self.root
        if under:
            top = self.root / under
            try:
                resolved = top.resolve()
            except (OSError, ValueError):  # a NUL in the name, a loop of links
                return
            if self.ignore.ignores_dir(under) or self.root not in resolved.parents:
                return
        for dirpath, dirnames, filenames in os.walk(top, onerror=lambda _e: None):
            rel_dir = Path(dirpath).relative_to(self.root).as_posix()
            rel_dir = "" if rel_dir == "." else rel_dir
            dirnames[:] = sorted(
                d for d in dirnames if not self.ignore.ignores_dir(f"{rel_dir}/{d}".lstrip("/"))
            )
            if folder_links is not None:
                for name in dirnames:
                    if (Path(dirpath) / name).is_symlink():
                        folder_links(f"{rel_dir}/{name}".lstrip("/"))
            for name in sorted(filenames):
                rel = f"{rel_dir}/{name}".lstrip("/")
                if not self.ignore.ignores(rel):
                    yield rel

    # -- reading ---------------------------------------------------------------------------

    def _problem(self, rel: str, code: str, message: str) -> NoteError:
        return NoteError(Problem(rel, code, f"{rel}: {message}"))  # type: ignore[arg-type]

    def _special(self, rel: str, mode: int) -> NoteError:
        if stat.S_ISDIR(mode):
            return self._problem(rel, "unreadable", "is a folder, not a note")
        kind = (
            "a FIFO (named pipe)"
            if stat.S_ISFIFO(mode)
            else "a device, socket or other special file"
        )
        return self._problem(rel, "special_file", f"is {kind}, not a regular file; never read")

    def read(self, rel_path: str) -> NoteFile:
        """Read a note without changing it. Raises `NoteError` naming the file and the reason."""
        rel = rel_path
        try:
            target = self.absolute(rel_path)
            rel = self.relative(target)
        except UnsafePathError as exc:
            raise self._problem(rel, "outside_vault", str(exc)) from exc
        try:
            # The type is checked before opening: opening a FIFO named `x.md` blocks until a
            # writer appears, which hung every command (and the watcher) forever. O_NONBLOCK
            # covers a FIFO swapped in between the check and the open; fstat then refuses it.
            # O_NOFOLLOW is not needed: `absolute` already refused links leaving the vault.
            kind = target.stat().st_mode
            if not stat.S_ISREG(kind):
                raise self._special(rel, kind)
            fd = os.open(target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            return self._read_open(rel, fd)
        except OSError as exc:
            raise self._os_problem(rel, exc) from exc

    def read_listed(self, rel: str) -> NoteFile:
        """`read` for a path `iter_paths` just listed, without resolving its folders again.

        Start-up reads every note of the vault, and resolving each path (one `lstat` per
        folder above it) would be a good part of a cold index. The walk never enters a linked
        folder, so the folders of a listed path are the vault's own; only the file itself can
        be a link, which `O_NOFOLLOW` refuses. A link, a special file or a name
        that `read` would spell differently takes `read`'s checked way.
        """
        nofollow = getattr(os, "O_NOFOLLOW", 0)
        try:
            canonical = bool(nofollow) and normalise_note_path(rel) == rel
        except UnsafePathError:
            canonical = False
        if not canonical:
            return self.read(rel)
        target = f"{self.root}/{rel}"
        try:
            if not stat.S_ISREG(os.lstat(target).st_mode):
                return self.read(rel)
            fd = os.open(target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | nofollow)
        except OSError:
            return self.read(rel)  # gone, or swapped for a link since the walk
        try:
            return self._read_open(rel, fd)
        except OSError as exc:
            raise self._os_problem(rel, exc) from exc

    def _read_open(self, rel: str, fd: int) -> NoteFile:
        """The note behind an open descriptor (closed here): checked, read, decoded, hashed."""
        with os.fdopen(fd, "rb", buffering=0) as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise self._special(rel, info.st_mode)
            if info.st_size > self.max_note_bytes:
                mb = info.st_size / 1_048_576
                limit = self.max_note_bytes / 1_048_576
                raise self._problem(
                    rel,
                    "too_large",
                    f"{mb:.1f} MB is over the {limit:.0f} MB note limit "
                    "(setting max_note_bytes); it is not indexed",
                )
            data = handle.readall()
        if b"\x00" in data[:_BINARY_SNIFF]:
            raise self._problem(rel, "binary", "binary content (NUL bytes) in a .md file")
        problems: tuple[Problem, ...] = ()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            # Still index it, so its words stay findable, but never write it back.
            text = data.decode("utf-8", errors="replace")
            problems = (
                Problem(
                    rel,
                    "not_utf8",
                    f"{rel}: not valid UTF-8 (byte {exc.start}); shown with replacement "
                    "characters and never written by the bridge; re-save it as UTF-8",
                ),
            )
        return NoteFile(
            rel,
            data,
            text,
            info.st_size,
            info.st_mtime_ns,
            content_hash(data),
            problems,
            self.dialect,
        )

    def _os_problem(self, rel: str, exc: OSError) -> NoteError:
        if isinstance(exc, FileNotFoundError):
            return self._problem(rel, "missing", "the note does not exist")
        if isinstance(exc, PermissionError):
            return self._problem(rel, "unreadable", "permission denied")
        if isinstance(exc, IsADirectoryError):
            return self._problem(rel, "unreadable", "is a folder, not a note")
        if exc.errno == errno.ELOOP:
            return self._problem(rel, "outside_vault", "symlink loop")
        return self._problem(rel, "unreadable", exc.strerror or str(exc))

    def stat_listed(self, rel: str) -> tuple[int, int] | None:
        """`stat` for a path `iter_paths` listed (`read_listed`'s way: its folders are the
        vault's own, so they are not resolved again; a link is not followed)."""
        try:
            info = os.lstat(f"{self.root}/{rel}")
        except OSError:
            return None
        return info.st_size, info.st_mtime_ns

    def stat(self, rel_path: str) -> tuple[int, int] | None:
        """(size, mtime_ns) of a note without reading it; None when it is gone or unsafe."""
        try:
            info = self.absolute(rel_path).stat()
        except (OSError, UnsafePathError):
            return None
        return info.st_size, info.st_mtime_ns

    def exists(self, rel_path: str) -> bool:
        """True when a note file exists at the path (a safe path is required)."""
        return self.absolute(rel_path).is_file()

    def check_folders(self, rel_path: str) -> None:
        """Raise `UnsafePathError` when a file sits where a folder of `rel_path` must be.

        Writing `a/b.md/c.md` next to the note `a/b.md` was an unexplained
        `NotADirectoryError` naming the vault's absolute path (a 500 in the API).
        """
        folders = normalise_note_path(rel_path).split("/")[:-1]
        for depth in range(1, len(folders) + 1):
            folder = "/".join(folders[:depth])
            if not (self.root / folder).is_dir() and (self.root / folder).exists():
                raise UnsafePathError(
                    f"`{folder}` is a file, not a folder: `{rel_path}` cannot be written"
                )

    # -- writing ---------------------------------------------------------------------------

    def write(self, rel_path: str, data: bytes, expected: bytes | None = _UNCHECKED) -> WriteResult:
        """Atomically replace (or create) a note with `data`; skip it when nothing changes.

        `expected` makes it a compare-and-swap: the bytes the writer based `data` on (None: the
        note must not exist yet). An agent UPDATE reads, builds, then renames over the file, and
        a plain rename would lose a human append landing in between: the new file takes the
        note's place only while the note holds `expected` and nobody is writing it
        (`swap.replace`); a human write that slipped
        in stays, or is put back, and is reported as `WriteConflictError`: the human's text
        always survives, and a note moved meanwhile is never recreated.
        """
        target = self.absolute(rel_path)
        rel = self.relative(target)
        new_hash = content_hash(data)
        mode = 0o644
        current: bytes | None = None
        try:
            current = target.read_bytes()
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            pass
        except NotADirectoryError:
            self.check_folders(rel)
            raise
        if expected is not _UNCHECKED and current != expected:
            raise WriteConflictError(rel, current)
        if current is None:
            # A note the bridge creates gets a name every platform and link can carry;
            # existing notes keep whatever name a human gave them.
            normalise_note_path(rel, new=True)
        if current == data:
            return WriteResult(rel, False, new_hash)
        folder = target.parent
        folder.mkdir(parents=True, exist_ok=True)
        if folder.resolve() != self.root and self.root not in folder.resolve().parents:
            raise UnsafePathError(f"path `{rel_path}` resolves outside the vault")
        token = secrets.token_hex(6)
        temp = folder / _temp_name(target.name, token)
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if self.journal is not None:
                # Before the rename: the watcher's event for `target` must find the entry.
                self.journal.record(rel, new_hash)
            late = None
            if expected is _UNCHECKED:
                temp.replace(target)
            elif expected is None:
                swap.create(temp, target)
            else:
                kept = folder / _temp_name(target.name, token, "-was")
                late = swap.replace(temp, target, kept, expected)
        except swap.Displaced as exc:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
            raise WriteConflictError(rel, exc.current) from None
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
            raise
        _fsync_dir(folder)
        self.changes.note(rel, current, data)
        if late is not None:
            self._put_back(rel, late, data)
        return WriteResult(rel, True, new_hash)

    def recording(self) -> contextlib.AbstractContextManager[ChangeLog]:
        """Log the changes this thread makes to notes until the block ends (`ChangeLog`)."""
        return self.changes.recording()

    def removed(self, rel: str, before: bytes | None) -> None:
        """A note was taken out of the vault by a writer beside the store (the trash)."""
        self.changes.note(rel, before, None)

    def _put_back(self, rel: str, human: bytes, ours: bytes) -> None:
        """A human wrote into the note just as it was replaced: their bytes go back in place.

        Raises `WriteConflictError`, as if their edit had come a moment earlier. If the note
        has changed again since, their bytes are kept beside it as a conflict copy (the name
        sync tools use, which Obsidian shows and the bridge ignores).
        """
        try:
            self.write(rel, human, expected=ours)
        except WriteConflictError:
            target = self.absolute(rel)
            copy = target.with_name(f"{target.stem} (conflicted copy {secrets.token_hex(3)}).md")
            with copy.open("xb") as handle:
                handle.write(human)
            log.warning("%s: a human edit made during a write was kept as %s", rel, copy.name)
        raise WriteConflictError(rel, human)

    def move(self, old_path: str, new_path: str, expected: bytes, back: bool = False) -> str:
        """Rename a note to a new path (folders made as needed); returns the new vault path.

        Only while it holds `expected` (else `WriteConflictError`) and only to a free name that
        every platform can hold (else `UnsafePathError`, or `FileExistsError` when taken). The
        file itself moves, so its bytes, times and any open handle go with it; the watcher
        sees a rename. `back`: undoing a move, to the name the note had (a human's name may be
        one a new note could not take, such as `C# tips.md`).
        """
        source = self.absolute(old_path)
        old = self.relative(source)
        new = normalise_note_path(new_path, new=not back)
        self.check_folders(new)
        target = self.absolute(new)
        folder = target.parent
        folder.mkdir(parents=True, exist_ok=True)
        if folder.resolve() != self.root and self.root not in folder.resolve().parents:
            raise UnsafePathError(f"path `{new_path}` resolves outside the vault")
        if self.journal is not None:
            self.journal.record(new, content_hash(expected))
        try:
            swap.move(source, target, expected)
        except swap.Displaced as exc:
            raise WriteConflictError(old, exc.current) from None
        _fsync_dir(folder)
        _fsync_dir(source.parent)
        self.changes.note(old, expected, None)
        self.changes.note(new, None, expected)
        return new

    def discard(self, rel_path: str, expected: bytes) -> bool:
        """Remove a note the bridge itself just created, only while it holds `expected`.

        For undoing an operation that failed half-way; a note someone changed stays.
        """
        target = self.absolute(rel_path)
        try:
            if target.read_bytes() != expected:
                return False
            target.unlink()
        except FileNotFoundError:
            return False
        _fsync_dir(target.parent)
        self.changes.note(self.relative(target), expected, None)
        return True

    def set_frontmatter(self, rel_path: str, key: str, value: object) -> WriteResult:
        """Change one property surgically, as the vault's dialect keeps it (a frontmatter key;
        a Logseq page's `key:: value` line); refuse notes the bridge must not write."""
        note = self.read(rel_path)
        if (blocking := note.parse().blocking) is not None:
            raise NoteError(blocking)
        try:
            new_text = set_property_text(self.dialect, note.text, key, value)
        except fm.FrontmatterError as exc:
            raise NoteError(
                Problem(note.path, "malformed_frontmatter", f"{note.path}: {exc}")
            ) from exc
        return self.write(note.path, new_text.encode("utf-8"), expected=note.data)

    def clean_temp_files(self, older_than_seconds: float = 60.0) -> list[str]:
        """Remove temp files a crash left mid-write (the note itself is intact).

        Only files older than `older_than_seconds`, unless the caller knows that no process of
        the bridge can be writing one: `serve` at start holds the vault lock and the writer's
        lock and passes 0, so the `.<note>.md.vb-tmp-<hex>` a kill -9 mid-write leaves is gone
        even when the service restarts at once.
        """
        removed = []
        cutoff = time.time() - older_than_seconds
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d not in {".git", ".obsidian", ".trash"}]
            for name in filenames:
                if TEMP_MARKER not in name or not name.startswith("."):
                    continue
                path = Path(dirpath) / name
                with contextlib.suppress(OSError):
                    info = path.lstat()
                    if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                        path.unlink()
                        removed.append(self.relative(path))
        return removed


def _temp_name(name: str, token: str, suffix: str = "") -> str:
    """`.<name>.vb-tmp-<token><suffix>`, the note's name cut so the whole fits in 255 bytes.

    A note whose name is near the file system's limit (a human's, or a new one) could not be
    written: its temp name was too long.
    """
    tail = f"{TEMP_MARKER}{token}{suffix}"
    room = 255 - 1 - len(tail.encode("utf-8"))
    cut = name.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore")
    return f".{cut}{tail}"


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable: without it a power cut can forget the new directory entry."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
