"""Curation and review over HTTP, checked on disk."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx

from tests.api.conftest import LiveApi
from tests.conftest import CEILING, ROOT

HUMAN_NOTE = "engineering/auth/jwt_expiry.md"
API_KEYS = "engineering/auth/api_keys.md"
BAD_NOTE = "engineering/auth/bad_one.md"
LONE = "\ud800"  # a lone UTF-16 surrogate, as JSON `"\ud800"` decodes


def post_ops(
    api: LiveApi, *ops: dict[str, object], author: str = "agent:test"
) -> dict[str, object]:
    response = api.client.post(
        "/v1/curate/operations", json={"operations": list(ops), "author": author}, headers=api.auth
    )
    assert response.status_code == 200, response.text
    result: dict[str, object] = response.json()
    return result


def test_add_is_applied_and_searchable(api: LiveApi) -> None:
    result = post_ops(
        api,
        {
            "type": "ADD",
            "path": "engineering/auth/api_keys.md",
            "title": "API keys",
            "narrative": "Partner API keys rotate every twelve months on the first of January.",
            "relations": ["@engineering/auth/jwt_expiry.md - both are credentials"],
        },
    )
    [op] = result["results"]  # type: ignore[misc]
    assert op["status"] == "applied" and op["review_id"] is None
    assert result["counts"] == {"applied": 1, "pending_review": 0, "failed": 0, "total": 1}
    text = (api.bridge.store.root / "engineering/auth/api_keys.md").read_text()
    assert "- [[engineering/auth/jwt_expiry]] - both are credentials" in text
    assert "status: draft" in text and "author: agent:test" in text
    found = api.client.post(
        "/v1/search", json={"query": "partner api keys rotate"}, headers=api.auth
    )
    assert found.json()["sources"][0]["path"] == "engineering/auth/api_keys.md"


def test_invalid_operations_fail_with_reasons(api: LiveApi) -> None:
    result = post_ops(
        api,
        {"type": "ADD", "path": "a/../../etc/passwd", "title": "x"},
        {"type": "ADD", "path": HUMAN_NOTE, "title": "again"},
        {"type": "UPDATE", "path": "engineering/auth/missing.md", "summary": "x"},
        {"type": "FROB", "path": "a/b/c.md"},
    )
    statuses = [r["status"] for r in result["results"]]  # type: ignore[union-attr]
    assert statuses == ["failed"] * 4
    messages = [r["message"] for r in result["results"]]  # type: ignore[union-attr]
    assert "leaves the vault" in messages[0]
    assert "exists" in messages[1] and "UPDATE" in messages[1]


def test_update_of_a_human_note_waits_for_review_then_approve_writes_it(api: LiveApi) -> None:
    before = (api.bridge.store.root / HUMAN_NOTE).read_bytes()
    result = post_ops(
        api, {"type": "UPDATE", "path": HUMAN_NOTE, "summary": "Access tokens expire after 12 h."}
    )
    [op] = result["results"]  # type: ignore[misc]
    assert op["status"] == "pending_review"
    assert (api.bridge.store.root / HUMAN_NOTE).read_bytes() == before  # nothing written yet
    reviews = api.client.get("/v1/reviews", headers=api.auth).json()
    assert [r["id"] for r in reviews] == [op["review_id"]]
    review = api.client.get(f"/v1/reviews/{op['review_id']}", headers=api.auth).json()
    assert review["state"] == "pending" and review["author"] == "agent:test"
    assert "+summary: Access tokens expire after 12 h." in review["diff"]
    approved = api.client.post(f"/v1/reviews/{op['review_id']}/approve", headers=api.auth)
    assert approved.status_code == 200 and approved.json()["state"] == "approved"
    assert "expire after 12 h." in (api.bridge.store.root / HUMAN_NOTE).read_text()
    twice = api.client.post(f"/v1/reviews/{op['review_id']}/approve", headers=api.auth)
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "decided"


def test_reject_leaves_the_note_alone_and_records_the_reason(api: LiveApi) -> None:
    before = (api.bridge.store.root / HUMAN_NOTE).read_bytes()
    [op] = post_ops(api, {"type": "DELETE", "path": HUMAN_NOTE, "reason": "obsolete"})["results"]  # type: ignore[misc]
    assert op["status"] == "pending_review"
    rejected = api.client.post(
        f"/v1/reviews/{op['review_id']}/reject", json={"reason": "still true"}, headers=api.auth
    )
    assert rejected.status_code == 200 and rejected.json()["state"] == "rejected"
    assert rejected.json()["note"] == "still true"
    assert (api.bridge.store.root / HUMAN_NOTE).read_bytes() == before


def test_approve_after_a_human_edit_is_a_conflict(api: LiveApi) -> None:
    [op] = post_ops(api, {"type": "UPDATE", "path": HUMAN_NOTE, "summary": "New summary."})[
        "results"
    ]  # type: ignore[misc]
    note = api.bridge.store.root / HUMAN_NOTE
    note.write_text(note.read_text().replace("RS256", "ES256"))  # the human edits meanwhile
    response = api.client.post(f"/v1/reviews/{op['review_id']}/approve", headers=api.auth)
    assert response.status_code == 409 and response.json()["error"]["code"] == "conflict"
    review = api.client.get(f"/v1/reviews/{op['review_id']}", headers=api.auth).json()
    assert review["state"] == "conflict"
    assert "ES256" in note.read_text() and "New summary." not in note.read_text()


def test_unknown_review_is_404(api: LiveApi) -> None:
    for method, path in (("GET", "/v1/reviews/999"), ("POST", "/v1/reviews/999/approve")):
        response = api.client.request(method, path, headers=api.auth)
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_curate_without_an_llm_explains_what_to_do(api: LiveApi) -> None:
    response = api.client.post("/v1/curate", json={"content": "a fact"}, headers=api.auth)
    assert response.status_code == 503
    assert "VAULT_BRIDGE_LLM_MODEL" in response.json()["error"]["message"]
    prompt = api.client.post(
        "/v1/curate/prompt", json={"content": "JWT tokens now live 12 h"}, headers=api.auth
    ).json()
    assert "jwt_expiry" in prompt["prompt"] and prompt["schema"]


def test_review_events_are_streamed(api: LiveApi) -> None:
    seen: list[str] = []
    ready = threading.Event()

    def listen() -> None:
        with (
            httpx.Client(base_url=api.url, timeout=CEILING) as client,
            client.stream("GET", "/v1/events", headers=api.auth) as response,
        ):
            for line in response.iter_lines():
                if line.startswith("event: "):
                    seen.append(line[7:])
                    if line == "event: hello":
                        ready.set()
                    if line == "event: review.added":
                        return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert ready.wait(CEILING)
    post_ops(api, {"type": "UPDATE", "path": HUMAN_NOTE, "summary": "x"})
    thread.join(CEILING)
    assert seen[-1] == "review.added"
    assert json.dumps(seen)


def _doc_example(heading: str) -> dict[str, Any]:
    text = (ROOT / "docs/api.md").read_text()
    block = text.split(f"### {heading}\n", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    example: dict[str, Any] = json.loads(block)
    return example


def test_the_curate_and_review_examples_of_docs_api_are_real_answers(api: LiveApi) -> None:
    """The examples had messages the API never said ("created", "a human wrote this note")."""
    add = {"type": "ADD", "path": "engineering/auth/api_keys.md", "title": "API keys"}
    update = {
        "type": "UPDATE",
        "path": HUMAN_NOTE,
        "summary": "Access tokens now live 12 h.",
        "reason": "tokens now live 12 h",
    }
    result = post_ops(api, add | {"narrative": "Keys rotate yearly."}, update, author="claude-code")
    review_id = result["results"][1]["review_id"]  # type: ignore[index]
    shown = _doc_example("Curate result")
    doc_id = shown["results"][1]["review_id"]
    as_shown = json.dumps(result).replace(f"review {review_id}:", f"review {doc_id}:")
    assert json.loads(as_shown.replace(f'"review_id": {review_id}', f'"review_id": {doc_id}')) == (
        shown
    )
    review = api.client.get(f"/v1/reviews/{review_id}", headers=api.auth).json()
    shown = _doc_example("Review")
    assert set(review) == set(shown)
    exact = ("state", "type", "path", "author", "why", "policy", "reason", "impact", "note")
    assert {k: review[k] for k in exact} == {k: shown[k] for k in exact}
    assert review["operation"]["summary"] == shown["operation"]["summary"]


def test_a_lone_surrogate_or_a_long_author_is_answered_never_500(api: LiveApi) -> None:
    ops = [
        {"type": "ADD", "path": API_KEYS, "title": "API keys"},
        {"type": "ADD", "path": BAD_NOTE, "title": f"x{LONE}", f"k{LONE}": 1},
        {"type": "DELETE", "path": HUMAN_NOTE, "reason": LONE},
    ]
    # httpx refuses to encode a lone surrogate, so the body is sent as JSON escapes.
    body = json.dumps({"operations": ops, "author": "agent:test"})
    headers = {**api.auth, "content-type": "application/json"}
    response = api.client.post("/v1/curate/operations", content=body, headers=headers)
    assert response.status_code == 200, response.text
    statuses = [r["status"] for r in response.json()["results"]]
    assert statuses == ["applied", "failed", "failed"]
    assert (api.bridge.store.root / HUMAN_NOTE).exists()
    assert not (api.bridge.store.root / BAD_NOTE).exists()
    too_long = json.dumps({"operations": [ops[0]], "author": "b" * 95})
    refused = api.client.post("/v1/curate/operations", content=too_long, headers=headers)
    assert refused.status_code == 422 and "at most 100" in refused.json()["error"]["message"]
    named = json.dumps({"operations": [ops[0]], "author": f"x{LONE}"})
    refused = api.client.post("/v1/curate/operations", content=named, headers=headers)
    assert refused.status_code == 422 and "author" in refused.json()["error"]["message"]
