"""Put the built Obsidian plugin into the wheel as `bridge/_plugin/`.

A wheel without the plugin would install a bridge that `vault-bridge setup` cannot finish, so a
release build fails loudly when `obsidian-plugin/main.js` is missing (`make dist` builds it).
An editable install (`make setup`, before any plugin build) reads the plugin from the checkout
instead (`bridge.obsidian_plugin.plugin_source`), so it needs nothing here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")


class PluginBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Adds the three files Obsidian loads; refuses to build a wheel without them."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        plugin = Path(self.root) / "obsidian-plugin"
        missing = [name for name in PLUGIN_FILES if not (plugin / name).is_file()]
        if missing:
            raise RuntimeError(
                f"the Obsidian plugin is not built ({', '.join(missing)} missing in {plugin}): "
                "run `make dist`, which builds it first"
            )
        for name in PLUGIN_FILES:
            build_data["force_include"][str(plugin / name)] = f"bridge/_plugin/{name}"
