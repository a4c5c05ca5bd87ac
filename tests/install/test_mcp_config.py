"""`vault-bridge mcp-config`: the entry for each client, and merging it into real files."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from bridge.install.executable import installed_command
from tests.install.conftest import Run, cli, make_vault

CLIENTS = ["claude-code", "cursor", "claude-desktop", "vscode"]


def mcp_config(capsys: pytest.CaptureFixture[str], client: str, vault: Path, *extra: str) -> Run:
    return cli(capsys, "mcp-config", "--client", client, "--vault", str(vault), *extra)


def user_file(client: str, home: Path) -> Path:
    return {
        "claude-code": home / ".claude.json",
        "cursor": home / ".cursor/mcp.json",
        "claude-desktop": home / ".config/Claude/claude_desktop_config.json",
        "vscode": home / ".config/Code/User/mcp.json",
    }[client]


@pytest.mark.parametrize("client", CLIENTS)
def test_each_client_gets_an_absolute_command_and_vault(
    capsys: pytest.CaptureFixture[str], client: str, vault: Path, home: Path
) -> None:
    result = mcp_config(capsys, client, vault, "--json")
    assert result.code == 0
    out = result.json()
    key = "servers" if client == "vscode" else "mcpServers"
    assert out["file"] == str(user_file(client, home)) and out["key"] == key
    entry = out["snippet"][key]["vault-bridge"]
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).exists()
    expected = [*installed_command(), "mcp", "--vault", str(vault)]
    assert [entry["command"], *entry["args"]] == expected
    if client in ("vscode", "claude-code"):
        assert entry["type"] == "stdio"
    assert not user_file(client, home).exists()  # printing writes nothing


def test_claude_code_also_gets_its_own_add_command(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    text = mcp_config(capsys, "claude-code", vault).out
    line = next(x.strip() for x in text.splitlines() if x.strip().startswith("claude mcp add"))
    add = ["claude", "mcp", "add", "--scope", "user", "vault-bridge", "--"]
    assert shlex.split(line) == [*add, *installed_command(), "mcp", "--vault", str(vault)]
    json_start = text.index("{")
    json.loads(text[json_start : text.index("\n}\n", json_start) + 2])  # the printed snippet


@pytest.mark.parametrize(
    ("client", "rel"),
    [("claude-code", ".mcp.json"), ("cursor", ".cursor/mcp.json"), ("vscode", ".vscode/mcp.json")],
)
def test_project_scope_writes_into_the_project(
    capsys: pytest.CaptureFixture[str], client: str, rel: str, vault: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    result = mcp_config(
        capsys, client, vault, "--scope", "project", "--project", str(project), "--write"
    )
    assert result.code == 0 and "created" in result.out
    assert (project / rel).is_file()


def test_claude_desktop_has_no_project_scope(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    result = mcp_config(capsys, "claude-desktop", vault, "--scope", "project")
    assert result.code == 2 and "no project configuration" in result.err


@pytest.mark.parametrize(
    ("platform", "rel"),
    [
        ("macos", "Library/Application Support/Claude/claude_desktop_config.json"),
        ("windows", "AppData/Roaming/Claude/claude_desktop_config.json"),
    ],
)
def test_claude_desktop_file_per_platform(
    capsys: pytest.CaptureFixture[str], platform: str, rel: str, vault: Path, home: Path
) -> None:
    out = mcp_config(capsys, "claude-desktop", vault, "--platform", platform, "--json").json()
    assert out["file"] == str(home / rel)


def test_write_merges_and_keeps_everything_else(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path
) -> None:
    path = home / ".claude.json"
    existing = {
        "numStartups": 42,
        "mcpServers": {
            "github": {"type": "stdio", "command": "npx", "args": ["-y", "gh"], "env": {"T": "x"}},
            "docs": {"type": "http", "url": "https://example.com/mcp"},
        },
        "projects": {"/w": {"allowedTools": [], "ratio": 0.25, "note": "é ✓"}},
        "zLast": None,
    }
    path.write_text(json.dumps(existing, indent=2, ensure_ascii=False) + "\n")
    path.chmod(0o640)
    result = mcp_config(capsys, "claude-code", vault, "--write")
    assert result.code == 0 and "updated" in result.out
    after = json.loads(path.read_text())
    assert list(after) == list(existing)  # top-level order kept
    assert list(after["mcpServers"]) == ["github", "docs", "vault-bridge"]
    for key in ("numStartups", "projects", "zLast"):  # same values, in the same order
        assert json.dumps(after[key]) == json.dumps(existing[key])
    for name in ("github", "docs"):
        assert json.dumps(after["mcpServers"][name]) == json.dumps(existing["mcpServers"][name])
    assert after["mcpServers"]["vault-bridge"]["args"][-1] == str(vault)
    assert path.stat().st_mode & 0o777 == 0o640  # the file's mode is kept
    assert path.read_text().startswith('{\n  "numStartups": 42,')  # and its layout


def test_a_second_write_is_unchanged_and_does_not_touch_the_file(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path
) -> None:
    assert "created" in mcp_config(capsys, "cursor", vault, "--write").out
    path = home / ".cursor/mcp.json"
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    result = mcp_config(capsys, "cursor", vault, "--write")
    assert result.code == 0 and "unchanged" in result.out
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stamp


@pytest.mark.parametrize(
    ("client", "content", "message"),
    [
        ("cursor", '{"mcpServers": {"a": 1},}', "not valid JSON"),
        ("claude-desktop", "[1, 2]", "not an object"),
        ("cursor", '{"mcpServers": []}', '"mcpServers" is not an object'),
        ("cursor", '{"a": 1, "a": 2}', "appears twice"),
        ("vscode", '{\n  // mine\n  "servers": {}\n}\n', "comments"),
        # Read as infinity and written back as `Infinity`, which Node's JSON.parse refuses.
        ("cursor", '{"mcpServers": {}, "zoom": 1e400}', "1e400 is too large"),
        ("cursor", '{"mcpServers": {}, "zoom": NaN}', "`NaN` is not JSON"),
        ("claude-desktop", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_a_file_that_is_not_a_json_object_is_refused_and_left_alone(
    capsys: pytest.CaptureFixture[str], client: str, content: str, message: str, home: Path
) -> None:
    vault = make_vault(home.parent, "v")
    path = user_file(client, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    stamp = path.stat().st_mtime_ns
    result = mcp_config(capsys, client, vault, "--write")
    assert result.code == 2 and message in result.err
    assert path.read_text() == content and path.stat().st_mtime_ns == stamp


def test_an_entry_for_another_vault_is_kept_and_ours_gets_the_folder_name(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path, tmp_path: Path
) -> None:
    other = make_vault(tmp_path, "Work")
    base = ("mcp-config", "--client", "cursor", "--write", "--json")
    cli(capsys, *base, "--vault", str(other))
    out = cli(capsys, *base, "--vault", str(vault)).json()
    assert out["name"] == "vault-bridge-my-notes-100"
    servers = json.loads((home / ".cursor/mcp.json").read_text())["mcpServers"]
    assert servers["vault-bridge"]["args"][-1] == str(other)
    assert servers["vault-bridge-my-notes-100"]["args"][-1] == str(vault)
    again = cli(capsys, *base, "--vault", str(vault)).json()  # finds its own entry again
    assert again["name"] == "vault-bridge-my-notes-100" and again["written"] == "unchanged"


def test_updating_our_entry_keeps_keys_the_user_added(
    capsys: pytest.CaptureFixture[str], vault: Path, home: Path
) -> None:
    path = home / ".cursor/mcp.json"
    path.parent.mkdir(parents=True)
    old = {"command": "/old/bridge", "args": ["mcp", "--vault", str(vault)], "env": {"K": "v"}}
    path.write_text(json.dumps({"mcpServers": {"vault-bridge": old, "z": {}}}))
    out = mcp_config(capsys, "cursor", vault, "--write", "--json").json()
    assert out["written"] == "updated"
    text = path.read_text()
    assert "\n" not in text.strip()  # a one-line file stays one line
    servers = json.loads(text)["mcpServers"]
    assert list(servers) == ["vault-bridge", "z"]
    assert servers["vault-bridge"]["env"] == {"K": "v"}
    assert servers["vault-bridge"]["command"] == installed_command()[0]


def test_a_state_dir_from_the_settings_is_passed_on(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULT_BRIDGE_STATE_DIR", str(tmp_path / "state"))
    out = mcp_config(capsys, "cursor", vault, "--json").json()
    args = out["entry"]["args"]
    assert args[-2:] == ["--state-dir", str(tmp_path / "state")]


def test_a_missing_vault_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    result = mcp_config(capsys, "cursor", tmp_path / "nope")
    assert result.code == 2 and "no vault folder" in result.err
