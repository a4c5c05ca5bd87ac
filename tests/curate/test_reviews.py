"""The review policy and queue: what waits, approve with base checks, reject that restores."""

from __future__ import annotations

import pytest

from bridge.core.entry import parse_note
from bridge.core.relations import LinkResolver
from bridge.curate.reviews import RestoreConflictError, ReviewError, ReviewStateError
from bridge.runtime import Bridge
from tests.conftest import snapshot
from tests.curate.conftest import OpenBridge
from tests.curate.helpers import add_op, run

JWT = "engineering/auth/jwt_expiry.md"
REFRESH = "engineering/auth/session_refresh.md"
API_KEYS = "engineering/auth/api_keys.md"


def read(bridge: Bridge, path: str) -> str:
    return (bridge.store.root / path).read_text()


def test_an_agent_update_of_a_human_note_waits_and_approve_applies_it(bridge: Bridge) -> None:
    before = snapshot(bridge.store.root)
    result = run(bridge, {"type": "UPDATE", "path": JWT, "summary": "Tokens live a day."})
    first = result.results[0]
    assert first.status == "pending_review" and first.review_id is not None
    assert "last written by a human" in first.message
    assert snapshot(bridge.store.root) == before  # nothing applied yet
    review = bridge.reviews.get(first.review_id)
    assert (review.state, review.type, review.path, review.author) == (
        "pending",
        "UPDATE",
        JWT,
        "agent:tester",
    )
    assert review.base_hash == bridge.store.read(JWT).hash
    assert "+summary: Tokens live a day." in review.diff and review.diff.startswith("--- a/")
    decision = bridge.reviews.approve(first.review_id)
    assert decision.review.state == "approved" and decision.review.decided_by == "human"
    assert parse_note(JWT, read(bridge, JWT)).entry.summary == "Tokens live a day."
    with pytest.raises(ReviewStateError, match="already approved"):
        bridge.reviews.approve(first.review_id)
    # Still the human's note: the next agent change waits again.
    again = run(bridge, {"type": "UPDATE", "path": JWT, "summary": "Tokens live two days."})
    assert again.results[0].status == "pending_review"


def test_approve_after_a_human_edit_becomes_a_conflict_with_a_fresh_diff(bridge: Bridge) -> None:
    review_id = run(bridge, {"type": "UPDATE", "path": JWT, "summary": "S"}).results[0].review_id
    assert review_id is not None
    target = bridge.store.root / JWT
    target.write_text(target.read_text().replace("# JWT expiry", "# JWT expiry (edited)"))
    edited = target.read_bytes()
    decision = bridge.reviews.approve(review_id)
    assert decision.review.state == "conflict"
    assert target.read_bytes() == edited  # the human's edit is untouched
    assert "changed since the review was made" in (decision.review.note or "")
    assert "# JWT expiry (edited)" in decision.review.diff
    assert decision.review.base_hash == bridge.store.read(JWT).hash
    # The reviewer saw the new diff: approving again applies it on top of the edit.
    again = bridge.reviews.approve(review_id)
    assert again.review.state == "approved"
    note = parse_note(JWT, read(bridge, JWT))
    assert note.title == "JWT expiry (edited)" and note.entry.summary == "S"


def test_a_stale_base_hash_waits_even_on_an_agent_note(bridge: Bridge) -> None:
    run(bridge, add_op(API_KEYS, summary="v1"))
    op = {"type": "UPDATE", "path": API_KEYS, "summary": "v2", "base_hash": "0" * 64}
    result = run(bridge, op).results[0]
    assert result.status == "pending_review"
    current = bridge.store.read(API_KEYS).hash
    assert f"does not match `{API_KEYS}` (its base_hash is now {current})" in result.message
    op["base_hash"] = current[:12]
    assert run(bridge, op).results[0].status == "applied"


def test_delete_waits_then_moves_to_the_trash_without_overwriting(bridge: Bridge) -> None:
    run(bridge, add_op(API_KEYS, narrative="first"))
    first = run(bridge, {"type": "DELETE", "path": API_KEYS}).results[0]
    assert first.status == "pending_review" and (bridge.store.root / API_KEYS).exists()
    assert first.review_id is not None
    bridge.reviews.approve(first.review_id)
    trash = bridge.store.root / ".trash" / API_KEYS
    assert not (bridge.store.root / API_KEYS).exists()
    assert "first" in trash.read_text()
    assert API_KEYS not in bridge.index.paths()
    assert API_KEYS not in bridge.lifecycle.tracked_paths()
    run(bridge, add_op(API_KEYS, narrative="second"))
    second = run(bridge, {"type": "DELETE", "path": API_KEYS}).results[0]
    assert second.review_id is not None
    bridge.reviews.approve(second.review_id)
    assert "first" in trash.read_text()
    assert "second" in trash.with_name("api_keys 1.md").read_text()


