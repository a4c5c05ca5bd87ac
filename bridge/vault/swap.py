"""Putting a written temp file in a note's place only while the note holds what the writer read.

An agent UPDATE reads a note, builds its new bytes, and renames them in. A human who appends a
line through an open file, or saves through an editor's own temp file and rename, in the
milliseconds between would lose the line, and a human `mv` in that instant would leave the old
path recreated beside the moved note. A rename alone cannot be made safe: it replaces whatever
the path holds at that instant, and a writer that opened the file before it keeps writing into
the replaced file, which is then gone.

On Linux, a read lease on the note (`fcntl` `F_SETLEASE`) is granted only while no one
has it open for writing, and a writer that opens it afterwards waits where the lease holder can
see it (`F_GETLEASE`). With the lease held and the bytes checked, `renameat2(RENAME_EXCHANGE)`
puts the new file in and hands back exactly what it replaced: anything but the file that was
checked (a human's rename), or a writer waiting on it, and the human's file goes back in place
and the write is refused. A missing note makes the exchange fail, so a moved note is never
recreated. Elsewhere (macOS, Windows, file systems without leases or exchange), a hard link
keeps the replaced file and its bytes are compared after the rename; that cannot see a writer
that opened the note before the rename and writes after it, nor a move in that instant.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

_RENAME_NOREPLACE, _RENAME_EXCHANGE = 1, 2  # linux/fs.h
_AT_FDCWD = -100
# How long a write waits for a human's editor or script that holds the note open for writing
# to close it, before the agent's change goes to review instead.
WRITER_WAIT_SECONDS = 2.0
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EACCES}


class Displaced(Exception):  # noqa: N818 - an outcome, not a programming error
    """The note did not hold the bytes the writer read; `current` is what it holds (None: gone).

    Nothing of the writer's is left in place.
    """

    def __init__(self, current: bytes | None) -> None:
        super().__init__("the note changed while it was being written")
        self.current = current


def _load_renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library older than glibc 2.28, or none
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes += [ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


_renameat2 = _load_renameat2()


def _rename(first: Path, second: Path, flags: int) -> None:
    if _renameat2 is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available here")
    if _renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), flags) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(second))


def exchange(first: Path, second: Path) -> None:
    """Swap two names atomically; `OSError` (ENOENT when one is missing, ENOSYS unsupported)."""
    _rename(first, second, _RENAME_EXCHANGE)


def move(source: Path, target: Path, expected: bytes) -> None:
    """Rename `source` to `target` if it holds `expected` and nothing is at `target`.

    `Displaced` when the note changed or is gone; `FileExistsError` when `target` exists. A
    rename keeps the file itself, so a human writing into it meanwhile writes into the moved
    note: nothing can be lost, and the bytes are checked only so the move is the one reviewed.
    """
    current = bytes_or_none(source)
    if current != expected:
        raise Displaced(current)
    try:
        _rename(source, target, _RENAME_NOREPLACE)  # one step, never over an existing file
        return
    except FileNotFoundError:
        raise Displaced(None) from None
    except OSError as exc:
        if exc.errno not in _UNSUPPORTED:
            raise
    try:
        os.link(source, target)  # refuses an existing file too, in two steps
    except FileNotFoundError:
        raise Displaced(None) from None
    except FileExistsError:
        raise
    except OSError:  # no hard links either: check, then rename
        if target.exists():
            raise FileExistsError(errno.EEXIST, "exists", str(target)) from None
        source.rename(target)
        return
    source.unlink()


def _lease(fd: int) -> bool | None:
    """Take a read lease: True taken, False someone has the file open for writing, None
    leases are not available here."""
    try:
        import fcntl
    except ImportError:  # Windows
        return None
    if not hasattr(fcntl, "F_SETLEASE"):
        return None
    try:
        # A lease break signals the holder, by default with SIGIO, which ends a Python process.
        # SIGURG is ignored unless a handler is set; the break is read with F_GETLEASE instead.
        fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
    except OSError as exc:
        if exc.errno == errno.EAGAIN:
            return False
        return None
    return True


def _writer_waiting(fd: int) -> bool:
    """True when someone is opening the leased file for writing (the lease is being broken)."""
    import fcntl

    return bool(fcntl.fcntl(fd, fcntl.F_GETLEASE) != fcntl.F_RDLCK)


def _unlease(fd: int) -> None:
    import fcntl

    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)


def _read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def bytes_or_none(path: Path) -> bytes | None:
    """The file's bytes, None when it cannot be read (gone)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def _settled(fd: int, deadline: float) -> bool | None:
    """Hold a read lease on `fd`, waiting for writers to close it until `deadline`.

    True: held, nobody can be writing. False: a writer kept it open. None: no leases here.
    """
    while True:
        taken = _lease(fd)
        if taken is not False or time.monotonic() >= deadline:
            return taken
        time.sleep(0.002)  # a human's append takes microseconds; an editor's save, a few ms


