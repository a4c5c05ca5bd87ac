"""`vault-bridge overviews`, `POST /v1/overviews` and the overview in `GET /v1/tree`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bridge.api.app import create_app
from bridge.api.security import load_or_create_token
from bridge.api.server import BackgroundServer, discovery_file
from bridge.cli import main
from bridge.core.overview import CLOSE_MARKER, OPEN_MARKER
from bridge.runtime import Bridge
from bridge.vault.store import content_hash
from tests.conftest import CEILING, open_test_bridge, snapshot
from tests.overviews.conftest import AUTH_INDEX, around_region, region_of, write_auth_index


def cli(vault: Path, state: Path, *args: str) -> list[str]:
    return ["overviews", *args, "--vault", str(vault), "--state-dir", str(state)]


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def states(doc: dict[str, Any]) -> dict[str, str]:
    return {f["folder"]: f["region"]["state"] for f in doc["folders"]}


def folder(doc: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(f for f in doc["folders"] if f["folder"] == name)
    return found


def without_markers(vault: Path) -> None:
    """The template as a vault whose `_index.md` notes were written by hand, without markers."""
    for domain in ("engineering", "billing", "team"):
        path = vault / domain / "_index.md"
        text = path.read_text()
        path.write_text(text.replace(OPEN_MARKER + "\n", "").replace(CLOSE_MARKER + "\n", ""))


def test_a_vault_without_markers_has_no_file_changed_by_write(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    without_markers(template_vault)
    (template_vault / "engineering/auth/new_note.md").write_text("# New\n\nNot listed anywhere.\n")
    before = snapshot(template_vault)
    code, doc = run_json(capsys, cli(template_vault, tmp_path / "state", "--write"))
    assert code == 0 and doc["written"] is True
    assert {"engineering": "no_markers", "billing": "no_markers"}.items() <= states(doc).items()
    assert snapshot(template_vault) == before  # bytes and mtimes of every file


def test_the_fresh_template_is_already_current(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(template_vault)
    code, doc = run_json(capsys, cli(template_vault, tmp_path / "state", "--write"))
    assert code == 0
    assert doc["counts"] == {"unchanged": 3}  # the folders that have an `_index.md`
    assert snapshot(template_vault) == before


def test_a_dry_run_says_what_would_change_and_writes_nothing(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (template_vault / "engineering/auth/api_keys.md").write_text(
        "---\ntitle: API keys\nsummary: Keys rotate yearly.\nstatus: draft\n---\n# API keys\n"
    )
    before = snapshot(template_vault)
    code, doc = run_json(capsys, cli(template_vault, tmp_path / "state", "--folder", "engineering"))
    assert code == 0 and doc["written"] is False
    assert states(doc)["engineering"] == "would_update"
    assert set(states(doc)) == {
        "engineering",
        "engineering/auth",
        "engineering/auth/oauth",
        "engineering/database",
        "engineering/deploy",
        "engineering/deploy/ci",
    }
    auth = folder(doc, "engineering/auth")
    assert auth["entries"][0] == {
        "path": "engineering/auth/api_keys.md",
        "title": "API keys",
        "summary": "Keys rotate yearly.",
        "status": "draft",
    }
    assert auth["subfolders"] == [
        {"name": "oauth", "path": "engineering/auth/oauth", "entries": 1, "index": None}
    ]
    assert snapshot(template_vault) == before
    capsys.readouterr()
    assert main(cli(template_vault, tmp_path / "state")) == 0
    shown = capsys.readouterr().out
    assert "engineering/  engineering/_index.md: would update" in shown
    assert "[[engineering/auth/api_keys|API keys]] (draft)" in shown


def test_bad_markers_are_reported_exit_1_and_the_note_is_untouched(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = template_vault / "team/_index.md"
    path.write_text(path.read_text() + f"\n{OPEN_MARKER}\n")  # a second opening marker
    before = snapshot(template_vault)
    code, doc = run_json(capsys, cli(template_vault, tmp_path / "state", "--write"))
    assert code == 1
    team = folder(doc, "team")
    assert team["region"]["state"] == "bad_markers"
    assert "2 opening" in team["region"]["detail"]
    assert snapshot(template_vault) == before


def test_a_folder_outside_the_vault_or_without_notes_is_bad_usage(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(cli(template_vault, tmp_path / "state", "--folder", "../..")) == 2
    assert main(cli(template_vault, tmp_path / "state", "--folder", "nowhere")) == 2
    # A folder with notes but no `_index.md`: nothing to write, and that is fine.
    code, doc = run_json(
        capsys, cli(template_vault, tmp_path / "s", "--write", "--folder", "journal")
    )
    assert code == 0 and doc["folders"] == [] and doc["counts"] == {}


@pytest.fixture
def served(template_vault: Path, tmp_path: Path) -> Iterator[tuple[Bridge, str, str]]:
    """A bridge serving the vault, with its discovery file (what `serve` writes)."""
    state = tmp_path / "state"
    write_auth_index(template_vault)
    bridge = open_test_bridge(template_vault, state)
    token = load_or_create_token(state)
    server = BackgroundServer(create_app(bridge, token))
    url = server.start(timeout=CEILING)
    try:
        with discovery_file(state, "127.0.0.1", int(url.rsplit(":", 1)[1])):
            yield bridge, url, token
    finally:
        server.stop()
        bridge.close()


def test_write_goes_through_the_running_bridge(
    served: tuple[Bridge, str, str],
    template_vault: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bridge, url, _ = served
    before = (template_vault / AUTH_INDEX).read_bytes()
    code, doc = run_json(capsys, cli(template_vault, tmp_path / "state", "--write"))
    assert code == 0 and doc["through"] == url
    assert states(doc)["engineering/auth"] == "updated"
    after = (template_vault / AUTH_INDEX).read_bytes()
    assert around_region(after) == around_region(before)
    assert "[[engineering/auth/jwt_expiry|JWT expiry]]" in region_of(after)
    # The serving bridge made the write: it journalled and indexed its own bytes.
    journal = bridge.store.journal
    stamp = bridge.index.stamp(AUTH_INDEX)
    assert stamp is not None and stamp.hash.hex() == content_hash(after)
    assert journal is not None and journal.is_own(AUTH_INDEX, stamp.hash.hex())


def test_the_tree_serves_the_overview_with_or_without_markers(
    served: tuple[Bridge, str, str],
) -> None:
    _, url, token = served
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, headers=headers, timeout=CEILING) as client:
        auth = client.get("/v1/tree", params={"folder": "engineering/auth", "depth": 1}).json()
        root = client.get("/v1/tree").json()
        bad = client.post("/v1/overviews", json={"folder": "../x"})
    assert auth["notes"] == 4 and auth["children"]  # the tree itself is as it was
    overview = auth["overview"]
    assert overview["folder"] == "engineering/auth" and overview["index"] == AUTH_INDEX
    assert [e["title"] for e in overview["entries"]] == ["JWT expiry", "Session refresh"]
    assert overview["entries"][0]["status"] == "core" and overview["entries"][0]["summary"]
    assert overview["subfolders"] == [
        {"name": "oauth", "path": "engineering/auth/oauth", "entries": 1, "index": None}
    ]
    # The root has no `_index.md`: its overview is served all the same.
    assert root["overview"]["index"] is None
    assert [e["path"] for e in root["overview"]["entries"]] == ["Welcome.md"]
    assert [(s["name"], s["entries"]) for s in root["overview"]["subfolders"]] == [
        ("billing", 4),
        ("engineering", 6),
        ("journal", 1),
        ("team", 3),
    ]
    assert "overview" not in root["children"][0]
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_path"
