"""Commands that use the index: query, search, reindex, import."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import ValidationError
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from bridge.api.models import QueryRequest
from bridge.cli.app import (
    PATH_COLUMN,
    JsonOpt,
    StateDirOpt,
    VaultOpt,
    app,
    console,
    err_console,
    fail,
    print_json,
    settings_for,
)
from bridge.cli.running import request_body, running, writing_locally
from bridge.query.models import NO_TERMS, QueryResult, Source
from bridge.settings import Settings

if TYPE_CHECKING:
    from bridge.runtime import Bridge

LimitOpt = Annotated[int, typer.Option("--limit", "-n", min=1, max=1000, help="Most sources.")]
BudgetOpt = Annotated[
    int | None,
    typer.Option("--budget-words", min=10, max=100_000, help="Word budget of the excerpts."),
]
ScopeOpt = Annotated[
    str | None, typer.Option("--scope", help="Only notes under this folder of the vault.")
]


@contextmanager
def _progress(
    enabled: bool, label: str = "indexing"
) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for long runs (none in --json mode or off a TTY)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task("index", total=None)

        def update(done: int, total: int) -> None:
            if done == 1 or done % 200 == 0 or done == total:
                bar.update(task, completed=done, total=total)

        yield update


@contextmanager
def opened(settings: Settings, show_progress: bool, vectors: bool = True) -> Iterator[Bridge]:
    """The bridge with its index brought up to date with the files, closed afterwards.

    `vectors`: load the stored vectors for the dense channel (no embedding). `reindex` says
    False and embeds them itself: loading first would take every note off the channel's
    queue, and on a fresh state dir it would embed nothing.
    """
    # The engine's modules load here, not with the CLI: a command `serve` answers needs none.
    from bridge.index.search_index import IndexBusyError
    from bridge.runtime import open_bridge
    from bridge.vault.store import VaultError

    try:
        bridge = open_bridge(settings)
    except VaultError as exc:
        raise fail(str(exc)) from exc
    try:
        with _progress(show_progress) as progress:
            try:
                bridge.sync(progress)
            except IndexBusyError as exc:
                err_console.print(f"[yellow]note:[/] {exc}; answering from the index as it is")
        # The vectors stored for these notes; the CLI embeds only the question (docs/query.md).
        if vectors:
            bridge.prepare_semantic(embed=False)
        yield bridge
    finally:
        bridge.close()


def _badge(result: QueryResult, answer: bool) -> str:
    """Tier (a query's only: search has none, nor has a query without words), time, words."""
    parts = [f"{result.latency_ms:.1f} ms", f"{result.words} words"]
    if answer and result.message != NO_TERMS:
        parts.insert(0, f"tier {result.tier}")
    return " · ".join(parts)


def _print_result(result: QueryResult, answer: bool) -> None:
    badge = _badge(result, answer)
    if result.ood:
        console.print(f"[bold]Nothing in memory about this.[/]  [dim]{badge}[/]")
        return
    if answer and result.answer:
        console.print(escape(result.answer), highlight=False)
        console.print()
    if result.message:
        console.print(f"[yellow]{escape(result.message)}[/]")
    if not result.sources:
        console.print(f"No sources.  [dim]{badge}[/]")
        return
    table = Table(title=badge, title_justify="left", show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("source", **PATH_COLUMN)
    table.add_column("status")
    table.add_column("score", justify="right")
    table.add_column("best excerpt")
    for i, source in enumerate(result.sources, 1):
        where = escape(source.path)
        if source.via == "relation" and source.related_from:
            where += f"\n[dim]via {escape(source.related_from)}[/]"
        for copy in source.also_in:
            where += f"\n[dim]also in {escape(copy)}[/]"
        table.add_row(
            str(i),
            where,
            source.status or "",
            f"{source.score:.2f}",
            _best_excerpt(source),
        )
    console.print(table)


def _best_excerpt(source: Source) -> str:
    """The source's best block, under its heading; `--json` has every block."""
    if not source.blocks:
        return "[dim](no excerpt in the word budget)[/]"
    best = source.blocks[0]
    heading = best.heading.rsplit(" > ", 1)[-1].strip()
    shown = escape(best.text)
    return f"[dim]{escape(heading)}[/]\n{shown}" if heading else shown


def _run(
    kind: str,
    text: str,
    vault: Path | None,
    state_dir: Path | None,
    limit: int,
    budget: int | None,
    scope: str | None,
    json_out: bool,
) -> None:
    settings = settings_for(vault, state_dir)
    remote = running(settings)
    request = _api_request(text, limit, budget, scope) if remote is not None else None
    if remote is not None and request is not None:
        result = QueryResult.model_validate(remote.call("POST", f"/v1/{kind}", json=request))
        through: str | None = remote.url
    else:
        result, through = _answer_here(kind, settings, text, limit, budget, scope, json_out), None
    if json_out:
        print_json({**result.model_dump(mode="json"), "through": through})
        return
    _print_result(result, answer=kind == "query")
    if through:
        console.print(f"[dim](answered by the bridge serving this vault at {through})[/]")


def _api_request(
    text: str, limit: int, budget: int | None, scope: str | None
) -> dict[str, Any] | None:
    """The API body for this question, or None when the API would refuse what the CLI takes.

    Why forward at all: `serve` has the encoder loaded, the index current and the answer cache
    warm (tens of ms against a second or two for a process that loads them), and it stays the
    one process recording uses. The CLI takes more sources (1000) and any length of question;
    such a question is answered here, as without `serve`.
    """
    doc = {"query": text, "limit": limit, "budget_words": budget, "scope": scope}
    try:
        return QueryRequest.model_validate(doc).model_dump()
    except ValidationError:
        return None


def _answer_here(
    kind: str,
    settings: Settings,
    text: str,
    limit: int,
    budget: int | None,
    scope: str | None,
    json_out: bool,
) -> QueryResult:
    """The answer from the index and vectors opened in this process."""
    from bridge.llm.client import LLMError

    with opened(settings, not json_out) as bridge:
        engine = bridge.engine
        try:
            run = engine.query if kind == "query" else engine.search
            return run(text, budget_words=budget, limit=limit, scope=scope)
        except ValueError as exc:
            raise fail(str(exc)) from exc
        except LLMError as exc:
            # Tier 3/4 could not reach the model: say so; `search` still shows the excerpts.
            raise fail(
                f"{exc}; `vault-bridge search` shows the excerpts without an answer", 1
            ) from exc


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="The question.", metavar="TEXT")],
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    limit: LimitOpt = 10,
    budget_words: BudgetOpt = None,
    scope: ScopeOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Ask the memory: cached, direct or LLM answer with its sources."""
    _run("query", text, vault, state_dir, limit, budget_words, scope, json_out)


@app.command()
def search(
    text: Annotated[str, typer.Argument(help="Words to look for.", metavar="TEXT")],
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    limit: LimitOpt = 10,
    budget_words: BudgetOpt = None,
    scope: ScopeOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Ranked notes with their best excerpts (no answer, no cache)."""
    _run("search", text, vault, state_dir, limit, budget_words, scope, json_out)


