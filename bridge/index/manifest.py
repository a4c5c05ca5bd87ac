"""The index manifest: what each note looked like when it was indexed, and the generation.

A small SQLite file beside the tantivy folder. Start-up compares it with the vault (size and
mtime first, the hash only when those differ) so a warm start re-reads only changed notes.
Rows are written after the tantivy commit that contains them, so a crash in between can only
make the bridge re-index a note, never skip one.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple


class NoteRecord(NamedTuple):
    """One indexed note.

    A named tuple, not a frozen dataclass: a start-up makes one per note, and a frozen
    dataclass's `__init__` (a `object.__setattr__` per field) is many times slower to run; a
    tuple is as immutable.
    """

    nid: int
    path: str
    size: int
    mtime_ns: int
    # The sha256 of the file's bytes as a digest (hex in the manifest file, as the API and
    # the vault reader spell it): 65 bytes in memory against 113 for the hex text.
    hash: bytes
    title: str
    status: str | None
    updated: str | None
    links: tuple[str, ...]
    participants: tuple[str, ...]
    blocks: int
    content: bytes = b""  # fingerprint of what is indexed: equal means the documents are too
    # Names a link may use for the note besides its path (a Logseq page's name, title and
    # aliases): the link resolver's (`Note.names`).
    names: tuple[str, ...] = ()


_SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    nid INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    title TEXT NOT NULL,
    status TEXT,
    updated TEXT,
    links TEXT NOT NULL,
    participants TEXT NOT NULL,
    blocks INTEGER NOT NULL,
    content TEXT NOT NULL DEFAULT '',
    names TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_COLUMNS = (
    "nid, path, size, mtime_ns, hash, title, status, updated, links, participants, blocks, "
    "content, names"
)


def _strings(text: str, shared: dict[str, str]) -> tuple[str, ...]:
    """A JSON list column as a tuple (most notes have no participants: skip the parser).

    Equal strings come out as one object (`shared`): many notes link to the same target.
    """
    if text == "[]":
        return ()
    # `json.dumps` of strings: without an escape, `", "` only ever separates two items.
    items = json.loads(text) if "\\" in text else text[2:-2].split('", "')
    return tuple([shared.setdefault(item, item) for item in items])


def digest_from_hex(text: str) -> bytes:
    """A hash stored as hex text (the manifest, the vector file) as its digest; one that is
    not hex is b"", which matches nothing: the note is read (or planned) again."""
    try:
        return bytes.fromhex(text)
    except ValueError:
        return b""


def _record(row: tuple[Any, ...], shared: dict[str, str]) -> NoteRecord:
    """A row as a record. The columns' declared types (INTEGER, TEXT) are what SQLite returns,
    so nothing is converted: a start-up reads a row per note."""
    nid, path, size, mtime, hash_, title, status, updated, links, people, blocks, content, names = (
        row
    )
    return NoteRecord(
        nid,
        path,
        size,
        mtime,
        digest_from_hex(hash_),
        title,
        None if status is None else sys.intern(status),
        updated,
        _strings(links, shared),
        _strings(people, shared),
        blocks,
        digest_from_hex(content),
        _strings(names, shared),
    )


class Manifest:
    """Thread-safe access to the manifest file."""

    def __init__(self, path: Path) -> None:
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO meta(key, value) VALUES(?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def all(self) -> Iterator[NoteRecord]:
        """Every record; the rows are turned into records as they are read, never all held."""
        shared: dict[str, str] = {}
        with self._lock:
            records = [
                _record(row, shared) for row in self._db.execute(f"SELECT {_COLUMNS} FROM notes")
            ]
        return iter(records)

    def apply(
        self, upserts: Iterable[NoteRecord], deletes: Iterable[str], meta: dict[str, str]
    ) -> None:
        """Write one commit's changes in one transaction (a statement per kind of change)."""
        rows = [
            (
                r.nid,
                r.path,
                r.size,
                r.mtime_ns,
                r.hash.hex(),
                r.title,
                r.status,
                r.updated,
                json.dumps(list(r.links), ensure_ascii=False),
                json.dumps(list(r.participants), ensure_ascii=False),
                r.blocks,
                r.content.hex(),
                json.dumps(list(r.names), ensure_ascii=False),
            )
            for r in upserts
        ]
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(
                    "DELETE FROM notes WHERE path = ?", [(path,) for path in deletes]
                )
                # A path indexed anew under another id: the old row goes. A commit holds one
                # record per path and ids are never shared, so the order within it is free.
                self._db.executemany(
                    "DELETE FROM notes WHERE path = ? AND nid != ?",
                    [(row[1], row[0]) for row in rows],
                )
                self._db.executemany(
                    f"INSERT OR REPLACE INTO notes({_COLUMNS}) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    rows,
                )
                self._db.executemany(
                    "INSERT INTO meta(key, value) VALUES(?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    list(meta.items()),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def clear(self) -> None:
        """Forget every note; the table is made anew, so a changed layout takes effect."""
        with self._lock:
            self._db.execute("DROP TABLE IF EXISTS notes")
            self._db.execute("VACUUM")  # the file shrinks: freed pages are not kept
            self._db.executescript(_SCHEMA)
