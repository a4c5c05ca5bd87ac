"""Writing imported notes into the vault without ever overwriting a human's edit."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bridge.core.paths import UnsafePathError, normalise_folder
from bridge.importer.transcript import TranscriptError, parse_transcripts, render_transcript
from bridge.vault.store import NoteError, VaultStore


@dataclass
class ImportReport:
    """What an import did to each note."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # edited since import: left alone

    def summary(self) -> dict[str, int]:
        return {
            "written": len(self.written),
            "unchanged": len(self.unchanged),
            "kept": len(self.kept),
        }


def load_transcript_file(path: Path) -> object:
    """The JSON of a transcript file, or a `TranscriptError` naming the problem."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise TranscriptError(f"{path}: no such file") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TranscriptError(f"{path}: not a JSON file ({exc})") from exc


def import_transcripts(
    store: VaultStore,
    data: object,
    root: str = "conversations",
    force: bool = False,
    before_write: Callable[[str, bytes], None] | None = None,
) -> ImportReport:
    """Write one note per session. A note that exists with other bytes is someone's edit (or
    an older import) and is kept unless `force`.

    `before_write(path, bytes)` runs just before each write: the bridge records the bytes as
    its own there, so a crash right after the rename cannot make them look like a human's.
    """
    notes = [n for t in parse_transcripts(data) for n in render_transcript(t, import_root(root))]
    # Everything is checked before the first write, so a refused import writes nothing.
    seen: set[str] = set()
    for note in notes:
        if note.path in seen:
            raise TranscriptError(
                f"two sessions would both be written to `{note.path}`: give each transcript "
                "its own name and each session its own number"
            )
        seen.add(note.path)
        store.check_folders(note.path)
    report = ImportReport()
    for note in notes:
        wanted = note.text.encode("utf-8")
        try:
            current = store.read(note.path).data if store.exists(note.path) else None
        except NoteError:
            current = b""  # unreadable or binary: never overwrite it silently
        if current == wanted:
            report.unchanged.append(note.path)
        elif current is not None and not force:
            report.kept.append(note.path)
        else:
            if before_write is not None:
                before_write(note.path, wanted)
            store.write(note.path, wanted)
            report.written.append(note.path)
    return report


def import_root(root: str) -> str:
    """The folder the sessions go under, checked as every folder a caller names is.

    Raises `UnsafePathError` (a `ValueError`) for a root outside the vault or none at all.
    """
    folder = normalise_folder(root)
    if not folder:
        raise UnsafePathError("give a folder for the sessions, such as `conversations`")
    return folder
