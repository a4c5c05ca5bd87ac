"""Read routes: health, status, query, search, entries, tree, graph, lifecycle."""

from __future__ import annotations

import datetime as dt
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.concurrency import run_in_threadpool

from bridge import __version__
from bridge.api.context import ApiContext, get_context
from bridge.api.errors import ApiError
from bridge.api.graph import folder_tree
from bridge.api.models import (
    EntryOut,
    FeedbackOut,
    FeedbackRequest,
    Graph,
    GraphEdge,
    GraphNode,
    Health,
    QueryRequest,
    RelationOut,
    SemanticStatus,
    Status,
    TreeOut,
    error_responses,
)
from bridge.core.dialect import tree_path
from bridge.core.paths import UnsafePathError, normalise_note_path
from bridge.lifecycle.report import explain
from bridge.overviews import overview_from_paths
from bridge.query.models import QueryResult
from bridge.query.uses import Credit, refusal
from bridge.vault.store import NoteError

# Health answers without a token; every other route may answer 401.
public = APIRouter(prefix="/v1")
router = APIRouter(prefix="/v1", responses=error_responses(401))
Ctx = Annotated[ApiContext, Depends(get_context)]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _note_path(path: str) -> str:
    """A path from the URL, checked like any new name (400 when it would leave the vault)."""
    return normalise_note_path(path)


def _read(ctx: ApiContext, path: str) -> Any:
    try:
        return ctx.bridge.store.read(_note_path(path))
    except NoteError as exc:
        if exc.problem.code == "missing":
            raise ApiError(404, "not_found", f"no note `{exc.problem.path}`") from exc
        if exc.problem.code == "outside_vault":
            raise ApiError(400, "bad_path", exc.problem.message) from exc
        raise ApiError(422, exc.problem.code, exc.problem.message) from exc


@public.get("/health", response_model=Health, tags=["status"])
def health() -> Health:
    """Liveness, without a token (so the plugin can tell "not running" from "bad token")."""
    return Health(status="ok", version=__version__)


@router.get("/status", response_model=Status, tags=["status"])
def status(ctx: Ctx) -> Status:
    """What the bridge serves: the vault, the index generation, pending reviews."""
    bridge = ctx.bridge
    pending = len(bridge.reviews.list(("pending", "conflict")))
    return Status(
        version=__version__,
        vault=str(bridge.settings.vault_path),
        state_dir=str(bridge.settings.state_path),
        notes=bridge.index.note_count(),
        generation=bridge.index.generation,
        unresolved_links=ctx.graph.unresolved(),
        llm_model=bridge.settings.llm_model,
        watching=ctx.watching,
        pending_reviews=pending,
        semantic=SemanticStatus.model_validate(bridge.semantic_status()),
    )


def _ask(
    ctx: ApiContext, body: QueryRequest, kind: str, arrived: float | None = None
) -> QueryResult:
    engine = ctx.bridge.engine
    try:
        if kind == "search":
            return engine.search(
                body.query, budget_words=body.budget_words, limit=body.limit, scope=body.scope
            )
        return engine.query(
            body.query,
            budget_words=body.budget_words,
            limit=body.limit,
            scope=body.scope,
            arrived=arrived,
        )
    except ValueError as exc:
        raise ApiError(400, "bad_scope", str(exc)) from exc


# Questions run on the answer threads (`ApiContext.answer`); an LLM tier waits on the network
# for seconds, so with an LLM configured they go to Starlette's larger pool instead and cannot
# hold the answer threads.
@router.post("/query", response_model=QueryResult, tags=["query"], responses=error_responses(400))
async def query(body: QueryRequest, ctx: Ctx) -> QueryResult:
    """Answer through the tiers (cache, direct, LLM) with sources and excerpts."""
    arrived = time.monotonic()  # an LLM answer's time budget counts from here, queueing included
    if ctx.bridge.engine.answerer is not None:
        return await run_in_threadpool(_ask, ctx, body, "query", arrived)
    return await ctx.answer(_ask, ctx, body, "query", arrived)


@router.post("/search", response_model=QueryResult, tags=["query"], responses=error_responses(400))
async def search(body: QueryRequest, ctx: Ctx) -> QueryResult:
    """Ranked notes with excerpts: no answer, no cache, no out-of-domain cut."""
    return await ctx.answer(_ask, ctx, body, "search")


def _credit(ctx: ApiContext, query_id: str, path: str, helpful: bool = True) -> Credit | None:
    """Credit a source of an answer (docs/lifecycle.md), or say clearly why it cannot be."""
    outcome = ctx.bridge.engine.feedback(query_id, path, helpful)
    message = refusal(outcome, query_id, path)
    if message is not None:
        status, code = (
            (404, "unknown_query") if outcome is Credit.UNKNOWN_QUERY else (422, "not_a_source")
        )
        raise ApiError(status, code, message)
    return outcome


