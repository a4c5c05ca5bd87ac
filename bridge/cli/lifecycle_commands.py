"""Commands about the Adaptive Knowledge Lifecycle: `decay` (for cron) and `lifecycle PATH`."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from bridge.cli.app import (
    PATH_COLUMN,
    JsonOpt,
    StateDirOpt,
    VaultOpt,
    app,
    console,
    fail,
    open_store,
    print_json,
    settings_for,
)
from bridge.cli.running import running, writing_locally
from bridge.core import lifecycle as akl
from bridge.core.paths import UnsafePathError, normalise_note_path
from bridge.curate.git import commit_work
from bridge.lifecycle.decay import decay_message, run_decay
from bridge.lifecycle.report import explain
from bridge.settings import Settings
from bridge.state.db import StateDBError
from bridge.state.lifecycle_store import LifecycleStore, LifecycleView, open_lifecycle
from bridge.vault.store import NoteError


@contextmanager
def _lifecycle(settings: Settings) -> Iterator[LifecycleStore]:
    """The lifecycle store on the vault's state database, closed afterwards."""
    try:
        store = open_lifecycle(
            settings.state_path, settings.status_mapping, settings.lifecycle_params
        )
    except StateDBError as exc:
        raise fail(str(exc)) from exc
    with store.db:
        yield store


def _ago(moment: datetime | None, now: datetime) -> str:
    if moment is None:
        return "never"
    days = math.floor(akl.days_between(moment, now))
    if days == 0:
        return "less than a day ago"
    return f"{days} day{'' if days == 1 else 's'} ago"


def _times(count: int) -> str:
    return f"{count} time{'' if count == 1 else 's'}"


# -- decay --------------------------------------------------------------------------------------


def _print_report(doc: dict[str, Any]) -> None:
    """The decay report (`DecayReport.to_json()`, local or from the running bridge)."""
    ran_at = str(doc.get("ran_at", ""))[:19]
    transitions, stale, skipped = doc["transitions"], doc["stale"], doc["skipped"]
    console.print(
        f"Decay run at {ran_at}: {doc['notes_seen']} notes, {len(transitions)} status changes, "
        f"{len(stale)} stale candidates, {len(skipped)} skipped.",
        highlight=False,
    )
    if doc.get("through"):
        console.print(f"(run by the bridge serving this vault at {doc['through']})")
    if transitions:
        table = Table(title="Status changes written")
        for column in ("note", "from", "to", "importance"):
            path = PATH_COLUMN if column == "note" else {}
            table.add_column(column, justify="right" if column == "importance" else "left", **path)
        for t in transitions:
            table.add_row(
                escape(t["path"]), escape(t["from"] or "-"), t["to"], f"{t['importance']:.1f}"
            )
        console.print(table)
    if stale:
        table = Table(title="Stale candidates (unimportant and long untouched; archive by hand)")
        for column in ("note", "importance", "recency"):
            path = PATH_COLUMN if column == "note" else {}
            table.add_column(column, justify="left" if column == "note" else "right", **path)
        for s in stale:
            table.add_row(escape(s["path"]), f"{s['importance']:.1f}", f"{s['recency']:.3f}")
        console.print(table)
    for item in skipped:
        console.print(f"skipped: {escape(item['message'])}", highlight=False)


@app.command()
def decay(vault: VaultOpt = None, state_dir: StateDirOpt = None, json_out: JsonOpt = False) -> None:
    """Run the decay job now: write `status` where maturity changed; list stale notes.

    With `serve` running on the vault, the running bridge runs it (one writer per vault).
    """
    settings = settings_for(vault, state_dir)
    remote = running(settings, writes=True)
    if remote is not None:
        doc: dict[str, Any] = remote.call("POST", "/v1/lifecycle/decay")
        doc["through"] = remote.url
    else:
        store = open_store(settings)
        with writing_locally(settings), _lifecycle(settings) as lifecycle:
            with store.recording() as changes:
                report = run_decay(store, lifecycle, datetime.now(UTC))
            commit_work(store.root, settings.git_commit, changes.changes, decay_message(report))
            doc = report.to_json()
        doc["through"] = None
    if json_out:
        print_json(doc)
    else:
        _print_report(doc)


