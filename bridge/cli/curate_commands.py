"""Commands that write knowledge: `curate` and the `review` queue.

Exit codes: 0 done; 1 done, but some operation failed or a review is in conflict (nothing was
overwritten); 2 bad usage, no LLM configured for `curate TEXT`, or an unknown/decided review.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from bridge.cli.app import (
    EXIT_PROBLEMS,
    EXIT_USAGE,
    PATH_COLUMN,
    JsonOpt,
    StateDirOpt,
    VaultOpt,
    app,
    console,
    fail,
    print_json,
    settings_for,
)
from bridge.cli.query_commands import opened
from bridge.cli.running import RemoteBridge, request_body, running, writing_locally
from bridge.core.operations import (
    agent_author,
    batch_author,
    batch_items,
    load_json,
    parse_operations,
)
from bridge.settings import Settings
from bridge.state.reviews import MAX_REVIEW_ID, Review, states_named

if TYPE_CHECKING:  # the engine's modules load where a command works here, not with the CLI
    from bridge.curate.reviews import Decision
    from bridge.runtime import Bridge

NO_LLM = (
    "no LLM is configured, so `curate TEXT` cannot write operations itself. Either set "
    "VAULT_BRIDGE_LLM_MODEL to a litellm model (e.g. `ollama/llama3.1`, "
    "`anthropic/claude-sonnet-4-5` with its API key in the usual variable) where the bridge "
    "runs (restart `serve` if it runs), or let your own "
    "model write them: `vault-bridge curate --prompt TEXT` prints the prompt and the JSON "
    "schema, and `vault-bridge curate --operations ops.json` applies the operations it returns."
)


def _review_id(value: int) -> int:
    """The API's range too: an id it refuses is a usage error here, with or without `serve`.

    Checked here rather than by a range on the argument, which `--help` showed as
    `[1<=x<=4611686018427387904]`.
    """
    if not 1 <= value <= MAX_REVIEW_ID:
        raise typer.BadParameter(f"{value} names no review: ids are whole numbers from 1")
    return value


ReviewIdArg = Annotated[
    int,
    typer.Argument(
        help="The review id (from `review list`).",
        metavar="ID",
        callback=_review_id,
        show_default=False,
    ),
]
AgentOpt = Annotated[
    str | None,
    typer.Option(
        "--agent",
        help="Name of the curating agent; notes get author agent:NAME. Default: the `author` "
        "of an --operations file, else cli. Given, it wins over the file's.",
        show_default=False,
    ),
]


def _author(name: str, where: str = "--agent") -> str:
    """`agent:NAME`, or exit 2 naming where the bad name came from."""
    try:
        return agent_author(name)
    except ValueError as exc:
        raise fail(f"{where}: {exc}") from exc


def _read_content(text: str | None, file: Path | None) -> str:
    if text is not None and file is not None:
        raise fail("give the content as TEXT or --file, not both")
    if file is not None:
        try:
            return file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise fail(f"cannot read {file}: {exc}") from exc
    if text is not None:
        return sys.stdin.read() if text == "-" else text
    if not sys.stdin.isatty():
        return sys.stdin.read()
    raise fail("give the content as TEXT, --file FILE or on standard input")


def _read_operations(source: Path) -> str:
    if str(source) == "-":
        return sys.stdin.read()
    try:
        return source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise fail(f"cannot read {source}: {exc}") from exc


def _print_batch(doc: dict[str, Any]) -> None:
    """A batch result (`BatchResult.to_dict()`, local or from the running bridge)."""
    table = Table(show_lines=False)
    for column in ("#", "operation", "status", "message"):
        table.add_column(column, **(PATH_COLUMN if column == "operation" else {}))
    colour = {"applied": "green", "pending_review": "yellow", "failed": "red"}
    for r in doc["results"]:
        status = f"[{colour.get(r['status'], 'white')}]{r['status']}[/]"
        operation = escape(f"{r['type']} {r['path']}")
        table.add_row(str(r["index"]), operation, status, escape(r["message"]))
        existing = r.get("existing")
        if existing:  # a failed ADD: the note that is there, to UPDATE or MERGE instead
            table.add_row(
                "",
                "",
                "",
                escape(f"existing: {existing.get('path')} (base_hash {existing.get('base_hash')})"),
            )
    if doc["results"]:
        console.print(table)
    counts = doc["counts"]
    console.print(
        f"{counts['applied']} applied, {counts['pending_review']} waiting for review, "
        f"{counts['failed']} failed."
    )
    if doc.get("git"):
        console.print(f"[yellow]git:[/] {escape(doc['git'])}")
    if doc.get("through"):
        console.print(f"(applied by the bridge serving this vault at {doc['through']})")


@app.command()
def curate(
    text: Annotated[
        str | None, typer.Argument(help="Content to curate; `-` reads stdin.", metavar="TEXT")
    ] = None,
    file: Annotated[Path | None, typer.Option("--file", "-f", help="Read the content.")] = None,
    operations: Annotated[
        Path | None,
        typer.Option("--operations", help="Apply operations from this JSON file (`-`: stdin)."),
    ] = None,
    prompt: Annotated[
        bool, typer.Option("--prompt", help="Print the curation prompt and schema; write nothing.")
    ] = False,
    agent: AgentOpt = None,
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Turn content into entries (with the bridge's LLM), or apply operations directly."""
    author = _author(agent if agent is not None else "cli")
    settings = settings_for(vault, state_dir)
    if operations is not None:
        if text is not None or file is not None or prompt:
            raise fail("--operations applies a ready batch; give no TEXT, --file or --prompt")
        try:
            data = load_json(_read_operations(operations))
            items, named = batch_items(data), batch_author(data)
        except ValueError as exc:
            raise fail(f"{operations}: {exc}") from exc
        if agent is None and named is not None:  # as the API does; an explicit --agent wins
            author = _author(named, f"{operations}: author")
        # Either form of the file is sent as the API's own shape, checked as the API would.
        body = request_body({"operations": items, "author": author}, str(operations))
        remote = running(settings, writes=True)
        if remote is not None:
            doc = remote.post("/v1/curate/operations", body)
            _finish({**doc, "through": remote.url}, None, json_out)
            return
        parsed = parse_operations(items)
        with writing_locally(settings), opened(settings, not json_out) as bridge:
            batch = bridge.executor.apply(parsed, author)
        _finish({**batch.to_dict(), "through": None}, None, json_out)
        return
    content = _read_content(text, file)
    if not content.strip():
        raise fail("the content is empty")
    if prompt:
        from bridge.llm.context import build_context
        from bridge.llm.prompts import curation_prompt

        with opened(settings, not json_out) as bridge:
            made = curation_prompt(content, build_context(bridge.engine, bridge.store, content))
        if json_out:
            print_json({"system": made.system, "user": made.user, "schema": made.schema})
        else:
            sys.stdout.write(made.text())
        return
    remote = running(settings, writes=True)
    if remote is not None:  # its LLM settings apply: it does the curating
        started = _start_remote_curation(remote, content, author)
        task = _wait_for_task(remote, str(started["task_id"]))
        if task.get("result") is None:
            raise fail(f"curation failed in the running bridge: {task.get('error')}", EXIT_PROBLEMS)
        result = dict(task["result"])
        _finish({**result, "through": remote.url}, result.get("error"), json_out, result)
        return
    if settings.llm_model is None:
        raise fail(NO_LLM)
    with writing_locally(settings), opened(settings, not json_out) as bridge:
        curator = bridge.curator
        assert curator is not None
        outcome = curator.curate(content, author)
    batch = outcome.batch
    _finish(
        {**batch.to_dict(), "through": None},
        outcome.error,
        json_out,
        {"rounds": outcome.rounds, "error": outcome.error},
    )


