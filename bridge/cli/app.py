"""The typer application and the options every command shares.

Exit codes scripts can trust: 0 done, 1 done but problems were found (e.g. `doctor`),
2 bad usage or a vault that cannot be used.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from bridge.settings import Settings, SettingsUnusableError, load_settings, unknown_variables

if TYPE_CHECKING:
    from bridge.vault.store import VaultStore

app = typer.Typer(
    name="vault-bridge",
    help="Agent-native memory that lives in an Obsidian vault.",
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: the rich layout printed a `<bool>` type beside every flag, --help included.
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from bridge import __version__

        console.print(f"vault-bridge {__version__}", highlight=False)
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Agent-native memory that lives in an Obsidian vault."""
    for warning in unknown_variables(os.environ):  # once per command, whichever it is
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    if ctx.invoked_subcommand is None:  # bare `vault-bridge`: the help, and success
        console.print(ctx.get_help(), highlight=False, markup=False)
        raise typer.Exit(0)


EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2

VaultOpt = Annotated[
    Path | None,
    typer.Option(
        "--vault",
        "-V",
        help="Vault folder [env VAULT_BRIDGE_VAULT; else the current directory if it is one]",
    ),
]
StateDirOpt = Annotated[
    Path | None, typer.Option("--state-dir", help="State folder [env VAULT_BRIDGE_STATE_DIR]")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]

# Off a terminal (a pipe, a log, cron) rich assumed 80 columns and cut paths in tables with
# "…", so they could not be copied. There it lays out for a wide page instead, unless COLUMNS
# says otherwise; path columns never wrap (`PATH_COLUMN`).
PIPE_WIDTH = 200
PATH_COLUMN: dict[str, Any] = {"no_wrap": True, "overflow": "fold"}


def _console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    wide = not stream.isatty() and not os.environ.get("COLUMNS", "").isdigit()
    return Console(stderr=stderr, width=PIPE_WIDTH if wide else None)


console = _console()
err_console = _console(stderr=True)


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Print an error the user can act on and return the exit to raise.

    The message is escaped: a `[z-a]` in it is the user's text, not rich markup to drop.
    """
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def settings_for(vault: Path | None, state_dir: Path | None = None, **extra: Any) -> Settings:
    """Settings with the command's flags on top of env and config file; bad values exit 2."""
    try:
        return load_settings(vault=vault, state_dir=state_dir, **extra)
    except SettingsUnusableError as exc:
        raise fail(str(exc)) from exc


def open_store(settings: Settings) -> VaultStore:
    """The vault store, or a clean exit naming the problem."""
    from bridge.vault.store import VaultError, VaultStore

    try:
        dialect = settings.vault_dialect
        return VaultStore(
            settings.vault,
            settings.ignore_rules_for(dialect),
            settings.max_note_bytes,
            dialect=dialect,
        )
    except VaultError as exc:
        raise fail(str(exc)) from exc


def print_json(data: object) -> None:
    """JSON on stdout, nothing else, so scripts can parse it."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI with `argv` (default: `sys.argv[1:]`) and return the exit code."""
    try:
        app(args=argv, prog_name="vault-bridge")
    except SystemExit as exc:
        # Standalone mode prints usage errors itself and exits; turn that into a return value.
        if exc.code is None:
            return EXIT_OK
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    return EXIT_OK
