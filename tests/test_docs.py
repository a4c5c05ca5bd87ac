"""The docs are part of the interface: every setting and CLI command must have its line."""

from __future__ import annotations

import re

import typer

from bridge.cli import app
from bridge.settings import Settings
from tests.conftest import ROOT


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