def _start_remote_curation(remote: RemoteBridge, content: str, author: str) -> dict[str, Any]:
    """Hand the content to the running bridge; its `no_llm` refusal is told as without `serve`.

    When `serve` has no LLM, its API message names HTTP routes (`POST /v1/curate/prompt`),
    not `curate --prompt`: a CLI user gets the same message and exit 2 as the CLI gives alone.
    """
    response = remote.request("POST", "/v1/curate", json={"content": content, "author": author})
    if response.status_code >= 400:
        code, message = remote.error_of(response)
        raise fail(NO_LLM if code == "no_llm" else f"the running bridge refused: {message}")
    started: dict[str, Any] = response.json()
    return started


def _wait_for_task(remote: RemoteBridge, task_id: str) -> dict[str, Any]:
    """Poll the running bridge's task until it ends (the curation's own LLM budget bounds it)."""
    while True:
        task: dict[str, Any] = remote.call("GET", f"/v1/tasks/{task_id}")
        if task.get("state") in ("done", "failed"):
            return task
        time.sleep(0.25)


def _finish(
    doc: dict[str, Any], error: str | None, json_out: bool, extra: dict[str, Any] | None = None
) -> None:
    if json_out:
        print_json({**doc, **(extra or {})})
    else:
        _print_batch(doc)
        if error:
            console.print(f"[red]error:[/] {escape(error)}")
    if error or doc["counts"].get("failed"):
        raise typer.Exit(EXIT_PROBLEMS)


# -- review -------------------------------------------------------------------------------------

review_app = typer.Typer(
    help="The review queue: agents' changes that wait for a human, and applied ones to undo.",
    no_args_is_help=True,
)
app.add_typer(review_app, name="review")


@contextmanager
def _bridge(vault: Path | None, state_dir: Path | None, quiet: bool) -> Iterator[Bridge]:
    with opened(settings_for(vault, state_dir), not quiet) as bridge:
        yield bridge


@contextmanager
def _writing_bridge(settings: Settings, quiet: bool) -> Iterator[Bridge]:
    """The vault opened here, for a command that writes, holding the vault lock."""
    with writing_locally(settings), opened(settings, not quiet) as bridge:
        yield bridge