def test_merge_folds_sources_and_rewrites_links_across_the_vault(bridge: Bridge) -> None:
    links = "team/notes/links.md"
    bridge.store.write(
        links,
        b"# Links\n\nSee [[session_refresh|the refresh flow]], "
        b"[[engineering/auth/session_refresh#Narrative]] and [[session_refresh#^abc]].\n"
        b"Example: `[[session_refresh]]` stays.\n",
    )
    bridge.sync()
    op = {"type": "MERGE", "path": JWT, "merge_from": [REFRESH], "reason": "one topic"}
    result = run(bridge, op).results[0]
    assert result.status == "pending_review" and result.review_id is not None
    review = bridge.reviews.get(result.review_id)
    assert f"--- a/{REFRESH}\n+++ /dev/null" in review.diff and "Welcome.md" in review.diff
    bridge.reviews.approve(result.review_id)

    root = bridge.store.root
    assert not (root / REFRESH).exists() and (root / ".trash" / REFRESH).exists()
    merged = parse_note(JWT, read(bridge, JWT))
    assert "single-use" in merged.entry.narrative  # the source's narrative moved in
    assert "ADR-007" in merged.entry.raw_concept.source  # the target's sources are kept
    assert "src/pebble/auth/refresh.py" in merged.entry.raw_concept.source  # and the source's
    relations = [link.target for link in merged.links if link.origin == "relations"]
    assert "engineering/auth/session_refresh" not in relations
    assert "engineering/auth/jwt_expiry" not in relations  # no relation to itself
    assert "team/practices/incidents/on_call" in relations  # the source's relations moved in

    text = read(bridge, links)
    assert "[[jwt_expiry|the refresh flow]]" in text
    assert "[[engineering/auth/jwt_expiry#Narrative]]" in text
    assert "[[jwt_expiry#^abc]]" in text
    assert "`[[session_refresh]]`" in text
    assert '"[[engineering/auth/jwt_expiry]]"' in read(bridge, "billing/cycle/renewal.md")
    assert "[[engineering/auth/jwt_expiry]]" in read(bridge, "Welcome.md")
    # Nothing in the vault still points at the merged-away note.
    paths = list(bridge.store.iter_paths())
    resolver = LinkResolver(paths)
    for path in paths:
        note = bridge.store.read(path).parse()
        for link in note.links:
            assert resolver.resolve(link.target, path) != REFRESH
    assert REFRESH not in bridge.index.paths()


def test_high_impact_changes_apply_and_reject_restores_the_old_bytes(bridge: Bridge) -> None:
    run(bridge, add_op(API_KEYS, summary="v1"))
    old = (bridge.store.root / API_KEYS).read_bytes()
    op = {"type": "UPDATE", "path": API_KEYS, "summary": "quokka rotation", "impact": "high"}
    result = run(bridge, op).results[0]
    assert result.status == "applied" and result.review_id is not None
    assert bridge.reviews.get(result.review_id).state == "applied"
    assert bridge.engine.search("quokka").sources[0].path == API_KEYS
    decision = bridge.reviews.reject(result.review_id, "wrong rotation period")
    assert decision.review.state == "rejected" and decision.review.note == "wrong rotation period"
    assert (bridge.store.root / API_KEYS).read_bytes() == old
    assert decision.message.endswith(f"rejected; `{API_KEYS}` was restored as it was before")
    assert bridge.engine.search("quokka").sources == []  # the index follows the restore


def test_reject_of_a_high_impact_add_moves_the_new_note_to_the_trash(bridge: Bridge) -> None:
    result = run(bridge, add_op(API_KEYS, impact="high")).results[0]
    assert result.review_id is not None
    decision = bridge.reviews.reject(result.review_id, "not needed")
    assert not (bridge.store.root / API_KEYS).exists()
    assert (bridge.store.root / ".trash" / API_KEYS).exists()
    # The message says what happened: there was no previous note to restore.
    assert decision.message == (
        f"review {result.review_id}: rejected; `{API_KEYS}`, which it created, "
        f"was moved to `.trash/{API_KEYS}`"
    )


def test_reject_never_clobbers_a_newer_human_edit(bridge: Bridge) -> None:
    result = run(bridge, add_op(API_KEYS, impact="high")).results[0]
    assert result.review_id is not None
    target = bridge.store.root / API_KEYS
    target.write_text(target.read_text() + "\nA human added this.\n")
    edited = target.read_bytes()
    with pytest.raises(RestoreConflictError, match="was edited after the agent's change"):
        bridge.reviews.reject(result.review_id, "undo")
    assert target.read_bytes() == edited
    assert bridge.reviews.get(result.review_id).state == "applied"


def test_reject_of_a_pending_review_records_the_reason(bridge: Bridge) -> None:
    before = snapshot(bridge.store.root)
    review_id = run(bridge, {"type": "DELETE", "path": JWT}).results[0].review_id
    assert review_id is not None
    with pytest.raises(ReviewError, match="needs a reason"):
        bridge.reviews.reject(review_id, " ")
    decision = bridge.reviews.reject(review_id, "still true")
    assert (decision.review.state, decision.review.note) == ("rejected", "still true")
    assert snapshot(bridge.store.root) == before
    with pytest.raises(ReviewStateError):
        bridge.reviews.approve(review_id)


def test_reviews_survive_a_restart(open_vault: OpenBridge) -> None:
    first = open_vault()
    review_id = run(first, {"type": "DELETE", "path": JWT}).results[0].review_id
    first.close()
    second = open_vault()
    assert [r.id for r in second.reviews.list()] == [review_id]
    assert second.reviews.get(review_id or 0).summary()["type"] == "DELETE"


def test_the_policy_is_a_setting(open_vault: OpenBridge) -> None:
    lenient = open_vault(review_rules=[])
    assert run(lenient, {"type": "DELETE", "path": REFRESH}).results[0].status == "applied"
    lenient.close()
    strict = open_vault(review_rules=["all"])
    assert run(strict, add_op(API_KEYS)).results[0].status == "pending_review"
