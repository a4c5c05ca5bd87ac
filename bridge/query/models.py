"""What a query returns: the shape every interface (CLI, HTTP, MCP, plugin) shows."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

NO_TERMS = "The query has no searchable words (only common words, punctuation or nothing)."


class Excerpt(BaseModel):
    """One block of a source, as written in the note (list marker and block id removed)."""

    text: str
    line: int | None = Field(None, description="0-based line of the block in the file")
    block_id: str | None = Field(
        None, description="Obsidian block id (`^id`), if the block has one"
    )
    heading: str = Field("", description="Heading path above the block")
    score: float = Field(
        0.0,
        description="The block's priority when the word budget is filled (its block, window, "
        "note and neighbour BM25 parts and its passage's dense part); the lifecycle reorders "
        "blocks within 5% of each other but never changes this",
    )


class Source(BaseModel):
    """A note that supports the answer."""

    path: str
    title: str
    status: str | None = None
    score: float = Field(
        description="The probability (0-1) that this note answers the question, from the "
        "ranker's score; the sources are in its order"
    )
    excerpt: str = Field(description="The source's blocks joined, within the word budget")
    via: Literal["search", "relation"] = "search"
    related_from: str | None = Field(None, description="For `via: relation`: the referring note")
    blocks: list[Excerpt] = Field(default_factory=list)
    also_in: list[str] = Field(
        default_factory=list,
        description="Notes whose text nearly repeats this one's (copies, exports, older "
        "versions): listed once, here",
    )


class QueryResult(BaseModel):
    """An answer with the evidence for it and how it was produced."""

    query: str
    query_id: str = Field(
        "",
        description="Names this answer: pass it as `from_query` when opening one of its sources "
        "and in `POST /v1/feedback`, so the note is credited as used",
    )
    answer: str | None
    tier: int = Field(
        description="0 exact cache, 1 fuzzy cache, 2 direct, 3 one LLM call, 4 agentic; "
        "3 or 4 with `answer: null` when the question needed an LLM and got excerpts (see "
        "`message`)"
    )
    latency_ms: float
    ood: bool = Field(description="True when the memory holds nothing on the question")
    sources: list[Source] = Field(default_factory=list)
    generation: int = Field(description="Index generation the answer was computed on")
    relevance: float = Field(0.0, description="Normalised relevance of the top hit, 0-1")
    message: str | None = None
    words: int = Field(0, description="Words in all excerpts (what the budget limits)")
    reused_from: str | None = Field(
        None,
        description="Tiers 0-1: the question whose cached answer this is (it retrieves the same "
        "notes: the words that differ are question or stop words, or match no note)",
    )
    answered_from: list[str] = Field(
        default_factory=list,
        description="Notes the answer was taken from (tier 2's note, the notes an LLM answer "
        "cites); each was credited as used",
    )
