"""The `vault-bridge` command line. `main(argv)` is the console entry point."""

from __future__ import annotations

# Each module registers its commands on `app` when imported.
from bridge.cli import (
    curate_commands,
    install_commands,
    lifecycle_commands,
    mcp_command,
    overviews_command,
    query_commands,
    serve_command,
    setup_command,
    vault_commands,
)
from bridge.cli.app import app, main

__all__ = [
    "app",
    "curate_commands",
    "install_commands",
    "lifecycle_commands",
    "main",
    "mcp_command",
    "overviews_command",
    "query_commands",
    "serve_command",
    "setup_command",
    "vault_commands",
]
