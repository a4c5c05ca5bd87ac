"""`vault-bridge init` installs the built Obsidian plugin and enables it, or says how to build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge import obsidian_plugin
from bridge.cli import main
from bridge.obsidian_plugin import PLUGIN_FILES, install_plugin


def fake_build(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in PLUGIN_FILES:
        (folder / name).write_text(f"built {name}\n")
    return folder


def init_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["init", *argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, dict)
    return out


def test_init_installs_and_enables_the_built_plugin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    build = fake_build(tmp_path / "build")
    monkeypatch.setattr(obsidian_plugin, "plugin_source", lambda: build)
    vault = tmp_path / "vault"
    out = init_json(capsys, str(vault))
    installed = vault / ".obsidian/plugins/vault-bridge"
    assert out["plugin"] == {
        "installed": True,
        "path": str(installed),
        "message": "installed and enabled",
    }
    for name in PLUGIN_FILES:
        assert (installed / name).read_text() == f"built {name}\n"
    enabled = json.loads((vault / ".obsidian/community-plugins.json").read_text())
    assert enabled.count("vault-bridge") == 1
    # The plugin files are build outputs, not template files.
    created = out["created"]
    assert isinstance(created, list)
    assert not any(str(p).startswith(".obsidian/plugins") for p in created)


def test_init_without_a_build_says_how_to_build_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(obsidian_plugin, "plugin_source", lambda: tmp_path / "not-built")
    vault = tmp_path / "vault"
    assert main(["init", str(vault)]) == 0
    printed = capsys.readouterr().out
    assert "make plugin" in printed
    assert (vault / "Welcome.md").is_file()
    assert not (vault / ".obsidian/plugins").exists()


def test_reinstall_updates_the_plugin_but_keeps_its_settings(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    install_plugin(vault, fake_build(tmp_path / "old"))
    settings = vault / ".obsidian/plugins/vault-bridge/data.json"
    settings.write_text('{"token": "mine"}')
    new = tmp_path / "new"
    new.mkdir()
    for name in PLUGIN_FILES:
        (new / name).write_text("v2\n")
    result = install_plugin(vault, new)
    assert result.installed
    assert (vault / ".obsidian/plugins/vault-bridge/main.js").read_text() == "v2\n"
    assert settings.read_text() == '{"token": "mine"}'


def test_install_adds_the_id_to_an_existing_list_and_spares_a_broken_file(
    tmp_path: Path,
) -> None:
    build = fake_build(tmp_path / "build")
    vault = tmp_path / "vault"
    plugins = vault / ".obsidian/community-plugins.json"
    assert install_plugin(vault, build).message == "installed and enabled"  # no file: created
    assert json.loads(plugins.read_text()) == ["vault-bridge"]
    plugins.write_text('["dataview"]')
    install_plugin(vault, build)
    assert json.loads(plugins.read_text()) == ["dataview", "vault-bridge"]
    plugins.write_text('{"not": "a list"}')
    assert "is not a JSON list" in install_plugin(vault, build).message
    assert plugins.read_text() == '{"not": "a list"}'


def test_the_repository_build_is_found_where_make_plugin_puts_it() -> None:
    repository = Path(__file__).resolve().parents[1]
    assert obsidian_plugin.plugin_source() == repository / "obsidian-plugin"


def test_make_run_reinstalls_into_an_existing_vault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    build = fake_build(tmp_path / "build")
    monkeypatch.setattr(obsidian_plugin, "plugin_source", lambda: build)
    vault = tmp_path / "vault"
    vault.mkdir()
    assert obsidian_plugin.main([str(vault)]) == 0
    assert "installed and enabled" in capsys.readouterr().out
    assert (vault / ".obsidian/plugins/vault-bridge/manifest.json").is_file()
    assert obsidian_plugin.main([]) == 2


def test_init_force_on_a_vault_that_has_everything_says_nothing_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    build = fake_build(tmp_path / "build")
    monkeypatch.setattr(obsidian_plugin, "plugin_source", lambda: build)
    vault = tmp_path / "vault"
    assert main(["init", str(vault)]) == 0
    assert "Created a vault at" in capsys.readouterr().out
    assert main(["init", str(vault), "--force"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "Created a vault" not in printed and "(0 files)" not in printed
    assert "Nothing to add to" in printed and "it already holds every template file" in printed
    assert "Obsidian plugin: already installed and enabled (unchanged)" in printed
    (vault / "Welcome.md").unlink()
    assert main(["init", str(vault), "--force"]) == 0
    assert "Added 1 template files to" in " ".join(capsys.readouterr().out.split())
