"""Tier 0 and tier 1: an exact LRU cache and a fuzzy (Jaccard) match over it.

Entries are only valid for what they were computed on (`Basis`: the index generation, and what
the dense channel could find then), so a note edited after a query is visible to the very next
one, and a question asked while the vault was still being embedded is answered again once it
is: there is no stale window.

Answers are kept as their JSON bytes, not as models: as models, a full cache is a great many
objects the garbage collector walks (each source and excerpt a model with its own dict and
field set), and `serve`'s scheduled full collection holds every request in flight while it
walks them. Bytes are one untracked object, cheap to keep and to rebuild an answer from.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import ValidationError

from bridge.core.tiers import Evidence
from bridge.query.models import QueryResult

Basis = tuple[int, int]
"""(index generation, dense channel version): an answer is reused only on the same basis."""


# Straight to UTF-8 bytes: `model_dump_json()` gives a str, which one wide character widens
# whole, and which is slower to read back.
_SERIALIZER = QueryResult.__pydantic_serializer__


@dataclass(frozen=True, slots=True)
class CacheEntry:
    basis: Basis
    tokens: frozenset[str]
    answer: bytes  # the QueryResult as JSON
    evidence: Evidence | None = None  # what the tier decision saw, for tier 1's check

    def result(self) -> QueryResult | None:
        """A fresh copy of the cached answer; None if its JSON cannot give it back.

        JSON has no NaN or infinity: pydantic writes such a score as `null`, which the
        model refuses. No ranking score should ever be one, but if one is, the question is
        answered afresh rather than failing on the cache.
        """
        try:
            return QueryResult.model_validate_json(self.answer)
        except ValidationError:
            return None


class QueryCache:
    """A real LRU (a hit moves to the end) of at most `capacity` answers."""

    def __init__(self, capacity: int = 1024, fuzzy_threshold: float = 0.6) -> None:
        self.capacity = capacity
        self.fuzzy_threshold = fuzzy_threshold
        self._entries: OrderedDict[str, CacheEntry] = OrderedDict()
        # Which cached queries hold each token: tier 1 looks only at queries sharing a word
        # (Jaccard >= 0.6 needs one), instead of computing Jaccard against all 1,024.
        self._holding: dict[str, set[str]] = defaultdict(set)
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

    def exact(self, key: str, basis: Basis) -> QueryResult | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.basis != basis:
                self._drop(key)
                return None
            return self._take(key)

    def fuzzy(
        self,
        tokens: frozenset[str],
        options_prefix: str,
        basis: Basis,
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
            shared: Counter[str] = Counter()
            for token in tokens:
                shared.update(self._holding.get(token, ()))
            # Jaccard is at most common / len(tokens) (a cached query made of shared tokens
            # only): those sharing fewer tokens cannot reach the threshold and are not sorted.
            # A common word (a speaker's name) is held by hundreds of cached queries.
            need = self.fuzzy_threshold * len(tokens)
            likely = sorted(
                ((key, common) for key, common in shared.items() if common >= need),
                key=lambda item: -item[1],
            )
            for key, common in likely:
                entry = self._entries[key]
                size = len(entry.tokens)
                if entry.basis != basis or size < 2:
                    continue
                if not key.startswith(options_prefix):
                    continue
                score = common / (len(tokens) + size - common)  # Jaccard
                if score < self.fuzzy_threshold or (best is not None and score <= best[0]):
                    continue
                if compatible is None or compatible(entry):
                    best = (score, key)
            if best is None:
                return None
            return self._take(best[1])

    def _take(self, key: str) -> QueryResult | None:
        """A hit (the caller holds the lock): the entry's answer rebuilt and the
        entry made the newest; one that cannot give its answer back is forgotten, so the
        question is answered and cached afresh."""
        result = self._entries[key].result()
        if result is None:
            self._drop(key)
        else:
            self._entries.move_to_end(key)
        return result

    def put(
        self,
        key: str,
        tokens: frozenset[str],
        basis: Basis,
        result: QueryResult,
        evidence: Evidence | None = None,
    ) -> None:
        entry = CacheEntry(basis, tokens, _SERIALIZER.to_json(result), evidence)
        with self._lock:
            if key in self._entries:
                self._drop(key)
            self._entries[key] = entry
            for token in tokens:
                self._holding[token].add(key)
            while len(self._entries) > self.capacity:
                self._drop(next(iter(self._entries)))

    def _drop(self, key: str) -> None:
        """Forget one entry and its tokens (the caller holds the lock)."""
        entry = self._entries.pop(key)
        for token in entry.tokens:
            holders = self._holding.get(token)
            if holders is not None:
                holders.discard(key)
                if not holders:
                    del self._holding[token]

    def __len__(self) -> int:
        return len(self._entries)
