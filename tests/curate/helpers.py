"""Helpers shared by the curation tests."""

from __future__ import annotations

from typing import Any

from bridge.core.operations import parse_operations
from bridge.curate.results import BatchResult
from bridge.runtime import Bridge


def run(bridge: Bridge, *ops: dict[str, Any], author: str = "tester") -> BatchResult:
    """Apply operations given as JSON-like dicts."""
    return bridge.executor.apply(parse_operations(list(ops)), author)


def add_op(path: str, **fields: Any) -> dict[str, Any]:
    return {"type": "ADD", "path": path, "title": fields.pop("title", "New entry"), **fields}
