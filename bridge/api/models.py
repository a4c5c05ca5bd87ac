"""Request and response bodies of the HTTP API (the query answer is bridge.query.models)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from bridge.guide.models import Guide


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    """Every error: `{"error": {"code": ..., "message": ...}}`."""

    error: ErrorBody


# What each error status means, with its codes (docs/api.md#errors), for the OpenAPI schema.
ERROR_STATUSES = {
    400: "`bad_path`, `bad_scope`: a path or folder that leaves the vault, or a bad request",
    401: "`unauthorized`: no or a wrong bearer token; `token_in_url`",
    403: "`bad_origin`: a browser origin other than Obsidian's",
    404: "`not_found`, `unknown_query`",
    409: "`conflict`: the note changed since the diff; `decided`: the review was decided",
    413: "`too_large`: a body over the limit",
    421: "`bad_host`: a Host header that is not a loopback name",
    422: "`invalid` and the other codes of an input that cannot be used, with the reason",
    503: "`no_llm`: no LLM is configured on this bridge; `semantic_off`: the dense channel is off",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for the error statuses a route really answers, so clients and the schema
    fuzzer know them (FastAPI declares only 200 and 422 by itself)."""
    return {s: {"model": ErrorResponse, "description": ERROR_STATUSES[s]} for s in statuses}


class QueryRequest(BaseModel):
    # Numbers and flags are taken as JSON writes them: `"limit": true` was read as 1.
    query: str = Field(min_length=1, max_length=100_000, description="The question or words")
    budget_words: int | None = Field(
        None, ge=10, le=100_000, strict=True, description="Excerpt word budget"
    )
    limit: int = Field(10, ge=1, le=100, strict=True, description="Most sources")
    scope: str | None = Field(None, max_length=1000, description="Only notes under this folder")


class Health(BaseModel):
    status: str
    version: str


class SemanticStatus(BaseModel):
    """The dense channel (docs/query.md, "Meaning"): which model, and how far embedding got."""

    model: str | None = Field(description="The sentence encoder; null when off")
    state: Literal["off", "embedding", "ready"]
    sections: int = Field(description="Passages (sections of notes) with a vector")
    embedded: int = Field(description="Notes whose passages all have vectors")
    pending: int = Field(description="Notes waiting to be embedded (those in flight included)")
    languages_known: int = Field(
        0,
        description="Notes whose language is known: the first pass reads every note's before "
        "embedding any, so this grows first while `embedded` stays 0",
    )
    languages: dict[str, int] = Field(
        default_factory=dict, description="Notes per detected language"
    )
    off_topic_line: float | None = Field(
        None,
        description="Best-passage cosine under which a question is out of domain in this "
        "vault (measured with probe questions; null when the channel is off)",
    )


class RelatedNote(BaseModel):
    path: str
    title: str
    status: str | None
    score: float = Field(description="Cosine of its best passage to the note's mean passage")


class SimilarOut(BaseModel):
    """Notes like one note, by meaning (the dense channel)."""

    path: str
    similar: list[RelatedNote]
    reason: str | None = Field(
        description="Why the list is empty: not embedded yet, or a language the model skips"
    )


class Status(BaseModel):
    version: str
    vault: str
    state_dir: str
    notes: int
    generation: int
    unresolved_links: int
    llm_model: str | None
    watching: bool
    pending_reviews: int
    semantic: SemanticStatus


class RelationOut(BaseModel):
    target: str = Field(description="The link target as written")
    path: str | None = Field(description="The note it resolves to (null: unresolved)")
    reason: str | None = None
    alias: str | None = None
    heading: str | None = None
    block: str | None = None
    origin: str


class EntryOut(BaseModel):
    path: str
    title: str
    hash: str = Field(description="Content hash; send it back as `base_hash` when editing")
    frontmatter: dict[str, Any]
    body: str
    text: str = Field(description="The whole file")
    relations: list[RelationOut]
    backlinks: list[str]
    problems: list[str]
    lifecycle: dict[str, Any]
    credit: str | None = Field(
        None,
        description="With `from_query`: `credited` (this open counts as a use of the note), "
        "or `already_credited` (this answer already credited it)",
    )


class FeedbackRequest(BaseModel):
    query_id: str = Field(min_length=1, max_length=64, description="The answer's `query_id`")
    path: str = Field(min_length=1, max_length=1000, description="One of the answer's sources")
    helpful: bool = Field(
        True, strict=True, description="Did this note help? Only `true` credits it"
    )


class FeedbackOut(BaseModel):
    query_id: str
    path: str
    helpful: bool
    credited: bool = Field(description="True when this call credited the note as used (+3)")
    credit: str | None = Field(
        description="`credited`, `already_credited` (one credit per note per answer), or null "
        "for a not-helpful verdict, which credits nothing"
    )


class TreeNode(BaseModel):
    name: str
    path: str
    title: str | None = None
    status: str | None = None
    children: list[TreeNode] = Field(default_factory=list)
    notes: int = Field(0, description="Notes under this folder (all depths)")


class OverviewEntryOut(BaseModel):
    path: str
    title: str
    summary: str
    status: str | None


class SubfolderOut(BaseModel):
    name: str
    path: str
    entries: int = Field(description="Notes under it at every depth, `_index.md` aside")
    index: str | None = Field(description="Its `_index.md`, if it has one")


class FolderOverviewOut(BaseModel):
    """The folder's computed overview, whether or not its `_index.md` holds the markers."""

    folder: str
    index: str | None = Field(description="The folder's `_index.md`, if it has one")
    entries: list[OverviewEntryOut] = Field(description="Its notes, by title")
    subfolders: list[SubfolderOut] = Field(description="Folders directly below, by name")


class TreeOut(TreeNode):
    """`GET /v1/tree`: the tree from the requested folder, and that folder's overview."""

    overview: FolderOverviewOut


class GraphNode(BaseModel):
    path: str
    title: str
    status: str | None


class GraphEdge(BaseModel):
    source: str
    target: str


class Graph(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    unresolved: int


class GuideOut(Guide):
    """`GET /v1/guide`: the guide's data, and the same guide as Markdown for a model."""

    markdown: str = Field(description="The whole guide as Markdown (what MCP memory_guide returns)")
