"""The credit rule: an appearance gives nothing; a use gives +3, once per note per answer."""

from __future__ import annotations

from bridge.query.uses import Credit, UseLedger
from bridge.runtime import Bridge


def test_one_credit_per_note_per_answer() -> None:
    ledger = UseLedger()
    ledger.issue("q1", ["a.md", "b.md"])
    ledger.issue("q2", ["a.md"])
    assert ledger.credit("q1", "a.md") is Credit.CREDITED
    assert ledger.credit("q1", "a.md") is Credit.ALREADY
    assert ledger.credit("q2", "a.md") is Credit.CREDITED  # another answer, another use
    assert ledger.credit("q1", "c.md") is Credit.NOT_OFFERED
    assert ledger.credit("q1", "c.md", offered_only=False) is Credit.CREDITED  # an LLM citation
    assert ledger.credit("nope", "a.md") is Credit.UNKNOWN_QUERY


def test_old_answers_are_forgotten() -> None:
    ledger = UseLedger(capacity=2)
    for name in ("q1", "q2", "q3"):
        ledger.issue(name, ["a.md"])
    assert ledger.offered("q1") is None
    assert ledger.credit("q1", "a.md") is Credit.UNKNOWN_QUERY
    assert ledger.credit("q3", "a.md") is Credit.CREDITED


def _importance(bridge: Bridge, path: str, status: str) -> float:
    bridge.engine.lifecycle.flush()
    return bridge.lifecycle.view(path, status, None, bridge.engine.clock()).importance


def test_appearing_gives_nothing_and_a_use_gives_three(bridge: Bridge) -> None:
    path, status = "billing/plans/team_plan.md", "stable"
    before = _importance(bridge, path, status)
    found = bridge.engine.search("team plan seats billing")
    assert path in [s.path for s in found.sources]
    assert _importance(bridge, path, status) == before  # listed, not used
    assert bridge.engine.feedback(found.query_id, path, helpful=False) is None
    assert _importance(bridge, path, status) == before  # not helpful: no credit
    assert bridge.engine.use(found.query_id, path) is Credit.CREDITED
    assert abs(_importance(bridge, path, status) - (before + 3)) < 0.01
    assert bridge.engine.feedback(found.query_id, path, helpful=True) is Credit.ALREADY
    assert abs(_importance(bridge, path, status) - (before + 3)) < 0.01
