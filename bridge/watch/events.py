"""From watchdog's raw events to "look at this note / folder again" for the debouncer.

Runs on watchdog's thread, so it only filters and forwards: no reads, no index. A file event
is kept only for a path that can be a note (`IgnoreRules`: dot folders, temp files, non-`.md`,
sync conflicts, `exclude` patterns). Folder events are kept even though folders are not notes: on
Linux a renamed folder with hundreds of notes inside is one event, and a deleted folder may be
one too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

from bridge.vault.ignore import IgnoreRules
from bridge.watch.debounce import Debouncer
from bridge.watch.pending import Move

# Only what can change a note. Opens and read-only closes are left out on purpose: the
# applier's own reads would otherwise come back as events, forever.
WATCHED_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


class VaultEventHandler(FileSystemEventHandler):
    """Turns watchdog events under `root` into debouncer calls, dropping what is not a note."""

    def __init__(self, root: Path, ignore: IgnoreRules, sink: Debouncer) -> None:
        super().__init__()
        self._prefix = str(root) + os.sep
        self._ignore = ignore
        self._sink = sink
        self.events = 0  # kept events, for stats (written by one thread only)

    def _relative(self, raw: bytes | str) -> str | None:
        path = os.fsdecode(raw)
        if not path.startswith(self._prefix):
            return None  # the vault root itself, or outside it
        rel = path[len(self._prefix) :]
        return rel.replace(os.sep, "/") if os.sep != "/" else rel

    def _note(self, raw: bytes | str) -> str | None:
        rel = self._relative(raw)
        return rel if rel and not self._ignore.ignores(rel) else None

    def _folder(self, raw: bytes | str) -> str | None:
        rel = self._relative(raw)
        return rel if rel and not self._ignore.ignores_dir(rel) else None

    def dispatch(self, event: FileSystemEvent) -> None:
        """Called by watchdog for every event that passed `WATCHED_EVENTS`."""
        try:
            self._dispatch(event)
        except Exception:
            # Never let one odd path stop watchdog's thread (it would end all watching).
            logging.getLogger(__name__).exception("could not handle %r", event)

    def _dispatch(self, event: FileSystemEvent) -> None:
        if isinstance(event, DirMovedEvent):
            self._moved(event, self._folder, self._sink.dir_gone, self._sink.dir_new, True)
        elif isinstance(event, FileMovedEvent):
            self._moved(event, self._note, self._sink.touch, self._sink.touch, False)
        elif isinstance(event, DirDeletedEvent):
            self._forward(self._folder(event.src_path), self._sink.dir_gone)
        elif isinstance(event, DirCreatedEvent):
            self._forward(self._folder(event.src_path), self._sink.dir_new)
        elif not event.is_directory:
            self._forward(self._note(event.src_path), self._sink.touch)

    def _forward(self, rel: str | None, to: Callable[[str], None]) -> None:
        if rel is not None:
            self.events += 1
            to(rel)

    def _moved(
        self,
        event: FileSystemEvent,
        kept: Callable[[bytes | str], str | None],
        only_src: Callable[[str], None],
        only_dest: Callable[[str], None],
        is_dir: bool,
    ) -> None:
        src, dest = kept(event.src_path), kept(event.dest_path)
        if src is not None and dest is not None:
            self.events += 1
            self._sink.move(Move(src, dest, is_dir))
        elif src is not None:
            # Moved somewhere ignored (`.trash/`, `note.md~`): gone, as far as the index knows.
            self._forward(src, only_src)
        else:
            # Moved in from somewhere ignored: a temp file renamed over a note (atomic save).
            self._forward(dest, only_dest)
