"""After a curation batch the executor refreshes the regions of the folders it touched."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bridge.runtime import Bridge
from bridge.vault.store import content_hash
from tests.conftest import snapshot
from tests.overviews.conftest import (
    AUTH_INDEX,
    OpenBridge,
    around_region,
    region_of,
    run,
    write_auth_index,
)

ENG_INDEX = "engineering/_index.md"
API_KEYS = "engineering/auth/api_keys.md"
JWT = "engineering/auth/jwt_expiry.md"


def read(bridge: Bridge, path: str) -> bytes:
    return (bridge.store.root / path).read_bytes()


def current(open_vault: OpenBridge, template_vault: Path, **settings: object) -> Bridge:
    """A bridge whose vault has the human `engineering/auth/_index.md`, all regions current."""
    write_auth_index(template_vault)
    bridge = open_vault(**settings)
    report = bridge.write_overviews()
    assert not report.problems
    assert report.outcomes["engineering/auth"].state == "updated"
    assert report.outcomes["engineering"].state == "updated"  # auth/ is a link now
    return bridge


def agent_writes_of(bridge: Bridge, path: str) -> list[str]:
    rows = bridge.lifecycle.db.query("SELECT writer FROM agent_writes WHERE path = ?", (path,))
    return [str(r["writer"]) for r in rows]


def test_an_add_updates_its_folder_and_the_parents_counts_leaving_human_text_alone(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    bridge = current(open_vault, template_vault)
    auth_before, eng_before = read(bridge, AUTH_INDEX), read(bridge, ENG_INDEX)
    assert "[[engineering/auth/_index|auth/]] (3 entries)" in region_of(eng_before)

    result = run(
        bridge,
        {"type": "ADD", "path": API_KEYS, "title": "API keys", "summary": "Keys rotate yearly."},
        {"type": "ADD", "path": "engineering/auth/passkeys.md", "title": "Passkeys"},
    )

    assert [r.status for r in result.results] == ["applied", "applied"]
    auth_after, eng_after = read(bridge, AUTH_INDEX), read(bridge, ENG_INDEX)
    assert region_of(auth_after) == (
        "- oauth/ (1 entry)\n"
        "  - [[engineering/auth/oauth/google_sso|Google SSO]] (draft)\n"
        "- [[engineering/auth/api_keys|API keys]] — Keys rotate yearly. (draft)\n"
        "- [[engineering/auth/jwt_expiry|JWT expiry]] — Access tokens expire after 24 h and "
        "refresh tokens after 30 days; RS256 signing keys rotate every 90 days. (core)\n"
        "- [[engineering/auth/passkeys|Passkeys]] (draft)\n"
        "- [[engineering/auth/session_refresh|Session refresh]] — Clients call POST "
        "/api/v2/auth/refresh 5 minutes before the access token expires; refresh tokens are "
        "single-use and reuse revokes the whole token family. (stable)\n"
    )
    assert "[[engineering/auth/_index|auth/]] (5 entries)" in region_of(eng_after)
    # Every byte outside the markers is the human's, unchanged: in both notes.
    assert around_region(auth_after) == around_region(auth_before)
    assert around_region(eng_after) == around_region(eng_before)
    # One write per folder per batch (two ADDs), recorded as the batch author's agent write.
    assert agent_writes_of(bridge, AUTH_INDEX) == ["agent:bot"]
    assert bridge.executor.writes.agent_of(AUTH_INDEX, auth_after) == "agent:bot"
    # The bridge's own write is indexed by the bridge (its watcher ignores it).
    stamp = bridge.index.stamp(AUTH_INDEX)
    assert stamp is not None and stamp.hash.hex() == content_hash(auth_after)


def test_a_delete_removes_the_entry_from_the_region(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    bridge = current(open_vault, template_vault, review_rules=[])
    auth_before, eng_before = read(bridge, AUTH_INDEX), read(bridge, ENG_INDEX)
    assert "[[engineering/auth/jwt_expiry|" in region_of(auth_before)

    result = run(bridge, {"type": "DELETE", "path": JWT, "reason": "superseded"})

    assert [r.status for r in result.results] == ["applied"]
    auth_after, eng_after = read(bridge, AUTH_INDEX), read(bridge, ENG_INDEX)
    assert "jwt_expiry" not in region_of(auth_after)
    assert "[[engineering/auth/_index|auth/]] (2 entries)" in region_of(eng_after)
    assert around_region(auth_after) == around_region(auth_before)
    assert around_region(eng_after) == around_region(eng_before)


def test_an_approved_delete_refreshes_the_region_too(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    bridge = current(open_vault, template_vault)  # the default policy: a DELETE waits
    result = run(bridge, {"type": "DELETE", "path": JWT, "reason": "superseded"})
    review_id = result.results[0].review_id
    assert review_id is not None and "jwt_expiry" in region_of(read(bridge, AUTH_INDEX))
    bridge.reviews.approve(review_id)
    assert "jwt_expiry" not in region_of(read(bridge, AUTH_INDEX))


def test_with_the_setting_off_a_batch_writes_only_its_own_notes(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    bridge = current(open_vault, template_vault, overviews_on_curate=False)
    before = snapshot(template_vault)
    run(bridge, {"type": "ADD", "path": API_KEYS, "title": "API keys"})
    after = snapshot(template_vault)
    assert {p for p in after if after[p] != before.get(p)} == {API_KEYS}


def test_notes_without_markers_or_with_blocking_problems_are_never_written(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    for domain in ("engineering", "billing", "team"):
        path = template_vault / domain / "_index.md"
        path.write_text(path.read_text().replace("<!-- ", "<!- ").replace(" -->", " ->"))
    # Markers, but frontmatter the bridge must not write until a person fixes it.
    (template_vault / AUTH_INDEX).write_bytes(
        b"---\ntitle: [unclosed\n---\n<!-- vault-bridge:overview -->\n"
        b"<!-- /vault-bridge:overview -->\n"
    )
    bridge = open_vault()
    before = snapshot(template_vault)
    result = run(bridge, {"type": "ADD", "path": API_KEYS, "title": "API keys"})
    assert [r.status for r in result.results] == ["applied"]
    after = snapshot(template_vault)
    assert {p for p in after if after[p] != before.get(p)} == {API_KEYS}


def test_the_region_write_joins_the_batch_commit(
    open_vault: OpenBridge, template_vault: Path
) -> None:
    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(template_vault), "-c", "user.name=t", "-c", "user.email=t@t", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "start")
    bridge = open_vault(git_commit=True)
    result = run(bridge, {"type": "ADD", "path": API_KEYS, "title": "API keys"})
    assert result.git is None
    assert git("show", "--name-only", "--format=", "HEAD").split() == [ENG_INDEX, API_KEYS]
    assert git("status", "--porcelain") == ""
