"""`vault-bridge mcp-config` and `vault-bridge service`: the bridge set up for clients and login.

Both write files other programs read (an MCP client's config, a service manager's unit), so
both can print instead of writing, and both name absolute paths: those programs start the
bridge from their own working directory, PATH and environment.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Annotated, Any

import platformdirs
import typer
from rich.markup import escape

from bridge.cli.app import (
    EXIT_USAGE,
    JsonOpt,
    StateDirOpt,
    VaultOpt,
    app,
    console,
    err_console,
    fail,
    print_json,
    settings_for,
)
from bridge.install import mcp_clients as mcp
from bridge.install import service_files, service_manager, service_spec
from bridge.install.executable import Platform, current_platform, installed_command
from bridge.install.files import write_atomic
from bridge.install.service_manager import command_line, manager
from bridge.install.service_spec import ServedVault, ServiceSpec
from bridge.mcp.backend import running_bridge
from bridge.settings import APP_NAME, Settings
from bridge.state.private import private_dir
from bridge.state.vault_lock import holder

PlatformOpt = Annotated[
    Platform | None,
    typer.Option(
        "--platform",
        help="The platform whose paths to use: linux, macos or windows [this machine's]",
    ),
]
# `service install` alone has `--print`, where another platform's file is worth seeing.
PrintPlatformOpt = Annotated[
    Platform | None,
    typer.Option("--platform", help="linux, macos or windows [this machine's]; mainly for --print"),
]
# Passed to the client or service as flags; every other VAULT_BRIDGE_* variable stays behind.
FORWARDED = {"VAULT_BRIDGE_VAULT", "VAULT_BRIDGE_STATE_DIR"}


def _served(settings: Settings) -> ServedVault:
    """The vault a service or client entry serves, and its state dir when one was given."""
    return ServedVault(
        settings.vault_path, settings.vault_id, settings.state_path, settings.state_dir is not None
    )


def _settings(vault: Path | None, state_dir: Path | None) -> Settings:
    settings = settings_for(vault, state_dir)
    if not settings.vault_path.is_dir():
        raise fail(f"no vault folder at {settings.vault_path}")
    return settings


def _warn(message: str) -> None:
    err_console.print(f"[yellow]warning:[/] {escape(message)}", highlight=False, soft_wrap=True)


def _say(text: str) -> None:
    """Plain text on stdout, never wrapped: commands and JSON are meant to be copied."""
    console.print(text, highlight=False, markup=False, soft_wrap=True)


def _warn_unseen_environment(who: str) -> list[str]:
    """Variables of this shell that `who` will not see; their settings belong in config.toml."""
    unseen = sorted(n for n in os.environ if n.startswith("VAULT_BRIDGE_") and n not in FORWARDED)
    if "VAULT_BRIDGE_CONFIG" in unseen:
        _warn(
            f"VAULT_BRIDGE_CONFIG is set here, but {who} will read the default config file "
            f"({default_config_file()}) instead"
        )
    others = [n for n in unseen if n != "VAULT_BRIDGE_CONFIG"]
    if others:
        _warn(
            f"{', '.join(others)} set here will not reach {who}; put those settings in "
            f'{default_config_file()} (lower-case names: `llm_model = "..."`) so it sees them'
        )
    return unseen


def default_config_file() -> Path:
    """The config file a process without VAULT_BRIDGE_CONFIG reads."""
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


# -- mcp-config ---------------------------------------------------------------------------------


@app.command("mcp-config")
def mcp_config(
    client: Annotated[
        mcp.Client,
        typer.Option("--client", help="claude-code, cursor, claude-desktop or vscode."),
    ],
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    scope: Annotated[
        mcp.Scope, typer.Option("--scope", help="user (every project) or project [user]")
    ] = "user",
    project: Annotated[
        Path | None,
        typer.Option("--project", help="Project folder for --scope project [current directory]"),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option("--name", help="Server name [vault-bridge, or vault-bridge-<vault folder>]"),
    ] = None,
    write: Annotated[
        bool, typer.Option("--write", help="Merge the entry into the client's file.")
    ] = False,
    platform: PlatformOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Print (or --write) the MCP server entry that serves this vault to a client."""
    settings = _settings(vault, state_dir)
    try:
        target = mcp.target(client, scope, platform or current_platform(), project or Path.cwd())
    except mcp.ConfigFileError as exc:
        raise fail(str(exc)) from exc
    argv = mcp.mcp_argv(_served(settings), installed_command())
    entry = mcp.server_entry(client, argv)
    try:
        servers = mcp.read_config(target).servers(target.key)
    except mcp.ConfigFileError as exc:
        if write:
            raise fail(str(exc)) from exc
        _warn(str(exc))
        servers = {}
    chosen = mcp.choose_name(servers, _served(settings), name)
    outcome: mcp.Outcome | None = None
    if write:
        try:
            outcome = mcp.write_entry(target, chosen, entry)
        except mcp.ConfigFileError as exc:
            raise fail(str(exc)) from exc
        except OSError as exc:
            raise fail(f"{target.path}: cannot write it ({exc})") from exc
    _warn_unseen_environment(mcp.CLIENT_NAMES[client])
    add_line = (
        command_line(mcp.claude_add_argv(scope, chosen, argv), current_platform())
        if client == "claude-code"
        else None
    )
    snippet = {target.key: {chosen: entry}}
    if json_out:
        print_json(
            {
                "client": client,
                "scope": scope,
                "file": str(target.path),
                "key": target.key,
                "name": chosen,
                "entry": entry,
                "snippet": snippet,
                "claude_mcp_add": add_line,
                "written": outcome,
            }
        )
        return
    where = f'{target.path} (under "{target.key}")'
    label = f"{mcp.CLIENT_NAMES[client]}, {scope} scope"
    if outcome is not None:
        _say(f'{outcome} {where}: server "{chosen}"')
        _say(f"{label}: restart it or reload its MCP servers to pick the entry up.")
        if client == "claude-code" and scope == "user" and outcome != "unchanged":
            _warn(
                "a running Claude Code may rewrite ~/.claude.json from memory; if the entry "
                f"is gone after a restart, run: {add_line}"
            )
        return
    _say(f"{label}: merge this into {where}\n")
    _say(_json_text(snippet))
    if add_line is not None:
        _say(f"\nor let Claude Code add it:\n  {add_line}")
    _say("\nRun again with --write to merge it into the file.")


