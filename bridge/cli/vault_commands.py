"""Commands about the vault itself: init, status, doctor, serve."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from bridge.cli.app import (
    EXIT_OK,
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
from bridge.cli.problem_report import doctor_json, doctor_table, problem_sentence
from bridge.cli.running import running
from bridge.core.dialect import describe
from bridge.install.template import copy_template, template_dir
from bridge.install.vault_links import OutsideVaultError
from bridge.obsidian_plugin import install_plugin
from bridge.runtime import embed_config
from bridge.semantic.factory import stored_status
from bridge.settings import Settings
from bridge.vault.scan import VaultReport, scan_vault


@app.command()
def init(
    directory: Annotated[Path, typer.Argument(help="Folder for the new vault.", metavar="DIR")],
    force: Annotated[
        bool, typer.Option("--force", help="Add to a non-empty folder, keeping existing files.")
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Create a new vault from the bundled template."""
    source = template_dir()
    if not source.is_dir():
        raise fail(f"the vault template is missing (looked in {source})")
    target = directory.expanduser()
    if target.exists() and not target.is_dir():
        raise fail(f"{target} exists and is not a folder")
    existing = target.exists() and any(target.iterdir())
    if existing and not force:
        raise fail(f"{target} is not empty; use --force to add the template beside its files")
    try:
        copied = copy_template(target, source)
        plugin = install_plugin(target)
    except OutsideVaultError as exc:
        raise fail(f"{exc}: init writes only inside the new vault; remove the link") from exc
    created, kept = copied.created, copied.kept
    if json_out:
        print_json(
            {
                "vault": str(target.resolve()),
                "created": created,
                "kept": kept,
                "plugin": plugin.to_json(),
            }
        )
        return
    where = f"[bold]{escape(str(target.resolve()))}[/]"
    if not existing:
        console.print(f"Created a vault at {where} ({len(created)} files).")
    elif created:
        console.print(f"Added {len(created)} template files to {where}.")
    else:
        console.print(f"Nothing to add to {where}: it already holds every template file.")
    if kept:
        console.print(f"Kept {len(kept)} existing files unchanged.")
    console.print(f"Obsidian plugin: {plugin.message}", highlight=False)
    console.print("Open it in Obsidian (Open folder as vault), then run:")
    console.print(f"  vault-bridge serve --vault {target}")


# "entries 0" read as "nothing indexed" to a new user of an ordinary vault: entries are the
# notes written in the entry format (its sections), every note is searched alike.
_STATUS_LABELS = {"entries": "entries (notes with entry sections)"}


def _status_table(settings: Settings, report: VaultReport) -> Table:
    table = Table(title=f"Vault {settings.vault_path}", show_header=False)
    table.add_column("what")
    table.add_column("count", justify="right")
    for key, value in report.summary().items():
        table.add_row(_STATUS_LABELS.get(key, key.replace("_", " ")), str(value))
    table.add_row("state dir", str(settings.state_path))
    table.add_row("vault chosen by", escape(settings.vault_rule))
    table.add_row("dialect", escape(describe(report.dialect)))
    semantic = _semantic(settings)
    if semantic["state"] == "off":
        table.add_row("dense channel", "off")
    else:
        table.add_row(
            "dense channel",
            f"{semantic['model']}: {semantic['state']}, {semantic['embedded']} notes, "
            f"{semantic['sections']} passages"
            + (f", {semantic['pending']} waiting" if semantic.get("pending") else ""),
        )
    return table


def _semantic(settings: Settings) -> dict[str, Any]:
    """The dense channel's state: from the running `serve` when there is one (it embeds),
    else from the vector file (docs/query.md, "Meaning, not only words")."""
    remote = running(settings)
    if remote is not None:
        answer: dict[str, Any] = remote.call("GET", "/v1/status")
        return dict(answer.get("semantic") or {"state": "off"})
    return stored_status(embed_config(settings))


@app.command()
def status(
    vault: VaultOpt = None, state_dir: StateDirOpt = None, json_out: JsonOpt = False
) -> None:
    """Counts of notes, entries, folders, relations and problems."""
    settings = settings_for(vault, state_dir)
    report = scan_vault(open_store(settings))
    if json_out:
        print_json(
            {
                "vault": str(settings.vault_path),
                "vault_chosen_by": settings.vault_rule,
                "dialect": report.dialect.name,
                "state_dir": str(settings.state_path),
                **report.summary(),
                "semantic": _semantic(settings),
            }
        )
        return
    console.print(_status_table(settings, report))
    sentence = problem_sentence(report)
    if sentence:
        console.print(f"{escape(sentence)}: run `vault-bridge doctor` for the list.")


@app.command()
def doctor(
    vault: VaultOpt = None, state_dir: StateDirOpt = None, json_out: JsonOpt = False
) -> None:
    """List every problem note with the reason; exit 1 when there are any."""
    settings = settings_for(vault, state_dir)
    report = scan_vault(open_store(settings))
    problems = report.all_problems()
    if json_out:
        print_json(doctor_json(report))
    elif not problems:
        console.print(f"No problems in {len(report.paths)} notes.")
    else:
        console.print(doctor_table(report))
    raise typer.Exit(EXIT_PROBLEMS if problems else EXIT_OK)
