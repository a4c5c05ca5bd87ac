"""The answer-accuracy benchmark end to end, with litellm's mock_response for both models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import locomo_qa
from tests.llm.conftest import Script

ANSWERER = "openai/mock-answerer"
JUDGE = "openai/mock-judge"

DATA = [
    {
        "sample_id": "conv-mini",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat named Pixel."},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started pottery classes."},
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                {"speaker": "Ana", "dia_id": "D2:1", "text": "Pixel knocked my plant over."},
                {"speaker": "Ben", "dia_id": "D2:2", "text": "My first bowl came out crooked."},
            ],
        },
        "qa": [
            {
                "question": "What is the name of Ana's cat?",
                "answer": "Pixel",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "What hobby did Ben start?",
                "answer": "pottery",
                "evidence": ["D1:2"],
                "category": 1,
            },
            {
                "question": "When did Ben make a bowl?",
                "answer": "May 2023",
                "evidence": ["D2:2"],
                "category": 2,
            },
            {
                "question": "Ignored adversarial",
                "adversarial_answer": "x",
                "evidence": ["D1:1"],
                "category": 5,
            },
        ],
    }
]


def test_the_benchmark_answers_and_grades_per_category(
    tmp_path: Path, script: Script, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "mini.json"
    data.write_text(json.dumps(DATA))

    def reply(kwargs: dict[str, Any]) -> Any:
        if kwargs["model"] == JUDGE:
            prompt = kwargs["messages"][0]["content"]
            return (
                '{"correct": false}' if "Gold answer: May 2023" in prompt else '{"correct": true}'
            )
        return "From memory: the answer. @conversations/conv-mini/session_01.md"

    script.default = reply
    code = locomo_qa.main(
        ["--model", ANSWERER, "--judge", JUDGE, "--data", str(data), "--json", "--timeout", "1"]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 3
    per = result["per_category"]
    assert per["single-hop"] == {"questions": 1, "accuracy": 100.0}
    assert per["multi-hop"] == {"questions": 1, "accuracy": 100.0}
    assert per["temporal"] == {"questions": 1, "accuracy": 0.0}
    assert result["accuracy"] == pytest.approx(66.7)
    assert result["errors"] == []
    judged = [c for c in script.calls if c["model"] == JUDGE]
    assert len(judged) == 3
    assert sum(result["tiers"].values()) == 3


def test_the_limit_and_the_table(
    tmp_path: Path, script: Script, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "mini.json"
    data.write_text(json.dumps(DATA))
    script.default = lambda kwargs: "CORRECT" if kwargs["model"] == JUDGE else "Pixel"
    code = locomo_qa.main(
        ["--model", ANSWERER, "--judge", JUDGE, "--data", str(data), "--limit", "1"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "LoCoMo answer accuracy, 1 questions" in out and "100.0" in out
