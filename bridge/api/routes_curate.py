"""Write routes: curation (direct operations, LLM, prompt), tasks and the review queue."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator

from bridge.api.context import ApiContext, get_context
from bridge.api.errors import ApiError
from bridge.api.models import error_responses
from bridge.api.tasks import TaskFailedError, TaskRunner
from bridge.core.operations import MAX_AUTHOR, MAX_BATCH, agent_author, parse_operations
from bridge.core.paths import UnsafePathError
from bridge.curate.results import BatchResult
from bridge.curate.reviews import ReviewError
from bridge.llm.context import build_context
from bridge.llm.prompts import curation_prompt
from bridge.state.reviews import MAX_REVIEW_ID, Review, states_named

router = APIRouter(prefix="/v1", responses=error_responses(401))
Ctx = Annotated[ApiContext, Depends(get_context)]
ReviewId = Annotated[int, PathParam(ge=1, le=MAX_REVIEW_ID, description="The review's number")]
NO_LLM = (
    "no LLM is configured on this bridge: set VAULT_BRIDGE_LLM_MODEL (any litellm model, local "
    "Ollama included), or write the operations yourself (POST /v1/curate/prompt gives the "
    "prompt and schema) and send them to POST /v1/curate/operations"
)


class _Authored(BaseModel):
    author: str = Field(
        "agent:api", min_length=1, max_length=MAX_AUTHOR, description="agent:<name>"
    )

    @field_validator("author")
    @classmethod
    def _agent(cls, value: str) -> str:
        return agent_author(value)  # "agent name `x y` must be one word" becomes a 422


class OperationsRequest(_Authored):
    # Items are checked one by one (`parse_operations`): one bad item fails alone, as it does
    # in a batch applied without the API, instead of refusing the whole request.
    operations: list[Any] = Field(
        max_length=MAX_BATCH,
        description="Operations (docs/curation.md): type, path, content fields",
    )


class ContentRequest(_Authored):
    content: str = Field(min_length=1, max_length=2_000_000)


class RejectRequest(BaseModel):
    reason: str = Field("", max_length=2000)


def review_json(review: Review) -> dict[str, Any]:
    """A review as the API shows it: the stored record plus the operation's reason and impact."""
    data = review.to_dict()
    op = review.operation
    return {
        **data,
        "reason": op.get("reason"),
        "impact": op.get("impact"),
        "policy": review.why,
    }


def _publish_batch(ctx: ApiContext, batch: BatchResult) -> None:
    for result in batch.results:
        if result.review_id is not None:
            kind = "review.added" if result.status == "pending_review" else "review.changed"
            ctx.bus.publish(kind, id=result.review_id, state=result.status, path=result.path)


@router.post("/curate/operations", tags=["curation"])
def curate_operations(body: OperationsRequest, ctx: Ctx) -> dict[str, Any]:
    """Apply operations written by the caller's own model; each says what happened to it."""
    batch = ctx.bridge.executor.apply(parse_operations(body.operations), body.author)
    _publish_batch(ctx, batch)
    return batch.to_dict()


def _tasks(ctx: ApiContext) -> TaskRunner:
    runner = ctx.services.get("tasks")
    if runner is None:
        runner = ctx.services.setdefault("tasks", TaskRunner())
    assert isinstance(runner, TaskRunner)
    return runner


@router.post("/curate", status_code=202, tags=["curation"], responses=error_responses(503))
def curate(body: ContentRequest, ctx: Ctx) -> JSONResponse:
    """Let the bridge's LLM turn raw content into operations; poll `/v1/tasks/{id}`."""
    arrived = time.monotonic()  # the model's time budget counts from here, not from the task
    curator = ctx.bridge.curator
    if curator is None:
        raise ApiError(503, "no_llm", NO_LLM)

    def work() -> dict[str, Any]:
        outcome = curator.curate(body.content, body.author, arrived)
        _publish_batch(ctx, outcome.batch)
        if outcome.model_failed:  # `failed`, with what was applied before it failed
            raise TaskFailedError(outcome.error or "the model failed", outcome.to_dict())
        return outcome.to_dict()

    task = _tasks(ctx).start("curate", work)
    return JSONResponse({"task_id": task.id, "state": task.state}, status_code=202)


@router.get("/tasks/{task_id}", tags=["curation"], responses=error_responses(404))
def task(task_id: Annotated[str, PathParam(max_length=64)], ctx: Ctx) -> dict[str, Any]:
    """A background task's state and, when done, its result."""
    found = _tasks(ctx).get(task_id)
    if found is None:
        raise ApiError(404, "not_found", f"there is no task {task_id}")
    return found.to_dict()


