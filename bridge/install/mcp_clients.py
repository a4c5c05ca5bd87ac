"""The `vault-bridge mcp` server entry for Claude Code, Cursor, Claude Desktop and VS Code.

Each client keeps its servers in a JSON file of its own, under its own key (`mcpServers`, or
`servers` for VS Code). Merging our entry keeps every other key and server exactly as it was
(values and order; the indentation and line endings found are reused), and a file that is not
plain JSON is refused rather than rewritten: VS Code allows comments in its file, and a JSON
writer would silently drop them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, assert_never

from bridge.install.executable import Platform
from bridge.install.files import write_atomic
from bridge.install.service_spec import ServedVault, slug

Client = Literal["claude-code", "cursor", "claude-desktop", "vscode"]
Scope = Literal["user", "project"]
Outcome = Literal["created", "updated", "unchanged"]

CLIENT_NAMES: dict[Client, str] = {
    "claude-code": "Claude Code",
    "cursor": "Cursor",
    "claude-desktop": "Claude Desktop",
    "vscode": "VS Code",
}
DEFAULT_NAME = "vault-bridge"


class ConfigFileError(ValueError):
    """A client config file we will not rewrite, or a scope the client does not have."""


@dataclass(frozen=True)
class Target:
    """The file an entry belongs in, and the key that holds the servers there."""

    client: Client
    scope: Scope
    path: Path
    key: str


def _app_config_dir(platform: Platform) -> Path:
    """Where Electron apps (Claude Desktop, VS Code) keep per-user settings."""
    match platform:
        case "macos":
            return Path.home() / "Library" / "Application Support"
        case "windows":
            return Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
        case "linux":
            return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
        case _:
            assert_never(platform)


def target(client: Client, scope: Scope, platform: Platform, project: Path) -> Target:
    """The config file of `client` for `scope` (`project` is the project folder)."""
    project = project.absolute()
    match client:
        case "claude-code":  # user scope sits beside Claude Code's own state in ~/.claude.json
            path = Path.home() / ".claude.json" if scope == "user" else project / ".mcp.json"
            return Target(client, scope, path, "mcpServers")
        case "cursor":
            folder = Path.home() if scope == "user" else project
            return Target(client, scope, folder / ".cursor" / "mcp.json", "mcpServers")
        case "claude-desktop":
            if scope == "project":
                raise ConfigFileError(
                    "Claude Desktop has no project configuration; use --scope user"
                )
            path = _app_config_dir(platform) / "Claude" / "claude_desktop_config.json"
            return Target(client, scope, path, "mcpServers")
        case "vscode":  # user scope: the default profile's file ("MCP: Open User Configuration")
            if scope == "user":
                path = _app_config_dir(platform) / "Code" / "User" / "mcp.json"
            else:
                path = project / ".vscode" / "mcp.json"
            return Target(client, scope, path, "servers")
        case _:
            assert_never(client)


def mcp_argv(vault: ServedVault, command: list[str]) -> list[str]:
    """The argv the client runs: `mcp --vault <abs>` (and `--state-dir` when one is set)."""
    return vault.argv(command, "mcp")


def server_entry(client: Client, argv: list[str]) -> dict[str, Any]:
    """The entry as the client writes it itself (VS Code requires `type`; Claude Code adds it)."""
    entry: dict[str, Any] = {"command": argv[0], "args": argv[1:]}
    if client in ("vscode", "claude-code"):
        entry = {"type": "stdio", **entry}
    return entry


def claude_add_argv(scope: Scope, name: str, argv: list[str]) -> list[str]:
    """The `claude mcp add` call that makes the same entry (Claude Code's own way)."""
    return ["claude", "mcp", "add", "--scope", scope, name, "--", *argv]


# -- reading and writing ------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfigFile:
    """A parsed client file and the layout to write it back in."""

    exists: bool
    document: dict[str, Any]
    indent: str | None = "  "
    newline: str = "\n"
    bom: bool = False
    final_newline: bool = True

    def servers(self, key: str) -> Mapping[str, Any]:
        found = self.document.get(key, {})
        return found if isinstance(found, dict) else {}


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:  # json would keep the last one and silently drop the others
        raise ConfigFileError(f"the key {repeated[0]!r} appears twice in one object")
    return dict(pairs)


def _finite(text: str) -> float:
    """A JSON number as Python reads it, refused when a client's reader could not read it back.

    `1e400` would be read as infinity and written back as `Infinity`, which Node's
    `JSON.parse` refuses: the client could no longer read its own file.
    """
    value = float(text)
    if not math.isfinite(value):
        raise ConfigFileError(f"the number {text} is too large for a JSON reader")
    return value


def _no_constant(name: str) -> float:
    raise ConfigFileError(f"`{name}` is not JSON")


def read_config(target: Target) -> ConfigFile:
    """The file as JSON; a missing or blank file is an empty object. `ConfigFileError` else."""
    path = target.path
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ConfigFile(exists=False, document={})
    except OSError as exc:
        raise ConfigFileError(f"{path}: cannot read it ({exc})") from exc
    bom = raw.startswith(b"\xef\xbb\xbf")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"{path}: not UTF-8 text ({exc}); nothing was changed") from exc
    if not text.strip():
        return ConfigFile(exists=True, document={}, bom=bom)
    try:
        document = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_float=_finite,
            parse_constant=_no_constant,
        )
    except RecursionError:
        # Deeply nested brackets: a clear refusal, not a traceback; no client writes them.
        raise ConfigFileError(
            f"{path}: nested too deeply to be a client's settings; nothing was changed"
        ) from None
    except (json.JSONDecodeError, ConfigFileError) as exc:
        hint = (
            " VS Code allows comments and trailing commas in this file; vault-bridge does not"
            " rewrite such a file (it would lose them): add the entry by hand."
            if target.client == "vscode"
            else " Fix it, or add the entry by hand."
        )
        raise ConfigFileError(
            f"{path}: not valid JSON ({exc}); nothing was changed.{hint}"
        ) from exc
    if not isinstance(document, dict):
        raise ConfigFileError(f"{path}: holds a JSON {type(document).__name__}, not an object")
    if not isinstance(document.get(target.key, {}), dict):
        raise ConfigFileError(f'{path}: "{target.key}" is not an object; nothing was changed')
    lines = text.splitlines()
    indent = next(
        (line[: len(line) - len(line.lstrip())] for line in lines[1:] if line[:1] in (" ", "\t")),
        None if len(lines) == 1 else "  ",
    )
    return ConfigFile(
        exists=True,
        document=document,
        indent=indent,
        newline="\r\n" if "\r\n" in text else "\n",
        bom=bom,
        final_newline=text.endswith(("\n", "\r")),
    )


