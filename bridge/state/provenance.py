"""Which bytes the bridge wrote for an agent: how "the last writer is a human" is decided.

DESIGN section 6: a note whose current bytes are not bytes the bridge wrote for an agent counts
as human text, so an agent's UPDATE of it waits for review. Each agent write records the hash of
the bytes written. A second, status-blind hash (the same text with `status` normalised) lets the
decay job's status rewrite, which is the bridge's own bookkeeping, keep an agent's note agent's.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from bridge.core import frontmatter as fm
from bridge.state.db import StateDB

# Enough history to recognise a note a human reverted to an earlier agent version; bounded so
# a note rewritten daily does not grow the table forever.
KEEP_PER_PATH = 50


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def loose_hash(data: bytes) -> str | None:
    """The hash of the note with its `status` value blanked; None when it cannot be computed."""
    try:
        text = data.decode("utf-8")
        return _sha(fm.set_key(text, "status", None).encode("utf-8"))
    except (UnicodeDecodeError, fm.FrontmatterError):
        return None


class AgentWrites:
    """The agent-write log in the state database."""

    def __init__(self, db: StateDB) -> None:
        self.db = db

    def record(self, path: str, data: bytes, writer: str, now: datetime) -> None:
        """The bridge wrote `data` to `path` for `writer` (`agent:<name>`)."""
        at = now.astimezone(UTC).isoformat(timespec="microseconds")
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO agent_writes (path, hash, loose_hash, writer, at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (path, hash) DO UPDATE SET "
                "writer = excluded.writer, at = excluded.at",
                (path, _sha(data), loose_hash(data), writer, at),
            )
            conn.execute(
                "DELETE FROM agent_writes WHERE path = ? AND hash NOT IN "
                "(SELECT hash FROM agent_writes WHERE path = ? ORDER BY at DESC LIMIT ?)",
                (path, path, KEEP_PER_PATH),
            )

    def agent_of(self, path: str, data: bytes) -> str | None:
        """The agent whose write these bytes are, or None: human text (or never written)."""
        rows = self.db.query(
            "SELECT writer FROM agent_writes WHERE path = ? AND hash = ?", (path, _sha(data))
        )
        if rows:
            return str(rows[0]["writer"])
        loose = loose_hash(data)
        if loose is None:
            return None
        rows = self.db.query(
            "SELECT writer FROM agent_writes WHERE path = ? AND loose_hash = ? "
            "ORDER BY at DESC LIMIT 1",
            (path, loose),
        )
        return str(rows[0]["writer"]) if rows else None

    def move(self, old: str, new: str) -> None:
        """The note at `old` now lives at `new`: a human's rename or folder move, seen by the
        watcher or at start-up. A move is not an edit, so its agent writes follow it (and
        replace any of a note that was at `new`); bytes changed on the way match none of them.
        """
        if old == new:
            return
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM agent_writes WHERE path = ?", (new,))
            conn.execute("UPDATE agent_writes SET path = ? WHERE path = ?", (new, old))

    def forget(self, path: str) -> None:
        """The note is gone (deleted or merged away)."""
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM agent_writes WHERE path = ?", (path,))
