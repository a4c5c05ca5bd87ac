"""`GET /v1/similar/{path}`: the notes most like one note, by meaning."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from bridge.api.context import ApiContext, get_context
from bridge.api.errors import ApiError
from bridge.api.models import RelatedNote, SimilarOut, error_responses
from bridge.core.paths import UnsafePathError, normalise_note_path
from bridge.semantic.related import UnknownNoteError, related_notes

router = APIRouter(prefix="/v1", responses=error_responses(401))
Ctx = Annotated[ApiContext, Depends(get_context)]


@router.get(
    "/similar/{path:path}",
    response_model=SimilarOut,
    tags=["entries"],
    responses=error_responses(400, 404, 503),
)
def similar(
    path: str,
    ctx: Ctx,
    limit: Annotated[int, Query(ge=1, le=100, description="Most notes")] = 10,
) -> SimilarOut:
    """Notes about the same thing as `path`, whatever their words (the plugin's "Related in
    memory" panel). Not a use of any note."""
    semantic = ctx.bridge.semantic
    if semantic is None:
        raise ApiError(503, "semantic_off", "the dense channel is off (embed_model = off)")
    try:
        found = related_notes(ctx.bridge.index, semantic, normalise_note_path(path), limit)
    except UnsafePathError as exc:
        raise ApiError(400, "bad_path", str(exc)) from exc
    except UnknownNoteError as exc:
        raise ApiError(404, "not_found", str(exc)) from exc
    return SimilarOut(
        path=found.path,
        similar=[
            RelatedNote(path=n.path, title=n.title, status=n.status, score=n.score)
            for n in found.notes
        ],
        reason=found.reason,
    )
