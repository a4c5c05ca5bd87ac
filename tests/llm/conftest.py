"""litellm driven by `mock_response`: a script of replies at the `litellm.completion` boundary.

Each call to `litellm.completion` takes the next scripted reply and runs the real litellm with it
as `mock_response` (or `mock_tool_calls`, `mock_timeout`), so our code sees genuine litellm
responses and exceptions, and nothing reaches the network.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bridge.llm.answerer import LLMAnswerer
from bridge.llm.loader import litellm_now
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings

MODEL = "openai/mock-model"


@dataclass
class Script:
    """Replies to hand out in order, and every call's keyword arguments."""

    replies: list[Any] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    default: Callable[[dict[str, Any]], Any] | None = None

    def add(self, *replies: Any) -> None:
        self.replies.extend(replies)


def tool_call(name: str, call_id: str = "call_1", **args: str) -> dict[str, Any]:
    """A scripted reply asking for one tool call."""
    import json

    function = {"name": name, "arguments": json.dumps(args)}
    return {
        "mock_response": "",
        "mock_tool_calls": [{"id": call_id, "type": "function", "function": function}],
    }


TIMEOUT = {"mock_timeout": True}


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Script:
    litellm = litellm_now()
    real = litellm.completion
    scripted = Script()

    def completion(**kwargs: Any) -> Any:
        scripted.calls.append(kwargs)
        if scripted.replies:
            reply = scripted.replies.pop(0)
        elif scripted.default is not None:
            reply = scripted.default(kwargs)
        else:
            raise AssertionError("the model was called more often than scripted")
        options = dict(reply) if isinstance(reply, dict) else {"mock_response": reply}
        return real(**{**kwargs, **options})

    monkeypatch.setattr(litellm, "completion", completion)
    return scripted


@pytest.fixture
def llm_bridge(template_vault: Path, tmp_path: Path) -> Iterator[Bridge]:
    """A synced bridge on the template vault with the mock model configured."""
    settings = Settings(
        vault=template_vault,
        state_dir=tmp_path / "state",
        llm_model=MODEL,
        llm_timeout_seconds=0.2,
        llm_budget_seconds=20,
        llm_retries=1,
    )
    bridge = open_bridge(settings)
    bridge.sync()

    def no_pause(_seconds: float) -> None:
        """Back-off pauses would only slow the tests down."""

    if bridge.curator is not None:
        bridge.curator.client.sleep = no_pause
    answerer = bridge.engine.answerer
    if isinstance(answerer, LLMAnswerer):
        answerer.client.sleep = no_pause
    yield bridge
    bridge.close()
