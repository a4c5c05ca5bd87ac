"""The review service: list, show, approve and reject queued operations.

Approve plans the operation again against the files as they are now. If the files still have
the hashes the reviewer's diff was computed from, it applies exactly that change; otherwise the
review becomes `conflict` with a fresh diff, and approving it again applies the new one. Reject of
an `applied` review restores the bytes the operation replaced, unless someone has edited the
note since: a newer human edit is never clobbered.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass

from bridge.core.entry import parse_note
from bridge.core.operations import HUMAN, Operation
from bridge.curate.executor import Applied, CurationExecutor, plan_diff
from bridge.curate.plan import PlanError
from bridge.curate.trash import move_to_trash
from bridge.state.reviews import OPEN_STATES, Review, ReviewState, Snapshot


class ReviewError(Exception):
    """A review action that cannot be done; `code` is what the API maps to a status."""

    code = "review_error"


class ReviewNotFoundError(ReviewError):
    code = "not_found"


class ReviewStateError(ReviewError):
    """The review was already decided (approving twice...): HTTP 409 `decided`.

    Its own code, not `conflict`: a conflict asks the reviewer to look again (CLI exit 1),
    while a decided review is a wrong id for this action (exit 2, as without `serve`).
    """

    code = "decided"


class RestoreConflictError(ReviewError):
    """Rejecting would overwrite an edit made after the agent's write: HTTP 409."""

    code = "conflict"


@dataclass(frozen=True)
class Decision:
    """The outcome of approve/reject: the review as it is now and what happened."""

    review: Review
    message: str
    git: str | None = None


