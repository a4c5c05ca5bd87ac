"""Every embedded passage's vector in one array, searched by brute force.

Brute force while it is fast. Vectors are held as int8, each row with its own scale (the
row's largest component maps to 127): a quarter of float32's memory, and faster, since a
search is bound by memory reads: a slab of rows at a time is cast to float32 while it is in
cache and multiplied by the question. The slab's float32 buffer is what must stay in cache
(`_SLAB_BYTES`): in a larger one the cast rows leave the cache before the product reads them.
The int8 rounding moves a cosine far less than the ranking tells apart.

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

_DEAD = -1
_SLAB_BYTES = 1536 * 1024  # one slab's float32 buffer: cast and multiplied while in cache
_GROWTH = 1.5  # a larger capacity when full: amortised appends, modest spare room


class DenseHit(NamedTuple):
    """A passage's cosine similarity to the question: note id and block span."""

    nid: int
    first: int
    last: int
    score: float


def quantize(vectors: Vectors) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32]]:
    """Rows as int8 and the factor that brings each back (`row * factor` ~ the vector)."""
    rows = np.asarray(vectors, dtype=np.float32)
    peak = np.abs(rows).max(axis=1) if rows.size else np.zeros(len(rows), np.float32)
    peak = np.where(peak > 0, peak, 1.0).astype(np.float32)
    codes = np.rint(rows * (127.0 / peak)[:, None]).astype(np.int8)
    return codes, (peak / 127.0).astype(np.float32)


