"""Full collections on a schedule: none started by allocation, cycles still freed."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import pytest

from bridge.collector import ScheduledCollections


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector can free it


def _full_collections_on(thread: int, seen: list[int]) -> Any:
    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2 and threading.get_ident() == thread:
            seen.append(info["collected"])

    return callback


def test_allocation_starts_no_full_collection_while_scheduled() -> None:
    """Long-lived objects piling up (an answer cache filling) start full collections under
    CPython's defaults; under the schedule, none runs on the thread that allocates."""
    seen: list[int] = []
    callback = _full_collections_on(threading.get_ident(), seen)
    gc.callbacks.append(callback)
    kept: list[list[object]] = []
    try:
        with ScheduledCollections(every=3600):
            for _ in range(400):
                kept.append([[] for _ in range(1_000)])
        assert seen == []
        kept.clear()
        for _ in range(400):  # the same again with the process's own thresholds
            kept.append([[] for _ in range(1_000)])
        assert seen, "CPython's defaults should have started a full collection"
    finally:
        gc.callbacks.remove(callback)


def test_cycles_are_still_freed_by_the_schedule_and_thresholds_come_back() -> None:
    before = gc.get_threshold()
    freed = threading.Event()
    with ScheduledCollections(every=0.05) as collections:
        assert gc.get_threshold()[:2] == before[:2]
        assert gc.get_threshold()[2] > before[2]
        node = _Node()
        weakref.finalize(node, freed.set)
        gc.collect(1)  # into the oldest generation, where only a full collection looks
        gc.collect(1)
        del node
        assert freed.wait(timeout=30), "the scheduled collection never freed the cycle"
        assert collections.every == 0.05
    assert gc.get_threshold() == before


def test_a_period_must_be_positive() -> None:
    with pytest.raises(ValueError):
        ScheduledCollections(every=0)
