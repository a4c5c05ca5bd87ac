"""The ranker's scoring function on plain numbers, and the shipped weights' shape."""

from __future__ import annotations

import math

import pytest

from bridge.core.ranker import (
    CONFIDENCE,
    FEATURES,
    FIXED,
    INDEX,
    RankerWeights,
    confidence,
    note_score,
    weight_vector,
)
from bridge.core.ranker_weights import FITTED


def _weights(**note: float) -> RankerWeights:
    return RankerWeights(note, (1.0, -5.0), {"score": 1.0, "lead": 2.0}, -3.0, "test")


def test_a_notes_score_is_the_weighted_sum_of_its_named_features() -> None:
    weights = weight_vector(_weights(entry=2.0, dense_abs=4.0, spread=-1.0))
    values = [0.0] * len(FEATURES)
    values[INDEX["entry"]] = 0.5
    values[INDEX["dense_abs"]] = 0.25
    values[INDEX["spread"]] = 0.5
    assert note_score(values, weights) == pytest.approx(2.0 * 0.5 + 4.0 * 0.25 - 0.5)
    # A feature the weights do not name counts nothing.
    values[INDEX["inlinks"]] = 3.0
    assert note_score(values, weights) == pytest.approx(1.5)


def test_confidence_is_a_probability_that_grows_with_the_lead() -> None:
    weights = _weights()
    low = confidence({"score": 1.0, "lead": 0.0}, weights)
    high = confidence({"score": 1.0, "lead": 3.0}, weights)
    assert 0.0 < low < high < 1.0
    assert confidence({"score": -1e6}, weights) == pytest.approx(0.0)
    assert confidence({"score": 1e6}, weights) == pytest.approx(1.0)


def test_the_shipped_weights_name_only_known_features_and_hold_the_rules_fixed() -> None:
    assert set(FITTED.note) <= set(FEATURES)
    assert set(FITTED.confidence) <= set(CONFIDENCE)
    for name, value in FIXED.items():
        assert FITTED.note[name] == value  # not fitted: rules (see `FIXED`)
    assert all(math.isfinite(v) for v in FITTED.note.values())
    # Meaning and words both count: neither channel is switched off by the fit.
    assert FITTED.note["dense_abs"] > 0
    assert FITTED.note["coverage"] > 0
