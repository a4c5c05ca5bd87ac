"""The live API fixture of tests/api, and the real model held back, for the semantic tests."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from bridge.semantic.model import Kind
from tests.api.conftest import api, embedded_api  # noqa: F401 - fixtures, used by name
from tests.conftest import CEILING


class HeldBack:
    """The real model, holding back every batch of passages that holds `marker` until
    released (`""`: every batch): as on a fresh `serve` whose answering note is embedded last
    (the Hub's guides), or that has embedded nothing yet."""

    def __init__(self, model: Any, marker: str = "") -> None:
        self.model, self.marker, self.release = model, marker, threading.Event()

    @property
    def identity(self) -> Any:
        return self.model.identity

    def embed(self, texts: Sequence[str], kind: Kind) -> Any:
        if kind == "passage" and any(self.marker in text for text in texts):
            self.release.wait(CEILING)
        return self.model.embed(texts, kind)
