"""`vault-bridge setup`: the plugin into a vault someone already has, and what to do next."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from bridge.api.security import load_or_create_token, read_token
from bridge.cli.app import (
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
from bridge.cli.problem_report import problem_sentence
from bridge.install.vault_links import OutsideVaultError
from bridge.install.vault_setup import Change, Connection, SetupPlan, apply_plan, plan_setup
from bridge.mcp.backend import running_bridge
from bridge.obsidian_plugin import plugin_source
from bridge.settings import Settings
from bridge.vault.scan import VaultReport, scan_vault

_MARK = {
    Change.CREATE: "[green]create[/]",
    Change.UPDATE: "[yellow]update[/]",
    Change.UNCHANGED: "[dim]unchanged[/]",
    Change.SKIPPED: "[red]skip[/]",
}


def _next_steps(settings: Settings, connected: bool, running: bool) -> list[str]:
    vault = str(settings.vault_path)
    quoted = f'"{vault}"' if " " in vault else vault
    steps: list[str] = []
    if not running:
        steps.append(
            f"Start the bridge: `vault-bridge service install --vault {quoted}` (at every login) "
            f"or `vault-bridge serve --vault {quoted}` (this terminal)."
        )
    steps.append(
        "In Obsidian: reload the vault (or restart Obsidian); in Settings → Community plugins, "
        "turn off Restricted mode if it is on and check that Vault Bridge is enabled."
    )
    if not connected:
        steps.append(
            "In Settings → Vault Bridge click 'Find bridge' once the bridge runs "
            "(or run set-up again with --connect to write its URL and token)."
        )
    steps.append(
        "Connect an agent: `vault-bridge mcp-config --client claude-code|cursor|claude-desktop|"
        f"vscode --vault {quoted}`."
    )
    return steps


def _token(settings: Settings, *, create: bool) -> str:
    """The API token `serve` will use; a dry run only reads it (and creates nothing)."""
    if create:
        return load_or_create_token(settings.state_path)
    return read_token(settings.state_path) or NEW_TOKEN


NEW_TOKEN = "<a new token, created when set-up runs>"
DEFAULT_PORT = 27182  # the settings' default; `port = 0` (any free port) cannot be written down


@dataclass(frozen=True)
class Target:
    """Where `--connect` points the plugin, and whether a bridge answers there now."""

    connection: Connection
    running: bool


def _target(settings: Settings, *, create: bool) -> Target:
    """The running `serve`'s URL and token (its `bridge.json`), else the configured address.

    `serve --port 27199` may run while the settings say 27182, and the settings' address
    would send the plugin to a port nobody listens on: a running bridge's discovery file
    wins; without one the configured address is written and the report says the bridge is
    not running.
    """
    found = running_bridge(settings)
    if found is not None:
        return Target(Connection(url=found[0], token=found[1]), running=True)
    url = f"http://{settings.host}:{settings.port or DEFAULT_PORT}"
    return Target(Connection(url=url, token=_token(settings, create=create)), running=False)


def _connection_line(target: Target, dry_run: bool) -> str:
    url = target.connection.url
    verb = "would point" if dry_run else "points"
    if target.running:
        return (
            f"The plugin {verb} at the bridge running at {url} (its bridge.json), with its token."
        )
    return (
        f"The plugin {verb} at {url}, the configured address (settings host and port): the "
        "bridge is not running now. If you start it on another port, run set-up with --connect "
        "again while it runs, or click 'Find bridge' in the plugin's settings."
    )


def _report_json(
    plan: SetupPlan, report: VaultReport | None, dry_run: bool, target: Target | None
) -> dict[str, object]:
    codes = Counter(p.code for p in report.all_problems()) if report is not None else None
    connection = None
    if target is not None:
        connection = {"url": target.connection.url, "running": target.running}
    return {
        "vault": str(plan.vault),
        "dry_run": dry_run,
        "files": [f.to_json() for f in plan.files],
        "changed": [] if dry_run else [f.rel for f in plan.writes],
        "warnings": plan.warnings,
        "notes": report.summary() if report is not None else None,
        "problems": dict(sorted(codes.items())) if codes is not None else None,
        "connect": connection,
    }


@app.command()
def setup(
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    connect: Annotated[
        bool,
        typer.Option(
            "--connect", help="Also write the bridge's URL and token into the plugin's settings."
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would change and write nothing.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Install this plugin even over a newer one.")
    ] = False,
    config_dir: Annotated[
        str,
        typer.Option("--config-dir", help="Obsidian's config folder, if you renamed it."),
    ] = ".obsidian",
    follow_symlinks: Annotated[
        bool,
        typer.Option(
            "--follow-symlinks",
            help="Write through a symlink under the config folder that leads out of the vault.",
        ),
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Install or update the Obsidian plugin in an existing vault, and say what comes next.

    Only `.obsidian/plugins/vault-bridge/` and `.obsidian/community-plugins.json` are written;
    your notes and every other setting stay byte for byte as they are.
    """
    settings = settings_for(vault, state_dir)
    root = settings.vault_path
    if not root.is_dir():
        raise fail(f"{root} is not a folder")
    if Path(config_dir).is_absolute() or ".." in Path(config_dir).parts or not config_dir:
        raise fail(f"--config-dir must be a folder name inside the vault, not {config_dir!r}")
    target = _target(settings, create=not dry_run) if connect else None
    connection = target.connection if target is not None else None
    try:
        plan = plan_setup(
            root,
            plugin_source(),
            config_dir=config_dir,
            connection=connection,
            allow_downgrade=force,
            follow_symlinks=follow_symlinks,
        )
    except OutsideVaultError as exc:
        raise fail(
            escape(
                f"{exc}: set-up writes only inside the vault, so nothing was written. Remove "
                "the link, or run set-up again with --follow-symlinks to write through it."
            )
        ) from exc
    # The notes are read (to count them) only when set-up changes something: a second
    # `setup` with nothing to change returns at once.
    report: VaultReport | None = None
    if plan.writes:
        with console.status("Reading the vault's notes...", spinner="dots"):
            report = scan_vault(open_store(settings))
    if not dry_run:
        try:
            apply_plan(plan)
        except OSError as exc:
            raise fail(f"could not write into {root}: {exc}") from exc
    if json_out:
        print_json(_report_json(plan, report, dry_run, target))
        return
    planned_title = "Would change" if plan.writes else "Nothing to change in"
    title = planned_title if dry_run else "Set-up of"
    console.print(f"{title} [bold]{escape(str(root))}[/]:")
    for planned in plan.files:
        mark = _MARK[planned.change]
        console.print(f"  {mark} {escape(planned.rel)}  [dim]({escape(planned.why)})[/]")
    for warning in plan.warnings:
        console.print(f"[yellow]note:[/] {escape(warning)}", soft_wrap=True)
    if target is not None and not plan.missing:
        console.print(escape(_connection_line(target, dry_run)), soft_wrap=True)
    if report is not None:
        summary = report.summary()
        console.print(
            f"The vault holds {summary['notes']} notes ({summary['entries']} entries, "
            f"{summary['folders']} folders, {summary['relations']} relations)."
        )
    sentence = problem_sentence(report) if report is not None else None
    if sentence:
        console.print(
            f"{escape(sentence)}: the bridge reads around them; `vault-bridge doctor` lists each.",
            soft_wrap=True,
        )
    if dry_run:
        console.print("Nothing was written (--dry-run).")
        return
    if not plan.writes:
        console.print(
            "Nothing to change: the plugin is already installed and enabled (the notes were "
            "not read again: `vault-bridge status` counts them, `vault-bridge doctor` lists "
            "their problems)."
        )
    console.print("Next:")
    running = target.running if target is not None else running_bridge(settings) is not None
    for n, step in enumerate(_next_steps(settings, connect, running), 1):
        console.print(f"  {n}. {escape(step)}", soft_wrap=True)
