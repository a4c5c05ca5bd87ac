"""Installing the built Obsidian plugin into a vault (`vault-bridge init`).

The plugin is built by `make plugin` into `obsidian-plugin/` (`main.js`, `manifest.json`,
`styles.css`). Installing copies those three files to `<vault>/.obsidian/plugins/vault-bridge/`
and lists the plugin in `.obsidian/community-plugins.json`, which is how Obsidian knows to load
it. The plugin's own `data.json` (the user's URL and token) is never touched.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from bridge.install.template import copy_template
from bridge.install.vault_links import OutsideVaultError
from bridge.install.vault_setup import (
    PLUGIN_FILES,
    PLUGIN_ID,
    Change,
    apply_plan,
    plan_setup,
)

__all__ = ["PLUGIN_FILES", "PLUGIN_ID", "PluginInstall", "install_plugin", "plugin_source"]
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


def install_plugin(vault: Path, source: Path | None = None) -> PluginInstall:
    """Install the built plugin and enable it, as `vault-bridge setup --force` would.

    The same plan as set-up, so the same rules: only files whose bytes change are written, the
    enabled list keeps its layout, and a symlink leading out of the vault raises
    `OutsideVaultError` before anything is written. A newer build replaces an older one
    (`make run` reinstalls what `make plugin` just built).
    """
    plan = plan_setup(vault, source or plugin_source(), allow_downgrade=True)
    if plan.missing:
        missing = ", ".join(plan.missing)
        return PluginInstall(
            False, None, f"the Obsidian plugin is not built ({missing}): {BUILD_HINT}"
        )
    apply_plan(plan)
    target = vault / plan.config_dir / "plugins" / PLUGIN_ID
    enabled = next(f for f in plan.files if f.rel.endswith("/community-plugins.json"))
    if enabled.change == Change.SKIPPED:
        return PluginInstall(
            True,
            target,
            f"installed, but {enabled.rel} {enabled.why}: "
            f"add {PLUGIN_ID!r} to it or enable the plugin in Obsidian's settings",
        )
    if not plan.writes:  # `init --force` on a vault that has it: say so, not "installed"
        return PluginInstall(True, target, "already installed and enabled (unchanged)")
    return PluginInstall(True, target, "installed and enabled")


def main(argv: list[str]) -> int:
    """`python -m bridge.obsidian_plugin VAULT`: what `make run` does before it serves VAULT.

    A missing VAULT is created from the template (as `init` does), then the built plugin is
    (re)installed. Each is said once, and no next step is printed: `make run` serves next.
    """
    if len(argv) != 1:
        print("usage: python -m bridge.obsidian_plugin VAULT", file=sys.stderr)
        return 2
    vault = Path(argv[0])
    try:
        if not vault.exists():
            copied = copy_template(vault)
            print(
                f"Created a vault at {vault.resolve()} from the template "
                f"({len(copied.created)} files): open it in Obsidian (Open folder as vault)."
            )
        result = install_plugin(vault)
    except OutsideVaultError as exc:
        print(f"error: {exc}: nothing was written; remove the link", file=sys.stderr)
        return 2
    print(f"Obsidian plugin: {result.message}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
