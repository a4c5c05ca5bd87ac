"""Every embedded passage's vector in one array, searched by brute force.

Brute force while it is fast: a question against 30,000 passages is one float32
matrix-vector product of about 5 ms (docs/benchmarks.md, "Semantic channel"); an ANN index
would add a dependency and approximate answers for nothing at this size. Vectors are kept as
float32 in memory (the vector file holds float16): numpy casts float16 a slab at a time about
ten times slower than it multiplies float32 (47 against 5 ms at 30,000 vectors).

One writer (the embedding worker) and concurrent readers: a reader takes the arrays and the
row count under the lock and scores outside it; the writer appends past that count, marks a
note's old rows dead in place (a reader may or may not see it: harmless), and makes new
arrays when it grows or compacts, so a reader's arrays never change under it.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from bridge.semantic.model import Vectors

DTYPE = np.float32
_DEAD = -1


class DenseHit(NamedTuple):
    """A passage's cosine similarity to the question: note id and block span."""

    nid: int
    first: int
    last: int
    score: float


class PassageMatrix:
    """Passage vectors of every embedded note, by note id."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._lock = threading.Lock()
        self._vecs = np.zeros((0, dim), dtype=DTYPE)
        self._nid = np.zeros(0, dtype=np.int64)
        self._span = np.zeros((0, 2), dtype=np.int32)
        self._n = 0
        self._rows: dict[int, list[int]] = {}
        self._dead = 0

    def __len__(self) -> int:
        return self._n - self._dead

    def notes(self) -> int:
        """How many notes have vectors."""
        return len(self._rows)

    def has(self, nid: int) -> bool:
        return nid in self._rows

    def put(self, nid: int, spans: Sequence[tuple[int, int]], vectors: Vectors) -> None:
        """Replace note `nid`'s passages (`spans[i]` has `vectors[i]`)."""
        with self._lock:
            self._drop(nid)
            if not spans:
                return
            if self.dim == 0:  # a remote model's dimension is learned from its first vectors
                self.dim = int(np.asarray(vectors).shape[1])
                self._vecs = np.zeros((0, self.dim), dtype=DTYPE)
            count = len(spans)
            self._reserve(self._n + count)
            rows = list(range(self._n, self._n + count))
            self._vecs[self._n : self._n + count] = np.asarray(vectors, dtype=DTYPE)
            self._span[self._n : self._n + count] = np.asarray(spans, dtype=np.int32)
            self._nid[self._n : self._n + count] = nid  # last: a reader sees whole rows
            self._n += count
            self._rows[nid] = rows

    def drop(self, nid: int) -> None:
        """Forget note `nid`'s passages."""
        with self._lock:
            self._drop(nid)
            if self._dead > 1024 and self._dead * 4 > self._n:
                self._compact()

    def _drop(self, nid: int) -> None:
        rows = self._rows.pop(nid, None)
        if rows:
            self._nid[rows] = _DEAD
            self._dead += len(rows)

    def _reserve(self, size: int) -> None:
        if size <= len(self._nid):
            return
        capacity = max(size, 1024, len(self._nid) * 2)
        vecs = np.zeros((capacity, self.dim), dtype=DTYPE)
        nid = np.full(capacity, _DEAD, dtype=np.int64)
        span = np.zeros((capacity, 2), dtype=np.int32)
        vecs[: self._n] = self._vecs[: self._n]
        nid[: self._n] = self._nid[: self._n]
        span[: self._n] = self._span[: self._n]
        self._vecs, self._nid, self._span = vecs, nid, span

    def _compact(self) -> None:
        live = np.flatnonzero(self._nid[: self._n] != _DEAD)
        self._vecs = self._vecs[live].copy()
        self._nid = self._nid[live].copy()
        self._span = self._span[live].copy()
        self._n = len(live)
        self._dead = 0
        self._rows = {}
        for row, nid in enumerate(self._nid.tolist()):
            self._rows.setdefault(nid, []).append(row)

    def vectors_of(self, nid: int) -> Vectors:
        """Note `nid`'s passage vectors (float32 rows; none when it has no vectors)."""
        with self._lock:
            rows = list(self._rows.get(nid, ()))
            return np.asarray(self._vecs[rows], dtype=np.float32)

    def search(
        self, query: Vectors, limit: int, notes: Collection[int] | None = None
    ) -> list[DenseHit]:
        """The `limit` passages most similar to `query` (a unit vector), best first.

        `notes` limits the search to those note ids (a scoped query).
        """
        with self._lock:
            vecs, nid, span, n = self._vecs, self._nid, self._span, self._n
        if n == 0 or limit <= 0:
            return []
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        scores = vecs[:n] @ q
        owners = nid[:n]
        valid = owners != _DEAD
        if notes is not None:
            valid &= np.isin(owners, np.fromiter(notes, dtype=np.int64, count=len(notes)))
        scores[~valid] = -np.inf
        wanted = min(limit, int(valid.sum()))
        if wanted == 0:
            return []
        top = _top(scores, wanted)
        return [
            DenseHit(int(owners[i]), int(span[i, 0]), int(span[i, 1]), float(scores[i]))
            for i in top
        ]


def _top(scores: npt.NDArray[np.float32], k: int) -> npt.NDArray[np.intp]:
    """Indices of the `k` highest scores, best first (equal scores: lower index first)."""
    part = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    order = np.lexsort((part, -scores[part]))
    return part[order]
