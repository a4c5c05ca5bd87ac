from __future__ import annotations

import pytest

from bridge.core.maturity import Maturity, StatusMapping


def test_default_mapping_both_ways() -> None:
    mapping = StatusMapping()
    assert mapping.status_for(Maturity.VALIDATED) == "stable"
    assert mapping.maturity_for("stable") is Maturity.VALIDATED
    assert mapping.maturity_for("Core ") is Maturity.CORE
    assert mapping.maturity_for("draft") is Maturity.DRAFT


def test_unknown_or_missing_status_counts_as_draft_but_is_reported_unknown() -> None:
    mapping = StatusMapping()
    assert mapping.maturity_for("archived") is None
    assert mapping.maturity_for(None) is None
    assert mapping.maturity_for(3) is None
    assert mapping.effective("archived") is Maturity.DRAFT


def test_custom_names() -> None:
    mapping = StatusMapping(
        {Maturity.DRAFT: "wip", Maturity.VALIDATED: "reviewed", Maturity.CORE: "canon"}
    )
    assert mapping.status_for(Maturity.CORE) == "canon"
    assert mapping.maturity_for("reviewed") is Maturity.VALIDATED
    assert mapping.maturity_for("stable") is None


def test_invalid_mappings_are_refused() -> None:
    with pytest.raises(ValueError, match="lacks a name"):
        StatusMapping({Maturity.DRAFT: "draft"})
    with pytest.raises(ValueError, match="same name"):
        StatusMapping({Maturity.DRAFT: "x", Maturity.VALIDATED: "X", Maturity.CORE: "core"})
