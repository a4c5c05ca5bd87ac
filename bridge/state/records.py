"""One note's lifecycle record and the pure rules that move it on (no clock, no storage).

`bridge.core.lifecycle` has the math for one number; this module applies it to a note's whole
record: a human status edit, an access, an update, the passing of time. The state store loads a
record, calls `advance`, and saves the result, so every path (query, write, decay job, the
`lifecycle` command) follows the same rules.

The record keeps the lifecycle's own maturity, settled at every event, instead of re-deriving it
from the note's `status` each night. That is what keeps a late decay run exact: a promotion
earned by accesses on day 2 stays earned even if the entry's importance has decayed below the
promotion threshold by the time a run finally writes `status` on day 10.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, assert_never

from bridge.core import lifecycle as akl
from bridge.core.maturity import Maturity, StatusMapping
from bridge.core.operations import HUMAN

# `create`: the note was just written for the first time; it starts where a new note starts
# (50 for a draft), its writer and time recorded, no update bonus and no update counted.
Event = Literal["seen", "access", "update", "create"]
Reason = Literal["decay", "access", "update", "human"]
AGENT_PREFIX = "agent:"


def check_writer(writer: str) -> str:
    """`human` or `agent:<name>`: the two kinds of author the review rules tell apart."""
    if writer == HUMAN or (writer.startswith(AGENT_PREFIX) and writer[len(AGENT_PREFIX) :]):
        return writer
    raise ValueError(f"writer must be `human` or `agent:<name>`, got {writer!r}")


@dataclass(frozen=True)
class Rules:
    """What the records need to know from the settings: the status words and the constants."""

    mapping: StatusMapping
    params: akl.LifecycleParams = akl.DEFAULT

    def managed(self, status: str | None) -> bool:
        """True when `status` is a word of the mapping, so the decay job may rewrite it.

        A missing status or another word (`archived`) belongs to the human: it is never
        rewritten and the note ranks as draft.
        """
        return self.mapping.maturity_for(status) is not None


@dataclass(frozen=True)
class NoteRecord:
    """Everything the lifecycle keeps about one note outside the vault.

    `known_status` is the `status` value the lifecycle last saw in the file or wrote to it
    (`""` for a note without one). A file whose status differs from it was changed by someone
    else, normally a human in Obsidian, and that choice wins.
    """

    path: str
    importance: akl.Importance
    maturity: Maturity
    known_status: str = ""
    access_count: int = 0
    update_count: int = 0
    last_access: datetime | None = None
    last_update: datetime | None = None
    last_writer: str | None = None


@dataclass(frozen=True)
class Change:
    """A maturity change of one note, as logged in the `transitions` table."""

    path: str
    from_maturity: Maturity
    to_maturity: Maturity
    importance: float
    at: datetime
    reason: Reason


def fresh(path: str, status: str | None, now: datetime, rules: Rules) -> NoteRecord:
    """The record of a note the state has never seen (new note or lost database).

    It starts where its `status` says (`initial_importance_for`: 50 draft, 65 stable, 85 core),
    so losing the database never changes a maturity.
    """
    level = rules.mapping.maturity_for(status)
    return NoteRecord(
        path=path,
        importance=akl.Importance(akl.initial_importance_for(level, rules.params), now),
        maturity=rules.mapping.effective(status),
        known_status=status or "",
    )


_RANK = {maturity: rank for rank, maturity in enumerate(Maturity)}


def human_importance(
    current: Maturity, target: Maturity, value: float, params: akl.LifecycleParams
) -> float:
    """Importance after someone sets the status to `target`: as if `target` had just been reached.

    DESIGN asks for importance "moved into the band" of the new status. The band's edge is not
    enough: a human promotion to core at 60 (core's lower bound) decays below 60 within a day
    and the next run demotes it again, and a demotion to draft at 64.99 is undone by one access.
    So a promotion lifts importance to at least the value the status starts with (65 stable,
    85 core: `initial_importance_for`, the same values a lost database restarts at), and a
    demotion lowers it to at most that value (50 draft, 65 stable). The human's choice then holds
    as long as a freshly earned status would.
    """
    start = akl.initial_importance_for(target, params)
    if _RANK[target] > _RANK[current]:
        value = max(value, start)
    elif _RANK[target] < _RANK[current]:
        value = min(value, start)
    return akl.importance_for_status(target, value, params)


def _same_status(a: str | None, b: str | None) -> bool:
    """Status words compare like the mapping reads them: `Stable ` is still `stable`."""
    return (a or "").strip().lower() == (b or "").strip().lower()


def _settle(
    record: NoteRecord, now: datetime, reason: Reason, rules: Rules
) -> tuple[NoteRecord, list[Change]]:
    """Apply the hysteresis rules at `now`; a change is logged with `reason`."""
    value = akl.decayed(record.importance, now, rules.params)
    target = akl.next_maturity(record.maturity, value, rules.params)
    if target is record.maturity:
        return record, []
    change = Change(record.path, record.maturity, target, value, now, reason)
    return replace(record, maturity=target), [change]


def _bump(
    record: NoteRecord, event: Event, now: datetime, writer: str | None, rules: Rules
) -> NoteRecord:
    """Add the event's bonus on the decayed value and count it."""
    match event:
        case "seen":
            return record
        case "access":
            return replace(
                record,
                importance=akl.record_access(record.importance, now, rules.params),
                access_count=record.access_count + 1,
                last_access=now,
            )
        case "update":
            return replace(
                record,
                importance=akl.record_update(record.importance, now, rules.params),
                update_count=record.update_count + 1,
                last_update=now,
                last_writer=writer,
            )
        case "create":
            return replace(record, last_update=now, last_writer=writer)
        case _:
            assert_never(event)


def advance(
    record: NoteRecord,
    status: str | None,
    event: Event,
    now: datetime,
    rules: Rules,
    writer: str | None = None,
) -> tuple[NoteRecord, list[Change]]:
    """The record after `event` at `now`, given the note's current `status`; plus the changes.

    Trigger: the file's status differs from `known_status`.
    Why: someone other than the lifecycle set it, and humans win (DESIGN section 4).
    Outcome: the record takes that maturity and its importance moves to where that maturity
    holds (`human_importance`), *after* the event's bonus, so the edit's own update bonus cannot
    promote the note straight back.

    Otherwise demotions due before the event are applied first, then the bonus, then any
    promotion: the same order as if the maturity were re-checked continuously, which makes one
    late decay run equal to many daily ones.
    """
    changes: list[Change] = []
    if not _same_status(record.known_status, status):
        target = rules.mapping.effective(status)
        bumped = _bump(record, event, now, writer, rules)
        settled = akl.settle(bumped.importance, now, rules.params)
        moved = human_importance(record.maturity, target, settled.value, rules.params)
        if target is not record.maturity:
            written = event in ("update", "create") and writer != HUMAN
            reason: Reason = "update" if written else "human"
            changes.append(Change(record.path, record.maturity, target, moved, now, reason))
        updated = replace(
            bumped,
            importance=akl.Importance(moved, settled.at),
            maturity=target,
            known_status=status or "",
        )
        return updated, changes
    if not rules.managed(status):
        # Unknown or missing status: ranked as draft and never rewritten, so nothing to settle.
        return replace(_bump(record, event, now, writer, rules), maturity=Maturity.DRAFT), []
    record, before = _settle(record, now, "decay", rules)
    record = _bump(record, event, now, writer, rules)
    if event == "seen":
        return record, before
    record, after = _settle(record, now, "update" if event == "create" else event, rules)
    return record, before + after


def recency_source(record: NoteRecord | None, updated: datetime | None) -> datetime | None:
    """The latest update we know of: a recorded one, or the note's `updated` frontmatter.

    The frontmatter counts because the bridge cannot see edits made while it was not running;
    the later of the two wins. With neither, recency is 0 (`core.lifecycle.recency(None)`).
    """
    recorded = record.last_update if record is not None else None
    candidates = [t for t in (recorded, updated) if t is not None]
    return max(candidates) if candidates else None
