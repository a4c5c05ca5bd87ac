"""The docs are part of the interface: every setting and CLI command must have its line."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import typer

from bridge.cli import app, register
from bridge.settings import Settings
from tests.conftest import CEILING, ROOT
from tests.test_one_bridge import serving

__all__ = ["serving"]  # the fixture: a live `serve` on a temp vault


def commands() -> dict[str, object]:
    """Every command (`review approve`...) by its full name, as click holds it."""
    found: dict[str, object] = {}

    def walk(command: object, prefix: str) -> None:
        children = getattr(command, "commands", None)
        if isinstance(children, dict):
            for name, child in children.items():
                walk(child, f"{prefix} {name}".strip())
        else:
            found[prefix] = command

    register()  # every command module, as `--help` does
    walk(typer.main.get_command(app), "")
    return found


def command_names() -> list[str]:
    return list(commands())


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


def _commands_without(option: str) -> list[str]:
    """The commands that do not take `option`, alphabetically: the walk follows the order the
    command modules were imported in, which another test importing one (`serve_command` for
    its banner) changed, so the sentence matched or not by which test ran first."""
    return sorted(
        name
        for name, command in commands().items()
        if not any(option in getattr(p, "opts", []) for p in getattr(command, "params", []))
    )


def test_docs_cli_names_the_commands_without_the_shared_options() -> None:
    """ "Every command takes --json" was untrue for `serve` and `mcp`, and --vault for `init`."""
    text = " ".join((ROOT / "docs/cli.md").read_text().split())

    def but(option: str) -> str:
        return "Every command but " + " and ".join(f"`{n}`" for n in _commands_without(option))

    assert _commands_without("--vault") == _commands_without("--state-dir")
    assert f"{but('--vault')} (which names its new folder `DIR`) takes `--vault PATH`" in text
    assert f"{but('--json')} (which run until stopped) takes `--json`" in text


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
    text = " ".join((ROOT / "README.md").read_text().split())
    said = '"Nothing in memory about this" when the vault is unlikely to be about the question'
    assert said in text


def _snippet(doc: str, heading: str) -> str:
    text = (ROOT / doc).read_text()
    return text.split(heading, 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]


SOURCE_VB = "VB=.venv/bin/vault-bridge    # installed from the wheel: VB=vault-bridge"


def _installed(snippet: str) -> str:
    """The snippet in its documented form for an installed `vault-bridge` (`VB=vault-bridge`).

    Trigger: run as written, `.venv/bin/vault-bridge` exists only in a checkout whose venv is
    at its root, so these tests failed in any other venv (CI's, a tox env). Outcome: the
    command the snippet names for an install runs, from the venv running the tests.
    """
    assert SOURCE_VB in snippet, "the snippet no longer names both forms of VB"
    return snippet.replace(SOURCE_VB, "VB=vault-bridge", 1)


def _run_as_copied(script: str, state: Path) -> subprocess.CompletedProcess[str]:
    """bash in the checkout's folder, as the README runs commands, with the installed
    `vault-bridge` (the one beside this interpreter) first on PATH."""
    venv_bin = str(Path(sys.executable).parent)
    rest = [p for p in os.environ["PATH"].split(os.pathsep) if p != venv_bin]
    env = {
        **{k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"},
        "PATH": os.pathsep.join([venv_bin, *rest]),
        "VAULT_BRIDGE_STATE_DIR": str(state),  # this test's state; yours is found by the vault
    }
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=CEILING,
        env=env,
        cwd=ROOT,
    )


def test_the_curl_example_of_docs_api_runs_as_written(serving: tuple[Path, Path]) -> None:
    """The snippet needs only the vault it names: token and address come from its state."""
    vault, state = serving
    snippet = _snippet("docs/api.md", "### curl")
    assert snippet.startswith("VAULT=~/Notes\nVB=.venv/bin/vault-bridge ")
    script = _installed(snippet).replace("VAULT=~/Notes", f"VAULT={shlex.quote(str(vault))}", 1)
    done = _run_as_copied(script, state)
    assert done.returncode == 0, done.stderr
    assert "24 h" in done.stdout or "24 hours" in done.stdout, done.stdout


def test_the_plain_http_example_of_docs_agents_runs_as_written(
    serving: tuple[Path, Path], tmp_path: Path
) -> None:
    vault, state = serving
    snippet = _snippet("docs/agents.md", "## Plain HTTP")
    ops = tmp_path / "ops.json"
    ops.write_text('{"operations": [], "author": "agent:my-bot"}')
    script = _installed(snippet).replace("~/Notes", shlex.quote(str(vault)))
    script = script.replace("@ops.json", f"@{ops}")
    done = _run_as_copied(script, state)
    assert done.returncode == 0, done.stderr
    assert "24 h" in done.stdout or "24 hours" in done.stdout, done.stdout
    assert '"total": 0' in done.stdout, done.stdout
