"""The `vault-bridge` command line. `main(argv)` is the console entry point.

Each command module registers its commands on `app` when imported, and importing one can
take the whole engine (tantivy, numpy, the encoder's runtime). `main` imports only the module
of the command asked for: a `query` or `curate` that a running `serve` answers needs none of
that (about half a second less per call). Help, a bare `vault-bridge` and a name that is no
command import them all, in `MODULES` order (the order `--help` lists them in).
"""

from __future__ import annotations

import importlib
import sys

from bridge.cli.app import app
from bridge.cli.app import main as _run

# Each top-level command (or command group) and the module that registers it; a test checks
# it against what the modules register.
COMMANDS = {
    "curate": "curate_commands",
    "review": "curate_commands",
    "mcp-config": "install_commands",
    "service": "install_commands",
    "decay": "lifecycle_commands",
    "lifecycle": "lifecycle_commands",
    "mcp": "mcp_command",
    "overviews": "overviews_command",
    "query": "query_commands",
    "search": "query_commands",
    "reindex": "query_commands",
    "import": "query_commands",
    "serve": "serve_command",
    "setup": "setup_command",
    "init": "vault_commands",
    "status": "vault_commands",
    "doctor": "vault_commands",
}
# The modules that register commands, in the order the help lists their commands.
MODULES = tuple(dict.fromkeys(COMMANDS.values()))


def register(command: str | None = None) -> None:
    """Import the module of `command`, or every command module (None, or not a command)."""
    wanted = [COMMANDS[command]] if command in COMMANDS else MODULES
    for module in wanted:
        importlib.import_module(f"bridge.cli.{module}")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI with `argv` (default: `sys.argv[1:]`) and return the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    register(args[0] if args and not args[0].startswith("-") else None)
    return _run(args)


__all__ = ["COMMANDS", "MODULES", "app", "main", "register"]
