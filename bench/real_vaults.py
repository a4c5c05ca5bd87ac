"""The real vaults' written questions, and a bridge on a vault with every note embedded: what
the benches that ask them (`fit_ranker.py`, `answers.py`) share.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"


def vault_questions(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(real, off-topic) questions of `bench/data/<name>_questions.json`: the short ones are
    real, the near-topic ones off-topic."""
    data = json.loads((DATA / f"{name}_questions.json").read_text(encoding="utf-8"))
    real = [*data["questions"], *data.get("short", [])]
    off = [*data["off_topic"], *data.get("near_topic", [])]
    return real, off


@contextmanager
def embedded_bridge(vault: Path, state: Path | None) -> Iterator[Any]:
    """The vault's bridge with its defaults, synced and every note embedded (as `serve` has
    it once embedding is done); `state` None: a temp state dir."""
    from bridge.runtime import open_bridge
    from bridge.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        bridge = open_bridge(Settings(vault=vault, state_dir=state or Path(tmp) / "state"))
        try:
            bridge.sync()
            bridge.prepare_semantic(embed=True)
            yield bridge
        finally:
            bridge.close()
