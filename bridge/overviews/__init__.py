"""Folder overviews that stay true: computed from the vault, written only between markers.

The pure part (what an overview is, the region's Markdown, finding the markers) is
`bridge.core.overview`; this package reads the vault and writes through the store.
See docs/overviews.md.
"""

from __future__ import annotations

from bridge.overviews.regions import (
    PROBLEM_STATES,
    RegionOutcome,
    RegionPlan,
    RegionState,
    plan_region,
    write_region,
)
from bridge.overviews.service import (
    OverviewsReport,
    check_overviews,
    folder_overview,
    gather_facts,
    overview_from_paths,
    refresh_after_batch,
    refresh_changed,
    write_overviews,
)

__all__ = [
    "PROBLEM_STATES",
    "OverviewsReport",
    "RegionOutcome",
    "RegionPlan",
    "RegionState",
    "check_overviews",
    "folder_overview",
    "gather_facts",
    "overview_from_paths",
    "plan_region",
    "refresh_after_batch",
    "refresh_changed",
    "write_overviews",
    "write_region",
]
