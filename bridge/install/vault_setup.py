"""`vault-bridge setup`: put the Obsidian plugin into a vault someone already has.

A person's vault is years of their own files, so set-up is a plan first: every file it would
write is computed with its new bytes and compared with what is on disk. Only the plugin's
folder and `community-plugins.json` are ever written, a file whose bytes would not change is
not touched (running set-up twice writes nothing the second time), and the plugin's
`data.json` (the user's URL and token) changes only when they ask for `--connect`. `--dry-run`
shows the same plan and writes nothing.

Nothing is read or written through a symlink that leaves the vault unless the person asks for
it (`follow_symlinks`): the plugin's folder or `.obsidian` linked elsewhere would otherwise put
our files, or our edit, in a folder they never named.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from bridge.install.files import write_atomic
from bridge.install.plugin_list import PluginListError, parse_list, read_list
from bridge.install.vault_links import escaping_links

PLUGIN_ID = "vault-bridge"
PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")


class Change(StrEnum):
    """What applying a planned file does."""

    CREATE = "create"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"  # left as it is on purpose; `why` says why


@dataclass(frozen=True)
class PlannedFile:
    """One file set-up owns: its place in the vault, what happens to it, and why."""

    rel: str
    change: Change
    why: str
    data: bytes | None = None

    def to_json(self) -> dict[str, str]:
        return {"path": self.rel, "change": self.change.value, "why": self.why}


@dataclass(frozen=True)
class Connection:
    """What `--connect` writes into the plugin's settings."""

    url: str
    token: str


