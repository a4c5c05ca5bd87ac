"""MCP without `serve` refuses what `serve` refuses: the same request, the same answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bridge.mcp.backend import BackendError, HttpBackend, LocalBackend, MemoryBackend
from bridge.runtime import Bridge
from tests.api.conftest import served

CASES: dict[str, Callable[[MemoryBackend], Any]] = {
    "an empty query": lambda b: b.query("", None, None),
    "an empty search": lambda b: b.search("", 10, None, None),
    "a search limit of 1000": lambda b: b.search("jwt expiry", 1000, None, None),
    "a 5 MB curate_prompt": lambda b: b.curate_prompt("word " * 1_000_000),
}


@pytest.mark.parametrize("case", CASES)
def test_direct_mode_refuses_what_serve_refuses(bridge: Bridge, case: str) -> None:
    with served(bridge) as api:
        through_serve = HttpBackend(api.url, api.token)
        try:
            with pytest.raises(BackendError):
                CASES[case](through_serve)
        finally:
            through_serve.close()
    with pytest.raises(BackendError):
        CASES[case](LocalBackend(bridge))


def test_direct_mode_still_answers_what_serve_answers(bridge: Bridge) -> None:
    local = LocalBackend(bridge)
    assert local.search("jwt expiry", 100, None, None)["sources"]
    assert local.query("How long do JWT access tokens live?", None, None)["sources"]
