"""The lifecycle settings: defaults equal DESIGN's constants, and bad values fail at load."""

from __future__ import annotations

from datetime import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from bridge.core.lifecycle import DEFAULT
from bridge.settings import Settings


@pytest.fixture(autouse=True)
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULT_BRIDGE_CONFIG", str(tmp_path / "absent.toml"))


def test_defaults_are_the_design_constants() -> None:
    settings = Settings()
    assert settings.lifecycle_params == DEFAULT
    assert settings.decay_clock == time(3, 0)


def test_environment_variables_reach_the_params(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULT_BRIDGE_LIFECYCLE_DAILY_DECAY", "0.99")
    monkeypatch.setenv("VAULT_BRIDGE_DECAY_TIME", "04:30")
    settings = Settings()
    assert settings.lifecycle_params.daily_decay == 0.99
    assert settings.decay_clock == time(4, 30)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("decay_time", "25:00", "decay_time"),
        ("lifecycle_demote_core", 90.0, "demote_core"),
        ("lifecycle_promote_validated", 95.0, "promote_validated"),
        ("lifecycle_daily_decay", 1.5, "less than or equal to 1"),
    ],
)
def test_bad_values_are_refused(field: str, value: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Settings(**{field: value})
