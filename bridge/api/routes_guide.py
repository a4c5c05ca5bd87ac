"""`GET /v1/guide`: how this vault is organised, for an agent's first call."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from bridge.api.context import ApiContext, get_context
from bridge.api.models import GuideOut, error_responses
from bridge.guide.compose import TOP_ENTRIES
from bridge.guide.gather import gather_guide
from bridge.guide.render import render_guide

router = APIRouter(prefix="/v1", responses=error_responses(401))
Ctx = Annotated[ApiContext, Depends(get_context)]


@router.get("/guide", response_model=GuideOut, tags=["guide"])
def guide(
    ctx: Ctx,
    top: Annotated[
        int, Query(ge=1, le=100, description="How many of the most important notes to list")
    ] = TOP_ENTRIES,
) -> GuideOut:
    """The vault's conventions (entry format with a real example, relations, placement,
    review), its folder outline with note counts and its most important notes, as data and as
    Markdown. Reading it is not a use of any note."""
    # The graph snapshot's records are cached per index generation: no second manifest read.
    made = gather_guide(ctx.bridge, ctx.graph.snapshot().records.values(), top=top)
    return GuideOut(**made.model_dump(), markdown=render_guide(made))
