"""Query tiers 3 and 4 over an LLM: the engine's `Answerer` seam (DESIGN section 5).

Tier 3 is one completion over the excerpts the engine already packed. Tier 4 is a bounded tool
loop: at most `max_rounds` model calls inside the task budget, and the last one is made without
tools so the model has to answer with what it has. A model that cannot use tools gets a tier 3
answer instead of an error. Both count their budget from `started`, when the request arrived.
"""

from __future__ import annotations

from collections.abc import Sequence

from bridge.llm.client import (
    Budget,
    LLMClient,
    LLMError,
    LLMModelError,
    LLMTimeoutError,
    Message,
)
from bridge.llm.prompts import answer_messages
from bridge.llm.tools import TOOL_SPECS, MemoryTools
from bridge.query.models import Source

FINAL_NUDGE = "Answer the question now with what you have; no more tool calls."
NO_ANSWER = "The model gave no answer."


class LLMAnswerer:
    """Implements `bridge.query.engine.Answerer` with an `LLMClient` and the memory tools."""

    def __init__(
        self,
        client: LLMClient,
        tools: MemoryTools,
        max_rounds: int = 8,
        budget_seconds: float | None = None,
    ) -> None:
        if max_rounds < 1:
            raise ValueError("the agentic loop needs at least one round")
        self.client = client
        self.tools = tools
        self.max_rounds = max_rounds
        # `llm_query_budget_seconds`: what a person waits for an answer (None: the client's).
        self.budget_seconds = budget_seconds

    def one_call(self, query: str, sources: Sequence[Source], started: float | None = None) -> str:
        """Tier 3: one completion over the prefetched excerpts, citing them as @path.md.

        `started` is the client-clock time the request arrived (None: now).
        """
        return self._one_call(query, sources, self.client.budget(started, self.budget_seconds))

    def _one_call(self, query: str, sources: Sequence[Source], budget: Budget) -> str:
        reply = self.client.complete(answer_messages(query, sources, False), budget)
        return reply.content.strip() or NO_ANSWER

    def agentic(self, query: str, sources: Sequence[Source], started: float | None = None) -> str:
        """Tier 4: the bounded tool loop. Raises `LLMError` only if no answer could be had."""
        budget = self.client.budget(started, self.budget_seconds)
        messages: list[Message] = answer_messages(query, sources, True)
        for round_number in range(1, self.max_rounds + 1):
            last = round_number == self.max_rounds or self._nearly_out(budget)
            if last:
                messages.append({"role": "user", "content": FINAL_NUDGE})
            try:
                reply = self.client.complete(messages, budget, None if last else TOOL_SPECS)
            except (LLMTimeoutError, LLMModelError):
                raise
            except LLMError:
                if round_number == 1:
                    # Trigger: the provider refused the tools parameter (no function calling).
                    # Why: a weaker answer beats an error. Outcome: tier 3 over the excerpts,
                    # inside what is left of the same budget.
                    return self._one_call(query, sources, budget)
                raise
            if last or not reply.tool_calls:
                return reply.content.strip() or NO_ANSWER
            messages.append(reply.as_message())
            for call in reply.tool_calls:
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": call.id,
                        "name": call.name,
                        "content": self.tools.call(call),
                    }
                )
        return NO_ANSWER  # pragma: no cover - the last round always returns

    def _nearly_out(self, budget: Budget) -> bool:
        """Less time left than one request may take: make this call the final one."""
        return budget.remaining() < min(self.client.config.timeout_seconds, budget.seconds / 4)
