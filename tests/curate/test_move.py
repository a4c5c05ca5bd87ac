"""MOVE: an agent moves a note, and it keeps everything but its path; links follow it."""

from __future__ import annotations

import datetime as dt
import json

from bridge.core.entry import parse_note
from bridge.core.operations import operation_schema
from bridge.mcp.backend import LocalBackend
from bridge.runtime import Bridge
from bridge.state.lifecycle_store import LifecycleView
from tests.conftest import write_notes
from tests.curate.conftest import OpenBridge
from tests.curate.helpers import add_op, run

OLD = "engineering/auth/api_keys.md"
NEW = "engineering/keys/partner_api_keys.md"
LINKS = "engineering/auth/key_links.md"


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def life(bridge: Bridge, path: str) -> LifecycleView:
    status = bridge.store.read(path).parse().entry.status
    return bridge.lifecycle.view(path, status, None, now())


def _keys_with_history(bridge: Bridge) -> bytes:
    """An agent's note with uses, updates and a status, and a human note linking to it."""
    add = add_op(
        OLD,
        title="API keys",
        summary="Partner API keys rotate yearly.",
        raw_concept={"task": "document keys", "source": "ops/rotate.py"},
        narrative="Keys rotate on 1 January.\n\n## Rotation\n\nRun the job. ^rotate-job",
    )
    assert run(bridge, add).results[0].status == "applied"
    update = {"type": "UPDATE", "path": OLD, "summary": "Partner API keys rotate every year."}
    assert run(bridge, update).results[0].status == "applied"
    for _ in range(3):
        bridge.lifecycle.record_access({OLD: "draft"}, now())
    write_notes(
        bridge.store.root,
        {
            LINKS: "# Key links\n\n"
            "- [[engineering/auth/api_keys|the keys]] - aliased\n"
            "- [[api_keys#Rotation]] and [[api_keys#^rotate-job|the job]]\n"
            "- ![[api_keys]] embedded, `[[api_keys]]` in code stays\n"
        },
    )
    bridge.sync()
    return (bridge.store.root / OLD).read_bytes()


def test_a_move_keeps_the_note_its_history_and_every_link(bridge: Bridge) -> None:
    before_bytes = _keys_with_history(bridge)
    before = life(bridge, OLD)
    assert before.access_count == 3 and before.update_count == 1  # the ADD, then an UPDATE
    (outcome,) = run(bridge, {"type": "MOVE", "from": OLD, "path": NEW}).results
    assert outcome.status == "applied", outcome.message
    root = bridge.store.root
    assert not (root / OLD).exists()
    assert (root / NEW).read_bytes() == before_bytes  # created, status, author, Raw Concept
    after = life(bridge, NEW)
    assert (after.access_count, after.update_count) == (before.access_count, before.update_count)
    assert abs(after.importance - before.importance) < 0.01  # decay runs on, continuously
    assert after.last_writer == before.last_writer == "agent:tester"
    assert OLD not in bridge.lifecycle.tracked_paths()
    links = (root / LINKS).read_text()
    assert "[[engineering/keys/partner_api_keys|the keys]]" in links
    assert "[[partner_api_keys#Rotation]]" in links
    assert "[[partner_api_keys#^rotate-job|the job]]" in links
    assert "![[partner_api_keys]] embedded, `[[api_keys]]` in code stays" in links
    # Still the agent's note: its next UPDATE applies at once, as before the move.
    update = {"type": "UPDATE", "path": NEW, "summary": "Partner keys rotate yearly."}
    assert run(bridge, update).results[0].status == "applied"
    assert OLD not in bridge.index.paths()
    assert NEW in bridge.index.paths()


def test_a_move_of_a_humans_note_waits_for_review_and_approval_keeps_its_history(
    bridge: Bridge,
) -> None:
    human = "engineering/auth/jwt_expiry.md"
    new = "engineering/tokens/jwt_expiry.md"
    bridge.lifecycle.record_access({human: "stable"}, now())
    before = life(bridge, human)
    data = (bridge.store.root / human).read_bytes()
    (outcome,) = run(bridge, {"type": "MOVE", "from": human, "path": new}).results
    assert outcome.status == "pending_review" and "last written by a human" in outcome.message
    assert (bridge.store.root / human).read_bytes() == data  # nothing moved yet
    review = bridge.reviews.get(outcome.review_id or 0)
    assert f"rename from {human}\nrename to {new}\n" in review.diff
    bridge.reviews.approve(review.id)
    assert (bridge.store.root / new).read_bytes() == data
    after = life(bridge, new)
    assert after.access_count == before.access_count == 1
    assert after.last_writer == before.last_writer
    # Still the human's: the next agent change to it waits for review again.
    update = {"type": "UPDATE", "path": new, "summary": "Tokens live 12 h."}
    assert run(bridge, update).results[0].status == "pending_review"


