"""The credit rule: an appearance gives nothing; a use gives +3, once per note per answer."""

from __future__ import annotations

import gc

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


def test_a_full_ledger_gives_the_collector_nothing_to_walk() -> None:
    """10,000 remembered answers were 40,000 objects in every full collection of `serve`."""
    ledger = UseLedger(capacity=2_000)
    gc.collect()
    gc.collect()
    before = len(gc.get_objects())
    for n in range(2_000):
        ledger.issue(f"q{n}", [f"notes/{n}-{k}.md" for k in range(10)])
    ledger.credit("q5", "notes/5-3.md")
    ledger.credit("q6", "cited.md", offered_only=False)
    gc.collect()  # a tuple of strings is untracked by a collection that sees it...
    gc.collect()  # ...and a tuple of such tuples by the next one
    assert len(gc.get_objects()) - before < 100
    assert ledger.credit("q5", "notes/5-3.md") is Credit.ALREADY
    assert ledger.offered("q6") == {f"notes/6-{k}.md" for k in range(10)} | {"cited.md"}


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