@dataclass
class SetupPlan:
    """Every file set-up would write, and what the person should know before and after."""

    vault: Path
    config_dir: str
    files: list[PlannedFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # plugin files not built

    @property
    def writes(self) -> list[PlannedFile]:
        return [f for f in self.files if f.change in (Change.CREATE, Change.UPDATE)]


def _version(text: str) -> tuple[int, ...] | None:
    parts = text.strip().split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else None


def _manifest_version(data: bytes | None) -> str | None:
    try:
        manifest = json.loads(data or b"")
    except ValueError:
        return None
    version = manifest.get("version") if isinstance(manifest, dict) else None
    return version if isinstance(version, str) else None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _compare(rel: str, current: bytes | None, new: bytes, why: str) -> PlannedFile:
    if current is None:
        return PlannedFile(rel, Change.CREATE, why, new)
    if current == new:
        return PlannedFile(rel, Change.UNCHANGED, "already up to date")
    return PlannedFile(rel, Change.UPDATE, why, new)


def _json_bytes(value: object) -> bytes:
    """Obsidian's own layout for its JSON files: two-space indent."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()


def plan_setup(
    vault: Path,
    plugin_source: Path,
    *,
    config_dir: str = ".obsidian",
    connection: Connection | None = None,
    allow_downgrade: bool = False,
    follow_symlinks: bool = False,
) -> SetupPlan:
    """Compute what set-up writes in `vault`; read-only.

    Refuses nothing silently: a plugin that is not built, a newer plugin already installed
    (say, by BRAT) or a config file that is not the JSON Obsidian writes become warnings and
    the file is skipped rather than replaced. A path that leads out of the vault through a
    symlink raises `OutsideVaultError` before anything is read, unless `follow_symlinks`.
    """
    plan = SetupPlan(vault=vault, config_dir=config_dir)
    plugin_rel = f"{config_dir}/plugins/{PLUGIN_ID}"
    owned = [f"{plugin_rel}/{name}" for name in PLUGIN_FILES]
    owned.append(f"{config_dir}/community-plugins.json")
    if connection is not None:
        owned.append(f"{plugin_rel}/data.json")
    for link in escaping_links(vault, owned):
        if not follow_symlinks:
            raise link
        plan.warnings.append(f"{link}: written through it (--follow-symlinks)")
    config = vault / config_dir
    if not config.is_dir():
        plan.warnings.append(
            f"{config_dir}/ does not exist yet: this folder has not been opened in Obsidian. "
            "Open it with 'Open folder as vault'; the plugin will be waiting there."
        )
    installed = vault / plugin_rel
    built = {name: _read(plugin_source / name) for name in PLUGIN_FILES}
    plan.missing = missing = [name for name, data in built.items() if data is None]
    if missing:
        plan.warnings.append(
            f"the Obsidian plugin is not built ({', '.join(missing)} missing in {plugin_source}); "
            "run `make plugin` in a source checkout, or install a release wheel"
        )
        return plan
    ours = _manifest_version(built["manifest.json"]) or "?"
    theirs = _manifest_version(_read(installed / "manifest.json"))
    newer = theirs is not None and (_version(theirs) or ()) > (_version(ours) or ())
    if newer and not allow_downgrade:
        plan.warnings.append(
            f"the vault has plugin version {theirs}, newer than this bridge's {ours}: "
            f"left as it is (use --force to install {ours} anyway)"
        )
        plan.files += [
            PlannedFile(f"{plugin_rel}/{n}", Change.SKIPPED, f"installed {theirs} is newer")
            for n in PLUGIN_FILES
        ]
    else:
        why = f"plugin {ours}" + (f" (was {theirs})" if theirs and theirs != ours else "")
        for name in PLUGIN_FILES:
            data = built[name]
            assert data is not None
            rel = f"{plugin_rel}/{name}"
            plan.files.append(_compare(rel, _read(vault / rel), data, why))
    plan.files.append(_enable(vault, config_dir, plan.warnings))
    if connection is not None:
        plan.files.append(_connect(vault, plugin_rel, connection, plan.warnings))
    return plan


def _enable(vault: Path, config_dir: str, warnings: list[str]) -> PlannedFile:
    """Obsidian loads only the community plugins listed in `community-plugins.json`."""
    rel = f"{config_dir}/community-plugins.json"
    try:
        current = read_list(vault / rel)
        if current is None:
            return PlannedFile(rel, Change.CREATE, "enable the plugin", _json_bytes([PLUGIN_ID]))
        enabled = parse_list(current)
    except (PluginListError, OSError) as exc:
        reason = (
            str(exc) if isinstance(exc, PluginListError) else f"cannot be read ({exc.strerror})"
        )
        warnings.append(
            f"{rel} {reason}: left as it is; enable Vault Bridge in Settings → Community plugins"
        )
        return PlannedFile(rel, Change.SKIPPED, reason)
    if PLUGIN_ID in enabled.ids:
        return PlannedFile(rel, Change.UNCHANGED, "already enabled")
    return PlannedFile(
        rel, Change.UPDATE, "enable the plugin", enabled.with_id(PLUGIN_ID).encode("utf-8")
    )


def _connect(
    vault: Path, plugin_rel: str, connection: Connection, warnings: list[str]
) -> PlannedFile:
    """The plugin's settings with the bridge's URL and token; every other key kept."""
    rel = f"{plugin_rel}/data.json"
    current = _read(vault / rel)
    settings: object = {}
    if current is not None:
        try:
            settings = json.loads(current)
        except ValueError:
            settings = None
    if not isinstance(settings, dict):
        warnings.append(f"{rel} is not a JSON object: left as it is; use 'Find bridge' instead")
        return PlannedFile(rel, Change.SKIPPED, "not a JSON object")
    if settings.get("url") == connection.url and settings.get("token") == connection.token:
        return PlannedFile(rel, Change.UNCHANGED, "already connected")
    merged = {**settings, "url": connection.url, "token": connection.token}
    return _compare(rel, current, _json_bytes(merged), "the bridge's URL and token (--connect)")


def apply_plan(plan: SetupPlan) -> list[PlannedFile]:
    """Write the plan's creates and updates, each atomically; returns what was written."""
    written = []
    for planned in plan.writes:
        assert planned.data is not None
        # data.json holds the API token: a new one is readable by its owner only.
        private = planned.rel.endswith("/data.json")
        write_atomic(plan.vault / planned.rel, planned.data, new_mode=0o600 if private else 0o644)
        written.append(planned)
    return written
