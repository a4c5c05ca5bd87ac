"""Query tiers 3 and 4 over the mock model, through the engine and the memory tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bridge.llm.answerer import FINAL_NUDGE, LLMAnswerer
from bridge.llm.client import LLMError
from bridge.llm.loader import litellm_now
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings
from tests.llm.conftest import MODEL, TIMEOUT, Script, tool_call

QUESTION = "how do clients refresh their session tokens"


def answerer(bridge: Bridge) -> LLMAnswerer:
    found = bridge.engine.answerer
    assert isinstance(found, LLMAnswerer)
    return found


def test_tier_3_is_one_call_over_the_excerpts(llm_bridge: Bridge, script: Script) -> None:
    sources = llm_bridge.engine.search(QUESTION).sources
    script.add("They call the refresh endpoint early @engineering/auth/session_refresh.md")
    answer = answerer(llm_bridge).one_call(QUESTION, sources)
    assert answer.endswith("@engineering/auth/session_refresh.md")
    assert len(script.calls) == 1 and "tools" not in script.calls[0]
    user = script.calls[0]["messages"][1]["content"]
    assert "### @engineering/auth/session_refresh.md - Session refresh" in user
    assert QUESTION in user


def test_tier_4_uses_the_tools_and_answers(llm_bridge: Bridge, script: Script) -> None:
    script.add(
        tool_call("search", query="refresh token reuse"),
        tool_call("read_entry", path="@engineering/auth/session_refresh.md"),
        tool_call("follow_relations", path="engineering/auth/session_refresh"),
        tool_call("list_folder", folder="engineering/auth"),
        tool_call("read_entry", path="@nowhere/at/all.md"),
        "Refresh tokens are single-use @engineering/auth/session_refresh.md",
    )
    answer = answerer(llm_bridge).agentic(QUESTION, [])
    assert answer.startswith("Refresh tokens are single-use")
    assert len(script.calls) == 6 and all("tools" in call for call in script.calls)
    results = [m["content"] for m in script.calls[-1]["messages"] if m["role"] == "tool"]
    search, read, related, listing, missing = results
    assert "@engineering/auth/session_refresh.md" in search
    assert "# Session refresh" in read and "base_hash: " in read
    assert "@engineering/auth/oauth/google_sso.md" in related
    assert "oauth/" in listing.split("\n") and "@engineering/auth/jwt_expiry.md" in listing
    assert "no note at @nowhere/at/all.md" in missing


def test_tier_4_stops_after_eight_rounds_with_a_last_call_without_tools(
    llm_bridge: Bridge, script: Script
) -> None:
    def always_a_tool(kwargs: dict[str, Any]) -> Any:
        if "tools" in kwargs:
            return tool_call("search", call_id=f"c{len(script.calls)}", query="tokens")
        return "final answer"

    script.default = always_a_tool
    answer = answerer(llm_bridge).agentic(QUESTION, [])
    assert answer == "final answer"
    assert len(script.calls) == 8
    assert all("tools" in call for call in script.calls[:7]) and "tools" not in script.calls[7]
    assert script.calls[7]["messages"][-1]["content"] == FINAL_NUDGE


def test_a_model_without_function_calling_gets_a_tier_3_answer(
    llm_bridge: Bridge, script: Script
) -> None:
    litellm = litellm_now()
    refused = litellm.BadRequestError(
        message="tools are not supported", model=MODEL, llm_provider="openai"
    )
    script.add({"mock_response": refused}, "plain answer")
    assert answerer(llm_bridge).agentic(QUESTION, []) == "plain answer"
    assert "tools" in script.calls[0] and "tools" not in script.calls[1]


def test_a_timeout_in_the_answer_is_an_llm_error(llm_bridge: Bridge, script: Script) -> None:
    script.add(TIMEOUT, TIMEOUT)
    with pytest.raises(LLMError, match="did not answer in time"):
        answerer(llm_bridge).one_call(QUESTION, [])


@pytest.mark.parametrize(("one_call_min", "tier"), [(0.0, 3), (1.0, 4)])
def test_the_engine_routes_to_the_llm_answerer(
    template_vault: Path, tmp_path: Path, script: Script, one_call_min: float, tier: int
) -> None:
    settings = Settings(
        vault=template_vault,
        state_dir=tmp_path / "state",
        llm_model=MODEL,
        tier_direct_confidence=1.0,  # never answer directly: this test is about tiers 3 and 4
        tier_one_call_confidence=one_call_min,
        ood_confidence=0.0,
    )
    bridge = open_bridge(settings)
    try:
        bridge.sync()
        script.add("Clients refresh 5 minutes early @engineering/auth/session_refresh.md")
        result = bridge.engine.query(QUESTION)
        assert result.tier == tier
        assert result.answer is not None and result.answer.startswith("Clients refresh")
        assert result.sources  # the excerpts are returned with the answer
    finally:
        bridge.close()


def test_a_failing_model_degrades_to_excerpts_and_is_not_cached(
    template_vault: Path, tmp_path: Path, script: Script
) -> None:
    settings = Settings(
        vault=template_vault,
        state_dir=tmp_path / "state",
        llm_model=MODEL,
        tier_direct_confidence=1.0,
        tier_one_call_confidence=0.0,
        ood_confidence=0.0,
        llm_timeout_seconds=0.2,  # litellm's mock timeout sleeps this long per attempt
        llm_retries=1,
    )
    bridge = open_bridge(settings)
    try:
        bridge.sync()
        script.add(TIMEOUT, TIMEOUT, TIMEOUT, TIMEOUT)
        failed = bridge.engine.query(QUESTION)
        # The question needed tier 3 and says so, with the reason and the excerpts.
        assert failed.answer is None and failed.tier == 3
        assert failed.message is not None and failed.message.startswith("The LLM could not answer")
        assert failed.sources
        script.replies.clear()
        script.add("Clients refresh 5 minutes early")
        again = bridge.engine.query(QUESTION)
        assert again.tier == 3 and again.answer == "Clients refresh 5 minutes early"
        assert len(script.calls[-1]["messages"][-1]["content"].split()) > 100  # 1,500-word prefetch
    finally:
        bridge.close()
