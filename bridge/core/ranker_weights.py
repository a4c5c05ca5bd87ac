"""The ranker's weights (`bridge.core.ranker`), written by `bench/fit_ranker.py`.

Fitted on the real questions of hub (58 questions), logseq (52 questions), dendron (50
questions), locomo (883 questions) (`python bench/fit_ranker.py fit FEATURES --write`); the
figures, in sample and by vault left out, are in docs/benchmarks.md. `FITTED` ranks with both
channels, `FITTED_LEXICAL` when the dense channel gives nothing.
"""

from bridge.core.ranker import RankerWeights

FITTED = RankerWeights(
    note={
        "entry": 1.094811,
        "entry_abs": 0.138919,
        "block": 0.400696,
        "window": 0.621706,
        "coverage": 2.850357,
        "title": 1.127474,
        "named": 1.624145,
        "summary": 0.786835,
        "path": -2.527874,
        "name": 1.463729,
        "identifier": 2.360883,
        "dense": 0.524072,
        "dense_abs": 8.015079,
        "centre": 3.559429,
        "card": 0.690958,
        "spread": -3.393294,
        "inlinks": 0.252151,
        "outlinks": 0.118682,
        "listing": -1.1617,
        "relation": 1.248094,
        "other_language": -4.0,
        "lifecycle": 0.2,
    },
    calibration=(0.649705, -7.459658),
    confidence={
        "score": 0.06105,
        "lead": 0.981693,
        "coverage": 2.762952,
        "dense_abs": 1.923034,
        "entry_abs": 1.40812,
        "unknown": 0.0,
    },
    confidence_bias=-5.066298,
    source="bench/fit_ranker.py",
)

FITTED_LEXICAL = RankerWeights(
    note={
        "entry": 1.473274,
        "entry_abs": 0.235269,
        "block": 1.018449,
        "window": -0.319536,
        "coverage": 3.51233,
        "title": 0.935675,
        "named": 1.487185,
        "summary": 2.834774,
        "path": -0.578428,
        "name": 0.917413,
        "identifier": 2.718217,
        "dense": 0.0,
        "dense_abs": 0.0,
        "centre": 0.0,
        "card": 0.0,
        "spread": 0.0,
        "inlinks": 0.320818,
        "outlinks": -0.13187,
        "listing": -0.029155,
        "relation": -0.300594,
        "other_language": -4.0,
        "lifecycle": 0.2,
    },
    calibration=(0.774053, -5.412594),
    confidence={
        "score": 0.428087,
        "lead": 1.145367,
        "coverage": 1.48751,
        "dense_abs": 0.0,
        "entry_abs": 0.461835,
        "unknown": 0.0,
    },
    confidence_bias=-4.67459,
    source="bench/fit_ranker.py",
)
