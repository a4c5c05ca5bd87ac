"""`POST /v1/overviews`: refresh folder overview regions with this bridge as the writer.

What `vault-bridge overviews --write` sends when `serve` runs on the vault, so the running
bridge's single writer makes the writes and its watcher knows them as its own.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from bridge.api.context import ApiContext, get_context
from bridge.api.errors import ApiError
from bridge.api.models import error_responses
from bridge.core.overview import clean_folder

router = APIRouter(prefix="/v1", responses=error_responses(401))
Ctx = Annotated[ApiContext, Depends(get_context)]


class OverviewsRequest(BaseModel):
    folder: str = Field(
        "", max_length=1000, description="Only this folder and those below it; empty: all"
    )


@router.post("/overviews", tags=["curation"], responses=error_responses(400))
def overviews(ctx: Ctx, body: OverviewsRequest | None = None) -> dict[str, Any]:
    """Rewrite the overview region of every `_index.md` that holds the markers (docs/overviews.md).

    Notes without markers are never written; a human edit that lands during the refresh wins.
    """
    try:
        folder = clean_folder(body.folder if body is not None else "")
        ctx.bridge.store.check_folder(folder)
    except ValueError as exc:  # an UnsafePathError too
        raise ApiError(400, "bad_path", str(exc)) from exc
    report = ctx.bridge.write_overviews(folder)
    for outcome in report.outcomes.values():
        if outcome.state == "updated":
            ctx.bus.publish("entry.changed", path=outcome.path)
    return report.to_json()
