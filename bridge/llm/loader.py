"""litellm, imported once on a background thread, so a caller waits for it only within a deadline.

Importing litellm takes seconds, tens of them on a busy machine; paid inside the first request,
outside any budget, it would make the budget meaningless. `serve` starts the import at
start-up; the CLI starts it at its first LLM call; either way the caller waits for it with
what is left of its time budget. `LITELLM_LOCAL_MODEL_COST_MAP=True` keeps the import off the
network (DESIGN section 8).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any


def import_litellm() -> Any:
    """Import litellm (offline price list, no banners on stdout) and return the module."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    module: Any = litellm
    # litellm prints "Give Feedback / Get Help" and "Provider List" banners to stdout on errors,
    # which broke `--json` output; errors reach the user through `LLMError` instead.
    module.suppress_debug_info = True
    module.set_verbose = False
    return module


class LitellmLoader:
    """Runs `importer` once, on a daemon thread; `wait` returns the module or gives up in time."""

    def __init__(self, importer: Callable[[], Any] = import_litellm) -> None:
        self._importer = importer
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._started = False
        self._module: Any = None
        self._error: BaseException | None = None

    def start(self) -> None:
        """Begin the import in the background (once); returns at once."""
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, daemon=True, name="litellm-import").start()

    def _run(self) -> None:
        try:
            self._module = self._importer()
        except BaseException as exc:  # re-raised to every caller of `wait`
            self._error = exc
        finally:
            self._done.set()

    def wait(self, seconds: float | None) -> Any | None:
        """The module, or None when it is not loaded within `seconds` (None: no limit).

        Raises what the import raised (litellm missing or broken), so the caller can say so.
        """
        self.start()
        if not self._done.wait(None if seconds is None else max(seconds, 0.0)):
            return None
        if self._error is not None:
            raise self._error
        return self._module


LITELLM = LitellmLoader()
"""The process's one litellm import, shared by every `LLMClient`."""


def litellm_now() -> Any:
    """litellm, waiting as long as the import takes (for callers outside any time budget)."""
    return LITELLM.wait(None)


def unknown_model(litellm: Any, model: str, api_base: str | None) -> str | None:
    """Why litellm cannot route `model` to a provider, or None when it can.

    Trigger: a model name without a provider litellm knows (`llama3` for `ollama/llama3`, a typo).
    Why: litellm refuses it only inside `completion`, after the import, and each tier or round
    asked again. Outcome: one check, a clear message, no request and no retry.
    """
    try:
        litellm.get_llm_provider(model=model, api_base=api_base)
    except Exception as exc:
        first = str(exc).strip().split("\n")[0].removeprefix("litellm.BadRequestError: ")
        return (
            f"litellm does not know the model `{model}` ({first[:200]}); name it as "
            "provider/model, for example ollama/llama3.1 or openai/gpt-4o-mini "
            "(llm_model; providers: https://docs.litellm.ai/docs/providers)"
        )
    return None
