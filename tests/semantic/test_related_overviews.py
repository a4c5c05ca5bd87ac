"""`/v1/similar` and `memory_related` list notes, not the folder overviews that list them."""

from __future__ import annotations

from bridge.mcp.backend import LocalBackend
from bridge.runtime import Bridge

ROLLBACK = "engineering/deploy/rollback.md"


def test_folder_overviews_are_not_listed_as_related_notes(embedded_bridge: Bridge) -> None:
    # An `_index.md` repeats the titles and summaries of its folder's notes, so it came first
    # or second for most of them (rollback: three overviews in its first five).
    backend = LocalBackend(embedded_bridge)
    for path in (ROLLBACK, "team/onboarding/dev_setup.md", "billing/plans/team_plan.md"):
        similar = [n["path"] for n in backend.related(path, 5)["similar"]]
        assert len(similar) == 5 and not [p for p in similar if p.endswith("_index.md")], similar
    asked = [n["path"] for n in backend.related("engineering/_index.md", 5)["similar"]]
    assert len(asked) == 5  # an overview asked about still has neighbours, overviews included
