"""Curation by the bridge's own LLM: content in, operations proposed, corrected, applied.

The model's operations go through the same executor and review policy as any agent's. Failed
operations (and replies that are not valid JSON) go back to the model with the reasons, for at
most `llm_correction_rounds` correction rounds after the first proposal; a model that never
produces usable JSON therefore stops with a clear failure and nothing written. Long content is
cut into parts at paragraph boundaries, each curated on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from bridge.core.operations import InvalidOperation, Operation, parse_operations
from bridge.curate.executor import CurationExecutor
from bridge.curate.results import BatchResult, OpResult
from bridge.llm.client import Budget, LLMClient, LLMError, Message
from bridge.llm.context import CurationContext
from bridge.llm.prompts import curation_prompt

_FENCE = "```"


@dataclass(frozen=True)
class CurationOutcome:
    """Every operation's final result, how many model rounds it took, and a failure if any."""

    batch: BatchResult
    rounds: int
    parts: int
    error: str | None = None
    # The model itself failed (no answer in time, unreachable, never valid JSON), as opposed to
    # operations it proposed that still failed: the task that ran it failed.
    model_failed: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            **self.batch.to_dict(),
            "rounds": self.rounds,
            "parts": self.parts,
            "error": self.error,
        }


def split_content(text: str, max_chars: int) -> list[str]:
    """Parts of at most `max_chars`, cut between paragraphs (inside one only when it must)."""
    text = text.strip()
    if len(text) <= max_chars:
        return [text] if text else []
    parts: list[str] = []
    current = ""
    for paragraph in text.split("\n\n"):
        while len(paragraph) > max_chars:
            cut = paragraph.rfind("\n", 0, max_chars)
            cut = cut if cut > max_chars // 2 else max_chars
            if current:
                parts.append(current)
                current = ""
            parts.append(paragraph[:cut].strip())
            paragraph = paragraph[cut:].strip()
        candidate = f"{current}\n\n{paragraph}" if current else paragraph
        if len(candidate) > max_chars:
            parts.append(current)
            current = paragraph
        else:
            current = candidate
    if current.strip():
        parts.append(current)
    return [p for p in parts if p.strip()]


def extract_operations(reply: str) -> list[Operation | InvalidOperation]:
    """The operations in a model's reply (JSON, possibly inside a code fence or after prose).

    Raises `ValueError` saying what is wrong when there is no JSON batch in it.
    """
    text = reply.strip()
    if _FENCE in text:
        inner = text.split(_FENCE, 2)
        if len(inner) >= 2:
            text = inner[1].removeprefix("json").strip()
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise ValueError('the reply holds no JSON; send {"operations": [...]}')
    try:
        data, _ = json.JSONDecoder().raw_decode(text[min(starts) :])
    except json.JSONDecodeError as exc:
        raise ValueError(f"the reply is not valid JSON ({exc.msg} at column {exc.colno})") from exc
    return parse_operations(data)


def _feedback(failed: list[OpResult]) -> str:
    lines = [
        "Some operations failed. The others are done; do not send them again.",
        'Send corrected operations for these only (or drop them), as {"operations": [...]}:',
    ]
    for result in failed:
        lines.append(f"- {result.type} `{result.path}`: {result.message}")
        if result.existing:
            lines.append(f"  The existing entry (base_hash {result.existing.get('base_hash')}):")
            lines.append("  " + str(result.existing.get("text", "")).replace("\n", "\n  "))
    return "\n".join(lines)


class LLMCurator:
    """Runs the propose-apply-correct loop for one vault."""

    def __init__(
        self,
        client: LLMClient,
        executor: CurationExecutor,
        context: Callable[[str], CurationContext],
        correction_rounds: int = 3,
        part_chars: int = 12_000,
    ) -> None:
        self.client = client
        self.executor = executor
        self.context = context
        self.correction_rounds = correction_rounds
        self.part_chars = part_chars

    def curate(self, content: str, author: str, started: float | None = None) -> CurationOutcome:
        """Curate `content` as `author`; never raises for model trouble (see `error`).

        The time budget counts from `started` (client-clock time the request arrived; None:
        now) and covers every part and correction round.
        """
        parts = split_content(content, self.part_chars)
        budget = self.client.budget(started)
        results: list[OpResult] = []
        rounds = 0
        errors: list[str] = []
        model_failed = False
        for number, part in enumerate(parts, 1):
            label = f"part {number} of {len(parts)}" if len(parts) > 1 else ""
            done, used, error, by_model = self._part(part, label, author, budget)
            results += done
            rounds += used
            model_failed = model_failed or by_model
            if error:
                errors.append(f"{label}: {error}" if label else error)
        numbered = tuple(
            OpResult(i, r.type, r.path, r.status, r.message, r.review_id, r.existing)
            for i, r in enumerate(results)
        )
        error = "; ".join(errors) or None
        return CurationOutcome(BatchResult(numbered), rounds, len(parts), error, model_failed)

    def _part(
        self, content: str, label: str, author: str, budget: Budget
    ) -> tuple[list[OpResult], int, str | None, bool]:
        """One part's results, model rounds, error, and whether the model itself failed."""
        try:
            prompt = curation_prompt(content, self.context(content), label)
        except Exception as exc:  # the index or a note could not be read: say so, write nothing
            return [], 0, f"could not build the curation context: {exc}", True
        messages: list[Message] = prompt.messages()
        kept: list[OpResult] = []
        failed: list[OpResult] = []
        problem = ""
        total = self.correction_rounds + 1
        for round_number in range(1, total + 1):
            try:
                reply = self.client.complete(messages, budget)
            except LLMError as exc:
                return kept + failed, round_number, str(exc), True
            messages.append(reply.as_message())
            try:
                operations = extract_operations(reply.content)
            except ValueError as exc:
                problem = str(exc)
                messages.append(
                    {"role": "user", "content": f"{problem}. Reply with only the JSON."}
                )
                continue
            batch = self.executor.apply(operations, author)
            kept += [r for r in batch.results if r.status != "failed"]
            failed = batch.failed
            problem = ""
            if not failed:
                return kept, round_number, None, False
            messages.append({"role": "user", "content": _feedback(failed)})
        corrections = total - 1
        if problem:
            written = "nothing was written" if not kept else "earlier operations stand"
            error = (
                f"the model gave no valid operations JSON after {corrections} correction rounds "
                f"({problem}); {written}"
            )
        else:
            error = f"{len(failed)} operations still failed after {corrections} correction rounds"
        return kept + failed, total, error, bool(problem)
