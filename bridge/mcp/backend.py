"""Where MCP tools get their answers: the running bridge's API, or the vault opened here.

One writer per vault: when `vault-bridge serve` runs on the same vault (its discovery file
names a live process that answers), every tool goes through its HTTP API, so the MCP process
never opens the index or writes a note itself. Otherwise the MCP process opens the vault and is
its writer for as long as it runs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from bridge.api.security import read_token
from bridge.core.dialect import tree_path
from bridge.core.paths import UnsafePathError, normalise_note_path
from bridge.settings import Settings
from bridge.state.vault_lock import holder, serving_pid


class BackendError(Exception):
    """A tool call that cannot be done; the message is shown to the model."""


class MemoryBackend(Protocol):
    """The operations behind the MCP tools, as plain JSON-able documents."""

    def query(self, text: str, budget_words: int | None, scope: str | None) -> dict[str, Any]: ...

    def search(
        self, text: str, limit: int, budget_words: int | None, scope: str | None
    ) -> dict[str, Any]: ...

    def read(self, path: str, from_query: str | None = None) -> dict[str, Any]: ...

    def feedback(self, query_id: str, path: str, helpful: bool) -> dict[str, Any]: ...

    def curate(self, operations: list[dict[str, Any]], author: str) -> dict[str, Any]: ...

    def curate_prompt(self, content: str) -> dict[str, Any]: ...

    def reviews(self, state: str) -> list[dict[str, Any]]: ...

    def guide(self, top: int) -> dict[str, Any]:
        """The guide (`GET /v1/guide`): its data and `markdown`, with `top` important notes."""
        ...

    def tree(self, folder: str, depth: int) -> dict[str, Any]:
        """The folder tree under `folder` (`GET /v1/tree`), `depth` levels deep."""
        ...

    def related(self, path: str, limit: int) -> dict[str, Any]:
        """The notes most like `path` by meaning (`GET /v1/similar/{path}`)."""
        ...

    def close(self) -> None: ...


class HttpBackend:
    """Every call through a running bridge's API (the bridge stays the only writer)."""

    def __init__(self, url: str, token: str, timeout: float = 120.0) -> None:
        self.url = url
        logging.getLogger("httpx").setLevel(logging.WARNING)  # stderr is the MCP client's log
        self.client = httpx.Client(
            base_url=url, timeout=timeout, headers={"Authorization": f"Bearer {token}"}
        )

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise BackendError(f"the bridge at {self.url} did not answer: {exc}") from exc
        if response.status_code >= 400:
            try:
                message = response.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = response.text[:500]
            raise BackendError(str(message))  # the API's reason; its HTTP status means nothing here
        return response.json()

    def query(self, text: str, budget_words: int | None, scope: str | None) -> dict[str, Any]:
        body = {"query": text, "budget_words": budget_words, "scope": scope}
        result: dict[str, Any] = self._call("POST", "/v1/query", json=body)
        return result

    def search(
        self, text: str, limit: int, budget_words: int | None, scope: str | None
    ) -> dict[str, Any]:
        body = {"query": text, "limit": limit, "budget_words": budget_words, "scope": scope}
        result: dict[str, Any] = self._call("POST", "/v1/search", json=body)
        return result

    def read(self, path: str, from_query: str | None = None) -> dict[str, Any]:
        try:
            rel = normalise_note_path(path)  # refuse here: an HTTP client would rewrite `..`
        except UnsafePathError as exc:
            raise BackendError(str(exc)) from exc
        params = {"from_query": from_query} if from_query else None
        result: dict[str, Any] = self._call("GET", f"/v1/entries/{quote(rel)}", params=params)
        return result

    def feedback(self, query_id: str, path: str, helpful: bool) -> dict[str, Any]:
        body = {"query_id": query_id, "path": path, "helpful": helpful}
        result: dict[str, Any] = self._call("POST", "/v1/feedback", json=body)
        return result

    def curate(self, operations: list[dict[str, Any]], author: str) -> dict[str, Any]:
        body = {"operations": operations, "author": author}
        result: dict[str, Any] = self._call("POST", "/v1/curate/operations", json=body)
        return result

    def curate_prompt(self, content: str) -> dict[str, Any]:
        result: dict[str, Any] = self._call("POST", "/v1/curate/prompt", json={"content": content})
        return result

    def reviews(self, state: str) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._call("GET", "/v1/reviews", params={"state": state})
        return result

    def guide(self, top: int) -> dict[str, Any]:
        result: dict[str, Any] = self._call("GET", "/v1/guide", params={"top": top})
        return result

    def tree(self, folder: str, depth: int) -> dict[str, Any]:
        params = {"folder": folder, "depth": depth}
        result: dict[str, Any] = self._call("GET", "/v1/tree", params=params)
        return result

    def related(self, path: str, limit: int) -> dict[str, Any]:
        try:
            rel = normalise_note_path(path)
        except UnsafePathError as exc:
            raise BackendError(str(exc)) from exc
        params = {"limit": limit}
        result: dict[str, Any] = self._call("GET", f"/v1/similar/{quote(rel)}", params=params)
        return result

    def close(self) -> None:
        self.client.close()


