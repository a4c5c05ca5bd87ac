"""More from the vectors: similar notes (HTTP, MCP) and the near-duplicate check on ADD."""

from __future__ import annotations

from pathlib import Path

from bridge.core.operations import parse_operations
from bridge.mcp.backend import LocalBackend
from bridge.runtime import Bridge
from bridge.settings import Settings
from tests.api.conftest import LiveApi
from tests.conftest import seed_vectors

JWT = "engineering/auth/jwt_expiry.md"
AUTH_NOTES = {"engineering/auth/session_refresh.md", "engineering/auth/oauth/google_sso.md"}


def test_similar_notes_of_a_note_are_about_the_same_thing(embedded_api: LiveApi) -> None:
    answer = embedded_api.client.get(
        f"/v1/similar/{JWT}", params={"limit": 3}, headers=embedded_api.auth
    )
    assert answer.status_code == 200
    body = answer.json()
    assert body["path"] == JWT and body["reason"] is None
    paths = [n["path"] for n in body["similar"]]
    assert JWT not in paths
    assert AUTH_NOTES & set(paths[:2])  # the token notes' neighbours are auth notes
    scores = [n["score"] for n in body["similar"]]
    assert scores == sorted(scores, reverse=True)


def test_similar_refuses_what_it_cannot_answer(embedded_api: LiveApi) -> None:
    missing = embedded_api.client.get("/v1/similar/no/such/note.md", headers=embedded_api.auth)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    outside = embedded_api.client.get(
        "/v1/similar/..%2F..%2Fetc%2Fpasswd", headers=embedded_api.auth
    )
    assert outside.status_code in (400, 404)
    assert embedded_api.client.get(f"/v1/similar/{JWT}").status_code == 401


def test_status_reports_the_dense_channel(embedded_api: LiveApi) -> None:
    semantic = embedded_api.client.get("/v1/status", headers=embedded_api.auth).json()["semantic"]
    assert semantic["model"] == "all-MiniLM-L6-v2"
    assert semantic["state"] == "ready"
    assert semantic["pending"] == 0
    assert semantic["embedded"] == embedded_api.bridge.index.note_count()
    assert semantic["sections"] >= semantic["embedded"] - 2  # empty notes have no passage


def test_mcp_related_answers_like_the_api(embedded_bridge: Bridge) -> None:
    backend = LocalBackend(embedded_bridge)
    related = backend.related(JWT, 3)
    assert related["path"] == JWT
    assert AUTH_NOTES & {n["path"] for n in related["similar"][:2]}


def test_an_add_that_repeats_a_note_says_so_and_still_applies(embedded_bridge: Bridge) -> None:
    ops = parse_operations(
        [
            {
                "type": "ADD",
                "path": "security/tokens/lifetimes.md",
                "title": "JWT expiry",
                "summary": "Access tokens expire after 24 h and refresh tokens after 30 days; "
                "RS256 signing keys rotate every 90 days.",
            },
            {
                "type": "ADD",
                "path": "kitchen/coffee/beans.md",
                "title": "Coffee beans",
                "summary": "The office grinder takes whole beans; decaf is in the left tin.",
            },
        ]
    )
    result = embedded_bridge.executor.apply(ops, "claude-code").to_dict()
    repeated, fresh = result["results"]
    assert repeated["status"] == "applied"
    assert repeated["duplicate_of"]["path"] == JWT
    assert repeated["duplicate_of"]["suggestion"] == f"UPDATE {JWT}"
    assert JWT in repeated["message"]
    assert "duplicate_of" not in fresh


def test_a_review_of_a_repeating_add_shows_the_note_it_repeats(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    from bridge.runtime import open_bridge

    state = seed_vectors(template_vectors, tmp_path / "s")
    bridge = open_bridge(Settings(vault=template_vault, state_dir=state, review_rules=["add"]))
    try:
        bridge.sync()
        bridge.prepare_semantic(embed=True)
        ops = parse_operations(
            [
                {
                    "type": "ADD",
                    "path": "security/tokens/lifetimes.md",
                    "title": "JWT expiry",
                    "summary": "Access tokens expire after 24 h and refresh tokens after 30 "
                    "days; RS256 signing keys rotate every 90 days.",
                }
            ]
        )
        [only] = bridge.executor.apply(ops, "claude-code").results
        assert only.status == "pending_review"
        review = bridge.reviews.get(only.review_id or 0)
        assert JWT in review.why
    finally:
        bridge.close()