@review_app.command("list")
def review_list(
    state: Annotated[
        str | None,
        typer.Option("--state", help="pending, conflict, applied, approved, rejected or all."),
    ] = None,
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Reviews waiting for a decision (default: pending, conflict and applied)."""
    try:
        states = states_named(state)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    with _bridge(vault, state_dir, True) as bridge:
        reviews = bridge.reviews.list(states)
    if json_out:
        print_json([r.summary() for r in reviews])
        return
    if not reviews:
        console.print("No reviews.")
        return
    table = Table()
    for column in ("id", "state", "operation", "author", "why"):
        table.add_column(column, **(PATH_COLUMN if column == "operation" else {}))
    for r in reviews:
        table.add_row(str(r.id), r.state, escape(f"{r.type} {r.path}"), r.author, escape(r.why))
    console.print(table)


def _get(bridge: Bridge, review_id: int) -> Review:
    from bridge.curate.reviews import ReviewNotFoundError

    try:
        return bridge.reviews.get(review_id)
    except ReviewNotFoundError as exc:
        raise fail(str(exc)) from exc


@review_app.command("show")
def review_show(
    review_id: ReviewIdArg,
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """One review: the operation, why it waits, and its diff."""
    with _bridge(vault, state_dir, True) as bridge:
        review = _get(bridge, review_id)
    if json_out:
        print_json(review.to_dict())
        return
    console.print(
        f"[bold]review {review.id}[/] · {review.state} · {escape(review.type)} "
        f"{escape(review.path)} · by {escape(review.author)}",
        highlight=False,
    )
    console.print(f"why: {escape(review.why)}", highlight=False)
    if review.note:
        console.print(f"note: {escape(review.note)}", highlight=False)
    reason = review.operation.get("reason")
    if reason:
        console.print(f"agent's reason: {escape(str(reason))}", highlight=False)
    sys.stdout.write("\n" + (review.diff or "(no diff)\n"))


def _decision(decision: Decision, json_out: bool) -> None:
    review = decision.review
    _decision_doc(
        {
            "id": review.id,
            "state": review.state,
            "message": decision.message,
            "git": decision.git,
            "review": review.to_dict(),
            "through": None,
        },
        json_out,
    )


def _decision_doc(doc: dict[str, Any], json_out: bool) -> None:
    """A review decision, local or from the running bridge; a conflict shows the new diff."""
    review = doc["review"]
    if json_out:
        print_json(doc)
    else:
        console.print(escape(doc["message"]), highlight=False)
        if doc["state"] == "conflict":
            sys.stdout.write(review.get("diff") or "(no diff)\n")
    if doc["state"] == "conflict":
        raise typer.Exit(EXIT_PROBLEMS)


def _remote_decision(
    remote: RemoteBridge, review_id: int, action: str, json_out: bool, body: Any = None
) -> None:
    """Approve or reject through the running bridge (its single writer applies it)."""
    response = remote.request("POST", f"/v1/reviews/{review_id}/{action}", json=body)
    if response.status_code >= 400:
        code, message = remote.error_of(response)
        if code == "conflict" and action == "approve":
            review = remote.call("GET", f"/v1/reviews/{review_id}")
            if review.get("state") == "conflict":
                doc = {"id": review_id, "state": "conflict", "message": message, "review": review}
                _decision_doc({**doc, "git": None, "through": remote.url}, json_out)
        # As without `serve`: a conflict is exit 1; an unknown or decided review, exit 2.
        raise fail(message, EXIT_PROBLEMS if code == "conflict" else EXIT_USAGE)
    review = response.json()
    doc = {
        "id": review["id"],
        "state": review["state"],
        "message": review.get("message", ""),
        "git": review.get("git"),
        "review": review,
        "through": remote.url,
    }
    _decision_doc(doc, json_out)


@review_app.command("approve")
def review_approve(
    review_id: ReviewIdArg,
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Apply the reviewed change if the note is as the diff shows it; else mark a conflict."""
    settings = settings_for(vault, state_dir)
    remote = running(settings, writes=True)
    if remote is not None:
        _remote_decision(remote, review_id, "approve", json_out)
        return
    from bridge.curate.reviews import ReviewNotFoundError, ReviewStateError

    with _writing_bridge(settings, json_out) as bridge:
        try:
            decision = bridge.reviews.approve(review_id)
        except (ReviewNotFoundError, ReviewStateError) as exc:
            raise fail(str(exc)) from exc
    _decision(decision, json_out)


@review_app.command("reject")
def review_reject(
    review_id: ReviewIdArg,
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (kept with the review).")],
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Discard a waiting change, or undo an applied one (restoring the note's old bytes)."""
    settings = settings_for(vault, state_dir)
    remote = running(settings, writes=True)
    if remote is not None:
        _remote_decision(remote, review_id, "reject", json_out, {"reason": reason})
        return
    from bridge.curate.reviews import RestoreConflictError, ReviewError

    with _writing_bridge(settings, json_out) as bridge:
        try:
            decision = bridge.reviews.reject(review_id, reason)
        except RestoreConflictError as exc:
            raise fail(str(exc), EXIT_PROBLEMS) from exc
        except ReviewError as exc:
            raise fail(str(exc), EXIT_USAGE) from exc
    _decision(decision, json_out)
