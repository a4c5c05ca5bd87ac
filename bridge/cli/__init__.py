"""The `vault-bridge` command line. `main(argv)` is the console entry point."""

from __future__ import annotations

from bridge.cli.app import main

__all__ = ["main"]
