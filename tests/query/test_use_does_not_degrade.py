"""The memory does not get worse with use: hundreds of used answers move near-equals only."""

from __future__ import annotations

import datetime as dt
import itertools

from bridge.runtime import Bridge

QUESTIONS = (
    "How long do JWT access tokens live?",
    "refund window for annual plans",
    "how do I roll back a deploy",
    "google sso setup",
    "failed payments dunning emails",
    "session refresh before expiry",
    "database migrations expand contract",
    "code review rules",
    "on call incidents",
    "team plan seats",
)
PROBE = "tokens refresh renewal billing"


def _ranked(bridge: Bridge) -> tuple[list[str], dict[str, float]]:
    result = bridge.engine.search(PROBE, budget_words=5000, limit=100)
    found = [s for s in result.sources if s.via == "search"]
    return [s.path for s in found], {s.path: s.score for s in found}


def test_300_used_answers_reorder_only_near_equal_results(bridge: Bridge) -> None:
    before, score = _ranked(bridge)
    assert len(before) >= 4
    engine = bridge.engine
    for number, question in enumerate(itertools.islice(itertools.cycle(QUESTIONS), 300), 1):
        result = engine.query(question)
        if result.sources:  # the person opens the top result: a use of that note
            engine.use(result.query_id, result.sources[0].path)
        if number % 100 == 0:  # the daily job writes the maturity the uses earned
            bridge.decay(dt.datetime.now(dt.UTC))
    engine.lifecycle.flush()
    used = bridge.lifecycle.view(
        "engineering/auth/jwt_expiry.md", "core", None, engine.clock()
    ).access_count
    assert used >= 25  # the answers really were used

    after, score_after = _ranked(bridge)
    assert sorted(after) == sorted(before)
    assert score_after == score  # relevance itself never drifts with use
    tolerance = engine.params.ranking.lifecycle_tolerance
    position = {path: at for at, path in enumerate(after)}
    for ahead, behind in itertools.combinations(before, 2):
        if position[behind] < position[ahead]:  # the lifecycle swapped them
            assert score[ahead] <= score[behind] * (1 + tolerance), (ahead, behind)
