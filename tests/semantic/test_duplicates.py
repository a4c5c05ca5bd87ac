"""An ADD that repeats a note is flagged, when it copies the body and when it copies only the
title and summary; an applied review of it says so as a pending one does."""

from __future__ import annotations

from pathlib import Path

from bridge.core.entry import parse_note
from bridge.core.operations import parse_operations
from bridge.runtime import open_bridge
from bridge.settings import Settings
from tests.conftest import seed_vectors

ON_CALL = "team/practices/incidents/on_call.md"  # a short head over a long body


def test_a_copied_title_and_summary_is_flagged_and_an_applied_review_says_so(
    template_vault: Path, tmp_path: Path, template_vectors: Path
) -> None:
    summary = parse_note(ON_CALL, (template_vault / ON_CALL).read_text()).entry.summary
    state = seed_vectors(template_vectors, tmp_path / "state")
    bridge = open_bridge(Settings(vault=template_vault, state_dir=state, review_rules=[]))
    try:
        bridge.sync()
        bridge.prepare_semantic(embed=True)
        op = {
            "type": "ADD",
            "path": "team/support/rotation.md",
            "title": "On-call rotation",
            "summary": summary,
            "impact": "high",
        }
        (result,) = bridge.executor.apply(parse_operations([op]), "agent:t").results
        # Against the note's first passage (its long body with it) this scored 0.69 and was
        # not flagged; against its head it is the same text.
        assert result.status == "applied" and result.duplicate_of is not None
        assert result.duplicate_of["path"] == ON_CALL and result.duplicate_of["score"] > 0.95
        review = bridge.reviews.get(result.review_id or 0)  # high impact: listed as applied
        assert review.state == "applied" and ON_CALL in review.why
        other = {
            "type": "ADD",
            "path": "kitchen/coffee/beans.md",
            "title": "Coffee beans",
            "summary": "The office grinder takes whole beans; decaf is in the left tin.",
        }
        (fresh,) = bridge.executor.apply(parse_operations([other]), "agent:t").results
        assert fresh.duplicate_of is None
    finally:
        bridge.close()
