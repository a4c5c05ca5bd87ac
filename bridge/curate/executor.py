"""The curation executor: the one sequential writer for agents' operations (DESIGN section 6).

Each operation is planned against the files as they are, judged by the review policy, and then
applied, queued for review, or refused with a reason. Applied writes go through the vault store
(atomic, and seen by the watcher's journal), then the index and the lifecycle learn about them
and the bytes written are logged as the agent's, which is how a later human edit is recognised.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from bridge.core.dialect import pages_by_reference
from bridge.core.entry import parse_note
from bridge.core.maturity import Maturity, StatusMapping
from bridge.core.operations import InvalidOperation, Operation, agent_author
from bridge.core.paths import UnsafePathError
from bridge.core.review_policy import Facts, ReviewPolicy, decide
from bridge.curate import git
from bridge.curate.lock import WriterLock
from bridge.curate.plan import FileChange, Plan, PlanError, Planner
from bridge.curate.results import (
    BatchListener,
    BatchResult,
    BatchWritten,
    OpResult,
    unified_diff,
)
from bridge.curate.trash import move_to_trash
from bridge.index.search_index import IndexBusyError, SearchIndex
from bridge.index.sync import index_file
from bridge.state.db import StateDB
from bridge.state.lifecycle_store import LifecycleStore
from bridge.state.provenance import AgentWrites
from bridge.state.reviews import Review, ReviewState, ReviewStore, Snapshot
from bridge.vault.changes import ChangeLog
from bridge.vault.store import NoteError, VaultStore, WriteConflictError, content_hash

log = logging.getLogger(__name__)
Undo = Callable[[], object]  # puts back one change an operation made


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _duplicate_note(found: dict[str, object]) -> str:
    return (
        f"it nearly repeats `{found['path']}` (similarity {found['score']}); "
        f"consider UPDATE `{found['path']}` instead"
    )


def plan_diff(plan: Plan) -> str:
    """The unified diff a reviewer sees for a plan; a MOVE shows as a rename, as git does."""
    if plan.type != "MOVE":
        return unified_diff((c.path, c.before, c.after) for c in plan.changes)
    moved = next(c for c in plan.changes if c.role == "moved")
    target = plan.target
    head = (
        f"diff a/{moved.path} b/{target.path}\nrename from {moved.path}\nrename to {target.path}\n"
    )
    own = unified_diff([(moved.path, moved.before, target.after)]).replace(
        f"+++ b/{moved.path}", f"+++ b/{target.path}", 1
    )
    links = unified_diff((c.path, c.before, c.after) for c in plan.changes if c.role == "link")
    return head + own + links


@dataclass
class Applied:
    """What executing plans touched, so the index, git and lifecycle can follow once."""

    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    listed: list[int] = field(default_factory=list)  # applied reviews a reject can undo
    changes: ChangeLog | None = None  # every note the unit changed, for its git commit


class CurationExecutor:
    """Applies operations for agents and the decisions of reviewers, one at a time."""

    def __init__(
        self,
        store: VaultStore,
        index: SearchIndex,
        lifecycle: LifecycleStore,
        db: StateDB,
        policy: ReviewPolicy | None = None,
        *,
        status_mapping: StatusMapping | None = None,
        git_commit: bool = False,
        lock_path: Path | None = None,
        clock: Callable[[], dt.datetime] = _utcnow,
        near_duplicate: Callable[[str, str, str], tuple[str, float] | None] | None = None,
    ) -> None:
        self.store = store
        self.index = index
        self.lifecycle = lifecycle
        self.policy = policy or ReviewPolicy()
        self.writes = AgentWrites(db)
        self.reviews = ReviewStore(db)
        self.mapping = status_mapping or StatusMapping()
        self.git_commit = git_commit
        self.clock = clock
        self.lock = WriterLock(lock_path)
        # Told of each written batch (the wiring subscribes the folder overviews' refresh);
        # none for a bare executor, which then writes nothing but its operations' notes.
        self._batch_listeners: list[BatchListener] = []
        # (new path, its head, its text) -> the existing note it nearly repeats, how closely;
        # given by the wiring when the dense channel is on (`Bridge.near_duplicate`).
        self.near_duplicate = near_duplicate

    def add_batch_listener(self, listener: BatchListener) -> None:
        """Tell `listener` of every batch once its files are written (see `BatchWritten`)."""
        self._batch_listeners.append(listener)

    # -- the batch ---------------------------------------------------------------------------

    def planner(self, author: str, now: dt.datetime) -> Planner:
        """A planner over the vault as it is now (with the names the index knows notes by,
        where links resolve by names: a Logseq page's title and aliases)."""
        draft = self.mapping.status_for(Maturity.DRAFT)
        if not pages_by_reference(self.store.dialect):
            return Planner(self.store, author, now, draft)
        index = self.index

        def known() -> dict[str, tuple[str, ...]]:
            return {r.path: r.names for r in index.all_records() if r.names}

        return Planner(self.store, author, now, draft, known)

    def apply(self, operations: Sequence[Operation | InvalidOperation], author: str) -> BatchResult:
        """Run a batch in order for `author` (an agent name or `agent:<name>`).

        Never raises for a bad operation: each gets `applied`, `pending_review` or `failed`.
        """
        author = agent_author(author)
        with self.lock, self.store.recording() as changes:
            now = self.clock()
            done = Applied(changes=changes)
            results = []
            planner = self.planner(author, now)
            for position, op in enumerate(operations):
                result = self._one(position, op, author, now, planner, done)
                if result.status == "applied":
                    planner = self.planner(author, now)  # the file set may have changed
                results.append(result)
            git_error = self.finish(done, author)
        return BatchResult(tuple(results), git_error)

    def _one(
        self,
        position: int,
        op: Operation | InvalidOperation,
        author: str,
        now: dt.datetime,
        planner: Planner,
        done: Applied,
    ) -> OpResult:
        if isinstance(op, InvalidOperation):
            return OpResult(position, op.type, op.path, "failed", op.message)
        try:
            plan = planner.plan(op)
            if all(c.before == c.after for c in plan.changes):
                return OpResult(position, op.type, op.path, "applied", "no change: already so")
            decision, why = decide(self.policy, self.facts(plan))
            duplicate = self._duplicate_of(plan)
        except PlanError as exc:
            return OpResult(position, op.type, op.path, "failed", str(exc), None, exc.existing)
        except Exception as exc:
            # Trigger: a case no check foresaw. Why: planning writes nothing, and one bad
            # operation must not end the batch as a 500 after the ones before it were written.
            # Outcome: this operation fails, logged with its traceback; the batch goes on.
            log.exception("planning %s failed", op.label())
            why = f"internal error while planning ({type(exc).__name__}); nothing was written"
            return OpResult(position, op.type, op.path, "failed", why)
        extra = [] if duplicate is None else [_duplicate_note(duplicate)]
        notes = "".join(f"; note: {n}" for n in [*plan.notes, *extra])
        if decision == "review":
            review = self._add_review("pending", plan, author, why + notes, now)
            message = f"waiting for review {review.id}: {why}{notes}"
            return OpResult(
                position,
                op.type,
                op.path,
                "pending_review",
                message,
                review.id,
                duplicate_of=duplicate,
            )
        try:
            snapshots = self.execute(plan, author, now, done)
        except WriteConflictError:
            # A human edit landed while the write was being made: it stays, and the agent's
            # change waits for a person (approving it shows the diff against the new text).
            why = "the note changed while the agent's write was being made (a human edit)"
            review = self._add_review("pending", plan, author, why, now)
            message = f"waiting for review {review.id}: {why}{notes}"
            return OpResult(position, op.type, op.path, "pending_review", message, review.id)
        except (OSError, NoteError, UnsafePathError) as exc:
            # UnsafePathError: a file where a folder of the path must be, found at write time;
            # it ended the batch as a 400 after the operations before it were written.
            message = f"write failed, nothing of it was kept: {self._private(exc)}"
            return OpResult(position, op.type, op.path, "failed", message)
        review_id = None
        if decision == "apply_listed":
            # With its notes, as a pending review has them: the duplicate was left out.
            review = self._add_review("applied", plan, author, why + notes, now, snapshots)
            review_id = review.id
            done.listed.append(review.id)
            notes = f"; listed as review {review.id} (reject it to undo){notes}"
        return OpResult(
            position,
            op.type,
            op.path,
            "applied",
            f"{plan.type} done{notes}",
            review_id,
            duplicate_of=duplicate,
        )

    def _duplicate_of(self, plan: Plan) -> dict[str, object] | None:
        """For a new note (an ADD, or an UPSERT that creates): the note it nearly repeats."""
        op = plan.op
        if self.near_duplicate is None or plan.type != "ADD":
            return None
        text = "\n".join(part for part in (op.title, op.summary, op.narrative) if part)
        head = "\n".join(part for part in (op.title, op.summary) if part)
        found = self.near_duplicate(op.path, head, text)
        if found is None:
            return None
        path, score = found
        return {"path": path, "score": round(score, 3), "suggestion": f"UPDATE {path}"}

    def _add_review(
        self,
        state: ReviewState,
        plan: Plan,
        author: str,
        why: str,
        now: dt.datetime,
        snapshots: Sequence[Snapshot] = (),
    ) -> Review:
        """Record a plan's review: waiting (`pending`) or applied at once (`applied`)."""
        return self.reviews.add(
            state=state,
            operation=plan.op.model_dump(mode="json"),
            author=author,
            bases=plan.bases,
            diff=plan_diff(plan),
            why=why,
            now=now,
            snapshots=snapshots,
        )

    def facts(self, plan: Plan) -> Facts:
        """What the review policy needs to know about a plan."""
        op = plan.op
        current = plan.bases.get(op.subject)
        given = op.base_hash
        # A prefix of at least 8 hex digits is accepted, as git accepts short commit ids.
        stale = given is not None and (
            current is None or len(given) < 8 or not current.startswith(given)
        )
        detail = ""
        if stale:
            now_is = f"its base_hash is now {current}" if current else "it no longer exists"
            detail = (
                f"base_hash {given} does not match `{op.subject}` ({now_is}): the note changed "
                "since the author read it"
            )
        human = any(
            c.before is not None and self.writes.agent_of(c.path, c.before) is None
            for c in plan.changes
            if c.role in ("target", "source", "moved")
        )
        return Facts(plan.type, op.impact, human, stale, detail)

    # -- writing -----------------------------------------------------------------------------

    def execute(
        self,
        plan: Plan,
        author: str,
        now: dt.datetime,
        done: Applied,
        keep_human: bool = False,
    ) -> list[Snapshot]:
        """Write a plan's files (a MOVE's rename first, trash moves last); return undo snapshots.

        All or nothing: if a file fails, those already changed are put back (`_undo`).
        `keep_human`: a human approved this change to human text; the note stays the human's,
        so the next agent change to it waits for review again.
        """
        ordered = sorted(plan.changes, key=lambda c: (c.role != "moved", c.after is None))
        undo: list[Undo] = []
        try:
            for change in ordered:
                if change.role == "moved":
                    undo += self._move(change, plan.target, author, now)
                elif not (plan.type == "MOVE" and change.role == "target"):
                    undo.append(self._write(change, author, now, keep_human))
        except BaseException:
            # An operation is all or nothing: a MERGE whose third file failed had left the
            # merged note written and its sources in place. What was made is put back.
            self._undo(undo)
            raise
        snapshots: list[Snapshot] = []
        for change in plan.changes:
            after = content_hash(change.after) if change.after is not None else None
            snapshots.append(Snapshot(change.path, change.before, after))
            (done.written if change.after is not None else done.removed).append(change.path)
            if change.after is None and change.role != "moved":
                self.writes.forget(change.path)
                self.lifecycle.forget(change.path)
        done.labels.append(plan.op.label())
        target = plan.op.path
        if plan.type not in ("DELETE", "MOVE"):  # a move is no update: its numbers just follow
            data = next(c.after for c in plan.changes if c.path == target)
            text = (data or b"").decode("utf-8", "replace")
            status = parse_note(target, text, self.store.dialect).entry.status
            created = plan.bases.get(target, "") is None  # the plan made a new note there
            record = self.lifecycle.record_create if created else self.lifecycle.record_update
            record(target, status, now, author)
        return snapshots

    def _write(
        self, change: FileChange, author: str, now: dt.datetime, keep_human: bool = False
    ) -> Undo:
        """Make one change; returns what puts it back."""
        store = self.store
        if change.after is None:
            trashed = move_to_trash(store, change.path)
            log.info("moved %s to %s", change.path, trashed)
            removed = change.before or b""

            def untrash() -> None:
                store.write(change.path, removed, expected=None)
                (store.root / trashed).unlink()

            return untrash
        writer: str | None = author
        before = change.before
        if change.role == "link" or (keep_human and before is not None):
            # A link rewrite, or an approved edit of a human's note, leaves the note whose it was.
            writer = self.writes.agent_of(change.path, before) if before is not None else None
        self._store_write(change.path, change.after, before, writer, now)
        after = change.after
        if before is None:
            return partial(store.discard, change.path, after)
        return partial(store.write, change.path, before, expected=after)

    def _store_write(
        self, path: str, data: bytes, before: bytes | None, writer: str | None, now: dt.datetime
    ) -> None:
        if writer is not None:
            # Recorded before the rename: a crash between the two must not leave the bridge's
            # own bytes looking like a human's (later agent edits would wait for review).
            # Bytes that never land match no file, so a record of them is harmless.
            self.writes.record(path, data, writer, now)
        self.store.write(path, data, expected=before)

    def _move(
        self, moved: FileChange, target: FileChange, author: str, now: dt.datetime
    ) -> list[Undo]:
        """A MOVE's rename, its history following it, and its own relinked text if any."""
        old, new, before = moved.path, target.path, moved.before or b""
        writer = self.writes.agent_of(old, before)  # a move leaves the note whose it was
        self.store.move(old, new, before)
        self.lifecycle.move(old, new)
        self.writes.move(old, new)
        log.info("moved %s to %s", old, new)

        def back() -> None:
            self.store.move(new, old, before, back=True)
            self.lifecycle.move(new, old)
            self.writes.move(new, old)

        undo: list[Undo] = [back]
        after = target.after or b""
        if after != before:
            self._store_write(new, after, before, writer, now)
            undo.append(partial(self.store.write, new, before, expected=after))
        return undo

    def _undo(self, undo: Sequence[Undo]) -> None:
        """Put back what an operation had changed when a later file of it failed.

        Each file is put back only if it still holds what the bridge made of it: a human edit
        that landed meanwhile stays (and is logged).
        """
        for step in reversed(undo):
            try:
                step()
            except (OSError, NoteError, UnsafePathError) as exc:
                log.warning("could not put back a file after a failed write: %s", exc)

    def _private(self, exc: BaseException) -> str:
        """An error's text without the vault's absolute path (results reach API clients)."""
        return str(exc).replace(f"{self.store.root}/", "").replace(str(self.store.root), ".")

    def finish(self, done: Applied, author: str, message: str | None = None) -> str | None:
        """After a batch: announce it, index what changed, commit to git if asked.

        Every batch ends here (curation, an approve, a reject), so listeners hear of each batch
        once, and what they write (the folder overviews' `_index.md`) joins the batch's index
        update and git commit.
        """
        if not done.written and not done.removed:
            return None
        self._announce(done, author)
        try:
            for path in done.removed:
                if path not in done.written:
                    self.index.remove(path)
            for path in dict.fromkeys(done.written):
                try:
                    index_file(self.index, self.store.read(path))
                except NoteError as exc:
                    log.warning("not indexed after writing: %s", exc)
            self.index.commit()
        except IndexBusyError as exc:
            # `serve` owns the index; its watcher indexes these files instead.
            log.info("index busy, left to the running bridge: %s", exc)
        text = message or git.batch_message(author, done.labels)
        return self.commit(done.changes, text)

    def commit(self, changes: ChangeLog | None, message: str) -> str | None:
        """With `git_commit` on: commit what a unit of work changed (`git.commit_changes`)."""
        if changes is None:
            return None
        return git.commit_work(self.store.root, self.git_commit, changes.changes, message)

    def _announce(self, done: Applied, author: str) -> None:
        """Tell the listeners of the written batch; what they write joins it."""
        if not self._batch_listeners:
            return
        batch = BatchWritten(tuple(done.written), tuple(done.removed), author, self.clock())
        for listener in self._batch_listeners:
            extra = list(listener(batch))
            done.written.extend(extra)
            for path in extra if done.listed else ():
                # Trigger: an operation listed as an applied review rewrote a link in a folder
                # overview, and the refresh then rewrote that overview. Why: its reject found
                # the overview "edited since" and refused. Outcome: the batch's bytes count.
                self.reviews.follow_up(done.listed, path, self.current_hash(path))

    def current_hash(self, path: str) -> str | None:
        """The note's content hash now; None when it is gone."""
        try:
            return self.store.read(path).hash
        except NoteError:
            return None