class PassageMatrix:
    """Passage vectors of every embedded note, by note id."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._lock = threading.Lock()
        self._local = threading.local()  # each searching thread's slab buffer
        self._codes = np.zeros((0, dim), dtype=np.int8)
        self._factor = np.zeros(0, dtype=np.float32)
        self._nid = np.zeros(0, dtype=np.int64)
        self._span = np.zeros((0, 2), dtype=np.int32)
        self._n = 0
        # A note's rows are always contiguous (appended together, kept in order by a
        # compaction), so a note is two numbers: its first row and the row past its last,
        # in arrays indexed by note id (the catalog's ids count up from 1): two ints a note,
        # where a dict of `range`s holds two objects and their ints.
        self._first = np.zeros(0, dtype=np.int32)
        self._stop = np.zeros(0, dtype=np.int32)  # == `_first`: no rows
        self._notes = 0
        self._dead = 0

    def __len__(self) -> int:
        return self._n - self._dead

    def notes(self) -> int:
        """How many notes have vectors."""
        return self._notes

    def has(self, nid: int) -> bool:
        with self._lock:
            first, stop = self._rows_of(nid)
        return stop > first

    def _rows_of(self, nid: int) -> tuple[int, int]:
        """Note `nid`'s rows as `(first, stop)`; `(0, 0)` when it has none."""
        if 0 <= nid < len(self._first):
            return int(self._first[nid]), int(self._stop[nid])
        return 0, 0

    def put(self, nid: int, spans: Sequence[tuple[int, int]], vectors: Vectors) -> None:
        """Replace note `nid`'s passages (`spans[i]` has `vectors[i]`)."""
        if nid < 0:
            raise ValueError(f"a note id is never negative, got {nid}")
        with self._lock:
            self._drop(nid)
            if not spans:
                return
            if self.dim == 0:  # a remote model's dimension is learned from its first vectors
                self.dim = int(np.asarray(vectors).shape[1])
                self._codes = np.zeros((0, self.dim), dtype=np.int8)
            count = len(spans)
            self._reserve(self._n + count)
            end = self._n + count
            codes, factor = quantize(vectors)
            self._codes[self._n : end] = codes
            self._factor[self._n : end] = factor
            self._span[self._n : end] = np.asarray(spans, dtype=np.int32)
            self._nid[self._n : end] = nid  # last: a reader sees whole rows
            if nid >= len(self._first):
                size = max(nid + 1, 1024, int(len(self._first) * _GROWTH))
                self._first = _grown(self._first, size)
                self._stop = _grown(self._stop, size)
            self._first[nid], self._stop[nid] = self._n, end
            self._notes += 1
            self._n = end

    def drop(self, nid: int) -> None:
        """Forget note `nid`'s passages."""
        with self._lock:
            self._drop(nid)
            if self._dead > 1024 and self._dead * 4 > self._n:
                self._compact()

    def _drop(self, nid: int) -> None:
        first, stop = self._rows_of(nid)
        if stop > first:
            self._nid[first:stop] = _DEAD
            self._dead += stop - first
            self._first[nid] = self._stop[nid] = 0
            self._notes -= 1

    def _reserve(self, size: int) -> None:
        if size <= len(self._nid):
            return
        capacity = max(size, 1024, int(len(self._nid) * _GROWTH))
        codes = np.zeros((capacity, self.dim), dtype=np.int8)
        factor = np.zeros(capacity, dtype=np.float32)
        nid = np.full(capacity, _DEAD, dtype=np.int64)
        span = np.zeros((capacity, 2), dtype=np.int32)
        n = self._n
        codes[:n], factor[:n], nid[:n], span[:n] = (
            self._codes[:n],
            self._factor[:n],
            self._nid[:n],
            self._span[:n],
        )
        self._codes, self._factor, self._nid, self._span = codes, factor, nid, span

    def _compact(self) -> None:
        live = np.flatnonzero(self._nid[: self._n] != _DEAD)
        self._codes = self._codes[live].copy()
        self._factor = self._factor[live].copy()
        self._nid = self._nid[live].copy()
        self._span = self._span[live].copy()
        self._n = len(live)
        self._dead = 0
        owners = self._nid[: self._n]
        starts = np.flatnonzero(np.diff(owners, prepend=_DEAD))  # where a new note starts
        self._first[:] = 0
        self._stop[:] = 0
        self._first[owners[starts]] = starts
        self._stop[owners[starts]] = np.append(starts[1:], self._n)

    def vectors_of(self, nid: int) -> Vectors:
        """Note `nid`'s passage vectors (float32 rows; none when it has no vectors)."""
        with self._lock:
            part = slice(*self._rows_of(nid))
            return self._codes[part].astype(np.float32) * self._factor[part, None]

    def vectors_of_many(self, nids: Sequence[int]) -> tuple[Vectors, list[int], list[int]]:
        """The passage vectors of several notes in one array (float32 rows), the notes that have
        any (in the order asked) and where each one's rows start: one copy for the lot, not a
        lock and a cast per note."""
        with self._lock:
            parts = [(nid, *self._rows_of(nid)) for nid in nids]
            parts = [(nid, a, b) for nid, a, b in parts if b > a]
            if not parts:
                return np.zeros((0, self.dim), dtype=np.float32), [], []
            index = np.concatenate([np.arange(a, b) for _, a, b in parts])
            rows = self._codes[index].astype(np.float32) * self._factor[index, None]
        starts = np.cumsum([0] + [b - a for _, a, b in parts[:-1]]).tolist()
        return rows, [nid for nid, _, _ in parts], starts

    def passages_of(self, nid: int) -> tuple[list[tuple[int, int]], Vectors]:
        """Note `nid`'s passages' block spans and their vectors (float32 rows, in the same
        order), read under one lock: the embedding thread may replace a note's passages
        between two reads."""
        with self._lock:
            first, stop = self._rows_of(nid)
            spans = [(int(a), int(b)) for a, b in self._span[first:stop]]
            part = slice(first, stop)
            return spans, self._codes[part].astype(np.float32) * self._factor[part, None]

    def search(
        self, query: Vectors, limit: int, notes: Collection[int] | None = None
    ) -> list[DenseHit]:
        """The `limit` passages most similar to `query` (a unit vector), best first.

        `notes` limits the search to those note ids (a scoped query).
        """
        with self._lock:
            codes, factor, nid, span, n = (
                self._codes,
                self._factor,
                self._nid,
                self._span,
                self._n,
            )
        if n == 0 or limit <= 0:
            return []
        scores = self._scores(codes, n, np.asarray(query, dtype=np.float32).reshape(-1))
        scores *= factor[:n]
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

    def _scores(
        self, codes: npt.NDArray[np.int8], n: int, q: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """`codes[:n] @ q`, a slab at a time through this thread's float32 buffer.

        The buffer is kept: a fresh slab per step costs more than the product (in `serve`'s
        process freed slabs go back to the system, and each new one page-faults).
        """
        buffer: npt.NDArray[np.float32] | None = getattr(self._local, "buffer", None)
        if buffer is None or buffer.shape[1] != codes.shape[1]:
            rows = max(64, _SLAB_BYTES // (4 * codes.shape[1]))  # n > 0: a known dimension
            buffer = self._local.buffer = np.empty((rows, codes.shape[1]), dtype=np.float32)
        step = len(buffer)
        scores = np.empty(n, dtype=np.float32)
        for start in range(0, n, step):
            end = min(start + step, n)
            slab = buffer[: end - start]
            np.copyto(slab, codes[start:end], casting="unsafe")
            np.matmul(slab, q, out=scores[start:end])
        return scores


def _grown(array: npt.NDArray[np.int32], size: int) -> npt.NDArray[np.int32]:
    """`array` in a new zeroed array of `size` (a new array: readers may hold the old one)."""
    out = np.zeros(size, dtype=array.dtype)
    out[: len(array)] = array
    return out


def _top(scores: npt.NDArray[np.float32], k: int) -> npt.NDArray[np.intp]:
    """Indices of the `k` highest scores, best first (equal scores: lower index first)."""
    part = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
    order = np.lexsort((part, -scores[part]))
    return part[order]
