"""The LLM adapter: one place that talks to litellm, with a timeout, a budget and retries.

litellm is large and, at import, would fetch a model price list from the network; it is imported
only when a call is made, with `LITELLM_LOCAL_MODEL_COST_MAP=True` so it reads its bundled copy
(DESIGN section 8). Every task (one curation, one answer) gets a `Budget`: no request may run
past it, so a slow provider cannot hold an HTTP request or a CLI command for ever.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.llm import fake

log = logging.getLogger(__name__)

Message = dict[str, Any]


class LLMError(RuntimeError):
    """The model could not be used; the message says why and what to check."""


class LLMTimeoutError(LLMError):
    """A request, or the whole task, ran out of time."""


@dataclass(frozen=True)
class LLMConfig:
    """The `llm_*` settings. `extra` is passed to every litellm call (api_base, keys...)."""

    model: str
    timeout_seconds: float = 60.0
    budget_seconds: float = 300.0
    retries: int = 2
    backoff_seconds: float = 1.0
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for."""

    id: str
    name: str
    arguments: str

    def args(self) -> dict[str, Any]:
        """The arguments as a dict ({} when the model sent something that is not an object)."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Completion:
    """The model's reply: text and/or tool calls, plus the message to append to the history."""

    content: str
    tool_calls: tuple[ToolCall, ...] = ()

    def as_message(self) -> Message:
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        return message


class Budget:
    """The time one task may spend on model calls."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._deadline = clock() + seconds

    def remaining(self) -> float:
        return max(0.0, self._deadline - self._clock())


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    module: Any = litellm
    # litellm prints "Give Feedback / Get Help" banners to stdout on errors, which broke
    # `--json` output; errors reach the user through `LLMError` instead.
    module.suppress_debug_info = True
    module.set_verbose = False
    return module


def _transient(litellm: Any) -> tuple[type[BaseException], ...]:
    names = (
        "Timeout",
        "RateLimitError",
        "APIConnectionError",
        "InternalServerError",
        "ServiceUnavailableError",
    )
    return tuple(getattr(litellm, n) for n in names if isinstance(getattr(litellm, n, None), type))


def _completion(response: Any) -> Completion:
    message = response.choices[0].message
    calls = []
    for call in getattr(message, "tool_calls", None) or ():
        function = call.function
        calls.append(ToolCall(str(call.id), str(function.name), str(function.arguments or "{}")))
    return Completion(str(message.content or ""), tuple(calls))


class LLMClient:
    """Chat completions through litellm with per-request timeout, task budget and retries."""

    def __init__(self, config: LLMConfig, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.sleep = sleep  # the back-off pause; tests replace it to run fast

    @property
    def model(self) -> str:
        return self.config.model

    def warm(self) -> None:
        """Import litellm now (about a second), so the first request does not pay for it."""
        _litellm()

    def budget(self) -> Budget:
        """A fresh budget of `llm_budget_seconds` for one task."""
        return Budget(self.config.budget_seconds)

    def complete(
        self,
        messages: Sequence[Message],
        budget: Budget,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Completion:
        """One completion; transient failures are retried while the budget allows.

        Raises `LLMTimeoutError` when time runs out and `LLMError` for anything else.
        """
        litellm = _litellm()
        transient = _transient(litellm)
        attempts = self.config.retries + 1
        last: BaseException | None = None
        for attempt in range(attempts):
            remaining = budget.remaining()
            if remaining <= 0:
                break
            timeout = min(self.config.timeout_seconds, remaining)
            kwargs: dict[str, Any] = {
                "model": self.config.model,
                "messages": list(messages),
                "timeout": timeout,
                "drop_params": True,
                # Our retries only: the SDK's own multiplied the timeout (a query against a
                # server that never answered took 6 min 11 s on a 300 s budget).
                "num_retries": 0,
                "max_retries": 0,
                **self.config.extra,
            }
            if self.config.model == fake.FAKE_MODEL:
                kwargs["model"] = fake.LITELLM_MODEL
                kwargs["mock_response"] = fake.reply(messages)
            if tools:
                kwargs["tools"] = list(tools)
            try:
                call = functools.partial(litellm.completion, **kwargs)
                # The request's own timeout is the SDK's; the task's deadline is ours.
                return _completion(_within(call, remaining))
            except _DeadlineError as exc:  # the task's time is up: no retry can fit
                last = exc
                break
            except transient as exc:
                last = exc
                log.warning("LLM call failed (attempt %d/%d): %s", attempt + 1, attempts, exc)
                pause = min(self.config.backoff_seconds * 2**attempt, budget.remaining())
                if attempt + 1 < attempts and pause > 0:
                    self.sleep(pause)
            except Exception as exc:
                raise LLMError(f"the model {self.config.model} failed: {_short(exc)}") from exc
        if last is None or isinstance(last, (_DeadlineError, *_timeouts(litellm))):
            raise LLMTimeoutError(
                f"the model {self.config.model} did not answer in time (llm_timeout_seconds "
                f"{self.config.timeout_seconds:g}, llm_budget_seconds "
                f"{self.config.budget_seconds:g})"
            ) from last
        raise LLMError(
            f"the model {self.config.model} failed {attempts} times: {_short(last)}"
        ) from last


def _within(call: Callable[[], Any], seconds: float) -> Any:
    """`call()`, but never waiting past `seconds` of wall-clock time.

    Trigger: a provider that accepts the connection and never answers; httpx's timeouts are per
    read, and SDK layers add their own waits. Outcome: the call runs on a daemon thread and is
    abandoned at the deadline (it ends on its own timeout), so a task stays within its budget.
    """
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # re-raised in the caller's thread
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, daemon=True, name="llm-call").start()
    if not done.wait(max(seconds, 0.0) + _GRACE_SECONDS):
        raise _DeadlineError("no answer before the deadline")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


_GRACE_SECONDS = 0.25


class _DeadlineError(Exception):
    """The wall-clock deadline of one call passed (treated like litellm's Timeout)."""


def _timeouts(litellm: Any) -> tuple[type[BaseException], ...]:
    timeout = getattr(litellm, "Timeout", None)
    return (timeout,) if isinstance(timeout, type) else ()


def _short(exc: BaseException) -> str:
    text = str(exc).strip().split("\n")[0]
    return text[:300] or type(exc).__name__
