"""The text of every indexed block, kept beside the tantivy indexes in a SQLite file.

Trigger: at 100,000 notes a query process held 541 MB, 148 MB of it the pages of the blocks'
stored text in tantivy's memory-mapped doc store. A query packs a few dozen blocks, but 300
questions touched nearly every compressed store block, and mapped pages stay in the process's
resident set. Outcome: tantivy stores nothing; excerpt text comes from this file, read through
SQLite's own small page cache (ordinary reads the kernel caches, not the process's memory).

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

_SCHEMA = """
CREATE TABLE IF NOT EXISTS blocks (
    key INTEGER PRIMARY KEY,
    line INTEGER,
    block_id TEXT,
    heading TEXT NOT NULL,
    text TEXT NOT NULL
);
"""
_COLUMNS = "key, line, block_id, heading, text"
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
            self._reader.execute("SELECT 1 FROM blocks LIMIT 1").fetchall()  # fails if damaged
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
        rows = [(_key(nid, b.ord), b.line, b.block_id, b.heading, b.text) for b in blocks]
        with self._write_lock:
            self._begin()
            if not fresh:
                self._delete(nid)
            self._writer.executemany(
                f"INSERT OR REPLACE INTO blocks({_COLUMNS}) VALUES(?,?,?,?,?)",
                rows,
            )

    def remove(self, nid: int) -> None:
        """Stage the removal of a note's blocks."""
        with self._write_lock:
            self._begin()
            self._delete(nid)

    def _delete(self, nid: int) -> None:
        self._writer.execute(
            "DELETE FROM blocks WHERE key BETWEEN ? AND ?", (_key(nid, 0), _key(nid, _MAX_ORD))
        )

    def commit(self) -> None:
        """Make the staged changes visible to readers (a no-op when nothing is staged)."""
        with self._write_lock:
            if self._staging:
                self._writer.execute("COMMIT")
                self._staging = False

    def clear(self) -> None:
        """Forget every block (the index is being rebuilt)."""
        with self._write_lock:
            if self._staging:
                self._writer.execute("ROLLBACK")
                self._staging = False
            self._writer.execute("DELETE FROM blocks")

    # -- reading (any thread) ----------------------------------------------------------------

    def get(self, keys: Iterable[tuple[int, int]]) -> dict[tuple[int, int], IndexedBlock]:
        """The committed blocks among `keys` (unknown keys are left out)."""
        wanted = [_key(nid, ord_) for nid, ord_ in keys]
        out: dict[tuple[int, int], IndexedBlock] = {}
        with self._read_lock:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                sql = f"SELECT {_COLUMNS} FROM blocks WHERE key IN ({marks})"
                for key, line, block_id, heading, text in self._reader.execute(sql, chunk):
                    nid, ord_ = key >> _SHIFT, key & _MAX_ORD
                    out[(nid, ord_)] = IndexedBlock(ord_, text, line, block_id, heading, None)
        return out