def test_a_link_the_moved_note_would_capture_keeps_its_meaning(bridge: Bridge) -> None:
    deep = "billing/plans/yearly/terms.md"  # three folders: the longer of two `terms`
    write_notes(
        bridge.store.root,
        {deep: "# Terms\n\nYearly terms.\n", LINKS: "# Links\n\nSee [[terms]].\n"},
    )
    bridge.sync()
    run(bridge, add_op(OLD, title="Keys"))
    (outcome,) = run(bridge, {"type": "MOVE", "from": OLD, "path": "legal/keys/terms.md"}).results
    assert outcome.status == "applied", outcome.message
    # `[[terms]]` meant the billing note; the moved one (two folders) would now win.
    assert "See [[billing/plans/yearly/terms]]." in (bridge.store.root / LINKS).read_text()


def test_a_move_that_cannot_be_made_fails_and_changes_nothing(bridge: Bridge) -> None:
    run(bridge, add_op(OLD, title="Keys"))
    taken = "engineering/auth/jwt_expiry.md"
    cases = {
        "exists; MERGE": {"type": "MOVE", "from": OLD, "path": taken},
        "no note at": {"type": "MOVE", "from": "engineering/auth/nope.md", "path": NEW},
        "takes no content": {"type": "MOVE", "from": OLD, "path": NEW, "title": "x"},
        "needs `from`": {"type": "MOVE", "path": NEW},
        "2 or 3 folders": {"type": "MOVE", "from": OLD, "path": "flat.md"},
        "only for MOVE": {"type": "UPDATE", "path": OLD, "from": NEW, "summary": "x"},
    }
    data = (bridge.store.root / OLD).read_bytes()
    for words, op in cases.items():
        (outcome,) = run(bridge, op).results
        assert outcome.status == "failed" and words in outcome.message, (words, outcome)
    assert (bridge.store.root / OLD).read_bytes() == data
    assert not (bridge.store.root / NEW).exists()


def test_rejecting_an_applied_move_moves_the_note_back_with_its_history(
    open_vault: OpenBridge,
) -> None:
    bridge = open_vault(review_rules=[])
    data = _keys_with_history(bridge)
    move = {"type": "MOVE", "from": OLD, "path": NEW, "impact": "high"}
    (outcome,) = run(bridge, move).results
    assert outcome.status == "applied" and outcome.review_id is not None
    bridge.reviews.reject(outcome.review_id, "it belonged where it was")
    assert (bridge.store.root / OLD).read_bytes() == data and not (bridge.store.root / NEW).exists()
    assert life(bridge, OLD).access_count == 3
    assert "[[engineering/auth/api_keys|the keys]]" in (bridge.store.root / LINKS).read_text()


def test_move_is_in_the_schema_the_prompt_and_mcp(bridge: Bridge) -> None:
    item = operation_schema()["properties"]["operations"]["items"]
    assert "from" in item["properties"] and "MOVE" in json.dumps(item["properties"]["type"])
    result = LocalBackend(bridge).curate(
        [add_op(OLD, title="Keys"), {"type": "MOVE", "from": OLD, "path": NEW}], "agent:mcp"
    )
    assert [r["status"] for r in result["results"]] == ["applied", "applied"]
    assert parse_note(NEW, (bridge.store.root / NEW).read_text()).title == "Keys"
    prompt = LocalBackend(bridge).curate_prompt("keys moved")["prompt"]
    assert "- MOVE:" in prompt and '"from"' in prompt


def test_a_move_is_undone_to_a_name_no_new_note_could_take(open_vault: OpenBridge) -> None:
    bridge = open_vault(review_rules=[])
    human = "engineering/auth/C# tips.md"  # a human's name: `#` is refused for a new note
    write_notes(bridge.store.root, {human: "# C# tips\n\nUse records.\n"})
    bridge.sync()
    move = {"type": "MOVE", "from": human, "path": "engineering/csharp/tips.md", "impact": "high"}
    (outcome,) = run(bridge, move).results
    assert outcome.status == "applied" and outcome.review_id is not None
    bridge.reviews.reject(outcome.review_id, "keep my name")
    assert (bridge.store.root / human).read_text() == "# C# tips\n\nUse records.\n"
    assert not (bridge.store.root / "engineering/csharp/tips.md").exists()
