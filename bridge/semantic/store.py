"""Passage vectors on disk: one SQLite file per model in the state dir, never in the vault.

Vectors are keyed by the passage text's hash, so an unchanged passage is embedded once across
restarts, reindexes and moves; a note's row says which passages it had for which content, so
a warm start loads vectors instead of embedding. Every batch is one transaction: a kill -9
mid-way loses at most the batch in flight, and the next start embeds it again (SQLite never
leaves a half-written file). A new model gets a new file: vectors of two models never mix.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from bridge.index.manifest import digest_from_hex
from bridge.semantic.model import ModelIdentity, Vectors

log = logging.getLogger(__name__)
_T = TypeVar("_T")

SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY, content TEXT NOT NULL, lang TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS units (
    path TEXT NOT NULL, seq INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL,
    key BLOB NOT NULL, PRIMARY KEY (path, seq)
) WITHOUT ROWID;
"""
_CHUNK = 500  # keys per SELECT: under SQLite's bound-parameter limit
DTYPE = np.float16  # half the bytes of float32; cosines move by < 0.001


def as_stored(vectors: Vectors) -> Vectors:
    """`vectors` at the precision the file keeps, as a restart reads them back.

    Otherwise the matrix would serve the model's float32 output right after embedding and the
    float16 copy after a restart, a question's cosines would move a little with a restart,
    and a near tie could swap. Served as stored, the answers are those of any later start.
    """
    return np.asarray(vectors, dtype=DTYPE).astype(np.float32)


@dataclass(frozen=True, slots=True)
class Unit:
    """One passage of a note: its block span and its vector's key."""

    first: int
    last: int
    key: bytes


@dataclass(frozen=True, slots=True)
class StoredNote:
    """A note as embedded: for which content key, in which language, with which passages."""

    path: str
    content: bytes  # the index's content key (`content_key`); hex in the file
    lang: str | None
    units: tuple[Unit, ...]


