"""The docs are part of the interface: every setting and CLI command must have its line."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import typer

from bridge.cli import app
from bridge.settings import Settings
from tests.conftest import CEILING, ROOT
from tests.test_one_bridge import serving

__all__ = ["serving"]  # the fixture: a live `serve` on a temp vault


def command_names() -> list[str]:
    names: list[str] = []

    def walk(command: object, prefix: str) -> None:
        children = getattr(command, "commands", None)
        if isinstance(children, dict):
            for name, child in children.items():
                walk(child, f"{prefix} {name}".strip())
        else:
            names.append(prefix)

    walk(typer.main.get_command(app), "")
    return names


def test_every_setting_is_documented() -> None:
    text = (ROOT / "docs/configuration.md").read_text()
    missing = [
        name
        for name in Settings.model_fields
        if not re.search(rf"^\|\s*`VAULT_BRIDGE_{name.upper()}`", text, re.MULTILINE)
    ]
    assert missing == [], f"settings without a row in docs/configuration.md: {missing}"


def test_every_cli_command_is_documented() -> None:
    text = (ROOT / "docs/cli.md").read_text()
    names = command_names()
    assert {"init", "status", "doctor", "serve"} <= set(names)
    missing = [n for n in names if f"`vault-bridge {n}" not in text]
    assert missing == [], f"commands without a line in docs/cli.md: {missing}"


def test_readme_starts_with_the_two_commands() -> None:
    head = (ROOT / "README.md").read_text().split("\n")[:15]
    assert "make run" in "\n".join(head) and "make test" in "\n".join(head)


def test_the_serve_banner_is_the_one_docs_cli_shows() -> None:
    from bridge.cli.serve_command import banner

    shown = banner(
        Path("/home/ana/Notes"),
        "http://127.0.0.1:27182",
        Path("/home/ana/.local/share/vault-bridge/3f9c0a1b2d4e/token"),
        18,
    )
    assert f"```\n{shown}\n```" in (ROOT / "docs/cli.md").read_text()


def test_readme_says_when_a_question_is_out_of_domain() -> None:
    minimum = Settings.model_fields["ood_min_entries"].default
    text = " ".join((ROOT / "README.md").read_text().split())
    promise = (
        f"in a vault of {minimum} notes or more (`ood_min_entries`), out-of-domain questions "
        'get "Nothing in memory about this"'
    )
    assert promise in text


def test_the_curl_example_of_docs_api_runs_as_written(serving: tuple[Path, Path]) -> None:
    """The snippet needs only the vault it names: token and address come from its state."""
    vault, state = serving
    text = (ROOT / "docs/api.md").read_text()
    snippet = text.split("### curl", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert snippet.startswith("VAULT=~/Notes\n")
    script = snippet.replace("VAULT=~/Notes", f"VAULT={shlex.quote(str(vault))}", 1)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "VAULT_BRIDGE_STATE_DIR": str(state),  # this test's state; yours is found by the vault
    }
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=CEILING,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "24 h" in done.stdout or "24 hours" in done.stdout, done.stdout
