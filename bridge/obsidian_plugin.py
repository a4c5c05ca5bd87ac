"""Installing the built Obsidian plugin into a vault (`vault-bridge init`).

The plugin is built by `make plugin` into `obsidian-plugin/` (`main.js`, `manifest.json`,
`styles.css`). Installing copies those three files to `<vault>/.obsidian/plugins/vault-bridge/`
and lists the plugin in `.obsidian/community-plugins.json`, which is how Obsidian knows to load
it. The plugin's own `data.json` (the user's URL and token) is never touched.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

PLUGIN_ID = "vault-bridge"
PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")
BUILD_HINT = "run `make plugin`, then `vault-bridge init --force DIR` to install it"


def plugin_source() -> Path:
    """Where the built plugin is: packaged beside the code, or the repository's folder."""
    packaged = Path(__file__).resolve().parent / "_plugin"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[1] / "obsidian-plugin"


@dataclass(frozen=True)
class PluginInstall:
    """What `install_plugin` did; `installed` False means the plugin was not built."""

    installed: bool
    path: Path | None
    message: str

    def to_json(self) -> dict[str, object]:
        return {
            "installed": self.installed,
            "path": str(self.path) if self.path else None,
            "message": self.message,
        }


def enable_plugin(vault: Path) -> bool:
    """Make sure `.obsidian/community-plugins.json` lists the plugin; False if it cannot.

    Trigger: the file is missing, or someone's list lacks the id. Why: Obsidian loads only
    listed plugins. Outcome: the id is appended; a file that is not a JSON list is left alone.
    """
    path = vault / ".obsidian" / "community-plugins.json"
    try:
        enabled = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    except (OSError, ValueError):
        return False
    if not isinstance(enabled, list):
        return False
    if PLUGIN_ID not in enabled:
        enabled.append(PLUGIN_ID)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(enabled, indent=2) + "\n", encoding="utf-8")
    return True


def install_plugin(vault: Path, source: Path | None = None) -> PluginInstall:
    """Copy the built plugin into the vault and enable it; explain when it is not built."""
    source = source or plugin_source()
    missing = [name for name in PLUGIN_FILES if not (source / name).is_file()]
    if missing:
        return PluginInstall(
            False, None, f"the Obsidian plugin is not built ({', '.join(missing)}): {BUILD_HINT}"
        )
    target = vault / ".obsidian" / "plugins" / PLUGIN_ID
    target.mkdir(parents=True, exist_ok=True)
    for name in PLUGIN_FILES:
        shutil.copyfile(source / name, target / name)  # build outputs: always the newest
    if not enable_plugin(vault):
        return PluginInstall(
            True,
            target,
            "installed, but .obsidian/community-plugins.json is not a JSON list: "
            f"add {PLUGIN_ID!r} to it or enable the plugin in Obsidian's settings",
        )
    return PluginInstall(True, target, "installed and enabled")


def main(argv: list[str]) -> int:
    """`python -m bridge.obsidian_plugin VAULT`: (re)install the plugin (used by `make run`)."""
    if len(argv) != 1:
        print("usage: python -m bridge.obsidian_plugin VAULT")
        return 2
    result = install_plugin(Path(argv[0]))
    print(f"Obsidian plugin: {result.message}")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
