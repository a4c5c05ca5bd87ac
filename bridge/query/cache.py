"""Tier 0 and tier 1: an exact LRU cache and a fuzzy (Jaccard) match over it.

Entries are only valid for the index generation they were computed on, so a note edited after
a query is visible to the very next one: there is no stale window.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from bridge.core.text import jaccard
from bridge.core.tiers import Evidence
from bridge.query.models import QueryResult


@dataclass(frozen=True)
class CacheEntry:
    generation: int
    tokens: frozenset[str]
    result: QueryResult
    evidence: Evidence | None = None  # what the tier decision saw, for tier 1's check


class QueryCache:
    """A real LRU (a hit moves to the end) of at most `capacity` answers."""

    def __init__(self, capacity: int = 1024, fuzzy_threshold: float = 0.6) -> None:
        self.capacity = capacity
        self.fuzzy_threshold = fuzzy_threshold
        self._entries: OrderedDict[str, CacheEntry] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def options_prefix(options: tuple[object, ...]) -> str:
        """Answers are only shared between queries asked with the same options."""
        return hashlib.sha1(repr(options).encode()).hexdigest()[:12] + ":"

    @classmethod
    def key(cls, normalised_query: str, options: tuple[object, ...]) -> str:
        # Hashed so a 100 KB query does not keep 100 KB alive per entry.
        digest = hashlib.sha1(normalised_query.encode()).hexdigest()
        return cls.options_prefix(options) + digest

    def exact(self, key: str, generation: int) -> QueryResult | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.generation != generation:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return entry.result

    def fuzzy(
        self,
        tokens: frozenset[str],
        options_prefix: str,
        generation: int,
        compatible: Callable[[CacheEntry], bool] | None = None,
    ) -> QueryResult | None:
        """The most similar cached answer (Jaccard >= threshold, both sides >= 2 tokens).

        `compatible(entry)` may veto a candidate: the engine refuses one whose differing words
        could change what retrieval finds or how the answer is routed.
        """
        if len(tokens) < 2:
            return None
        best: tuple[float, str] | None = None
        with self._lock:
            for key, entry in self._entries.items():
                if entry.generation != generation or len(entry.tokens) < 2:
                    continue
                if not key.startswith(options_prefix):
                    continue
                score = jaccard(tokens, entry.tokens)
                if score < self.fuzzy_threshold or (best is not None and score <= best[0]):
                    continue
                if compatible is None or compatible(entry):
                    best = (score, key)
            if best is None:
                return None
            self._entries.move_to_end(best[1])
            return self._entries[best[1]].result

    def put(
        self,
        key: str,
        tokens: frozenset[str],
        generation: int,
        result: QueryResult,
        evidence: Evidence | None = None,
    ) -> None:
        with self._lock:
            self._entries[key] = CacheEntry(generation, tokens, result, evidence)
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
