"""Vault-relative paths: the one spelling every layer agrees on, and the rules for new names.

A note is named by its POSIX path relative to the vault root, with the `.md` suffix
(`engineering/auth/jwt_expiry.md`). Agents and links often leave the suffix off or add a leading
`@`; `normalise_note_path` accepts those spellings and refuses anything that could leave the vault.
"""

from __future__ import annotations

import re
import unicodedata

NOTE_SUFFIX = ".md"

# Windows forbids these in file names; Obsidian additionally forbids the link syntax characters,
# because a note called `a#b` or `a|b` could never be linked to.
_WINDOWS_ILLEGAL = set('<>:"|?*\\')
_OBSIDIAN_ILLEGAL = set("#^[]|")
_WINDOWS_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)
_MAX_SEGMENT_BYTES = 255


class UnsafePathError(ValueError):
    """A path that would leave the vault or cannot exist on every platform Obsidian runs on."""


# Bidirectional overrides and other invisible format characters (Unicode category Cf) make a
# name display differently from what it is (`evil\u202egnp.md` shows as `evilpng.md`).
def _invisible(c: str) -> bool:
    return unicodedata.category(c) in {"Cc", "Cf"}


def _check_segment(segment: str, original: str, strict: bool) -> None:
    if segment in {"", "."}:
        raise UnsafePathError(f"path `{original}` has an empty or `.` segment")
    if segment == "..":
        raise UnsafePathError(f"path `{original}` leaves the vault (`..` is not allowed)")
    if segment.startswith("."):
        raise UnsafePathError(
            f"path `{original}`: `{segment}` starts with a dot; dot folders and files are hidden "
            "from Obsidian and ignored by the bridge"
        )
    if "\x00" in segment:
        raise UnsafePathError(f"path `{original}` contains a NUL character")
    try:
        size = len(segment.encode("utf-8", "surrogateescape"))  # a name read from disk as is
    except UnicodeEncodeError:
        raise UnsafePathError(
            f"path {original.encode('utf-8', 'backslashreplace').decode()!r} holds a lone "
            "UTF-16 surrogate, which no file name can hold"
        ) from None
    if size > _MAX_SEGMENT_BYTES:
        raise UnsafePathError(f"path `{original}`: a name is longer than 255 bytes")
    if not strict:
        return
    bad = sorted({c for c in segment if c in _WINDOWS_ILLEGAL or c in _OBSIDIAN_ILLEGAL})
    if bad:
        shown = " ".join(f"`{c}`" for c in bad)
        raise UnsafePathError(
            f"path `{original}`: `{segment}` contains {shown}, "
            "which Windows or Obsidian links cannot use"
        )
    if any(_invisible(c) for c in segment):
        raise UnsafePathError(
            f"path `{original}` contains control or invisible formatting characters "
            "(such as a right-to-left override)"
        )
    if segment != segment.rstrip(" ."):
        raise UnsafePathError(f"path `{original}`: `{segment}` ends with a space or a dot")
    if _WINDOWS_RESERVED.match(segment):
        raise UnsafePathError(f"path `{original}`: `{segment}` is a reserved name on Windows")


def _looks_absolute(path: str) -> bool:
    return path.startswith(("/", "\\", "~")) or bool(re.match(r"^[A-Za-z]:", path))


def normalise_note_path(path: str, new: bool = False) -> str:
    """Return the canonical `a/b/c.md` form of a note path, or raise `UnsafePathError`.

    Accepts `@a/b/c.md`, `a/b/c`, `a/b/c.md` and surrounding white space. Always refuses
    absolute paths, `..`, backslashes and hidden segments: nothing may leave the vault.

    `new=True` is for a note the bridge is about to create: the name is also NFC-normalised and
    must be one that every platform Obsidian runs on can hold and a link can name (no
    `# ^ [ ] |`, no Windows-reserved or control or invisible characters). Existing notes are
    named as they are on disk: a human's `aux.md`, `C# tips.md` or a macOS NFD name must stay
    readable (they were reported missing and never indexed).
    """
    original = path
    candidate = path.strip()
    if new:
        candidate = unicodedata.normalize("NFC", candidate)
    if candidate.startswith("@"):
        candidate = candidate[1:]
    if not candidate:
        raise UnsafePathError("path is empty")
    if _looks_absolute(candidate):
        raise UnsafePathError(f"path `{original}` is absolute; give a path inside the vault")
    if "\\" in candidate:
        raise UnsafePathError(f"path `{original}` uses `\\`; separate folders with `/`")
    if candidate.lower().endswith(NOTE_SUFFIX):
        candidate = candidate[: -len(NOTE_SUFFIX)]
    segments = candidate.split("/")
    for segment in segments:
        _check_segment(segment, original, new)
    if new and len((segments[-1] + NOTE_SUFFIX).encode("utf-8")) > _MAX_SEGMENT_BYTES:
        # The file name is the last segment with `.md`: a 254-byte segment was accepted and
        # then failed to write.
        raise UnsafePathError(f"path `{original}`: the file name is longer than 255 bytes")
    return "/".join(segments) + NOTE_SUFFIX


def normalise_folder(folder: str) -> str:
    """A folder inside the vault as `a/b` (`""` for the root), or raise `UnsafePathError`.

    The one check for every folder a caller names (API `folder` and `scope`, `--folder`,
    `--root`), the rules of `normalise_note_path`: no absolute spelling (`/etc` was read as
    the vault's `etc` on some routes and refused on others), no `\\`, no `..`, no empty or
    hidden segment, no NUL; a trailing `/` is fine. As a folder argument is typed by a caller,
    not read from disk, it may not hold control characters either (`{"folder": "\\u0000"}`
    reached the file system and was a 500).
    """
    if any(unicodedata.category(c) == "Cc" and c != "\x00" for c in folder):  # NUL: below
        # Before the white space is stripped: `"engineering\n"` was taken as `engineering`.
        raise UnsafePathError(f"folder {folder!r} contains a control character")
    cleaned = folder.strip()
    if not cleaned:
        return ""
    if _looks_absolute(cleaned):
        raise UnsafePathError(f"folder `{folder}` is absolute; give a folder inside the vault")
    if "\\" in cleaned:
        raise UnsafePathError(f"folder `{folder}` uses `\\`; separate folders with `/`")
    cleaned = cleaned.rstrip("/")
    for segment in cleaned.split("/"):
        _check_segment(segment, folder, strict=False)
    if any(unicodedata.category(c) == "Cc" for c in cleaned):
        raise UnsafePathError(f"folder {folder!r} contains a control character")
    return cleaned


def link_target(path: str) -> str:
    """The wikilink spelling of a note path: `a/b/c.md` -> `a/b/c`."""
    return path[: -len(NOTE_SUFFIX)] if path.lower().endswith(NOTE_SUFFIX) else path


def stem(path: str) -> str:
    """The file name of a note without folders or suffix."""
    return link_target(path).rsplit("/", 1)[-1]


def parent(path: str) -> str:
    """The folder of a note path (`""` at the vault root)."""
    return path.rsplit("/", 1)[0] if "/" in path else ""


def top_folder(path: str) -> str:
    """The top-level folder of a note path (`""` at the vault root): `de/Sync/a.md` -> `de`."""
    top, sep, _ = path.partition("/")
    return top if sep else ""
