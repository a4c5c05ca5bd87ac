"""What the LoCoMo benches share: the questions and their evidence turns, recall at each word
budget, and the product's bridge on a fresh vault holding the conversations.

`bench/locomo.py` (retrieval alone, and the baseline) and `bench/locomo_deployed.py` (the
product as it runs) both import it; neither imports the other's helpers.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.importer.service import import_transcripts
from bridge.importer.transcript import parse_transcripts
from bridge.runtime import Bridge, open_bridge
from bridge.settings import Settings

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
BUDGETS = (200, 500, 1000)
_ID = re.compile(r"D:?(\d+):0*(\d+)")


@dataclass(frozen=True)
class Question:
    conversation: str
    text: str
    category: int
    evidence: tuple[str, ...]


def _norm(text: str) -> str:
    return " ".join(text.split())


def clean_evidence(raw: Iterable[str], turns: dict[str, str]) -> tuple[str, ...]:
    """Split joined ids, repair `D:11:26` and `D30:05`, drop ids that name no turn."""
    ids: list[str] = []
    for item in raw:
        for match in _ID.finditer(str(item)):
            turn_id = f"D{int(match.group(1))}:{int(match.group(2))}"
            if turn_id in turns and turn_id not in ids:
                ids.append(turn_id)
    return tuple(ids)


def load(path: Path) -> tuple[list[dict[str, Any]], dict[tuple[str, str], str], list[Question]]:
    data = json.loads(path.read_text())
    transcripts = parse_transcripts(data)
    texts: dict[tuple[str, str], str] = {}
    for transcript in transcripts:
        for session in transcript.sessions:
            for turn in session.turns:
                texts[(transcript.name, turn.id)] = f"{turn.speaker}: {turn.text}"
    questions = []
    for item, transcript in zip(data, transcripts, strict=True):
        turns = {tid: t for (name, tid), t in texts.items() if name == transcript.name}
        for qa in item.get("qa", []):
            category = int(qa.get("category", 0))
            if category not in CATEGORIES:
                continue
            evidence = clean_evidence(qa.get("evidence", []), turns)
            if evidence:
                questions.append(Question(transcript.name, str(qa["question"]), category, evidence))
    return data, texts, questions


def recall(q: Question, excerpts: str, texts: dict[tuple[str, str], str]) -> float:
    haystack = _norm(excerpts)
    found = 0
    for turn_id in q.evidence:
        # The excerpt shows "Speaker: text"; the turn's own words must all be there.
        if _norm(texts[(q.conversation, turn_id)]) in haystack:
            found += 1
    return found / len(q.evidence)


@dataclass(frozen=True)
class Setup:
    """Settings every bridge of a run gets (`--set KEY=VALUE`), and a folder whose vectors are
    kept between runs (`--vectors`): passages are keyed by their text, so a fresh vault of the
    same conversations embeds nothing the folder already holds."""

    overrides: tuple[tuple[str, str], ...] = ()
    vectors: Path | None = None


@contextmanager
def imported(data: object, setup: Setup = Setup()) -> Iterator[Bridge]:
    """The product's default bridge on a fresh temporary vault holding every conversation of
    `data` (imported as `vault-bridge import` does), indexed and embedded (the dense channel
    is on by default); closed and removed after."""
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        state = Path(tmp) / "state"
        if setup.vectors is not None:
            setup.vectors.mkdir(parents=True, exist_ok=True)
            state.mkdir()
            (state / "semantic").symlink_to(setup.vectors.resolve(), target_is_directory=True)
        overrides: dict[str, Any] = dict(setup.overrides)
        bridge = open_bridge(Settings(vault=vault, state_dir=state, **overrides))
        try:
            import_transcripts(bridge.store, data)
            bridge.sync()
            bridge.prepare_semantic(embed=True)
            yield bridge
        finally:
            bridge.close()


def summarise(scores: dict[int, list[tuple[int, float]]]) -> dict[str, Any]:
    """Recall at each budget, overall and per category, in %."""
    overall = {str(b): round(100 * statistics.fmean(r for _, r in scores[b]), 1) for b in BUDGETS}
    per: dict[str, dict[str, float]] = {}
    for category, name in CATEGORIES.items():
        per[name] = {
            str(b): round(
                100 * statistics.fmean([r for c, r in scores[b] if c == category] or [0]), 1
            )
            for b in BUDGETS
        }
    return {"recall_at_words": overall, "per_category": per}
