"""`vault-bridge overviews`: each folder's overview, and the `_index.md` regions it keeps true.

Without `--write` it reads only: what each folder holds and what would happen to its
`_index.md`. With `--write` the regions are rewritten by the bridge serving the vault when one
runs (one writer per vault, its watcher knows the writes as its own), else here under the vault
lock. Exit codes: 0 done; 1 done, but an `_index.md` has bad markers, cannot be written, or a
human edit won over a write; 2 bad usage.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape

from bridge.cli.app import (
    EXIT_PROBLEMS,
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
from bridge.cli.query_commands import opened
from bridge.cli.running import running, writing_locally
from bridge.core.overview import clean_folder
from bridge.overviews import PROBLEM_STATES, check_overviews

STATE_WORDS = {
    "updated": "updated",
    "would_update": "would update",
    "unchanged": "unchanged",
    "no_index": "no _index.md",
    "no_markers": "no markers",
    "bad_markers": "bad markers",
    "blocked": "not writable",
    "unreadable": "unreadable",
    "conflict": "left as is",
    "failed": "write failed",
}


def _state(region: dict[str, Any]) -> str:
    word = STATE_WORDS.get(str(region["state"]), str(region["state"]))
    return f"{word}: {region['detail']}" if region.get("detail") else word


def _print(doc: dict[str, Any], write: bool) -> None:
    """The report (`OverviewsReport.to_json()`, local or from the running bridge)."""
    for folder in doc["folders"]:
        region = folder["region"]
        if write and region["state"] == "no_index":
            continue  # nothing to say about a folder that has no `_index.md`
        name = f"{folder['folder']}/" if folder["folder"] else "(vault root)"
        where = "" if region["state"] == "no_index" else f"{region['path']}: "
        console.print(f"[bold]{escape(name)}[/]  {escape(where + _state(region))}")
        if not write:
            text = escape(folder["markdown"]).rstrip("\n")
            console.print(text, highlight=False, soft_wrap=True)
            console.print()
    counts = ", ".join(
        f"{n} {STATE_WORDS.get(s, s)}" for s, n in doc["counts"].items() if s != "no_index"
    )
    console.print(f"{len(doc['folders'])} folders; _index.md: {counts or 'none'}.")
    if doc.get("through"):
        console.print(f"(written by the bridge serving this vault at {doc['through']})")


@app.command()
def overviews(
    write: Annotated[
        bool,
        typer.Option("--write", help="Rewrite the region of each _index.md with the markers."),
    ] = False,
    folder: Annotated[
        str | None,
        typer.Option("--folder", help="Only this folder and the folders below it."),
    ] = None,
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Each folder's overview (notes, subfolders with counts) and its _index.md region."""
    settings = settings_for(vault, state_dir)
    try:
        under = clean_folder(folder or "")
    except ValueError as exc:
        raise fail(str(exc)) from exc
    store = open_store(settings)
    try:
        store.check_folder(under)
    except ValueError as exc:  # a folder symlink on the way
        raise fail(str(exc)) from exc
    if under and next(iter(store.iter_paths(under)), None) is None:
        raise fail(f"no notes in a folder `{under}` of the vault {settings.vault_path}")
    doc: dict[str, Any]
    if not write:
        doc = check_overviews(store, under).to_json()
    else:
        remote = running(settings, writes=True)
        if remote is not None:
            doc = remote.call("POST", "/v1/overviews", json={"folder": under})
            doc["through"] = remote.url
        else:
            with writing_locally(settings), opened(settings, not json_out) as bridge:
                doc = bridge.write_overviews(under).to_json()
            doc["through"] = None
    if json_out:
        print_json(doc)
    else:
        _print(doc, write)
    if any(doc["counts"].get(state) for state in PROBLEM_STATES):
        raise typer.Exit(EXIT_PROBLEMS)
