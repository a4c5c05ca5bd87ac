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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """One indexed note."""

    nid: int
    path: str
    size: int
    mtime_ns: int
    hash: str
    title: str
    status: str | None
    updated: str | None
    links: tuple[str, ...]
    participants: tuple[str, ...]
    blocks: int
    content: str = ""  # fingerprint of what is indexed: equal means the documents are too


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
    content TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_COLUMNS = (
    "nid, path, size, mtime_ns, hash, title, status, updated, links, participants, blocks, content"
)


def _int(value: object) -> int:
    return value if isinstance(value, int) else int(str(value))


def _strings(text: object) -> tuple[str, ...]:
    """A JSON list column as a tuple (most notes have no participants: skip the parser)."""
    return () if text == "[]" else tuple(json.loads(str(text)))


def _record(row: Sequence[object]) -> NoteRecord:
    nid, path, size, mtime, hash_, title, status, updated, links, people, blocks, content = row
    return NoteRecord(
        _int(nid),
        str(path),
        _int(size),
        _int(mtime),
        str(hash_),
        str(title),
        None if status is None else sys.intern(str(status)),
        None if updated is None else str(updated),
        _strings(links),
        _strings(people),
        _int(blocks),
        str(content),
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
        with self._lock:
            rows = self._db.execute(f"SELECT {_COLUMNS} FROM notes").fetchall()
        return (_record(r) for r in rows)

    def by_nids(self, nids: Iterable[int]) -> dict[int, NoteRecord]:
        wanted = list(dict.fromkeys(nids))
        out: dict[int, NoteRecord] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                sql = f"SELECT {_COLUMNS} FROM notes WHERE nid IN ({marks})"
                for row in self._db.execute(sql, chunk):
                    rec = _record(row)
                    out[rec.nid] = rec
        return out

    def apply(
        self, upserts: Iterable[NoteRecord], deletes: Iterable[str], meta: dict[str, str]
    ) -> None:
        """Write one commit's changes in one transaction."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                for path in deletes:
                    self._db.execute("DELETE FROM notes WHERE path = ?", (path,))
                for r in upserts:
                    self._db.execute(
                        "DELETE FROM notes WHERE path = ? AND nid != ?", (r.path, r.nid)
                    )
                    self._db.execute(
                        f"INSERT OR REPLACE INTO notes({_COLUMNS}) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                        (
                            r.nid,
                            r.path,
                            r.size,
                            r.mtime_ns,
                            r.hash,
                            r.title,
                            r.status,
                            r.updated,
                            json.dumps(list(r.links), ensure_ascii=False),
                            json.dumps(list(r.participants), ensure_ascii=False),
                            r.blocks,
                            r.content,
                        ),
                    )
                for key, value in meta.items():
                    self._db.execute(
                        "INSERT INTO meta(key, value) VALUES(?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        (key, value),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def clear(self) -> None:
        """Forget every note; the table is made anew, so a changed layout takes effect."""
        with self._lock:
            self._db.execute("DROP TABLE IF EXISTS notes")
            self._db.executescript(_SCHEMA)