def _json_text(data: Any) -> str:
    """`data` as the indented JSON a user pastes into a config file."""
    return json.dumps(data, indent=2, ensure_ascii=False)


# -- service ------------------------------------------------------------------------------------

service_app = typer.Typer(
    help="Run `serve` for a vault at login, restarted on failure (docs/service.md).",
    no_args_is_help=True,
)
app.add_typer(service_app, name="service")

KIND = {"linux": "systemd user unit", "macos": "launchd agent", "windows": "scheduled task"}


def _spec(
    settings: Settings, platform: Platform | None, port: int | None = None
) -> tuple[Platform, ServiceSpec, Path]:
    """The platform asked for (else this machine's), its service description and file."""
    plat = platform or current_platform()
    spec = service_spec.service_spec(_served(settings), installed_command(), plat, port)
    return plat, spec, service_files.service_file(spec, plat)


def _ran_json(done: list[service_manager.Ran]) -> list[dict[str, Any]]:
    return [{"argv": list(r.argv), "returncode": r.returncode, "output": r.output} for r in done]


@service_app.command("install")
def service_install(
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    print_only: Annotated[
        bool, typer.Option("--print", help="Print the service file and write nothing.")
    ] = False,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", min=0, max=65535, help="Port for this vault's serve (a second vault's)"
        ),
    ] = None,
    platform: PrintPlatformOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Write the service file for this vault and load it with the platform's manager."""
    settings = _settings(vault, state_dir)
    plat, spec, path = _spec(settings, platform, port)
    data = service_files.render(spec, plat)
    if print_only:
        text = service_files.as_text(data, plat)
        if json_out:
            print_json({"platform": plat, "name": spec.name, "file": str(path), "content": text})
        else:
            _say(text.removesuffix("\n"))
        return
    warnings = _install_warnings(settings, spec, plat)
    old = path.read_bytes() if path.is_file() else None
    if path.exists() and not service_files.is_ours(path, plat):
        raise fail(f"{path} exists and was not written by vault-bridge; move it away first")
    outcome = "unchanged" if old == data else ("updated" if old is not None else "created")
    try:
        if plat == "windows":
            private_dir(spec.state_dir)
        if outcome != "unchanged":
            write_atomic(path, data, 0o600 if plat == "windows" else 0o644)
        if spec.log_file is not None:  # launchd opens the log but does not create its folder
            spec.log_file.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"could not write {path} ({exc}); nothing was installed", EXIT_USAGE) from exc
    steps = service_manager.load_steps(spec, plat, path, restart=outcome == "updated")
    tool = manager(plat)
    found = shutil.which(tool) is not None
    loaded, done = service_manager.run_steps(steps) if found else (False, [])
    by_hand = [command_line(s.argv, plat) for s in steps if s.required]
    if json_out:
        print_json(
            {
                "platform": plat,
                "name": spec.name,
                "file": str(path),
                "outcome": outcome,
                "argv": list(spec.argv),
                "log": service_manager.log_hint(spec, plat),
                "manager": tool,
                "manager_found": found,
                "loaded": loaded,
                "steps": _ran_json(done),
                "load_by_hand": [] if loaded else by_hand,
                "warnings": warnings,
            }
        )
        return
    _say(f"{outcome} {path} ({KIND[plat]})")
    _say(f"  runs  {command_line(spec.argv, plat)}")
    _say(f"  logs  {service_manager.log_hint(spec, plat)}")
    if loaded:
        _say(f"Loaded with {tool}: serving this vault now and at every login.")
        return
    failed = next((r for r in reversed(done) if not r.ok), None)
    reason = (
        f"{tool} was not found"
        if not found
        else f"`{command_line(failed.argv, plat)}` failed: {failed.output or 'no output'}"
        if failed is not None
        else f"{tool} failed"
    )
    console.print(
        f"[bold yellow]NOT running yet:[/] {escape(reason)}.", highlight=False, soft_wrap=True
    )
    _say("The file is in place; load it by hand (in your login session):")
    for line in by_hand:
        _say(f"  {line}")


