"""`vault-bridge setup` on a vault someone has used for years: only the plugin's files change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bridge.cli import main
from tests.conftest import snapshot

LIVED_IN = Path(__file__).resolve().parent / "fixtures" / "lived-in-vault"
PLUGIN = ".obsidian/plugins/vault-bridge"
ENABLED = ".obsidian/community-plugins.json"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "Notes"
    shutil.copytree(LIVED_IN, target)
    return target


def run_setup(capsys: pytest.CaptureFixture[str], vault: Path, *flags: str) -> dict[str, object]:
    assert main(["setup", "--vault", str(vault), "--json", *flags]) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, dict)
    return out


def changed_files(
    before: dict[str, tuple[bytes, int]], after: dict[str, tuple[bytes, int]]
) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def test_setup_changes_only_the_plugin_folder_and_the_enabled_list(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(vault)
    out = run_setup(capsys, vault)
    after = snapshot(vault)
    assert changed_files(before, after) == {
        f"{PLUGIN}/main.js",
        f"{PLUGIN}/manifest.json",
        f"{PLUGIN}/styles.css",
        ENABLED,
    }
    for name in ("main.js", "manifest.json", "styles.css"):
        assert (vault / PLUGIN / name).read_bytes() == (built / name).read_bytes()
    # The other plugins stay enabled, in their order; ours is added once.
    assert json.loads((vault / ENABLED).read_text()) == ["dataview", "obsidian-git", "vault-bridge"]
    assert not (vault / PLUGIN / "data.json").exists()
    assert sorted(out["changed"]) == sorted(changed_files(before, after))  # type: ignore[arg-type]
    # What the vault holds, with the note whose YAML is broken named as a problem.
    notes = out["notes"]
    # 7: `Templates/Daily.md` is no note (the default `templates/**`, matched in any case).
    assert isinstance(notes, dict) and notes["notes"] == 7
    assert out["problems"] == {"malformed_frontmatter": 1, "unresolved_link": 2}


def test_a_dry_run_on_an_up_to_date_vault_says_nothing_would_change(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["setup", "--vault", str(vault), "--dry-run"]) == 0
    assert "Would change" in capsys.readouterr().out
    run_setup(capsys, vault)
    assert main(["setup", "--vault", str(vault), "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "Nothing to change in" in printed and "Would change" not in printed


def test_running_setup_twice_writes_nothing_the_second_time(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_setup(capsys, vault)
    before = snapshot(vault)
    out = run_setup(capsys, vault)
    assert snapshot(vault) == before  # bytes and mtimes
    assert out["changed"] == []
    assert {f["change"] for f in out["files"]} == {"unchanged"}  # type: ignore[union-attr,index]


def test_a_setup_with_nothing_to_change_does_not_read_the_notes_again(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It read every note again to count them (23 s on a 6,280-note vault).
    first = run_setup(capsys, vault)
    assert first["notes"] is not None and first["problems"]
    (vault / "broken.md").write_text("---\ntags: [a\n---\n# Broken\n")  # one more to count
    again = run_setup(capsys, vault)
    assert again["changed"] == [] and again["notes"] is None and again["problems"] is None
    assert main(["setup", "--vault", str(vault)]) == 0
    assert "the notes were not read again" in " ".join(capsys.readouterr().out.split())


def test_dry_run_shows_the_plan_and_writes_nothing(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = snapshot(vault)
    state = tmp_path / "state"
    out = run_setup(capsys, vault, "--dry-run", "--connect", "--state-dir", str(state))
    assert snapshot(vault) == before
    assert not state.exists()  # not even the token is created
    changes = {f["path"]: f["change"] for f in out["files"]}  # type: ignore[union-attr,index]
    assert changes == {
        f"{PLUGIN}/main.js": "create",
        f"{PLUGIN}/manifest.json": "create",
        f"{PLUGIN}/styles.css": "create",
        ENABLED: "update",
        f"{PLUGIN}/data.json": "create",
    }
    assert out["changed"] == []


def test_the_plugins_own_settings_change_only_with_connect(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    settings = vault / PLUGIN / "data.json"
    settings.parent.mkdir(parents=True)
    mine = b'{"url": "http://127.0.0.1:9999", "token": "old", "stateDir": "/my/state"}'
    settings.write_bytes(mine)
    (vault / PLUGIN / "main.js").write_text("an older build\n")
    out = run_setup(capsys, vault)
    assert settings.read_bytes() == mine  # the update of main.js leaves data.json alone
    assert f"{PLUGIN}/main.js" in out["changed"]  # type: ignore[operator]

    state = tmp_path / "state"
    run_setup(capsys, vault, "--connect", "--state-dir", str(state))
    token = (state / "token").read_text().strip()
    assert json.loads(settings.read_text()) == {
        "url": "http://127.0.0.1:27182",
        "token": token,
        "stateDir": "/my/state",
    }
    again = run_setup(capsys, vault, "--connect", "--state-dir", str(state))
    assert again["changed"] == []  # the same token: nothing to write
    # Without a running bridge the report says which address it wrote and that none answers.
    assert main(["setup", "--vault", str(vault), "--connect", "--state-dir", str(state)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "points at http://127.0.0.1:27182, the configured address" in text
    assert "the bridge is not running now" in text
    assert "Start the bridge" in text
    assert again["connect"] == {"url": "http://127.0.0.1:27182", "running": False}


def test_a_newer_plugin_in_the_vault_is_not_downgraded_without_force(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    installed = vault / PLUGIN
    installed.mkdir(parents=True)
    manifest = json.loads((built / "manifest.json").read_text())
    (installed / "manifest.json").write_text(json.dumps({**manifest, "version": "99.0.0"}))
    (installed / "main.js").write_text("a newer build from BRAT\n")
    out = run_setup(capsys, vault)
    assert (installed / "main.js").read_text() == "a newer build from BRAT\n"
    assert any("newer" in w for w in out["warnings"])  # type: ignore[union-attr]
    run_setup(capsys, vault, "--force")
    assert (installed / "main.js").read_bytes() == (built / "main.js").read_bytes()


def test_an_enabled_list_that_is_not_json_is_left_alone_and_named(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / ENABLED).write_text('["dataview",\n')  # someone's half-saved edit
    out = run_setup(capsys, vault)
    assert (vault / ENABLED).read_text() == '["dataview",\n'
    assert any("not a JSON list" in w for w in out["warnings"])  # type: ignore[union-attr]
    assert (vault / PLUGIN / "main.js").is_file()


def test_a_folder_never_opened_in_obsidian_gets_the_plugin_and_a_hint(
    tmp_path: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "plain"
    notes.mkdir()
    (notes / "idea.md").write_text("just a note\n")
    out = run_setup(capsys, notes)
    assert any("Open folder as vault" in w for w in out["warnings"])  # type: ignore[union-attr]
    assert json.loads((notes / ENABLED).read_text()) == ["vault-bridge"]
    assert (notes / "idea.md").read_text() == "just a note\n"


def test_setup_says_what_comes_next(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["setup", "--vault", str(vault)]) == 0
    text = capsys.readouterr().out
    assert "vault-bridge service install --vault" in text
    assert "Restricted mode" in text
    assert "vault-bridge mcp-config --client" in text
    assert "1 note has problems (malformed frontmatter: 1); 2 unresolved links in 1 note" in text


def test_a_config_dir_outside_the_vault_is_refused(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(vault)
    assert main(["setup", "--vault", str(vault), "--config-dir", "../elsewhere"]) == 2
    assert "--config-dir" in capsys.readouterr().err
    assert snapshot(vault) == before
