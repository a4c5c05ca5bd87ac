"""Which vault, and settings that fail clearly: one line, exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bridge.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_current_directory_is_a_vault_only_when_it_looks_like_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "notes.md").write_text("# not a vault\n")
    monkeypatch.chdir(scratch)
    code, _, err = _run(capsys, "status", "--state-dir", str(tmp_path / "s"))
    assert code == 2
    assert "not one" in err and "--vault" in err and "VAULT_BRIDGE_VAULT" in err
    (scratch / ".obsidian").mkdir()
    code, out, _ = _run(capsys, "status", "--state-dir", str(tmp_path / "s"), "--json")
    assert code == 0 and json.loads(out)["vault_chosen_by"].startswith("the current directory")


@pytest.mark.parametrize(
    ("how", "rule"),
    [("flag", "--vault"), ("env", "VAULT_BRIDGE_VAULT"), ("config", "`vault` in")],
)
def test_status_says_which_rule_chose_the_vault(
    how: str,
    rule: str,
    template_vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["status", "--json", "--state-dir", str(tmp_path / "s")]
    if how == "flag":
        argv += ["--vault", str(template_vault)]
    elif how == "env":
        monkeypatch.setenv("VAULT_BRIDGE_VAULT", str(template_vault))
    else:
        config = tmp_path / "config.toml"
        config.write_text(f'vault = "{template_vault}"\n')
        monkeypatch.setenv("VAULT_BRIDGE_CONFIG", str(config))
    code, out, _ = _run(capsys, *argv)
    assert code == 0 and json.loads(out)["vault_chosen_by"].startswith(rule)


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        (
            {"env": ("VAULT_BRIDGE_EXCLUDE", "conversations/**")},
            "VAULT_BRIDGE_EXCLUDE is not valid JSON: lists",
        ),
        ({"env": ("VAULT_BRIDGE_PORT", "eighty")}, "VAULT_BRIDGE_PORT=eighty: input should"),
        (
            {"config": 'exclude = ["templates/**", "[z-a]"]\n'},
            "config.toml: `[z-a]` is not a gitignore pattern",
        ),
        (
            {"env": ("VAULT_BRIDGE_PORT", "99999")},
            "invalid setting VAULT_BRIDGE_PORT=99999: must be at most 65535",
        ),
        (
            {"env": ("VAULT_BRIDGE_DECAY_TIME", "25:00")},
            "VAULT_BRIDGE_DECAY_TIME=25:00: decay_time must be between 00:00 and 23:59",
        ),
        ({"config": "port = 99999\n"}, "config.toml: must be at most 65535"),
        (
            # 0 wiped the named speaker's own turns from LoCoMo's answers (recall @500 9.4%)
            {"env": ("VAULT_BRIDGE_RANK_SPEAKER_BOOST", "0")},
            "invalid setting VAULT_BRIDGE_RANK_SPEAKER_BOOST=0: must be at least 1",
        ),
        ({"config": "rank_speaker_boost = 0.5\n"}, "config.toml: must be at least 1"),
        ({"config": "port = [\n"}, "not valid TOML"),
        ({"config": "prot = 27183\n"}, "unknown setting `prot`; did you mean `port`?"),
        ({"missing_config": True}, "does not exist"),
    ],
)
def test_a_settings_error_is_one_line_and_exit_2(
    setup: dict[str, object],
    expected: str,
    template_vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if "env" in setup:
        name, value = setup["env"]  # type: ignore[misc]
        monkeypatch.setenv(name, value)
    if "config" in setup:
        config = tmp_path / "config.toml"
        config.write_text(str(setup["config"]))
        monkeypatch.setenv("VAULT_BRIDGE_CONFIG", str(config))
    if "missing_config" in setup:
        monkeypatch.setenv("VAULT_BRIDGE_CONFIG", str(tmp_path / "absent.toml"))
    code, out, err = _run(capsys, "status", "--vault", str(template_vault), "--json")
    assert code == 2 and out == ""
    assert expected in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 3  # one message (wrapped at most by the terminal)
    # Its real source only, no pydantic wording, and no pointer to docs a wheel does not ship.
    for stray in ("flags, environment", "Value error", "configuration.md", "EnvSettingsSource"):
        assert stray not in err, err


def test_cli_conventions(capsys: pytest.CaptureFixture[str]) -> None:
    from bridge import __version__

    code, out, _ = _run(capsys)
    assert code == 0 and "Usage: vault-bridge" in out and "decay" in out  # bare: the help
    code, out, _ = _run(capsys, "--version")
    assert code == 0 and out.strip() == f"vault-bridge {__version__}"
    code, out, _ = _run(capsys, "status", "--help")
    assert code == 0 and "-V, --vault" in out and "<bool>" not in out


def test_doctor_shows_link_brackets_and_a_failed_add_shows_the_existing_note(
    template_vault: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (template_vault / "journal" / "dangling.md").write_text("# D\n\nSee [[nowhere/page]].\n")
    state = str(tmp_path / "s")
    code, out, _ = _run(capsys, "doctor", "--vault", str(template_vault), "--state-dir", state)
    assert code == 1 and "[[nowhere/page]]" in out  # Rich markup used to eat the brackets
    ops = tmp_path / "ops.json"
    ops.write_text(json.dumps([{"type": "ADD", "path": "engineering/auth/jwt_expiry.md"}]))
    argv = ["curate", "--operations", str(ops), "--vault", str(template_vault), "--state-dir"]
    code, out, _ = _run(capsys, *argv, state, "--json")
    (result,) = json.loads(out)["results"]
    assert code == 1 and result["status"] == "failed"
    assert result["existing"]["path"] == "engineering/auth/jwt_expiry.md"
    assert len(result["existing"]["base_hash"]) == 64


def test_an_unknown_variable_is_named_once_with_the_closest_setting(
    template_vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("VAULT_BRIDGE_PROT", "1")
    monkeypatch.setenv("VAULT_BRIDGE_NOTHING_LIKE_IT", "1")
    argv = ["status", "--json", "--vault", str(template_vault), "--state-dir", str(tmp_path / "s")]
    code, out, err = _run(capsys, *argv)
    assert code == 0 and json.loads(out)["vault"]  # a warning, not an error; stdout stays JSON
    assert err.count("VAULT_BRIDGE_PROT") == 1
    assert (
        "VAULT_BRIDGE_PROT is not a setting and is ignored; did you mean VAULT_BRIDGE_PORT?" in err
    )
    assert "VAULT_BRIDGE_NOTHING_LIKE_IT is not a setting and is ignored (no setting has a" in err


def test_settings_and_the_products_own_variables_raise_no_warning(
    template_vault: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bridge.install.service_spec import SERVICE_ENV
    from bridge.settings import OTHER_VARIABLES

    assert SERVICE_ENV in OTHER_VARIABLES
    monkeypatch.setenv(SERVICE_ENV, "vault-bridge-notes")  # set in a service's environment
    monkeypatch.setenv("VAULT_BRIDGE_DEBOUNCE_MS", "250")
    monkeypatch.setenv("vault_bridge_port", "27199")  # names are matched case-insensitively
    # VAULT_BRIDGE_CONFIG is set for every test (conftest.py).
    argv = ["status", "--json", "--vault", str(template_vault), "--state-dir", str(tmp_path / "s")]
    code, _, err = _run(capsys, *argv)
    assert code == 0 and "warning" not in err