def create(temp: Path, target: Path) -> None:
    """Put `temp` at `target` only if nothing is there: a hard link fails when it exists."""
    try:
        os.link(temp, target)
    except FileExistsError as exc:
        raise Displaced(bytes_or_none(target)) from exc
    except OSError:
        # No hard links here (some network or FAT file systems): check, then rename.
        if target.exists():
            raise Displaced(bytes_or_none(target)) from None
        temp.replace(target)
        return
    temp.unlink()


def replace(temp: Path, target: Path, kept: Path, expected: bytes) -> bytes | None:
    """Rename `temp` over `target` if and only if `target` holds `expected`; else `Displaced`.

    `kept` is a free name beside them, for the portable way. Returns None, or, in the one case
    the lease cannot rule out (a writer whose open began before the swap and reached the old
    file just after it), what that writer made of the old file once it closed it: the caller
    puts those bytes back. On `Displaced`, `temp` is left for the caller to remove.
    """
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise Displaced(None) from None
    try:
        held = _settled(fd, time.monotonic() + WRITER_WAIT_SECONDS)
        if held is None:
            os.close(fd)
            fd = -1
            _replace_portably(temp, target, kept, expected)
            return None
        current = _read_all(fd)
        if held is False or current != expected:
            raise Displaced(current)
        if not _exchange_checked(temp, target, kept, expected, fd):
            return None
        if not _writer_waiting(fd):
            return None
        # The old file is out of the vault, but a writer reached it: let it finish, read it.
        _unlease(fd)
        _settled(fd, time.monotonic() + WRITER_WAIT_SECONDS)
        late = _read_all(fd)
        return late if late != expected else None
    finally:
        if fd >= 0:
            os.close(fd)  # releases the lease: a writer waiting on it goes on


def _exchange_checked(temp: Path, target: Path, kept: Path, expected: bytes, fd: int) -> bool:
    """With a lease on the note (`fd`) and its bytes checked: swap `temp` in, or undo.

    True when the exchange was made (False: the portable way was taken instead).
    """
    checked = os.fstat(fd)
    try:
        exchange(temp, target)
    except OSError as exc:
        if exc.errno == errno.ENOENT:  # moved or deleted a moment ago: never recreate it
            raise Displaced(None) from None
        if exc.errno in _UNSUPPORTED:
            _unlease(fd)
            _replace_portably(temp, target, kept, expected)
            return False
        raise
    # `temp` now names what `target` held an instant ago.
    replaced = os.lstat(temp)
    if (replaced.st_dev, replaced.st_ino) != (checked.st_dev, checked.st_ino) or _writer_waiting(
        fd
    ):
        # A human's file was renamed in, or a writer is about to write the note we read:
        # theirs goes back in place (our new file comes back to `temp`, for the caller to drop).
        exchange(temp, target)
        raise Displaced(bytes_or_none(target))
    temp.unlink()
    return True


def _replace_portably(temp: Path, target: Path, kept: Path, expected: bytes) -> None:
    """Without leases: keep the replaced file (a hard link), rename, and compare it after."""
    try:
        os.link(target, kept)
    except FileNotFoundError:
        raise Displaced(None) from None
    except OSError:
        if target.read_bytes() != expected:  # no hard links: the best we can do is look again
            raise Displaced(bytes_or_none(target)) from None
        temp.replace(target)
        return
    try:
        if kept.read_bytes() != expected:
            raise Displaced(bytes_or_none(target))
        temp.replace(target)
        replaced = kept.read_bytes()
        if replaced != expected:
            kept.replace(target)  # the human's bytes back where they were
            raise Displaced(replaced)
    finally:
        with contextlib.suppress(FileNotFoundError):
            kept.unlink()
