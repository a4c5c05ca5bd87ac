"""Embedding progress a person can follow: every note counted, from the first moment to ready."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import CEILING, open_test_bridge

NOTES = 18  # the template vault's


def test_embedded_and_pending_always_count_every_note(template_vault: Path, tmp_path: Path) -> None:
    # The notes of the step in flight were in neither count: on the template (one step) the
    # status said 0 embedded, 0 pending while it embedded; the plugin showed 6,216 of 6,280.
    bridge = open_test_bridge(template_vault, tmp_path / "state")
    try:
        semantic = bridge.semantic
        assert semantic is not None
        semantic.start()  # as serve does: in the background, from an empty vector file
        seen = []
        while True:
            status = bridge.semantic_status()
            seen.append(status)
            if status["state"] == "ready":
                break
            assert len(seen) < 1_000_000, "never ready"
            semantic.wait_idle(0.005)  # a look every few milliseconds, or as soon as idle
        assert semantic.wait_idle(CEILING)
        counted = {s["embedded"] + s["pending"] for s in seen}  # type: ignore[operator]
        assert counted == {NOTES}
        embedded = [s["embedded"] for s in seen]
        assert embedded == sorted(embedded) and embedded[-1] == NOTES
        assert seen[-1]["languages_known"] == NOTES
        assert all(s["languages_known"] >= s["embedded"] for s in seen)  # type: ignore[operator]
    finally:
        bridge.close()
