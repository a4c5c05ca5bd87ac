"""The `vault-bridge` command line. `main(argv)` is the console entry point."""

from __future__ import annotations

# Each module registers its commands on `app` when imported.
from bridge.cli import lifecycle_commands, query_commands, vault_commands
from bridge.cli.app import app, main

__all__ = ["app", "lifecycle_commands", "main", "query_commands", "vault_commands"]
