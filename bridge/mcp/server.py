"""`vault-bridge mcp`: the memory as MCP tools, resources and a prompt over stdio.

Descriptions are written for a model: when to use each tool, what it is for, and what comes
back. Read-only tools say so; `memory_curate` is marked destructive (it may write notes; DELETE
and MERGE, and edits of human notes, wait for a human's review).

Resources: `vault://guide`, `vault://tree` (and `vault://tree/{folder}`), and every note as
`vault://entry/{path}`; the list names the most important entries only, so listing stays
cheap in a vault of 100,000 notes. The prompt `curate_conversation` hands a model the guide
and the steps to turn a conversation into `memory_curate` operations.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import anyio.to_thread
from mcp.server.mcpserver import MCPServer, Message, UserMessage
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    InputRequiredResult,
    Resource,
    TextContent,
    Tool,
    ToolAnnotations,
)

from bridge import __version__
from bridge.guide.tree import render_tree
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
Call memory_guide first in a session: it shows how this vault is organised, how an entry looks
(a real one as the example), where new knowledge goes and what waits for a human's review.
Before answering from your own knowledge about this project, call memory_query. Record durable
facts, decisions and fixes with memory_curate. Relations are written as @path/to/entry.md.
Your edits of notes a human wrote wait for review (memory_reviews shows them); never retry them
as new notes."""

GUIDE_TOP = 10
LISTED_ENTRIES = 50  # entries named by resources/list; any other is read by its URI
TREE_DEPTH = 3
ENTRY_URI = "vault://entry/"

CURATE_STEPS = """\
## Your task: curate this conversation into the memory

Keep what will still be true and useful later: decisions and their reasons, facts about the
project, fixes and their causes, conventions people agreed on. Leave out small talk, dead ends
and what the memory already holds unchanged.

1. For each piece of knowledge find its place: `memory_search` for the entry it belongs to
   (UPDATE it; `memory_read` gives its `hash` for `base_hash`), else a new path under an
   existing domain, as the guide above says.
2. Write operations in the guide's format: ADD with title, summary, tags, relations
   ("@path.md - reason"), raw_concept (task, changes, and source naming this conversation),
   narrative and snippets; UPDATE with only the fields that change.
3. Send them with `memory_curate(operations, author="agent:<your name>")`. Fix and resend each
   `failed` operation; `pending_review` waits for a human: do not resend it.

If nothing is worth keeping, say so and send nothing."""


def _dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)