class VectorStore:
    """The vector file of one model. One writer (the embedding worker), readers at start."""

    def __init__(self, folder: Path, identity: ModelIdentity) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.identity = identity
        self.path = folder / f"{identity.key}.sqlite"
        self._lock = threading.Lock()
        self._db = self._open()
        for other in folder.glob("*.sqlite"):
            if other != self.path:  # another model's vectors: never mixed, so not kept
                log.info("removing the vectors of another model (%s)", other.name)
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{other}{suffix}").unlink(missing_ok=True)

    def _open(self) -> sqlite3.Connection:
        try:
            db = self._connect()
            db.execute("SELECT count(*) FROM units").fetchone()
            if self._meta(db).get("schema") != SCHEMA_VERSION:
                raise sqlite3.DatabaseError("old schema")
            return db
        except sqlite3.DatabaseError as exc:
            log.warning("vector file %s is unusable (%s); embedding again", self.path, exc)
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        if not self._meta(db):
            ident = self.identity
            rows = [
                ("schema", SCHEMA_VERSION),
                ("model", ident.name),
                ("weights", ident.weights),
                ("dim", str(ident.dim)),
                ("dtype", np.dtype(DTYPE).name),
            ]
            db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", rows)
        return db

    @staticmethod
    def _meta(db: sqlite3.Connection) -> dict[str, str]:
        return dict(db.execute("SELECT key, value FROM meta").fetchall())

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- reading -----------------------------------------------------------------------

    def paths(self) -> set[str]:
        """Every embedded note's path."""
        with self._lock:
            return {row[0] for row in self._db.execute("SELECT path FROM notes")}

    def heads(self, paths: Sequence[str]) -> dict[str, tuple[bytes, str | None]]:
        """The stored content key and language of those of `paths` that are embedded."""
        out: dict[str, tuple[bytes, str | None]] = {}
        with self._lock:
            for part in _chunks(list(paths)):
                marks = ",".join("?" * len(part))
                for path, content, lang in self._db.execute(
                    f"SELECT path, content, lang FROM notes WHERE path IN ({marks})", part
                ):
                    # One string per language, not one per row: a vault repeats a few codes.
                    lang = None if lang is None else sys.intern(lang)
                    out[path] = (digest_from_hex(content), lang)
        return out

    def notes(self, paths: Sequence[str]) -> dict[str, StoredNote]:
        """Those of `paths` that are embedded, with their passages in order.

        Asked a step's notes at a time: every note's passage list at once would be held while
        a warm `serve` loads them.
        """
        heads = self.heads(paths)
        spans: dict[str, list[Unit]] = {}
        with self._lock:
            for part in _chunks(list(heads)):
                marks = ",".join("?" * len(part))
                for path, first, last, key in self._db.execute(
                    f"SELECT path, first, last, key FROM units WHERE path IN ({marks}) "
                    "ORDER BY path, seq",
                    part,
                ):
                    spans.setdefault(path, []).append(Unit(first, last, key))
        return {
            path: StoredNote(path, content, lang, tuple(spans.get(path, ())))
            for path, (content, lang) in heads.items()
        }

    def have(self, keys: Iterable[bytes]) -> set[bytes]:
        """Which of `keys` have a vector."""
        found: set[bytes] = set()
        with self._lock:
            for part in _chunks(list(keys)):
                marks = ",".join("?" * len(part))
                rows = self._db.execute(f"SELECT key FROM vectors WHERE key IN ({marks})", part)
                found.update(row[0] for row in rows)
        return found

    def vectors(self, keys: Sequence[bytes]) -> dict[bytes, Vectors]:
        """The stored vectors of `keys` (float32 rows), for those that have one."""
        out: dict[bytes, Vectors] = {}
        dim = self.identity.dim
        with self._lock:
            for part in _chunks(list(dict.fromkeys(keys))):
                marks = ",".join("?" * len(part))
                for key, blob in self._db.execute(
                    f"SELECT key, vec FROM vectors WHERE key IN ({marks})", part
                ):
                    vec = np.frombuffer(blob, dtype=DTYPE)
                    if dim == 0 or vec.shape == (dim,):
                        out[key] = vec.astype(np.float32)
        return out

    def meta(self, key: str) -> str | None:
        """A value the channel keeps with its vectors (the boilerplate lines)."""
        with self._lock:
            return self._meta(self._db).get(key)

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    def counts(self) -> tuple[int, int]:
        """(notes embedded, vectors stored)."""
        with self._lock:
            notes = self._db.execute("SELECT count(*) FROM notes").fetchone()[0]
            vectors = self._db.execute("SELECT count(*) FROM vectors").fetchone()[0]
        return int(notes), int(vectors)

    # -- writing (the embedding worker) ------------------------------------------------

    def save(self, notes: Sequence[StoredNote], new: dict[bytes, Vectors]) -> None:
        """New vectors and the notes they complete, in one transaction."""
        rows = [(key, np.asarray(vec, dtype=DTYPE).tobytes()) for key, vec in new.items()]
        with self._lock, self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO vectors(key, vec) VALUES(?, ?)", rows)
            for note in notes:
                self._db.execute("DELETE FROM units WHERE path = ?", (note.path,))
                self._db.execute(
                    "INSERT OR REPLACE INTO notes(path, content, lang) VALUES(?, ?, ?)",
                    (note.path, note.content.hex(), note.lang),
                )
                self._db.executemany(
                    "INSERT INTO units(path, seq, first, last, key) VALUES(?, ?, ?, ?, ?)",
                    [(note.path, i, u.first, u.last, u.key) for i, u in enumerate(note.units)],
                )

    def forget(self, paths: Iterable[str]) -> None:
        """Drop notes that are gone (their vectors stay until `collect`: a move reuses them)."""
        items = [(p,) for p in paths]
        if not items:
            return
        with self._lock, self._transaction():
            self._db.executemany("DELETE FROM units WHERE path = ?", items)
            self._db.executemany("DELETE FROM notes WHERE path = ?", items)

    def collect(self) -> int:
        """Delete vectors no note uses any more; returns how many."""
        with self._lock, self._transaction():
            cursor = self._db.execute(
                "DELETE FROM vectors WHERE key NOT IN (SELECT key FROM units)"
            )
            return int(cursor.rowcount)

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")


def _chunks(items: list[_T]) -> Iterator[list[_T]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]
