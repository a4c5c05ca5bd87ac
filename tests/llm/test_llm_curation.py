"""Curation by the bridge's LLM, every path driven by litellm's mock_response."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bridge.core.entry import parse_note
from bridge.llm.curator import extract_operations, split_content
from bridge.llm.loader import import_litellm
from bridge.runtime import Bridge
from tests.conftest import ROOT, snapshot
from tests.llm.conftest import TIMEOUT, Script

API_KEYS = "engineering/auth/api_keys.md"
BAD_NOTE = "engineering/auth/bad_one.md"
LONE = "\ud800"  # a lone UTF-16 surrogate, as JSON `"\ud800"` decodes
CONTENT = "Partner API keys rotate every 12 months; the rotation job lives in ops/rotate.py."


def ops(*operations: dict[str, object]) -> str:
    return json.dumps({"operations": list(operations)})


ADD_KEYS = {
    "type": "ADD",
    "path": API_KEYS,
    "title": "API keys",
    "summary": "Partner API keys rotate every 12 months.",
    "relations": ["@engineering/auth/jwt_expiry.md - both are credentials"],
    "raw_concept": {"source": "ops/rotate.py"},
    "narrative": "Keys rotate yearly.",
}


def curate(bridge: Bridge, content: str = CONTENT):  # type: ignore[no-untyped-def]
    curator = bridge.curator
    assert curator is not None
    return curator.curate(content, "curator")


def test_a_valid_batch_is_applied_in_one_round(llm_bridge: Bridge, script: Script) -> None:
    script.add(f"```json\n{ops(ADD_KEYS)}\n```")
    outcome = curate(llm_bridge)
    assert outcome.error is None and outcome.rounds == 1
    assert outcome.batch.counts["applied"] == 1
    note = parse_note(API_KEYS, (llm_bridge.store.root / API_KEYS).read_text())
    assert note.entry.author == "agent:curator" and note.entry.status == "draft"
    # The model saw the outline, related entries with base hashes, and the content.
    prompt = script.calls[0]["messages"]
    user = prompt[1]["content"]
    assert "## The tree" in user and "engineering/" in user
    assert "### @engineering/auth/jwt_expiry.md" in user and "base_hash: " in user
    assert CONTENT in user and '"merge_from"' in prompt[0]["content"]
    assert script.calls[0]["timeout"] <= 0.2


def test_an_invalid_batch_is_corrected_in_the_second_round(
    llm_bridge: Bridge, script: Script
) -> None:
    bad_path = {**ADD_KEYS, "path": "../keys.md"}
    exists = {"type": "ADD", "path": "engineering/auth/jwt_expiry.md", "title": "JWT"}
    script.add(ops(bad_path, exists), ops(ADD_KEYS))
    outcome = curate(llm_bridge)
    assert outcome.error is None and outcome.rounds == 2
    assert [r.status for r in outcome.batch.results] == ["applied"]
    feedback = script.calls[1]["messages"][-1]["content"]
    assert "leaves the vault" in feedback
    assert "exists; use UPDATE or MERGE" in feedback and "# JWT expiry" in feedback
    assert (llm_bridge.store.root / API_KEYS).exists()


def test_a_model_that_never_writes_valid_json_stops_and_writes_nothing(
    llm_bridge: Bridge, script: Script
) -> None:
    before = snapshot(llm_bridge.store.root)
    script.add("Sure! Here are the operations:", '{"operations": [', "no", "still no")
    outcome = curate(llm_bridge)
    assert len(script.calls) == 4  # the proposal and 3 correction rounds
    assert outcome.rounds == 4 and outcome.batch.results == ()
    assert outcome.error is not None
    assert "no valid operations JSON after 3 correction rounds" in outcome.error
    assert "nothing was written" in outcome.error
    assert snapshot(llm_bridge.store.root) == before


def test_a_timeout_is_retried_then_reported_and_nothing_is_written(
    llm_bridge: Bridge, script: Script
) -> None:
    before = snapshot(llm_bridge.store.root)
    script.add(TIMEOUT, TIMEOUT)  # the request and its one retry
    outcome = curate(llm_bridge)
    assert len(script.calls) == 2
    assert outcome.error is not None and "did not answer in time" in outcome.error
    assert snapshot(llm_bridge.store.root) == before


def test_a_transient_failure_is_retried(llm_bridge: Bridge, script: Script) -> None:
    script.add("litellm.InternalServerError", ops(ADD_KEYS))
    outcome = curate(llm_bridge)
    assert outcome.error is None and len(script.calls) == 2


def test_model_operations_go_through_the_review_policy(llm_bridge: Bridge, script: Script) -> None:
    update = {"type": "UPDATE", "path": "engineering/auth/jwt_expiry.md", "summary": "12 h now"}
    script.add(ops(update))
    outcome = curate(llm_bridge)
    assert [r.status for r in outcome.batch.results] == ["pending_review"]


def test_long_content_is_curated_in_parts(llm_bridge: Bridge, script: Script) -> None:
    paragraphs = [f"Paragraph {i}: " + "word " * 300 for i in range(3)]
    bridge = llm_bridge
    curator = bridge.curator
    assert curator is not None
    curator.part_chars = 2000
    script.add(ops(), ops(), ops())
    outcome = curator.curate("\n\n".join(paragraphs), "curator")
    assert outcome.parts == 3 and len(script.calls) == 3
    assert "(part 2 of 3)" in script.calls[1]["messages"][1]["content"]


def test_split_and_extract_helpers() -> None:
    assert split_content("a\n\nb", 100) == ["a\n\nb"]
    parts = split_content("x" * 250, 100)
    assert all(len(p) <= 100 for p in parts) and "".join(parts) == "x" * 250
    assert (
        len(extract_operations('Here:\n{"operations": [{"type": "DELETE", "path": "a/b"}]}')) == 1
    )
    assert len(extract_operations('[{"type": "DELETE", "path": "a/b"}]')) == 1


def test_the_bridge_does_not_import_litellm_until_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    code = (
        "import sys; import bridge.cli, bridge.runtime, bridge.llm.curator, bridge.llm.answerer;"
        "assert 'litellm' not in sys.modules, 'litellm imported at start-up'"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    monkeypatch.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)
    import_litellm()  # what the loader's thread runs
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_the_llm_curators_operations_are_checked_the_same_way(
    llm_bridge: Bridge, script: Script
) -> None:
    bad = {"type": "ADD", "path": BAD_NOTE, "title": "x", "narrative": LONE}
    good = {"type": "ADD", "path": API_KEYS, "title": "API keys"}
    script.add(json.dumps({"operations": [good, bad]}), json.dumps({"operations": []}))
    curator = llm_bridge.curator
    assert curator is not None
    outcome = curator.curate("Partner API keys rotate yearly.", "curator")
    assert [r.status for r in outcome.batch.results] == ["applied"]
    feedback = script.calls[1]["messages"][-1]["content"]
    assert "`narrative`" in feedback and "surrogate" in feedback
    assert not (llm_bridge.store.root / BAD_NOTE).exists()
