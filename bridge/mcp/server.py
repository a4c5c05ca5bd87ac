"""`vault-bridge mcp`: the memory as MCP tools over stdio.

Descriptions are written for a model: what each tool is for, when to use it, and what comes
back. Read-only tools say so; `memory_curate` is marked destructive (it may write notes; DELETE
and MERGE, and edits of human notes, wait for a human's review).
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from bridge import __version__
from bridge.mcp.backend import BackendError, MemoryBackend

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
# Feedback changes only side state (a note's importance), never a note.
FEEDBACK = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)

INSTRUCTIONS = """\
This server is the long-term memory of the project, kept as an Obsidian vault that humans also
edit: entries at domain/topic[/subtopic]/entry.md, related to each other by links.
Before answering from your own knowledge about this project, call memory_query. Record durable
facts, decisions and fixes with memory_curate (get the exact format from memory_curate_prompt
the first time). Relations are written as @path/to/entry.md. Your edits of notes a human wrote
wait for review (memory_reviews shows them); never retry them as new notes."""


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)


def build_server(backend: MemoryBackend) -> MCPServer:
    """The MCP server with the seven memory tools over `backend`."""
    server = MCPServer("vault-bridge", version=__version__, instructions=INSTRUCTIONS)

    def call(fn: Any, *args: Any) -> str:
        try:
            return _dump(fn(*args))
        except BackendError as exc:
            # A refusal is an error result (`isError: true`), so a client or model cannot
            # mistake it for an answer; the message says what to fix.
            raise ToolError(str(exc)) from exc

    @server.tool(annotations=READ_ONLY)
    def memory_query(query: str, budget_words: int = 500, scope: str | None = None) -> str:
        """Ask the project memory a question. Returns `answer` (or null when only excerpts
        could be found; `message` says why), `sources` (path, title, status, score, excerpt),
        `tier`, `ood` (true: the memory holds nothing on this; do not guess from it) and
        `query_id`. When you read a source in full, pass the `query_id` to memory_read; when a
        source helped or misled you, tell memory_feedback: that is how the memory learns what
        is useful. `budget_words` caps the excerpt words; `scope` limits the search to a folder
        such as "engineering/auth"."""
        return call(backend.query, query, budget_words, scope)

    @server.tool(annotations=READ_ONLY)
    def memory_search(
        query: str, limit: int = 10, budget_words: int = 500, scope: str | None = None
    ) -> str:
        """Find notes by words: ranked sources with their best excerpts, no written answer.
        Use it to find the entry to update (its path) before curating."""
        return call(backend.search, query, limit, budget_words, scope)

    @server.tool(annotations=READ_ONLY)
    def memory_read(path: str, from_query: str | None = None) -> str:
        """Read one entry in full: its text, `hash` (send it as `base_hash` when you UPDATE it)
        and its relations. `path` like "engineering/auth/jwt_expiry.md" (or @path, or no .md).
        `from_query`: the `query_id` of the memory_query or memory_search answer you found it
        in; the read then counts as a use of the note."""
        return call(backend.read, path, from_query)

    @server.tool(annotations=FEEDBACK)
    def memory_feedback(query_id: str, path: str, helpful: bool = True) -> str:
        """Tell the memory whether a source of an answer (`query_id` from memory_query or
        memory_search, `path` one of its sources) helped you. A helpful note gains importance
        once per answer, so useful knowledge ranks ahead of stale near-duplicates; an unhelpful
        verdict credits nothing."""
        return call(backend.feedback, query_id, path, helpful)

    @server.tool(annotations=WRITES)
    def memory_curate(operations: list[dict[str, Any]], author: str = "agent:mcp") -> str:
        """Write knowledge: a list of operations, each {type: ADD|UPDATE|UPSERT|MERGE|DELETE,
        path, title, summary, tags, relations: ["@a/b/c.md - why"], raw_concept: {task, changes,
        source}, narrative, snippets: [{language, code}], reason, impact: high|low, base_hash,
        merge_from}. Every operation reports applied, pending_review (a human must approve) or
        failed with a reason you can fix and resend. `author` is you, e.g. "agent:claude-code"."""
        return call(backend.curate, operations, author)

    @server.tool(annotations=READ_ONLY)
    def memory_curate_prompt(content: str) -> str:
        """Get the curation instructions, the JSON schema of operations and the entries related
        to `content`, to write operations for memory_curate yourself."""
        return call(backend.curate_prompt, content)

    @server.tool(annotations=READ_ONLY)
    def memory_reviews(state: str = "open") -> str:
        """List agent edits waiting for (or decided by) a human: state "open" (pending, conflict,
        applied), "all", or one of pending, conflict, applied, approved, rejected."""
        return call(backend.reviews, state)

    return server