HEALTH_TIMEOUT = 2.0  # one health check
HEALTH_WAIT = 30.0  # how long a live `serve` that is slow to answer is asked again
START_WAIT = 600.0  # how long a `serve` still starting (its first sync) is waited for
_POLL = 0.2


def running_bridge(
    settings: Settings,
    wait: float = HEALTH_WAIT,
    starting: float = 0.0,
    waiting: Callable[[int], None] | None = None,
) -> tuple[str, str] | None:
    """(url, token) of a `serve` running on this vault that answers its health check, or None.

    Under load `serve` may be slow to answer its health check, and a caller that then ran
    alone would wait for the vault lock `serve` holds and fail as "busy": a `serve` that is
    alive and listening but slow is still the vault's writer, and nothing else can write while
    it runs. So a check that times out is asked again, up to `wait` seconds, while the
    discovery file still names a live process; one refused or answered otherwise is final.

    The same holds for a `serve` that is starting: it holds the lock and has named itself
    (`serve.pid`) but has no discovery file until it listens, after its first sync. A caller
    that would write (and so could only fail on that lock) passes `starting` (`START_WAIT`):
    while that process lives, this waits for it that long (`waiting(pid)` is called once
    when the wait begins, to say so). Read-only callers do not wait.
    """
    state = settings.state_path
    now = time.monotonic()
    deadline, start_deadline = now + wait, now + starting
    told = False
    while True:
        found = holder(state)  # the discovery file, when its process is alive
        token = read_token(state)
        if found.url is None or not token:
            # A reader (`starting` 0) neither reads `serve.pid` nor tries the vault lock.
            if time.monotonic() >= start_deadline or (pid := serving_pid(state)) is None:
                return None
            if waiting is not None and not told:
                waiting(pid)
                told = True
            time.sleep(_POLL)
            continue
        try:
            health = httpx.get(f"{found.url}/v1/health", timeout=HEALTH_TIMEOUT)
        except httpx.TimeoutException:
            if time.monotonic() < deadline:
                continue
            return None
        except httpx.HTTPError:
            return None
        return (found.url, token) if health.status_code == 200 else None


def connect(settings: Settings, local: Callable[[Settings], MemoryBackend]) -> MemoryBackend:
    """The running bridge's API if there is one, else `local(settings)`."""
    # MCP writes (curation): a `serve` still starting is waited for, not raced for the lock.
    found = running_bridge(settings, starting=START_WAIT)
    if found is not None:
        return HttpBackend(*found)
    return local(settings)