class ReviewService:
    """Reviews of one vault, decided through the executor's single writer."""

    def __init__(self, executor: CurationExecutor) -> None:
        self.executor = executor
        self.store = executor.reviews

    def list(self, states: Sequence[ReviewState] | None = None) -> builtins.list[Review]:
        """Reviews in the given states; default: the open ones (pending, conflict, applied)."""
        return self.store.list(states if states is not None else OPEN_STATES)

    def get(self, review_id: int) -> Review:
        """One review or `ReviewNotFoundError`."""
        review = self.store.get(review_id)
        if review is None:
            raise ReviewNotFoundError(f"there is no review {review_id}")
        return review

    def approve(self, review_id: int, by: str = HUMAN) -> Decision:
        """Apply a pending (or conflict) review if its base still matches; else `conflict`.

        Approving an `applied` review keeps the change and closes the review. Approving a
        decided review raises `ReviewStateError`.
        """
        ex = self.executor
        with ex.lock, ex.store.recording() as changes:
            review = self.get(review_id)
            now = ex.clock()
            if review.state == "applied":
                self._decide(review, "approved", by)
                return Decision(self.get(review_id), f"review {review_id}: change kept")
            if review.state not in ("pending", "conflict"):
                raise ReviewStateError(f"review {review_id} is already {review.state}")
            op = Operation.model_validate(dict(review.operation))
            try:
                plan = ex.planner(review.author, now).plan(op)
            except PlanError as exc:
                note = f"cannot apply any more: {exc}"
                ex.reviews.mark_conflict(review_id, review.bases, "", note)
                return Decision(self.get(review_id), f"review {review_id}: {note}")
            if dict(plan.bases) != dict(review.bases):
                note = (
                    f"`{review.path}` changed since the review was made; here is the new diff, "
                    "approve again to apply it"
                )
                ex.reviews.mark_conflict(review_id, plan.bases, plan_diff(plan), note)
                return Decision(self.get(review_id), f"review {review_id}: conflict: {note}")
            done = Applied(changes=changes)
            ex.execute(plan, review.author, now, done, keep_human=True)
            self._decide(review, "approved", by)
            message = f"vault-bridge: review {review_id} approved by {by}\n\n- {op.label()}\n"
            git_error = ex.finish(done, review.author, message)
            return Decision(self.get(review_id), f"review {review_id}: applied", git_error)

    def reject(self, review_id: int, reason: str, by: str = HUMAN) -> Decision:
        """Discard a queued operation, or undo an applied one; the reason is recorded."""
        if not reason.strip():
            raise ReviewError("a reject needs a reason (say why, for the agent and the log)")
        ex = self.executor
        with ex.lock, ex.store.recording() as changes:
            review = self.get(review_id)
            if review.state in ("pending", "conflict"):
                self._decide(review, "rejected", by, reason)
                return Decision(self.get(review_id), f"review {review_id}: rejected, not applied")
            if review.state != "applied":
                raise ReviewStateError(f"review {review_id} is already {review.state}")
            snapshots = ex.reviews.snapshots(review_id)
            self._check_restorable(review_id, snapshots)
            done = Applied(changes=changes)
            now = ex.clock()
            undone: list[str] = []
            handled = self._move_back(review, snapshots, done, undone)
            for snap in snapshots:
                if snap.path in handled:
                    continue
                if snap.before is None:
                    trashed = move_to_trash(ex.store, snap.path)
                    undone.append(f"`{snap.path}`, which it created, was moved to `{trashed}`")
                    ex.writes.forget(snap.path)
                    ex.lifecycle.forget(snap.path)
                    done.removed.append(snap.path)
                else:
                    ex.store.write(snap.path, snap.before)
                    done.written.append(snap.path)
                    undone.append(f"`{snap.path}` was restored as it was before")
                    if snap.path == review.path:
                        text = snap.before.decode("utf-8", "replace")
                        status = parse_note(snap.path, text, ex.store.dialect).entry.status
                        ex.lifecycle.record_update(snap.path, status, now, HUMAN)
            self._decide(review, "rejected", by, reason)
            message = f"vault-bridge: review {review_id} rejected by {by}: {reason}\n"
            git_error = ex.finish(done, HUMAN, message)
            return Decision(
                self.get(review_id),
                f"review {review_id}: rejected; " + "; ".join(undone),
                git_error,
            )

    def _move_back(
        self,
        review: Review,
        snapshots: Sequence[Snapshot],
        done: Applied,
        undone: builtins.list[str],
    ) -> set[str]:
        """Undo an applied MOVE by moving the note back, so its history follows it again.

        Returns the two paths it handled (none for other operations).
        """
        op = review.operation
        old, new = op.get("from"), op.get("path")
        if op.get("type") != "MOVE" or not isinstance(old, str) or not isinstance(new, str):
            return set()
        ex = self.executor
        before = next((s.before for s in snapshots if s.path == old), None)
        if before is None:
            return set()
        now_there = ex.store.read(new).data
        ex.store.move(new, old, now_there, back=True)
        if now_there != before:
            ex.store.write(old, before, expected=now_there)
        ex.lifecycle.move(new, old)
        ex.writes.move(new, old)
        done.removed.append(new)
        done.written.append(old)
        undone.append(f"`{new}` was moved back to `{old}`")
        return {old, new}

    def _check_restorable(self, review_id: int, snapshots: Sequence[Snapshot]) -> None:
        for snap in snapshots:
            current = self.executor.current_hash(snap.path)
            if current != snap.after_hash:
                what = "was created again" if snap.after_hash is None else "was edited"
                raise RestoreConflictError(
                    f"review {review_id}: `{snap.path}` {what} after the agent's change; "
                    "restoring would overwrite that edit, so nothing was changed (edit the note "
                    "by hand, or approve the review to keep the agent's change)"
                )

    def _decide(self, review: Review, state: ReviewState, by: str, note: str | None = None) -> None:
        ok = self.executor.reviews.decide(
            review.id, state, expected=(review.state,), now=self.executor.clock(), by=by, note=note
        )
        if not ok:
            raise ReviewStateError(f"review {review.id} was decided by someone else meanwhile")
