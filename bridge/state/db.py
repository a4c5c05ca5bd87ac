"""The state database: one SQLite file in the state dir for side state that is not in the vault.

Everything here is disposable by design (DESIGN sections 1 and 7): the files are the truth, so a
missing database is created and a corrupted one is moved aside and recreated instead of stopping
the bridge. What is lost is access counts and history, never a note or its `status`.

One connection, shared by every thread behind a re-entrant lock: the HTTP server, the watcher and
the decay scheduler all call in, and SQLite connections are not safe to use concurrently. WAL mode
lets a second process (a cron `decay` next to `serve`) read while the other writes.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from bridge.state.private import private_dir, private_file

log = logging.getLogger(__name__)

DB_NAME = "state.sqlite"
BUSY_TIMEOUT_SECONDS = 5.0
# SQLite's primary result codes for "this file is damaged" and "this is not a database".
_CORRUPT_CODES = frozenset({11, 26})

Migration = Callable[[sqlite3.Connection], None]


def _statements(*sql: str) -> Migration:
    """A migration made of plain statements, run one by one inside the migration transaction.

    `executescript` is avoided on purpose: it commits first, which would break the promise that
    a migration and its `user_version` bump land together or not at all.
    """

    def migrate(conn: sqlite3.Connection) -> None:
        for statement in sql:
            conn.execute(statement)

    return migrate


# Append-only: `PRAGMA user_version` is the number of migrations applied, so editing or
# reordering a released entry would leave existing databases on a different schema than new ones.
MIGRATIONS: list[Migration] = [
    # 1: the Adaptive Knowledge Lifecycle (DESIGN section 4).
    _statements(
        """
        CREATE TABLE notes (
            path TEXT PRIMARY KEY,
            importance REAL NOT NULL,
            importance_at TEXT NOT NULL,
            maturity TEXT NOT NULL,
            access_count INTEGER NOT NULL DEFAULT 0,
            update_count INTEGER NOT NULL DEFAULT 0,
            last_access TEXT,
            last_update TEXT,
            last_writer TEXT,
            known_status TEXT NOT NULL DEFAULT ''
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE decay_runs (
            id INTEGER PRIMARY KEY,
            ran_at TEXT NOT NULL,
            day TEXT NOT NULL,
            notes_seen INTEGER NOT NULL,
            transitions INTEGER NOT NULL,
            stale INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE transitions (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL,
            from_maturity TEXT NOT NULL,
            to_maturity TEXT NOT NULL,
            importance REAL NOT NULL,
            at TEXT NOT NULL,
            reason TEXT NOT NULL CHECK (reason IN ('decay', 'access', 'update', 'human'))
        )
        """,
        "CREATE INDEX transitions_by_path ON transitions (path, at)",
    ),
    # 2: curation (DESIGN section 6): hashes of the bytes written for agents, and the review
    # queue with the snapshots that let a reject restore what an applied operation replaced.
    _statements(
        """
        CREATE TABLE agent_writes (
            path TEXT NOT NULL,
            hash TEXT NOT NULL,
            loose_hash TEXT,
            writer TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (path, hash)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX agent_writes_loose ON agent_writes (path, loose_hash)",
        """
        CREATE TABLE reviews (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            state TEXT NOT NULL
                CHECK (state IN ('pending', 'approved', 'rejected', 'conflict', 'applied')),
            type TEXT NOT NULL,
            path TEXT NOT NULL,
            author TEXT NOT NULL,
            operation TEXT NOT NULL,
            bases TEXT NOT NULL,
            diff TEXT NOT NULL,
            why TEXT NOT NULL,
            note TEXT,
            created TEXT NOT NULL,
            decided TEXT,
            decided_by TEXT
        )
        """,
        "CREATE INDEX reviews_by_state ON reviews (state, id)",
        """
        CREATE TABLE review_snapshots (
            review_id INTEGER NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            before BLOB,
            after_hash TEXT,
            PRIMARY KEY (review_id, path)
        )
        """,
    ),
]


class StateDBError(Exception):
    """The state database cannot be used even after recreating it (e.g. no permission)."""


class _UnusableError(Exception):
    """Internal: the file exists but is damaged or from a newer schema; move it aside."""


def _is_corruption(exc: sqlite3.DatabaseError) -> bool:
    """True for a damaged file; False for a busy or locked database, which must never be moved."""
    if isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    return code is None or (code & 0xFF) in _CORRUPT_CODES


class StateDB:
    """A thread-safe handle on `state.sqlite`; use `StateDB.open(state_dir)`."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.RLock()
        self._depth = 0

    @classmethod
    def open(cls, state_dir: Path) -> StateDB:
        """Open (creating the folder and file) and migrate; recover from a corrupted file.

        A damaged file, or one written by a newer schema this version does not know, is renamed
        to `state.sqlite.corrupt-<time>` with a warning and a fresh database takes its place.
        """
        try:
            private_dir(state_dir)
            private_file(state_dir / DB_NAME)
        except OSError as exc:
            raise StateDBError(f"cannot create the state folder {state_dir}: {exc}") from exc
        path = state_dir / DB_NAME
        try:
            return cls(path, _connect(path))
        except _UnusableError as exc:
            aside = _move_aside(path)
            log.warning(
                "the state database %s was unusable (%s); moved it to %s and started a new one "
                "(only access counts and lifecycle history are lost; notes keep their status)",
                path,
                exc,
                aside.name,
            )
        try:
            return cls(path, _connect(path))
        except (_UnusableError, sqlite3.Error) as exc:
            raise StateDBError(f"cannot use the state database {path}: {exc}") from exc

    # -- access ------------------------------------------------------------------------------

    @property
    def schema_version(self) -> int:
        """How many migrations the open database has applied."""
        return int(self.query("PRAGMA user_version")[0][0])

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Run a read and return every row; safe from any thread."""
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (nested calls join the outer one); rolled back on any exception.

        `BEGIN IMMEDIATE` takes the write lock up front, so a read-modify-write such as adding an
        access bonus cannot interleave with another process doing the same and lose an update.
        """
        with self._lock:
            outermost = self._depth == 0
            if outermost:
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield self._conn
            except BaseException:
                self._depth -= 1
                if outermost:
                    self._conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outermost:
                self._conn.execute("COMMIT")

    def set_trace(self, callback: Callable[[str], None] | None) -> None:
        """Report every statement run (for tests and debugging query counts)."""
        with self._lock:
            self._conn.set_trace_callback(callback)

    def close(self) -> None:
        """Close the connection; the handle must not be used afterwards."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> StateDB:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _connect(path: Path) -> sqlite3.Connection:
    """Connect, check the file and migrate it; `_UnusableError` when it must be replaced."""
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL is durable across application crashes in WAL mode; only a power cut can lose
        # the last commits, and this state is disposable anyway.
        conn.execute("PRAGMA synchronous=NORMAL")
        check = conn.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise _UnusableError(f"integrity check failed: {check}")
        _migrate(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        if _is_corruption(exc):
            raise _UnusableError(str(exc)) from exc
        raise StateDBError(f"cannot use the state database {path}: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    """Apply the migrations this file lacks, each atomically with its version bump."""
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Read the version under the write lock: another process may have just migrated.
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > len(MIGRATIONS):
                raise _UnusableError(
                    f"schema version {version} is newer than this vault-bridge knows "
                    f"({len(MIGRATIONS)})"
                )
            if version == len(MIGRATIONS):
                conn.execute("COMMIT")
                return
            MIGRATIONS[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _move_aside(path: Path) -> Path:
    """Rename the database and its WAL files to `state.sqlite.corrupt-<time>[-wal|-shm]`.

    The WAL and shared-memory files must go too: left behind, SQLite would replay a stale WAL
    into the fresh database.
    """
    stamp = time.strftime("%Y%m%dT%H%M%S")
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while aside.exists():
        counter += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
    for suffix in ("", "-wal", "-shm"):
        source = path.with_name(path.name + suffix)
        if source.exists():
            source.replace(aside.with_name(aside.name + suffix))
    return aside