def _as_serve_takes(schema: type[BaseModel], **fields: Any) -> None:
    """Refuse what `serve`'s API refuses, by its own request model (`BackendError` saying why).

    Without `serve`, MCP would take an empty query, a search limit of 1,000 or a 5 MB
    `curate_prompt` that `serve` answers with 422: one schema, both ways.
    """
    try:
        schema.model_validate({k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        said = "; ".join(
            f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise BackendError(said) from exc


class LocalBackend:
    """The vault opened in this process (no `serve` running): this process is the writer."""

    def __init__(self, bridge: Any) -> None:
        from bridge.runtime import Bridge

        assert isinstance(bridge, Bridge)
        self.bridge = bridge

    def query(self, text: str, budget_words: int | None, scope: str | None) -> dict[str, Any]:
        from bridge.api.models import QueryRequest

        _as_serve_takes(QueryRequest, query=text, budget_words=budget_words, scope=scope)
        try:
            result = self.bridge.engine.query(text, budget_words=budget_words, scope=scope)
        except ValueError as exc:
            raise BackendError(str(exc)) from exc
        return result.model_dump(mode="json")

    def search(
        self, text: str, limit: int, budget_words: int | None, scope: str | None
    ) -> dict[str, Any]:
        from bridge.api.models import QueryRequest

        _as_serve_takes(
            QueryRequest, query=text, budget_words=budget_words, limit=limit, scope=scope
        )
        try:
            result = self.bridge.engine.search(
                text, budget_words=budget_words, limit=limit, scope=scope
            )
        except ValueError as exc:
            raise BackendError(str(exc)) from exc
        return result.model_dump(mode="json")

    def read(self, path: str, from_query: str | None = None) -> dict[str, Any]:
        from bridge.vault.store import NoteError

        try:
            file = self.bridge.store.read(normalise_note_path(path))
        except (UnsafePathError, NoteError) as exc:
            raise BackendError(str(exc)) from exc
        credit = self._credit(from_query, file.path, True) if from_query else None
        note = file.parse()
        resolver = self.bridge.index.link_resolver()
        relations = [
            {
                "target": link.target,
                "path": resolver.resolve(link.target, note.path),
                "reason": link.reason,
                "origin": link.origin,
            }
            for link in note.links
        ]
        return {
            "path": note.path,
            "title": note.title,
            "hash": file.hash,
            "text": file.text,
            "relations": relations,
            "problems": [p.message for p in note.problems],
            "credit": credit,
        }

    def feedback(self, query_id: str, path: str, helpful: bool) -> dict[str, Any]:
        try:
            rel = normalise_note_path(path)
        except UnsafePathError as exc:
            raise BackendError(str(exc)) from exc
        credit = self._credit(query_id, rel, helpful)
        return {
            "query_id": query_id,
            "path": rel,
            "helpful": helpful,
            "credited": credit == "credited",
            "credit": credit,
        }

    def _credit(self, query_id: str, path: str, helpful: bool) -> str | None:
        """The same rule and refusals as the HTTP API's (`routes_read._credit`)."""
        from bridge.query.uses import refusal

        outcome = self.bridge.engine.feedback(query_id, path, helpful)
        message = refusal(outcome, query_id, path)
        if message is not None:
            raise BackendError(message)
        return None if outcome is None else outcome.value

    def curate(self, operations: list[dict[str, Any]], author: str) -> dict[str, Any]:
        from bridge.core.operations import agent_author, parse_operations

        try:
            author = agent_author(author)
            parsed = parse_operations(operations)  # more than MAX_BATCH: refused as a whole
        except ValueError as exc:
            raise BackendError(str(exc)) from exc
        return self.bridge.executor.apply(parsed, author).to_dict()

    def curate_prompt(self, content: str) -> dict[str, Any]:
        from bridge.api.routes_curate import ContentRequest
        from bridge.llm.context import build_context
        from bridge.llm.prompts import curation_prompt

        _as_serve_takes(ContentRequest, content=content)
        made = curation_prompt(
            content, build_context(self.bridge.engine, self.bridge.store, content)
        )
        return {"prompt": made.text(), "schema": made.schema}

    def reviews(self, state: str) -> list[dict[str, Any]]:
        from bridge.api.routes_curate import review_json
        from bridge.state.reviews import states_named

        try:
            states = states_named(state)
        except ValueError as exc:
            raise BackendError(str(exc)) from exc
        return [review_json(r) for r in self.bridge.reviews.list(states)]

    def guide(self, top: int) -> dict[str, Any]:
        from bridge.guide.gather import gather_guide
        from bridge.guide.render import render_guide

        if not 1 <= top <= 100:  # the API's bounds (`routes_guide`)
            raise BackendError(f"top must be 1 to 100, not {top}")
        made = gather_guide(self.bridge, top=top)
        return {**made.model_dump(mode="json"), "markdown": render_guide(made)}

    def tree(self, folder: str, depth: int) -> dict[str, Any]:
        """The same document and refusals as `GET /v1/tree` (`routes_read.tree`)."""
        from bridge.api.graph import folder_tree
        from bridge.api.models import TreeNode

        try:
            root = self.bridge.store.check_folder(folder)
        except UnsafePathError as exc:
            raise BackendError(str(exc)) from exc
        if not 1 <= depth <= 10:
            raise BackendError(f"depth must be 1 to 10, not {depth}")
        from bridge.overviews import folder_overview

        records = {r.path: r for r in self.bridge.index.all_records()}
        dialect = self.bridge.store.dialect
        shape = folder_tree(records, root, depth, lambda path: tree_path(dialect, path))
        tree = TreeNode.model_validate(shape).model_dump(mode="json")
        overview = folder_overview(self.bridge.store, self.bridge.index, root)
        return {**tree, "overview": overview.to_json()}

    def related(self, path: str, limit: int) -> dict[str, Any]:
        """The same document and refusals as `GET /v1/similar/{path}` (`routes_similar`)."""
        from bridge.semantic.related import UnknownNoteError, related_notes

        if self.bridge.semantic is None:
            raise BackendError("the dense channel is off (embed_model = off)")
        if not 1 <= limit <= 100:
            raise BackendError(f"limit must be 1 to 100, not {limit}")
        try:
            found = related_notes(
                self.bridge.index, self.bridge.semantic, normalise_note_path(path), limit
            )
        except (UnsafePathError, UnknownNoteError) as exc:
            raise BackendError(str(exc)) from exc
        return {
            "path": found.path,
            "similar": [vars(n) for n in found.notes],
            "reason": found.reason,
        }

    def close(self) -> None:
        self.bridge.close()