@router.post("/curate/prompt", tags=["curation"])
def curate_prompt(body: ContentRequest, ctx: Ctx) -> dict[str, Any]:
    """The curation prompt, the operations schema and the related entries, for your own model."""
    bridge = ctx.bridge
    context = build_context(bridge.engine, bridge.store, body.content)
    made = curation_prompt(body.content, context)
    return {"prompt": made.text(), "system": made.system, "user": made.user, "schema": made.schema}


StateFilter = Literal["open", "all", "pending", "conflict", "applied", "approved", "rejected"]


@router.get("/reviews", tags=["reviews"])
def reviews(
    ctx: Ctx,
    state: Annotated[StateFilter, Query(description="open = pending, conflict, applied")] = "open",
) -> list[dict[str, Any]]:
    """Reviews, newest first."""
    return [review_json(r) for r in ctx.bridge.reviews.list(states_named(state))]


def _review_call(ctx: ApiContext, action: str, review_id: int, reason: str = "") -> dict[str, Any]:
    service = ctx.bridge.reviews
    try:
        if action == "get":
            return review_json(service.get(review_id))
        decision = (
            service.approve(review_id) if action == "approve" else service.reject(review_id, reason)
        )
    except ReviewError as exc:
        status = {"not_found": 404, "conflict": 409, "decided": 409}.get(exc.code, 400)
        raise ApiError(status, exc.code, str(exc)) from exc
    review = decision.review
    ctx.bus.publish("review.changed", id=review.id, state=review.state, path=review.path)
    if review.state == "conflict":
        raise ApiError(409, "conflict", decision.message)
    return {**review_json(review), "message": decision.message, "git": decision.git}


@router.get("/reviews/{review_id}", tags=["reviews"], responses=error_responses(404))
def review(review_id: ReviewId, ctx: Ctx) -> dict[str, Any]:
    """One review with its unified diff and operation."""
    return _review_call(ctx, "get", review_id)


@router.post("/reviews/{review_id}/approve", tags=["reviews"], responses=error_responses(404, 409))
def approve(review_id: ReviewId, ctx: Ctx) -> dict[str, Any]:
    """Apply the reviewed operation if the note is still as the diff shows (else 409)."""
    return _review_call(ctx, "approve", review_id)


@router.post(
    "/reviews/{review_id}/reject", tags=["reviews"], responses=error_responses(400, 404, 409)
)
def reject(review_id: ReviewId, ctx: Ctx, body: RejectRequest | None = None) -> dict[str, Any]:
    """Discard the operation (restore the note if it was applied) and record why."""
    return _review_call(ctx, "reject", review_id, body.reason if body else "")


# -- import and reindex (what the CLI sends to a running bridge) -----------------------------


class ImportRequest(BaseModel):
    # `data` and `root` are checked by the importer itself, so a file is refused with the
    # same words through the API as by `vault-bridge import` alone.
    data: Any = Field(description="A chat transcript JSON (docs/import.md)")
    root: str = Field("conversations", description="The folder for the sessions")
    force: bool = Field(
        False, strict=True, description="Overwrite session notes edited since the import"
    )


@router.post("/import", tags=["curation"], responses=error_responses(400))
def import_transcript(body: ImportRequest, ctx: Ctx) -> dict[str, Any]:
    """Import chat transcripts (one note per session) with this bridge as the writer."""
    try:
        report = ctx.bridge.import_transcripts(body.data, root=body.root, force=body.force)
    except UnsafePathError as exc:  # a root outside the vault, or a note where a folder goes
        raise ApiError(400, "bad_path", str(exc)) from exc
    except ValueError as exc:  # TranscriptError
        raise ApiError(422, "bad_transcript", str(exc)) from exc
    for path in report.written:
        ctx.bus.publish("entry.changed", path=path)
    return {**report.summary(), "written": report.written, "kept": report.kept}


@router.post("/reindex", tags=["curation"])
def reindex(ctx: Ctx) -> dict[str, Any]:
    """Re-read every note into the running index (a rebuild from scratch needs serve stopped)."""
    report = ctx.bridge.refresh_index()
    return {
        "notes": ctx.bridge.index.note_count(),
        "generation": ctx.bridge.index.generation,
        "problems": len(report.problems),
    }
