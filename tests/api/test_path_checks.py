"""Paths and folders a caller names: never another name of a note, never through a folder
symlink, never with control characters; the state dir never inside the vault."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.cli import main
from bridge.mcp.backend import BackendError, LocalBackend
from tests.api.conftest import LiveApi
from tests.curate.helpers import add_op, run

JWT = "engineering/auth/jwt_expiry.md"


def test_a_folder_symlink_back_into_the_vault_is_no_second_name_of_a_note(api: LiveApi) -> None:
    root = api.bridge.store.root
    (root / "loop").symlink_to(".", target_is_directory=True)
    # Through `loop`, the ADD wrote the real `engineering/keys.md` and indexed it twice.
    (outcome,) = run(api.bridge, add_op("loop/engineering/keys.md", title="Keys")).results
    assert outcome.status == "failed" and "`loop`, a folder symlink inside the vault" in (
        outcome.message
    )
    assert not (root / "engineering/keys.md").exists()
    read = api.client.get(f"/v1/entries/loop/{JWT}", headers=api.auth)
    assert read.status_code == 400 and read.json()["error"]["code"] == "bad_path"
    assert api.client.get(f"/v1/entries/{JWT}", headers=api.auth).status_code == 200


def test_a_folder_symlink_leaving_the_vault_is_a_bad_folder_everywhere(
    api: LiveApi, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n")
    root = api.bridge.store.root
    (root / "escape").symlink_to(outside, target_is_directory=True)
    for route in ("/v1/tree?folder=escape", "/v1/graph?folder=escape/sub"):
        answer = api.client.get(route, headers=api.auth)
        assert answer.status_code == 400, route
        assert "a folder symlink leaving the vault" in answer.json()["error"]["message"]
    posted = api.client.post("/v1/overviews", json={"folder": "escape"}, headers=api.auth)
    assert posted.status_code == 400
    with pytest.raises(BackendError, match="folder symlink leaving the vault"):
        LocalBackend(api.bridge).tree("escape", 2)
    state = api.bridge.settings.state_path
    code = main(
        ["overviews", "--folder", "escape", "--vault", str(root), "--state-dir", str(state)]
    )
    assert code == 2 and "folder symlink leaving the vault" in capsys.readouterr().err
    assert api.client.get("/v1/tree?folder=engineering", headers=api.auth).status_code == 200


@pytest.mark.parametrize("folder", ["engineering\n", "engineering\t", "\tengineering"])
def test_a_folder_or_scope_with_a_control_character_is_refused(api: LiveApi, folder: str) -> None:
    # It was stripped and taken as `engineering`.
    tree = api.client.get("/v1/tree", params={"folder": folder}, headers=api.auth)
    assert tree.status_code == 400 and "control character" in tree.json()["error"]["message"]
    body = {"query": "jwt expiry", "scope": folder}
    found = api.client.post("/v1/search", json=body, headers=api.auth)
    assert found.status_code == 400, found.text


def test_a_state_dir_inside_the_vault_is_refused(
    template_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (["serve", "--port", "0"], ["status"]):
        state = template_vault / ".vault-bridge-state"
        code = main([*command, "--vault", str(template_vault), "--state-dir", str(state)])
        assert code == 2, command
        assert "is inside the vault" in capsys.readouterr().err
        assert not state.exists()
