"""The text of every indexed block, kept beside the tantivy indexes in a SQLite file.

Not tantivy's doc store: it is memory-mapped, and though a query packs a few dozen blocks, a
few hundred questions touch nearly every compressed store block, whose mapped pages then stay
in the process's resident set. So tantivy stores nothing; excerpt text comes from this file,
read through SQLite's own small page cache (ordinary reads the kernel caches, not the
process's memory).

Rows are keyed by `(note id << 32) | ordinal`, the table's rowid: one note's blocks are a
range, and a lookup is a rowid search. Changes are staged in one open transaction and become
visible at `commit`, which the index calls right after its tantivy commit: a query never
reads text from a batch whose documents it cannot find yet. After a crash the uncommitted
transaction is rolled back, and the start-up comparison re-indexes those notes (their
manifest rows, written after this commit, are missing too).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from bridge.index.documents import IndexedBlock

# A block names its heading path by its place in its note's list of headings (`headings`,
# keyed like blocks by note id << 32 | place), not by the path repeated on every block row,
# which would be a large part of the file.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS blocks (
    key INTEGER PRIMARY KEY,
    line INTEGER,
    block_id TEXT,
    heading INTEGER NOT NULL,
    text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS headings (key INTEGER PRIMARY KEY, text TEXT NOT NULL);
"""
_COLUMNS = "key, line, block_id, heading, text"
_SELECT = (
    "SELECT b.key, b.line, b.block_id, h.text, b.text FROM blocks AS b "
    "JOIN headings AS h ON h.key = ((b.key >> 32) << 32) + b.heading "
)
_SHIFT = 32
_MAX_ORD = (1 << _SHIFT) - 1
_CHUNK = 500  # keys per SELECT: under SQLite's bound-parameter limit


def _key(nid: int, ord_: int) -> int:
    return (nid << _SHIFT) | ord_


class BlockStore:
    """Block texts by `(note id, ordinal)`: one writer (the index) and concurrent readers."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._write_lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._staging = False
        self._writer = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        # Readers see the last committed state while the writer stages the next batch (WAL).
        self._reader = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        try:
            self._writer.execute("PRAGMA journal_mode=WAL")
            self._writer.execute("PRAGMA synchronous=NORMAL")
            self._writer.executescript(_SCHEMA)  # takes no lock when the table exists
            self._reader.execute(f"{_SELECT} LIMIT 1").fetchall()  # fails if damaged or old
        except sqlite3.DatabaseError:
            self._writer.close()
            self._reader.close()
            raise

    def close(self) -> None:
        """Roll back what was never committed and close both connections."""
        with self._write_lock, self._read_lock:
            if self._staging:
                self._writer.execute("ROLLBACK")
                self._staging = False
            self._writer.close()
            self._reader.close()

    # -- writing (the index's writer thread) -------------------------------------------------

    def _begin(self) -> None:
        if not self._staging:
            self._writer.execute("BEGIN")
            self._staging = True

    def replace(self, nid: int, blocks: Iterable[IndexedBlock], fresh: bool = False) -> None:
        """Stage a note's blocks in place of the ones it had (`fresh`: it had none)."""
        places: dict[str, int] = {}  # heading path -> its place among the note's
        place = places.setdefault
        rows = [
            (_key(nid, b.ord), b.line, b.block_id, place(b.heading, len(places)), b.text)
            for b in blocks
        ]
        headings = [(_key(nid, place), heading) for heading, place in places.items()]
        with self._write_lock:
            self._begin()
            if not fresh:
                self._delete(nid)
            self._writer.executemany(
                f"INSERT OR REPLACE INTO blocks({_COLUMNS}) VALUES(?,?,?,?,?)", rows
            )
            self._writer.executemany(
                "INSERT OR REPLACE INTO headings(key, text) VALUES(?,?)", headings
            )

    def remove(self, nid: int) -> None:
        """Stage the removal of a note's blocks."""
        with self._write_lock:
            self._begin()
            self._delete(nid)

    def _delete(self, nid: int) -> None:
        span = (_key(nid, 0), _key(nid, _MAX_ORD))
        self._writer.execute("DELETE FROM blocks WHERE key BETWEEN ? AND ?", span)
        self._writer.execute("DELETE FROM headings WHERE key BETWEEN ? AND ?", span)

    def commit(self) -> None:
        """Make the staged changes visible to readers (a no-op when nothing is staged)."""
        with self._write_lock:
            if self._staging:
                self._writer.execute("COMMIT")
                self._staging = False

    def clear(self) -> None:
        """Forget every block (the index is being rebuilt); the tables are made anew, so a
        changed layout takes effect."""
        with self._write_lock:
            if self._staging:
                self._writer.execute("ROLLBACK")
                self._staging = False
            self._writer.execute("DROP TABLE IF EXISTS blocks")
            self._writer.execute("DROP TABLE IF EXISTS headings")
            self._writer.execute("VACUUM")  # the file shrinks: freed pages are not kept
            self._writer.executescript(_SCHEMA)

    # -- reading (any thread) ----------------------------------------------------------------

    def get(self, keys: Iterable[tuple[int, int]]) -> dict[tuple[int, int], IndexedBlock]:
        """The committed blocks among `keys` (unknown keys are left out)."""
        wanted = [_key(nid, ord_) for nid, ord_ in keys]
        out: dict[tuple[int, int], IndexedBlock] = {}
        with self._read_lock:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                sql = f"{_SELECT} WHERE b.key IN ({marks})"
                for key, line, block_id, heading, text in self._reader.execute(sql, chunk):
                    nid, ord_ = key >> _SHIFT, key & _MAX_ORD
                    out[(nid, ord_)] = IndexedBlock(ord_, text, line, block_id, heading, None)
        return out