@app.command()
def reindex(
    vault: VaultOpt = None, state_dir: StateDirOpt = None, json_out: JsonOpt = False
) -> None:
    """Rebuild the search index from the files.

    With `serve` running on the vault, its index re-reads every note instead (stop serve to
    rebuild from scratch).
    """
    settings = settings_for(vault, state_dir)
    index_dir = settings.state_path / "index"
    remote = running(settings, writes=True)
    if remote is not None:
        summary: dict[str, Any] = remote.call("POST", "/v1/reindex")
        summary["through"] = remote.url
    else:
        with writing_locally(settings):
            shutil.rmtree(index_dir, ignore_errors=True)
            with opened(settings, not json_out, vectors=False) as bridge:
                with _progress(not json_out, "embedding") as progress:
                    semantic = bridge.prepare_semantic(embed=True, progress=progress)
                summary = {
                    "notes": bridge.index.note_count(),
                    "generation": bridge.index.generation,
                    "semantic": semantic,
                    "through": None,
                }
    if json_out:
        print_json(summary)
    elif summary["through"]:
        console.print(f"The bridge at {summary['through']} re-read {summary['notes']} notes.")
    else:
        console.print(f"Indexed {summary['notes']} notes into {index_dir}.")


@app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="A chat transcript (JSON).", metavar="FILE")],
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    root: Annotated[str, typer.Option("--root", help="Folder for the sessions.")] = "conversations",
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite session notes edited since the import.")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Import a chat transcript: one entry per session, one block per turn."""
    from bridge.importer.service import load_transcript_file
    from bridge.importer.transcript import TranscriptError

    settings = settings_for(vault, state_dir)
    try:
        data = load_transcript_file(file)
    except TranscriptError as exc:
        raise fail(str(exc)) from exc
    body = request_body({"data": data, "root": root, "force": force}, str(file))
    remote = running(settings, writes=True)
    if remote is not None:
        doc: dict[str, Any] = remote.post("/v1/import", body)
        doc["through"] = remote.url
    else:
        with writing_locally(settings), opened(settings, not json_out) as bridge:
            try:
                report = bridge.import_transcripts(data, root=root, force=force)
            except (TranscriptError, ValueError) as exc:
                raise fail(f"{file}: {exc}") from exc
        doc = {**report.summary(), "written": report.written, "kept": report.kept}
        doc["through"] = None
    if json_out:
        print_json(doc)
        return
    _print_import(file.name, doc)


SHOWN_PATHS = 20  # a transcript of hundreds of sessions lists the first ones and counts the rest


def _print_import(name: str, doc: dict[str, Any]) -> None:
    """Counts, then the notes written and kept, one per line (paths a person can copy)."""
    written, kept = list(doc["written"]), list(doc["kept"])
    console.print(
        f"Imported {escape(name)}: {_notes(len(written))} written, {doc['unchanged']} unchanged, "
        f"{len(kept)} kept.",
        highlight=False,
    )
    lines = [f"  wrote {path}" for path in written]
    lines += [f"  kept {path} (edited since the import; --force overwrites it)" for path in kept]
    for line in lines[:SHOWN_PATHS]:
        console.print(escape(line), highlight=False, soft_wrap=True)
    if len(lines) > SHOWN_PATHS:
        console.print(f"  ... and {len(lines) - SHOWN_PATHS} more (--json lists them all)")
    if doc.get("through"):
        console.print(f"(written by the bridge serving this vault at {doc['through']})")


def _notes(count: int) -> str:
    return f"{count} note" if count == 1 else f"{count} notes"