# -- lifecycle PATH -----------------------------------------------------------------------------


def _explain(
    view: LifecycleView, settings: Settings, document: dict[str, Any], now: datetime
) -> Table:
    params = settings.lifecycle_params
    mapping = settings.status_mapping
    half_life = math.log(0.5) / math.log(params.daily_decay) if params.daily_decay < 1 else None
    decay_words = (
        f"loses {100 * (1 - params.daily_decay):.1f}% a day, half in {half_life:.0f} days"
        if half_life is not None
        else "does not decay"
    )
    status_word = view.status if view.status is not None else "none"
    maturity = f"{view.maturity.value} (status: {status_word})"
    problem = document.get("frontmatter_problem")
    if problem:
        maturity = (
            f"draft for ranking: the frontmatter cannot be read "
            f"({str(problem).removeprefix(f'{view.path}: ')}), so the bridge sees no status "
            "and writes none; fix it (`vault-bridge doctor` lists every such note)"
        )
    elif view.status is None or not view.status.strip():
        maturity = (
            "draft for ranking: the note has no `status`, and the bridge writes one only "
            "when its maturity changes"
        )
    elif not view.managed:
        maturity = (
            f"draft for ranking: status `{status_word}` is not a lifecycle word, "
            "so the bridge never rewrites it"
        )
    elif mapping.maturity_for(view.status) is not view.maturity:
        maturity += f"; the next decay run writes status `{mapping.status_for(view.maturity)}`"
    table = Table(title=escape(view.path), show_header=False, box=None, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value")
    if view.last_update is None:
        recency = f"{view.recency:.2f}: no update known (no `updated` in its frontmatter)"
    else:
        recency = (
            f"{view.recency:.2f}: last updated {_ago(view.last_update, now)} "
            f"(recency halves every {params.recency_days * math.log(2):.1f} days)"
        )
    # Uses, not appearances (DESIGN section 4): being listed as a source is no use.
    used = "never yet (a use: its text answered, it was opened from the results, or marked helpful)"
    if view.access_count:
        used = f"{_times(view.access_count)}, last {_ago(view.last_access, now)}"
    updates = "none recorded by the bridge"
    if view.update_count:
        updates = f"{_times(view.update_count)}, last by {view.last_writer or 'unknown'}"
    rows = [
        ("importance", f"{view.importance:.1f} of {params.max_importance:g} ({decay_words})"),
        ("recency", recency),
        ("maturity", maturity),
        ("used", used),
        ("updates", updates),
        ("next", _next(document["forecast"])),
        (
            "stale",
            ("yes: " if view.stale else "no: ")
            + f"stale means importance below {params.stale_importance:g} "
            f"and recency below {params.stale_recency:g}",
        ),
    ]
    if not view.tracked:
        rows.append(("note", "not tracked yet: these are the starting values for its status"))
    for key, value in rows:
        table.add_row(key, escape(value))
    return table


def _next(forecast: dict[str, Any]) -> str:
    """The forecast as a sentence: a coming change holds only if nothing else happens first."""
    text = str(forecast["text"])
    return f"{text}, if nothing else happens" if forecast["to"] is not None else text


@app.command()
def lifecycle(
    path: Annotated[
        str, typer.Argument(help="Note path: a/b/c.md, a/b/c or @a/b/c.md.", metavar="PATH")
    ],
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Explain one note's importance, recency, maturity and next transition."""
    settings = settings_for(vault, state_dir)
    store = open_store(settings)
    try:
        rel = normalise_note_path(path)
    except UnsafePathError as exc:
        raise fail(str(exc)) from exc
    now = datetime.now(UTC)
    try:
        with _lifecycle(settings) as store_state:
            view, document = explain(store, store_state, settings.status_mapping, rel, now)
    except NoteError as exc:
        if exc.problem.code == "missing":
            raise fail(f"no note `{rel}` in the vault {settings.vault_path}") from exc
        raise fail(exc.problem.message) from exc
    if json_out:
        print_json(document)
    else:
        console.print(_explain(view, settings, document, now))