@router.get(
    "/entries/{path:path}",
    response_model=EntryOut,
    tags=["entries"],
    responses=error_responses(400, 404),
)
def entry(
    path: str,
    ctx: Ctx,
    from_query: Annotated[
        str | None,
        Query(
            max_length=64,
            description="The `query_id` of the answer this note was opened from: the open "
            "counts as a use of the note (once per answer)",
        ),
    ] = None,
) -> EntryOut:
    """One note: frontmatter, body, resolved relations, backlinks, lifecycle."""
    file = _read(ctx, path)
    credit = _credit(ctx, from_query, file.path) if from_query else None
    note = file.parse()
    resolver = ctx.bridge.index.link_resolver()
    relations = [
        RelationOut(
            target=link.target,
            path=resolver.resolve(link.target, note.path),
            reason=link.reason,
            alias=link.alias,
            heading=link.heading,
            block=link.block,
            origin=link.origin,
        )
        for link in note.links
    ]
    bridge = ctx.bridge
    bridge.engine.lifecycle.flush()  # the uses just credited (this open's too) are shown
    _, lifecycle = explain(
        bridge.store, bridge.lifecycle, bridge.settings.status_mapping, note.path, _now()
    )
    return EntryOut(
        path=note.path,
        title=note.title,
        hash=file.hash,
        frontmatter=_jsonable(dict(note.frontmatter)),
        body=note.body,
        text=file.text,
        relations=relations,
        backlinks=ctx.graph.backlinks(note.path),
        problems=[p.message for p in note.problems],
        lifecycle=lifecycle,
        credit=None if credit is None else credit.value,
    )


@router.post(
    "/feedback", response_model=FeedbackOut, tags=["query"], responses=error_responses(400, 404)
)
def feedback(body: FeedbackRequest, ctx: Ctx) -> FeedbackOut:
    """Say whether a source of an answer helped: a helpful note is credited as used (+3
    importance), once per answer; a not-helpful verdict credits nothing."""
    try:
        path = normalise_note_path(body.path)
    except UnsafePathError as exc:
        raise ApiError(400, "bad_path", str(exc)) from exc
    credit = _credit(ctx, body.query_id, path, body.helpful)
    return FeedbackOut(
        query_id=body.query_id,
        path=path,
        helpful=body.helpful,
        credited=credit is Credit.CREDITED,
        credit=None if credit is None else credit.value,
    )


@router.get("/tree", response_model=TreeOut, tags=["entries"], responses=error_responses(400))
def tree(
    ctx: Ctx,
    folder: Annotated[str, Query(max_length=1000, description="Start folder")] = "",
    depth: Annotated[int, Query(ge=1, le=10)] = 3,
) -> TreeOut:
    """The context tree: folders and notes with titles and statuses, and the start folder's
    overview (its notes with summaries and statuses, its subfolders with counts)."""
    root = ctx.bridge.store.check_folder(folder)
    records = ctx.graph.snapshot().records
    overview = overview_from_paths(ctx.bridge.store, records, root)
    dialect = ctx.bridge.store.dialect
    tree = folder_tree(records, root, depth, lambda path: tree_path(dialect, path))
    return TreeOut.model_validate({**tree, "overview": overview.to_json()})


@router.get("/graph", response_model=Graph, tags=["entries"], responses=error_responses(400))
def graph(
    ctx: Ctx,
    folder: Annotated[str, Query(max_length=1000, description="Only notes under it")] = "",
) -> Graph:
    """Notes and their resolved links (relations), as Obsidian's graph shows them."""
    prefix = ctx.bridge.store.check_folder(folder)
    snap = ctx.graph.snapshot()
    inside = (lambda p: p.startswith(prefix + "/")) if prefix else (lambda p: True)
    nodes = [
        GraphNode(path=p, title=r.title, status=r.status)
        for p, r in sorted(snap.records.items())
        if inside(p)
    ]
    edges = [GraphEdge(source=a, target=b) for a, b in snap.edges if inside(a) and inside(b)]
    return Graph(nodes=nodes, edges=edges, unresolved=snap.unresolved)


@router.get("/lifecycle/{path:path}", tags=["lifecycle"], responses=error_responses(400, 404))
def lifecycle(path: str, ctx: Ctx) -> dict[str, Any]:
    """One note's importance, recency, maturity, counts and next transition."""
    file = _read(ctx, path)
    bridge = ctx.bridge
    bridge.engine.lifecycle.flush()  # uses are written in batches: show the latest
    _, document = explain(
        bridge.store, bridge.lifecycle, bridge.settings.status_mapping, file.path, _now()
    )
    return document


@router.post("/lifecycle/decay", tags=["lifecycle"])
def decay(ctx: Ctx) -> dict[str, Any]:
    """Run the decay job now (the same job as `vault-bridge decay`)."""
    return ctx.bridge.decay(_now()).to_json()
