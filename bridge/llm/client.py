"""The LLM adapter: one place that talks to litellm, with a timeout, a budget and retries.

litellm is large and, at import, would fetch a model price list from the network; `loader.py`
imports it off the request path, with `LITELLM_LOCAL_MODEL_COST_MAP=True` so it reads its
bundled copy (DESIGN section 8). Every task (one curation, one answer) gets a `Budget` that
counts from when the request arrived: waiting for the import, every attempt, back-off pause,
correction round and tool round come out of it, so a slow provider cannot hold an HTTP request
or a CLI command past its deadline.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.llm import fake
from bridge.llm.loader import LITELLM, LitellmLoader, unknown_model

log = logging.getLogger(__name__)

Message = dict[str, Any]


class LLMError(RuntimeError):
    """The model could not be used; the message says why and what to check."""


class LLMTimeoutError(LLMError):
    """A request, or the whole task, ran out of time."""


class LLMModelError(LLMError):
    """litellm cannot route the configured model: no retry, tier or round can help."""


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
    """The time one task may spend, as a deadline `seconds` after it started on `clock`."""

    def __init__(
        self,
        seconds: float,
        clock: Callable[[], float] = time.monotonic,
        started: float | None = None,
    ) -> None:
        self.seconds = seconds
        self._clock = clock
        self.deadline = (clock() if started is None else started) + seconds

    def remaining(self) -> float:
        return max(0.0, self.deadline - self._clock())


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
    """Chat completions through litellm with per-request timeout, task budget and retries.

    `clock` (monotonic seconds) and `sleep` (the back-off pause) are the client's sense of
    time; tests give both a fake clock, and `loader` a stand-in for litellm's import.
    """

    def __init__(
        self,
        config: LLMConfig,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        loader: LitellmLoader = LITELLM,
    ) -> None:
        self.config = config
        self.sleep = sleep
        self.clock = clock
        self.loader = loader
        self._model_problem: str | None = None
        self._model_checked = False

    @property
    def model(self) -> str:
        return self.config.model

    def warm(self) -> None:
        """Start importing litellm in the background, so the first request finds it loaded."""
        self.loader.start()

    def budget(self, started: float | None = None, seconds: float | None = None) -> Budget:
        """The budget of one task: `seconds` (default `llm_budget_seconds`) from `started`
        (`clock` time; None: now)."""
        return Budget(seconds or self.config.budget_seconds, self.clock, started)

    def _litellm(self, budget: Budget) -> Any:
        """litellm, once loaded within the budget, and only for a model it can route."""
        try:
            litellm = self.loader.wait(budget.remaining())
        except Exception as exc:  # not installed, or broken: no retry can help
            raise LLMModelError(f"litellm could not be imported: {_short(exc)}") from exc
        if litellm is None:
            raise LLMTimeoutError(
                f"the model {self.config.model} did not answer in time: litellm was still "
                "loading (the first call of a process imports it) when the time budget ran "
                f"out (llm_budget_seconds {self.config.budget_seconds:g})"
            )
        if not self._model_checked:
            fake_model = self.config.model == fake.FAKE_MODEL
            model = fake.LITELLM_MODEL if fake_model else self.config.model
            self._model_problem = unknown_model(litellm, model, self.config.extra.get("api_base"))
            self._model_checked = True
        if self._model_problem is not None:
            raise LLMModelError(self._model_problem)
        return litellm

    def complete(
        self,
        messages: Sequence[Message],
        budget: Budget,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Completion:
        """One completion; transient failures are retried while the budget allows.

        Raises `LLMTimeoutError` when time runs out (waiting for litellm's import included),
        `LLMModelError` when litellm cannot route the model, and `LLMError` for anything else.
        """
        litellm = self._litellm(budget)
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
                # Our retries only: the SDK's own would multiply the timeout against a server
                # that never answers, far past the budget.
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
        # The retries stopped because the deadline came, after a connection error say: a
        # timeout, which no caller retries ("failed 3 times" reads as "try again", and tier 4
        # would, on a fresh budget).
        if last is None or budget.remaining() <= 0:
            raise self._out_of_time(last, budget) from last
        if isinstance(last, (_DeadlineError, *_timeouts(litellm))):
            raise self._out_of_time(last, budget) from last
        raise LLMError(
            f"the model {self.config.model} failed {attempts} times: {_short(last)}"
        ) from last

    def _out_of_time(self, last: BaseException | None, budget: Budget) -> LLMTimeoutError:
        """The task's time ran out: which limits applied, and the last error if it says more."""
        said = "" if last is None or isinstance(last, _DeadlineError) else _short(last)
        return LLMTimeoutError(
            f"the model {self.config.model} did not answer in time (llm_timeout_seconds "
            f"{self.config.timeout_seconds:g}, a budget of {budget.seconds:g} s for this task"
            f"{'; last error: ' + said if said else ''})"
        )


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
