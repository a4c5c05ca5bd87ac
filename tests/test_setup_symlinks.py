"""Putting the plugin into a vault never writes outside it through a symlink, and the list of
enabled plugins keeps its own layout and is never loaded whole when it is absurdly large."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from pathlib import Path

import pytest

from bridge import obsidian_plugin
from bridge.cli import main
from bridge.obsidian_plugin import PLUGIN_FILES
from tests.conftest import snapshot
from tests.test_setup import ENABLED, LIVED_IN, PLUGIN, run_setup


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    target = tmp_path / "Notes"
    shutil.copytree(LIVED_IN, target)
    return target


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "keep.txt").write_text("someone else's folder\n")
    return folder


def test_a_plugin_folder_linked_outside_the_vault_is_refused(
    vault: Path, built: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / PLUGIN).symlink_to(outside, target_is_directory=True)
    before_vault, before_outside = snapshot(vault), snapshot(outside)
    assert main(["setup", "--vault", str(vault)]) == 2
    err = capsys.readouterr().err
    assert ".obsidian/plugins/vault-bridge" in err and "outside the vault" in err
    assert "--follow-symlinks" in err
    assert str(vault) not in err.replace("\n", "")  # named inside the vault, not by its path
    assert snapshot(outside) == before_outside  # no main.js, manifest.json, styles.css there
    assert snapshot(vault) == before_vault  # nothing written inside either


def test_an_enabled_list_linked_outside_the_vault_is_refused(
    vault: Path, built: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs = outside / "community-plugins.json"
    theirs.write_text('["other"]')
    (vault / ENABLED).unlink()
    (vault / ENABLED).symlink_to(theirs)
    assert main(["setup", "--vault", str(vault), "--json"]) == 2
    assert "community-plugins.json" in capsys.readouterr().err
    assert theirs.read_text() == '["other"]'
    assert not (vault / PLUGIN).exists()


def test_a_config_folder_linked_outside_the_vault_is_refused(
    vault: Path, built: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(vault / ".obsidian")
    (vault / ".obsidian").symlink_to(outside, target_is_directory=True)
    assert main(["setup", "--vault", str(vault)]) == 2
    assert "`.obsidian` is a symlink" in capsys.readouterr().err
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]


def test_a_plugin_folder_that_links_to_itself_is_refused(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / PLUGIN).symlink_to(vault / PLUGIN)
    assert main(["setup", "--vault", str(vault)]) == 2
    assert "a loop" in capsys.readouterr().err
    assert json.loads((vault / ENABLED).read_text()) == ["dataview", "obsidian-git"]


def test_follow_symlinks_writes_through_the_link_when_asked(
    vault: Path, built: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / PLUGIN).symlink_to(outside, target_is_directory=True)
    out = run_setup(capsys, vault, "--follow-symlinks")
    for name in PLUGIN_FILES:
        assert (outside / name).read_bytes() == (built / name).read_bytes()
    assert (vault / PLUGIN).is_symlink()
    assert any("outside the vault" in w for w in out["warnings"])  # type: ignore[union-attr]


def test_a_link_that_stays_inside_the_vault_is_fine(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = vault / ".obsidian" / "shared-plugin"
    shared.mkdir()
    (vault / PLUGIN).symlink_to(shared, target_is_directory=True)
    run_setup(capsys, vault)
    assert (shared / "main.js").read_bytes() == (built / "main.js").read_bytes()


def test_init_and_make_run_refuse_the_same_links(
    tmp_path: Path, outside: Path, capsys: pytest.CaptureFixture[str], built: Path
) -> None:
    existing = tmp_path / "existing"
    (existing / ".obsidian" / "plugins").mkdir(parents=True)
    (existing / ".obsidian" / "plugins" / "vault-bridge").symlink_to(outside)
    assert obsidian_plugin.main([str(existing)]) == 2
    assert "outside the vault" in capsys.readouterr().err

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / ".obsidian").symlink_to(outside, target_is_directory=True)
    assert main(["init", "--force", str(fresh)]) == 2
    assert "outside the vault" in capsys.readouterr().err
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]  # no template files there
    assert not (fresh / "Welcome.md").exists()  # refused before anything was copied


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('["dataview","obsidian-git"]', '["dataview","obsidian-git","vault-bridge"]'),
        ('["dataview", "obsidian-git"]\n', '["dataview", "obsidian-git", "vault-bridge"]\n'),
        ("[]", '["vault-bridge"]'),
        (
            '[\n    "dataview",\n    "obsidian-git"\n]',
            '[\n    "dataview",\n    "obsidian-git",\n    "vault-bridge"\n]',
        ),
        ('[\r\n\t"dataview"\r\n]\r\n', '[\r\n\t"dataview",\r\n\t"vault-bridge"\r\n]\r\n'),
        ("[\n]\n", '[\n  "vault-bridge"\n]\n'),
        ('["caf\\u00e9"]', '["caf\\u00e9","vault-bridge"]'),
    ],
)
def test_the_enabled_list_keeps_its_own_layout(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str], before: str, after: str
) -> None:
    (vault / ENABLED).write_bytes(before.encode())
    run_setup(capsys, vault)
    assert (vault / ENABLED).read_bytes() == after.encode()


def test_a_huge_enabled_list_is_refused_without_being_loaded(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [f"plugin-{n:07d}" for n in range(400_000)]  # about 6.4 MB of JSON
    (vault / ENABLED).write_text(json.dumps(ids))
    before = (vault / ENABLED).read_bytes()
    tracemalloc.start()
    try:
        out = run_setup(capsys, vault)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (vault / ENABLED).read_bytes() == before
    assert peak < 2 * 1024 * 1024  # the file was never read whole (it is 6 MB)
    warning = " ".join(out["warnings"])  # type: ignore[arg-type]
    assert "community-plugins.json" in warning and "1 MB" in warning
    assert (vault / PLUGIN / "main.js").is_file()  # the plugin itself is installed


def test_a_plugins_folder_that_links_back_up_is_refused(
    vault: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `.obsidian/plugins -> ..` stays inside the vault, but the plugin's files landed in the
    # vault's root folder (`vault-bridge/main.js` beside the notes).
    plugins = vault / ".obsidian/plugins"
    if plugins.exists():
        shutil.rmtree(plugins)
    plugins.symlink_to("..", target_is_directory=True)
    before = snapshot(vault)
    assert main(["setup", "--vault", str(vault)]) == 2
    assert "`.obsidian/plugins` is a symlink" in capsys.readouterr().err
    assert not (vault / "vault-bridge").exists()
    assert snapshot(vault) == before
