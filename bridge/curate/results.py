"""What curation reports back: one result per operation and the batch counts.

The JSON shape is a public interface (`curate --json`, the API, MCP):
`{"results": [{"index", "type", "path", "status", "message", "review_id"}], "counts": {...},
"git": null}` (`git`: why the configured git commit failed, else null); a result also has
`existing` when an ADD met an existing entry, and `duplicate_of` when an ADD's text nearly
repeats another note.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["applied", "pending_review", "failed"]
STATUSES: tuple[Status, ...] = ("applied", "pending_review", "failed")


@dataclass(frozen=True)
class OpResult:
    """What happened to one operation. `existing` is set when an ADD hit an existing entry."""

    index: int
    type: str
    path: str
    status: Status
    message: str
    review_id: int | None = None
    existing: Mapping[str, Any] | None = field(default=None, compare=False)
    # An ADD whose text nearly repeats an existing note: that note, the similarity and the
    # operation to consider instead (`{"path", "score", "suggestion"}`).
    duplicate_of: Mapping[str, Any] | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "type": self.type,
            "path": self.path,
            "status": self.status,
            "message": self.message,
            "review_id": self.review_id,
            **({"existing": dict(self.existing)} if self.existing is not None else {}),
            **({"duplicate_of": dict(self.duplicate_of)} if self.duplicate_of else {}),
        }


@dataclass(frozen=True)
class BatchWritten:
    """Announced by the single writer once a batch's files are written, still under its lock.

    The index and git have not seen the batch yet: what a listener writes in turn (it returns
    those paths) joins the batch's index update and commit. `author` is the batch's writer:
    an agent (`agent:<name>`), or `human` for a reviewer's reject.
    """

    written: tuple[str, ...]
    removed: tuple[str, ...]
    author: str
    at: dt.datetime

    @property
    def changed(self) -> list[str]:
        """Every path the batch wrote or removed, once each, in batch order."""
        return list(dict.fromkeys([*self.written, *self.removed]))


BatchListener = Callable[[BatchWritten], Iterable[str]]
"""Told of each written batch; returns the vault paths it wrote itself (none: `()`)."""


@dataclass(frozen=True)
class BatchResult:
    """Every operation's result in batch order; `git` says why a configured commit failed."""

    results: tuple[OpResult, ...]
    git: str | None = None

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {status: 0 for status in STATUSES}
        for result in self.results:
            counts[result.status] += 1
        return {**counts, "total": len(self.results)}

    @property
    def failed(self) -> list[OpResult]:
        return [r for r in self.results if r.status == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "results": [r.to_dict() for r in self.results],
            "counts": self.counts,
            "git": self.git,
        }


def _lines(data: bytes | None) -> list[str]:
    if data is None:
        return []
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def unified_diff(changes: Iterable[tuple[str, bytes | None, bytes | None]]) -> str:
    """One unified diff over several files: (path, before, after); None means absent."""
    out: list[str] = []
    for path, before, after in changes:
        old = f"a/{path}" if before is not None else "/dev/null"
        new = f"b/{path}" if after is not None else "/dev/null"
        for line in difflib.unified_diff(_lines(before), _lines(after), old, new):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
