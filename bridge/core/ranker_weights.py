"""The ranker's weights (`bridge.core.ranker`), written by `bench/fit_ranker.py`.

Fitted on the real questions of hub (58 questions), logseq (52 questions), dendron (50
questions), locomo (883 questions) (`python bench/fit_ranker.py fit FEATURES --write`); the
figures, in sample and by vault left out, are in docs/benchmarks.md. `FITTED` ranks with both
channels, `FITTED_LEXICAL` when the dense channel gives nothing.
"""

from bridge.core.ranker import RankerWeights

FITTED = RankerWeights(
    note={
        "entry": 0.990813,
        "entry_abs": -0.109297,
        "block": 0.532949,
        "window": 0.766613,
        "coverage": 2.657082,
        "title": 1.594806,
        "named": 1.737483,
        "summary": 0.934615,
        "path": -2.547183,
        "name": 1.574003,
        "identifier": 2.573034,
        "dense": 1.143558,
        "dense_abs": 8.333541,
        "centre": 3.535805,
        "card": 0.244096,
        "spread": -4.470776,
        "inlinks": 0.274896,
        "outlinks": 0.152817,
        "listing": -1.53337,
        "relation": 1.04914,
        "other_language": -4.0,
        "lifecycle": 0.0,
    },
    calibration=(0.622032, -6.973857),
    confidence={
        "score": 0.066119,
        "lead": 0.958706,
        "coverage": 3.484535,
        "dense_abs": -0.527271,
        "entry_abs": 0.438584,
        "unknown": -1.455225,
        "held": -1.855389,
        "closeness": 0.246455,
    },
    confidence_bias=-2.90398,
    on_topic={
        "held": 7.504884,
        "closeness": 0.482551,
        "unknown": -1.331984,
    },
    on_topic_bias=-5.433748,
    source="bench/fit_ranker.py",
    thresholds={
        "direct": 0.64,
        "ood": 0.0425,
    },
)

FITTED_LEXICAL = RankerWeights(
    note={
        "entry": 1.121293,
        "entry_abs": 0.127001,
        "block": 1.38872,
        "window": -0.092696,
        "coverage": 3.109453,
        "title": 1.833772,
        "named": 1.640851,
        "summary": 2.82813,
        "path": -0.764612,
        "name": 0.65893,
        "identifier": 2.518648,
        "dense": 0.0,
        "dense_abs": 0.0,
        "centre": 0.0,
        "card": 0.0,
        "spread": 0.0,
        "inlinks": 0.348556,
        "outlinks": -0.179609,
        "listing": 0.032809,
        "relation": -0.482847,
        "other_language": -4.0,
        "lifecycle": 0.0,
    },
    calibration=(0.766423, -5.281129),
    confidence={
        "score": 0.301444,
        "lead": 1.249108,
        "coverage": 1.949181,
        "dense_abs": 0.0,
        "entry_abs": 0.908767,
        "unknown": -1.916573,
        "held": -1.204864,
        "closeness": 0.0,
    },
    confidence_bias=-3.621555,
    on_topic={
        "held": 9.134032,
        "closeness": 0.0,
        "unknown": -1.950938,
    },
    on_topic_bias=-4.694712,
    source="bench/fit_ranker.py",
    thresholds={
        "direct": 0.64,
        "ood": 0.0425,
    },
)
