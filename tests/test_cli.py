"""The CLI as a script sees it: exit codes and JSON on stdout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer.main

from bridge.cli import COMMANDS, app, main, register
from tests.conftest import TEMPLATE, TRICKY, snapshot


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_init_copies_the_template(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_json(capsys, "init", str(tmp_path / "new"))
    assert code == 0
    assert isinstance(out, dict)
    expected = sorted(
        p.relative_to(TEMPLATE).as_posix() for p in TEMPLATE.rglob("*") if p.is_file()
    )
    assert sorted(out["created"]) == expected
    assert (tmp_path / "new/Welcome.md").read_bytes() == (TEMPLATE / "Welcome.md").read_bytes()


def test_init_refuses_a_non_empty_folder_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "Welcome.md").write_text("my own welcome\n")
    assert main(["init", str(target)]) == 2
    assert "not empty" in capsys.readouterr().err
    code, out = run_json(capsys, "init", str(target), "--force")
    assert code == 0 and isinstance(out, dict)
    assert out["kept"] == ["Welcome.md"]
    assert (target / "Welcome.md").read_text() == "my own welcome\n"
    assert (target / "engineering").is_dir()


def test_status_counts_the_template(
    template_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_json(capsys, "status", "--vault", str(template_vault))
    assert code == 0 and isinstance(out, dict)
    assert out["notes"] == 18
    assert out["entries"] == 13
    assert out["unresolved_links"] == 0
    assert out["problem_notes"] == 0
    assert out["relations"] >= 30


def test_status_says_what_an_entry_is_on_an_ordinary_vault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bare "entries 0" read as "nothing indexed" to a new user of an ordinary vault."""
    vault = tmp_path / "plain"
    vault.mkdir()
    (vault / "Groceries.md").write_text("# Groceries\n\nmilk, eggs\n")
    assert main(["status", "--vault", str(vault), "--state-dir", str(tmp_path / "s")]) == 0
    out = capsys.readouterr().out
    assert "entries (notes with entry sections)" in out


def test_status_reads_the_vault_from_the_environment(
    template_vault: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULT_BRIDGE_VAULT", str(template_vault))
    code, out = run_json(capsys, "status")
    assert code == 0 and isinstance(out, dict) and out["vault"] == str(template_vault.resolve())


def test_doctor_names_every_problem_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "v"
    shutil.copytree(TRICKY, vault)
    (vault / "empty.md").write_bytes(b"")
    (vault / "blob.md").write_bytes(b"\x00\x01binary")
    (vault / "latin1.md").write_bytes(b"caf\xe9\n")
    (vault / "huge.md").write_bytes(b"x" * (9 * 1024 * 1024))
    (vault / "escape.md").symlink_to(tmp_path / "outside.md")
    (tmp_path / "outside.md").write_text("outside\n")
    before = snapshot(vault)
    code, out = run_json(capsys, "doctor", "--vault", str(vault))
    assert code == 1 and isinstance(out, dict)
    found = {(n["path"], p["code"]) for n in out["notes"] for p in n["problems"]}
    found |= {(n["path"], "unresolved_link") for n in out["notes"] if n["unresolved_links"]}
    assert found == {
        ("malformed_yaml.md", "malformed_frontmatter"),
        ("duplicate_frontmatter.md", "duplicate_frontmatter"),
        ("empty.md", "empty"),
        ("blob.md", "binary"),
        ("latin1.md", "not_utf8"),
        ("huge.md", "too_large"),
        ("escape.md", "outside_vault"),
        ("human_formatted.md", "unresolved_link"),
    }
    assert all(p["message"].startswith(n["path"]) for n in out["notes"] for p in n["problems"])
    assert snapshot(vault) == before


def test_doctor_on_a_clean_vault_exits_zero(
    template_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--vault", str(template_vault)]) == 0
    assert "No problems" in capsys.readouterr().out


def test_missing_vault_exits_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["status", "--vault", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"]) == 2


def _module_of(callback: object) -> str:
    return str(getattr(callback, "__module__", "")).rsplit(".", 1)[-1]


def test_each_command_is_found_in_the_module_main_imports_for_it() -> None:
    # `main` imports only the module `COMMANDS` names for the command asked for: a command
    # missing there, or named with the wrong module, would be "No such command".
    register()
    registered = {
        info.name or typer.main.get_command_name(info.callback.__name__): _module_of(info.callback)
        for info in app.registered_commands
        if info.callback is not None
    }
    for group in app.registered_groups:
        (first, *_) = group.typer_instance.registered_commands
        registered[str(group.name)] = _module_of(first.callback)
    assert registered == COMMANDS


@pytest.mark.parametrize(
    ("command", "shows"),
    [
        (["query"], "TEXT"),
        (["search"], "TEXT"),
        (["review", "show"], "ID"),
        (["review", "approve"], "ID"),
        (["init"], "DIR"),
        (["lifecycle"], "PATH"),
        (["mcp-config"], "--platform"),
    ],
)
def test_help_names_arguments_as_a_person_reads_them(
    capsys: pytest.CaptureFixture[str], command: list[str], shows: str
) -> None:
    # It showed `{text}`, `{review_id}`, `[1<=x<=4611686018427387904]`, and "mainly for
    # --print" on commands that have no --print.
    assert main([*command, "--help"]) == 0
    text = capsys.readouterr().out
    assert shows in text
    assert "4611686018427387904" not in text and "{text}" not in text
    assert "{review_id}" not in text and "{directory}" not in text
    if command == ["mcp-config"]:
        assert "mainly for --print" not in text


def test_a_review_id_out_of_range_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("0", str(2**70)):
        assert main(["review", "show", bad]) == 2
        assert "names no review" in capsys.readouterr().err
