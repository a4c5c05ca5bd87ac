"""`vault-bridge service install|uninstall|status` against fake service managers on PATH."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.install.conftest import calls, cli, fake_tool


def unit_path(home: Path, capsys: pytest.CaptureFixture[str], vault: Path) -> Path:
    out = cli(capsys, "service", "install", "--print", "--json", "--vault", str(vault)).json()
    path = Path(str(out["file"]))
    assert path.parent == home / ".config/systemd/user"
    return path


def test_install_without_systemctl_writes_the_unit_and_says_how_to_load_it(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path
) -> None:
    path = unit_path(home, capsys, vault)
    printed = cli(capsys, "service", "install", "--print", "--vault", str(vault)).out
    result = cli(capsys, "service", "install", "--vault", str(vault))
    assert result.code == 0
    assert path.read_text() == printed
    assert "NOT running yet" in result.out and "systemctl was not found" in result.out
    assert "systemctl --user daemon-reload" in result.out
    assert f"systemctl --user enable --now {path.name}" in result.out


def test_install_loads_the_unit_with_systemctl(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, bin_dir: Path
) -> None:
    log = fake_tool(bin_dir, "systemctl")
    path = unit_path(home, capsys, vault)
    result = cli(capsys, "service", "install", "--vault", str(vault), "--json")
    out = result.json()
    assert result.code == 0 and out["loaded"] is True and out["outcome"] == "created"
    assert calls(log) == [
        ["--user", "daemon-reload"],
        ["--user", "enable", "--now", path.name],
    ]
    assert out["load_by_hand"] == []


def test_a_failing_systemctl_keeps_the_file_and_says_it_is_not_running(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, bin_dir: Path
) -> None:
    fake_tool(bin_dir, "systemctl", exit_code=1, stdout="Failed to connect to bus")
    path = unit_path(home, capsys, vault)
    result = cli(capsys, "service", "install", "--vault", str(vault))
    assert result.code == 0 and path.is_file()
    assert "NOT running yet" in result.out and "Failed to connect to bus" in result.out


def test_installing_again_leaves_an_identical_unit_untouched(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, bin_dir: Path
) -> None:
    log = fake_tool(bin_dir, "systemctl")
    path = unit_path(home, capsys, vault)
    assert cli(capsys, "service", "install", "--vault", str(vault)).code == 0
    stamp = path.stat().st_mtime_ns
    out = cli(capsys, "service", "install", "--vault", str(vault), "--json").json()
    assert out["outcome"] == "unchanged" and path.stat().st_mtime_ns == stamp
    assert ["--user", "try-restart", path.name] not in calls(log)


def test_uninstall_stops_and_removes_the_unit_and_can_be_repeated(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, bin_dir: Path
) -> None:
    log = fake_tool(bin_dir, "systemctl")
    path = unit_path(home, capsys, vault)
    cli(capsys, "service", "install", "--vault", str(vault))
    result = cli(capsys, "service", "uninstall", "--vault", str(vault))
    assert result.code == 0 and not path.exists()
    assert ["--user", "disable", "--now", path.name] in calls(log)
    assert calls(log)[-1] == ["--user", "daemon-reload"]
    again = cli(capsys, "service", "uninstall", "--vault", str(vault))
    assert again.code == 0 and "nothing to do" in again.out


def test_uninstall_and_install_leave_a_unit_they_did_not_write_alone(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, bin_dir: Path
) -> None:
    log = fake_tool(bin_dir, "systemctl")
    path = unit_path(home, capsys, vault)
    path.parent.mkdir(parents=True)
    path.write_text("[Service]\nExecStart=/usr/bin/true\n")
    before = path.read_bytes()
    removed = cli(capsys, "service", "uninstall", "--vault", str(vault))
    assert removed.code == 2 and "not written by vault-bridge" in removed.err
    installed = cli(capsys, "service", "install", "--vault", str(vault))
    assert installed.code == 2
    assert path.read_bytes() == before and calls(log) == []


def test_status_reports_file_manager_state_and_bridge(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, bin_dir: Path
) -> None:
    out = cli(capsys, "service", "status", "--vault", str(vault), "--json").json()
    assert out["installed"] is False and out["state"] == "unknown"
    fake_tool(bin_dir, "systemctl", stdout="active")
    cli(capsys, "service", "install", "--vault", str(vault))
    out = cli(capsys, "service", "status", "--vault", str(vault), "--json").json()
    assert out["installed"] is True and out["ours"] is True and out["state"] == "active"
    assert out["serving"] == {"pid": None, "url": None, "answers": False}


def test_install_warns_when_a_bridge_already_serves_the_vault(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    discovery = {"pid": os.getpid(), "port": 1, "url": "http://127.0.0.1:1"}
    (state / "bridge.json").write_text(json.dumps(discovery))
    result = cli(capsys, "service", "install", "--vault", str(vault), "--state-dir", str(state))
    assert result.code == 0
    assert f"already running for this vault (pid {os.getpid()})" in result.err
    argv = ["--vault", str(vault), "--state-dir", str(state)]
    out = cli(capsys, "service", "install", "--print", "--json", *argv).json()
    assert '"--state-dir" "' + str(state) + '"' in str(out["content"])


def test_macos_install_bootstraps_the_agent_into_the_gui_domain(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, bin_dir: Path
) -> None:
    log = fake_tool(bin_dir, "launchctl")
    out = cli(
        capsys, "service", "install", "--platform", "macos", "--vault", str(vault), "--json"
    ).json()
    plist = Path(str(out["file"]))
    assert plist.is_file() and out["loaded"] is True
    assert ["bootstrap", f"gui/{os.getuid()}", str(plist)] in calls(log)
    assert (home / "Library/Logs/vault-bridge").is_dir()  # launchd does not create it
    removed = cli(capsys, "service", "uninstall", "--platform", "macos", "--vault", str(vault))
    assert removed.code == 0
    assert not plist.exists()
    label = plist.name.removesuffix(".plist")
    assert calls(log)[-1] == ["bootout", f"gui/{os.getuid()}/{label}"]


def test_windows_install_imports_the_utf16_task_with_schtasks(
    capsys: pytest.CaptureFixture[str], vault: Path, bin_dir: Path
) -> None:
    log = fake_tool(bin_dir, "schtasks")
    out = cli(
        capsys, "service", "install", "--platform", "windows", "--vault", str(vault), "--json"
    ).json()
    xml = Path(str(out["file"]))
    name = str(out["name"])
    assert xml.read_bytes().startswith(b"\xff\xfe")  # UTF-16 LE with its BOM
    assert ET.parse(xml).getroot().tag.endswith("Task")
    assert calls(log) == [
        ["/Create", "/TN", name, "/XML", str(xml), "/F"],
        ["/Run", "/TN", name],
    ]


def test_install_names_the_config_file_for_variables_the_service_will_not_see(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bridge.cli.install_commands import default_config_file

    monkeypatch.setenv("VAULT_BRIDGE_LLM_MODEL", "ollama/llama3.1")
    result = cli(capsys, "service", "install", "--vault", str(vault))
    assert "VAULT_BRIDGE_LLM_MODEL set here will not reach the service" in result.err
    assert str(default_config_file()) in " ".join(
        result.err.split()
    )  # where, not docs/ a wheel lacks
    assert "docs/configuration.md" not in result.err