def render_config(config: ConfigFile, document: Mapping[str, Any]) -> bytes:
    """`document` in the file's own layout (indent, line endings, BOM, final newline)."""
    text = json.dumps(document, indent=config.indent, ensure_ascii=False)  # None: one line
    if config.final_newline:
        text += "\n"
    text = text.replace("\n", config.newline)
    return (b"\xef\xbb\xbf" if config.bom else b"") + text.encode()


def entry_vault(entry: object) -> str | None:
    """The `--vault` an existing entry serves, if it names one."""
    if not isinstance(entry, dict):
        return None
    args = entry.get("args")
    if not isinstance(args, list) or "--vault" not in args:
        return None
    at = args.index("--vault") + 1
    return args[at] if at < len(args) and isinstance(args[at], str) else None


def choose_name(servers: Mapping[str, Any], vault: ServedVault, requested: str | None) -> str:
    """`vault-bridge`, unless that name serves another vault: then `vault-bridge-<folder>`.

    An entry that already serves this vault keeps its name (so a second run updates it rather
    than adding a twin); a name serving another vault is never taken over, so one client can
    hold several vaults. `requested` (`--name`) always wins.
    """
    if requested:
        return requested
    path = str(vault.path)
    mine = [n for n, e in servers.items() if n.startswith(DEFAULT_NAME) and entry_vault(e) == path]
    if mine:
        return DEFAULT_NAME if DEFAULT_NAME in mine else mine[0]
    candidates = [
        DEFAULT_NAME,
        f"{DEFAULT_NAME}-{slug(vault.path.name)}",
        f"{DEFAULT_NAME}-{slug(vault.path.name)}-{vault.vault_id[:8]}",
    ]
    return next((c for c in candidates if c not in servers), candidates[-1])


def merged(
    document: Mapping[str, Any], key: str, name: str, entry: Mapping[str, Any]
) -> dict[str, Any]:
    """`document` with `entry` at `key`/`name`; everything else, and every position, kept.

    An existing entry of that name keeps its other keys (an `env` the user added) and their
    order; ours overwrite `command`, `args` and `type` in place.
    """
    servers = dict(document.get(key, {}))
    old = servers.get(name)
    servers[name] = {**old, **entry} if isinstance(old, dict) else dict(entry)
    result = dict(document)
    result[key] = servers
    return result


def write_entry(target: Target, name: str, entry: Mapping[str, Any]) -> Outcome:
    """Merge `entry` into the target file; `unchanged` writes nothing (the mtime stays)."""
    config = read_config(target)
    document = merged(config.document, target.key, name, entry)
    if config.exists and document == config.document:
        return "unchanged"
    write_atomic(target.path, render_config(config, document))
    return "updated" if config.exists else "created"
