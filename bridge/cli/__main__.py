"""`python -m bridge.cli`: the CLI without its console script (installed_command's fallback)."""

from __future__ import annotations

import sys

from bridge.cli import main

if __name__ == "__main__":
    sys.exit(main())
