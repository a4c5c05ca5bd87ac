"""Error answers: clear 4xx for bad input, never where the vault lives, the connection kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from bridge.api.app import create_app
from bridge.api.server import BackgroundServer
from tests.api.conftest import LiveApi
from tests.conftest import open_test_bridge

NOTE = "billing/plans/team_plan.md"
TURNS = [{"speaker": "Ana", "id": "D1:1", "text": "The zephyrine rollout starts Monday."}]


def transcript(name: object, sessions: int = 1) -> dict[str, Any]:
    return {
        "name": name,
        "sessions": [{"date": f"2026-11-0{n}", "turns": TURNS} for n in range(1, sessions + 1)],
    }


def assert_private(api: LiveApi, response: httpx.Response) -> None:
    """An error body names vault paths only: not the vault's or the state's place on disk."""
    settings = api.bridge.settings
    for where in (settings.vault_path, settings.state_path, settings.vault_path.parent):
        assert str(where) not in response.text, response.text


def test_an_import_root_naming_a_note_is_a_400_and_the_connection_lives_on(
    api: LiveApi,
) -> None:
    before = (api.bridge.settings.vault_path / NOTE).read_bytes()
    response = api.client.post(
        "/v1/import", json={"data": transcript("team"), "root": NOTE}, headers=api.auth
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "bad_path"
    assert f"`{NOTE}` is a file, not a folder" in error["message"]
    assert_private(api, response)
    assert (api.bridge.settings.vault_path / NOTE).read_bytes() == before
    # The same keep-alive connection answers the next request.
    assert api.client.get("/v1/status", headers=api.auth).status_code == 200


def test_import_names_that_cannot_name_a_folder_are_refused(api: LiveApi) -> None:
    for name in ("", "..", "\x00", "a\x00b", "---", None):
        response = api.client.post("/v1/import", json={"data": transcript(name)}, headers=api.auth)
        assert response.status_code == 422, (name, response.text)
        error = response.json()["error"]
        assert error["code"] == "bad_transcript" and "transcript name" in error["message"]
        assert "\x00" not in error["message"]
    turn = {"speaker": "Ana", "id": "D1:1", "text": "nul \x00 inside"}
    response = api.client.post(
        "/v1/import",
        json={"data": {"name": "nul", "sessions": [{"turns": [turn]}]}},
        headers=api.auth,
    )
    assert response.status_code == 422 and "U+0000" in response.json()["error"]["message"]
    assert not (api.bridge.settings.vault_path / "conversations").exists()


def test_a_file_that_would_write_one_note_twice_is_refused(api: LiveApi) -> None:
    twice = [transcript("a b"), transcript("a-b")]  # both go to conversations/a-b/
    response = api.client.post("/v1/import", json={"data": twice}, headers=api.auth)
    assert response.status_code == 422, response.text
    assert "conversations/a-b/session_01.md" in response.json()["error"]["message"]
    assert not (api.bridge.settings.vault_path / "conversations").exists()


def test_importing_the_same_file_twice_reports_unchanged(api: LiveApi) -> None:
    body = {"data": [transcript("team", 3), transcript("café ☕", 2)]}
    first = api.client.post("/v1/import", json=body, headers=api.auth).json()
    assert len(first["written"]) == 5 and first["kept"] == []
    again = api.client.post("/v1/import", json=body, headers=api.auth).json()
    assert again == {"written": [], "unchanged": 5, "kept": []}


def test_an_unexpected_failure_is_a_500_without_paths_and_the_connection_lives_on(
    template_vault: Path, tmp_path: Path
) -> None:
    """A bug (here a route that fails as a file-system call would) must not leak the vault's
    place nor cost the client its connection."""
    bridge = open_test_bridge(template_vault, tmp_path / "state")
    app = create_app(bridge, "t0ken")

    def broken() -> None:
        (template_vault / NOTE / "x.md").read_bytes()  # NotADirectoryError naming the vault

    app.add_api_route("/v1/broken", broken)
    server = BackgroundServer(app)
    url = server.start()
    try:
        with httpx.Client(base_url=url, headers={"Authorization": "Bearer t0ken"}) as client:
            response = client.get("/v1/broken")
            assert response.status_code == 500
            assert response.json()["error"]["code"] == "internal"
            assert "NotADirectoryError" in response.json()["error"]["message"]
            assert str(template_vault) not in response.text and str(tmp_path) not in response.text
            assert client.get("/v1/status").status_code == 200
    finally:
        server.stop()
        bridge.close()
