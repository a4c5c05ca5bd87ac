"""A human edit that lands during a refresh wins; region writes keep or name the note's owner."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bridge.core.overview import compute_overviews
from bridge.overviews import gather_facts, plan_region, write_overviews, write_region
from bridge.vault.store import VaultStore
from tests.conftest import snapshot
from tests.overviews.conftest import (
    AUTH_INDEX,
    HUMAN_BELOW,
    OpenBridge,
    around_region,
    region_of,
    write_auth_index,
)

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def test_a_human_edit_between_read_and_write_wins(template_vault: Path) -> None:
    write_auth_index(template_vault)
    store = VaultStore(template_vault)
    paths = list(store.iter_paths())
    overviews = compute_overviews(gather_facts(store, paths))
    plan = plan_region(store, overviews["engineering/auth"], overviews)
    assert plan.state == "would_update"
    # The person saves the note in Obsidian after the bridge read it, before it writes.
    index = template_vault / AUTH_INDEX
    human = index.read_bytes().replace(b"- (the bridge fills", b"- (a person typed here; fills")
    human += b"\nA line added in Obsidian.\n"
    index.write_bytes(human)
    before = snapshot(template_vault)

    outcome = write_region(store, plan, None, NOW)

    assert outcome.state == "conflict" and "human edit" in outcome.detail
    assert index.read_bytes() == human
    assert snapshot(template_vault) == before  # nothing else was written either
    # The next refresh starts from the person's text, keeping everything outside the region.
    report = write_overviews(store, None, "engineering", NOW)
    assert report.outcomes["engineering/auth"].state == "updated"
    after = index.read_bytes()
    assert around_region(after) == around_region(human)
    assert after.endswith(HUMAN_BELOW.encode() + b"\nA line added in Obsidian.\n")
    assert "[[engineering/auth/jwt_expiry|JWT expiry]]" in region_of(after)


def test_a_stale_expected_write_is_refused_by_the_store_itself(template_vault: Path) -> None:
    """The same guarantee without the plan: the compare-and-swap the refresh relies on."""
    original = write_auth_index(template_vault)
    store = VaultStore(template_vault)
    plan = plan_region(
        store,
        compute_overviews(gather_facts(store, store.iter_paths()))["engineering/auth"],
    )
    human = original + b"typed meanwhile\n"
    (template_vault / AUTH_INDEX).write_bytes(human)
    assert write_region(store, plan, None, NOW).state == "conflict"
    assert (template_vault / AUTH_INDEX).read_bytes() == human


def test_an_explicit_refresh_keeps_the_owner_of_each_note(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    write_auth_index(template_vault)
    bridge = open_vault()
    writes = bridge.executor.writes
    # `billing/_index.md` was last written by an agent; `engineering/auth/_index.md` by a human.
    billing = template_vault / "billing/_index.md"
    agent_bytes = billing.read_bytes().replace(b"(core)", b"(stable)")
    billing.write_bytes(agent_bytes)
    writes.record("billing/_index.md", agent_bytes, "agent:claude-code", NOW)

    report = write_overviews(bridge.store, writes, None, NOW)

    assert report.outcomes["billing"].state == "updated"
    assert report.outcomes["engineering/auth"].state == "updated"
    assert writes.agent_of("billing/_index.md", billing.read_bytes()) == "agent:claude-code"
    auth = (template_vault / AUTH_INDEX).read_bytes()
    assert writes.agent_of(AUTH_INDEX, auth) is None  # still human text: agents' edits wait