def _install_warnings(settings: Settings, spec: ServiceSpec, plat: Platform) -> list[str]:
    """What may stop the installed service from working, said before it is loaded."""
    warnings: list[str] = []
    found = holder(settings.state_path)
    if found.pid is not None:
        warnings.append(
            f"serve is already running for this vault (pid {found.pid}); the service's serve "
            "will find the vault busy and retry until that one stops: stop it (Ctrl-C) first"
        )
    if plat != current_platform():
        warnings.append(f"this machine is not {plat}: the file is for inspection only")
    if plat == "windows" and any("%" in a for a in spec.argv):
        warnings.append("Task Scheduler expands %NAME% in a path to the variable NAME")
    for message in warnings:
        _warn(message)
    unseen = _warn_unseen_environment("the service")
    return warnings + [f"{n} is not passed to the service" for n in unseen]


@service_app.command("uninstall")
def service_uninstall(
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    platform: PlatformOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Stop the service and remove its file (only a file `install` wrote); safe to repeat."""
    settings = settings_for(vault, state_dir)
    plat, spec, path = _spec(settings, platform)
    done: list[service_manager.Ran] = []
    removed = stopped = False
    if path.exists():
        if not service_files.is_ours(path, plat):
            raise fail(f"{path} was not written by vault-bridge (no marker); left it alone")
        if shutil.which(manager(plat)) is not None:
            done += service_manager.run_steps(service_manager.unload_steps(spec, plat, path))[1]
            stopped = any(r.ok for r in done)
        removed = service_files.remove(path)
        if plat == "linux" and shutil.which("systemctl") is not None:
            done.append(service_manager.run(("systemctl", "--user", "daemon-reload")))
    if json_out:
        print_json(
            {
                "platform": plat,
                "name": spec.name,
                "file": str(path),
                "removed": removed,
                "stopped": stopped,
                "steps": _ran_json(done),
            }
        )
        return
    if removed:
        _say(f"Removed {path}.")
        _say(
            f"Stopped and unregistered {spec.name}."
            if stopped
            else f"{manager(plat)} did not stop it (not loaded, or no manager here)."
        )
    else:
        _say(f"Not installed (no {path}); nothing to do.")


@service_app.command("status")
def service_status(
    vault: VaultOpt = None,
    state_dir: StateDirOpt = None,
    platform: PlatformOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Whether the service file exists, what the manager says, and whether the bridge answers."""
    settings = settings_for(vault, state_dir)
    plat, spec, path = _spec(settings, platform)
    installed = path.exists()
    asked = service_manager.run(service_manager.status_step(spec, plat))
    state = service_manager.manager_state(plat, asked)
    found = holder(settings.state_path)
    answers = running_bridge(settings) is not None if found.pid is not None else False
    if json_out:
        print_json(
            {
                "platform": plat,
                "name": spec.name,
                "file": str(path),
                "installed": installed,
                "ours": installed and service_files.is_ours(path, plat),
                "manager": manager(plat),
                "state": state,
                "manager_output": asked.output,
                "serving": {"pid": found.pid, "url": found.url, "answers": answers},
                "log": service_manager.log_hint(spec, plat),
            }
        )
        return
    rows = [
        ("service", f"{spec.name} ({KIND[plat]})"),
        ("file", f"{path} ({'installed' if installed else 'not installed'})"),
        (
            "manager",
            f"{manager(plat)}: {state}"
            + (f" ({asked.output.splitlines()[0]})" if state == "unknown" and asked.output else ""),
        ),
        (
            "bridge",
            f"answering at {found.url} (pid {found.pid})"
            if answers
            else f"running (pid {found.pid}) but not answering"
            if found.pid is not None
            else "not running",
        ),
        ("logs", service_manager.log_hint(spec, plat)),
    ]
    for key, value in rows:
        _say(f"{key:<8} {value}")