def closed(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema that allows no other property than those it names."""
    return {**schema, "additionalProperties": False}


def curate_outcome(result: dict[str, Any]) -> str:
    """A curation result for the model; a batch of which nothing was applied is a refusal.

    A batch whose every operation failed (`../evil.md`), as a plain result (`isError: false`),
    would read as done to a client or model: `ToolError` with each reason and the whole result
    (a failed ADD's `existing` note says what to UPDATE).
    """
    counts = result["counts"]
    if counts["total"] == 0:
        raise ToolError("no operations: send at least one in `operations`")
    if counts["failed"] < counts["total"]:
        return _dump(result)
    reasons = "\n".join(
        f"- {r['index']}: {r['type']} {r['path']}: {r['message']}" for r in result["results"]
    )
    raise ToolError(
        f"no operation was applied; fix these and send them again:\n{reasons}\n\n{_dump(result)}"
    )


def entry_uri(path: str) -> str:
    """The resource URI of a note (`#`, spaces and the like percent-encoded)."""
    return ENTRY_URI + quote(path, safe="/")


class VaultServer(MCPServer):
    """An MCP server whose resource list also names the vault's most important entries.

    Trigger: `resources/list` is answered in one page here (MCPServer does not page it). Why:
    a resource per note would load and send the whole vault. Outcome: the list holds the
    static resources and the `LISTED_ENTRIES` most important entries; the template
    `vault://entry/{path}` reads any note.
    """

    def __init__(self, backend: MemoryBackend, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.backend = backend

    async def list_tools(self) -> list[Tool]:
        """The tools, each schema saying that no other argument is taken (see `call_tool`)."""
        return [
            tool.model_copy(update={"input_schema": closed(tool.input_schema)})
            for tool in await super().list_tools()
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        """Refuse an argument the tool does not take, as an error result.

        Trigger: MCPServer drops unknown arguments. Why: a model's typo (`autor`, `top_k`)
        silently did something else than it asked (wrote as `agent:mcp`, ignored a limit).
        Outcome: the call is refused and the message names the tool's arguments.
        """
        schema = next((t.input_schema for t in await self.list_tools() if t.name == name), None)
        if schema is not None:
            known = schema.get("properties", {})
            unknown = sorted(set(arguments) - set(known))
            if unknown:
                shown = ", ".join(f"`{a}`" for a in unknown)
                raise ToolError(
                    f"{name} does not take {shown}; its arguments are: {', '.join(known)}"
                )
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # a crash: the SDK logs its traceback and tells the model nothing of it
        except ToolError as exc:
            return refused(name, exc)

    async def list_resources(self) -> list[Resource]:
        listed = await super().list_resources()
        try:
            guide = await anyio.to_thread.run_sync(self.backend.guide, LISTED_ENTRIES)
        except BackendError:
            return listed  # the bridge went away: the static resources still list
        return listed + [
            Resource(
                uri=entry_uri(e["path"]),
                name=e["path"],
                title=e["title"],
                description=e["summary"] or None,
                mime_type="text/markdown",
            )
            for e in guide["top"]
        ]


def refused(name: str, exc: ToolError) -> CallToolResult:
    """A refusal as the tool's error result, in the bridge's own words.

    Trigger: a tool refuses (a folder outside the vault, a batch that failed). Why: the SDK
    prefixed every reason with "Error executing tool NAME:" and logged each refusal at INFO on
    stderr, the client's log. Outcome: the reason alone, `isError: true`, and no log line: a
    refusal is an answer, not a problem of the server.
    """
    text = str(exc).removeprefix(f"Error executing tool {name}: ")
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def build_server(backend: MemoryBackend) -> MCPServer:
    """The MCP server with the memory tools, resources and prompt over `backend`."""
    server = VaultServer(
        backend, name="vault-bridge", version=__version__, instructions=INSTRUCTIONS
    )

    def call(fn: Any, *args: Any) -> str:
        try:
            return _dump(fn(*args))
        except BackendError as exc:
            # A refusal is an error result (`isError: true`), so a client or model cannot
            # mistake it for an answer; the message says what to fix.
            raise ToolError(str(exc)) from exc

    def fetch(fn: Any, *args: Any) -> Any:
        """A backend call for a resource or prompt; a refusal becomes an MCP error."""
        try:
            return fn(*args)
        except BackendError as exc:
            raise ResourceError(str(exc)) from exc

    @server.tool(annotations=READ_ONLY)
    def memory_guide() -> str:
        """Call first in a session, before you query or write the memory: how this vault is
        organised. Returns Markdown: the entry format with a real entry of this vault as the
        example, how relations are written, where new knowledge goes (the domains, depth and
        naming rules), what waits for a human's review and why, how uses teach the memory,
        the folders with their note counts, and the most important entries."""
        try:
            return str(backend.guide(GUIDE_TOP)["markdown"])
        except BackendError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(annotations=READ_ONLY)
    def memory_tree(folder: str = "", depth: int = 2) -> str:
        """Use before adding an entry to a folder, or to browse a domain the guide listed: the
        folder's subfolders with their note counts and its notes with title and status, as
        Markdown. `folder` like "engineering/auth" ("" is the whole vault); `depth`: how many
        folder levels to open (1-10)."""
        try:
            return render_tree(backend.tree(folder, depth))
        except BackendError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(annotations=READ_ONLY)
    def memory_query(query: str, budget_words: int = 500, scope: str | None = None) -> str:
        """Use before answering any question about this project from your own knowledge.
        Returns `answer` (or null when only excerpts could be found; `message` says why),
        `sources` (path, title, status, score, excerpt), `tier`, `ood` (true: the memory holds
        nothing on this; do not guess from it) and `query_id`. When you read a source in full,
        pass the `query_id` to memory_read; when a source helped or misled you, tell
        memory_feedback: that is how the memory learns what is useful. `budget_words` caps the
        excerpt words; `scope` limits the search to a folder such as "engineering/auth"."""
        return call(backend.query, query, budget_words, scope)

    @server.tool(annotations=READ_ONLY)
    def memory_search(
        query: str, limit: int = 10, budget_words: int = 500, scope: str | None = None
    ) -> str:
        """Use before curating, to find the entry a new fact belongs to (its path), or when you
        want ranked notes with their best excerpts rather than a written answer. Returns
        `sources` and a `query_id` (for memory_read and memory_feedback)."""
        return call(backend.search, query, limit, budget_words, scope)

    @server.tool(annotations=READ_ONLY)
    def memory_read(path: str, from_query: str | None = None) -> str:
        """Use when an excerpt is not enough, and before an UPDATE: one entry in full, with its
        text, `hash` (send it as `base_hash` when you UPDATE it) and its relations. `path` like
        "engineering/auth/jwt_expiry.md" (or @path, or no .md). `from_query`: the `query_id`
        of the memory_query or memory_search answer you found it in; the read then counts as
        a use of the note."""
        return call(backend.read, path, from_query)

    @server.tool(annotations=READ_ONLY)
    def memory_related(path: str, limit: int = 10) -> str:
        """Use to find notes about the same thing as one note, whatever their words (before
        you ADD, to find the note to UPDATE; or to widen what you read): the `limit` notes
        most like `path` by meaning, with their similarity. Not a use of any note."""
        return call(backend.related, path, limit)

    @server.tool(annotations=FEEDBACK)
    def memory_feedback(query_id: str, path: str, helpful: bool = True) -> str:
        """Use after you relied on (or rejected) a source of an answer: say whether it helped
        (`query_id` from memory_query or memory_search, `path` one of its sources). A helpful
        note gains importance once per answer, so useful knowledge ranks ahead of stale
        near-duplicates; an unhelpful verdict credits nothing."""
        return call(backend.feedback, query_id, path, helpful)

    @server.tool(annotations=WRITES)
    def memory_curate(operations: list[dict[str, Any]], author: str = "agent:mcp") -> str:
        """Use after you learned a durable fact, made a decision or fixed something worth
        remembering (call memory_guide first for the format). Operations, each {type:
        ADD|UPDATE|UPSERT|MERGE|DELETE|MOVE, path, title, summary, tags, relations: ["@a/b/c.md
        - why"], raw_concept: {task, changes, source}, narrative, snippets: [{language, code}],
        reason, impact: high|low, base_hash, merge_from, from}; MOVE takes `from` (the note's
        path now) and `path` (where it goes) and keeps its history. Every operation reports applied,
        pending_review (a human must approve; do not resend) or failed with a reason you can
        fix and resend. `author` is you, e.g. "agent:claude-code". When no operation could be
        applied, the call is an error that lists why."""
        try:
            return curate_outcome(backend.curate(operations, author))
        except BackendError as exc:
            raise ToolError(str(exc)) from exc

    @server.tool(annotations=READ_ONLY)
    def memory_curate_prompt(content: str) -> str:
        """Use when you have a long text (a document, a transcript) to turn into operations:
        the curation instructions, the JSON schema of operations and the entries related to
        `content` (with their base_hash), to write operations for memory_curate yourself."""
        return call(backend.curate_prompt, content)

    @server.tool(annotations=READ_ONLY)
    def memory_reviews(state: str = "open") -> str:
        """Use after memory_curate answered pending_review, or before touching a note you
        edited earlier: agent edits waiting for (or decided by) a human. state "open"
        (pending, conflict, applied), "all", or one of pending, conflict, applied, approved,
        rejected."""
        return call(backend.reviews, state)

    @server.resource(
        "vault://guide",
        name="guide",
        title="How this vault is organised",
        description="The guide memory_guide returns: conventions, outline, important entries.",
        mime_type="text/markdown",
    )
    def guide_resource() -> str:
        return str(fetch(backend.guide, GUIDE_TOP)["markdown"])

    @server.resource(
        "vault://tree",
        name="tree",
        title="The context tree",
        description=f"Folders with note counts and notes with title and status, "
        f"{TREE_DEPTH} levels deep.",
        mime_type="text/markdown",
    )
    def tree_resource() -> str:
        return render_tree(fetch(backend.tree, "", TREE_DEPTH))

    @server.resource(
        "vault://tree/{+folder}",
        name="folder",
        title="A folder of the context tree",
        description=f"One folder (e.g. vault://tree/engineering/auth), {TREE_DEPTH} levels deep.",
        mime_type="text/markdown",
    )
    def folder_resource(folder: str) -> str:
        return render_tree(fetch(backend.tree, folder, TREE_DEPTH))

    @server.resource(
        ENTRY_URI + "{+path}",
        name="entry",
        title="A note of the vault",
        description="The whole Markdown file, e.g. vault://entry/engineering/auth/jwt_expiry.md",
        mime_type="text/markdown",
    )
    def entry_resource(path: str) -> str:
        # The SDK already refuses `..`; the backend refuses anything else that leaves the vault.
        return str(fetch(backend.read, path)["text"])

    @server.prompt(
        name="curate_conversation",
        title="Curate this conversation",
        description="Turn a conversation into memory_curate operations, following this "
        "vault's guide.",
    )
    def curate_conversation(conversation: str) -> list[Message]:
        try:
            guide = str(backend.guide(GUIDE_TOP)["markdown"])
        except BackendError as exc:
            # Any other exception would reach the client as "Error rendering prompt", no reason.
            raise MCPError(code=INTERNAL_ERROR, message=str(exc)) from exc
        text = f"{guide}\n{CURATE_STEPS}\n\n## The conversation\n\n{conversation.strip()}\n"
        return [UserMessage(text)]

    rendered = server.get_prompt

    async def get_prompt(
        name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> Any:
        # Trigger: `prompts/get` without `conversation`. Why: the SDK raises a ValueError,
        # which its runner logs with a traceback (stderr is the client's log) and answers as
        # "Internal server error". Outcome: the reason, as an invalid-params error, no log.
        try:
            return await rendered(name, arguments, context)
        except ValueError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc)) from None

    server.get_prompt = get_prompt  # type: ignore[method-assign]
    return server
