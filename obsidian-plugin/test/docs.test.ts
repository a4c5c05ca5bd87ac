// docs/plugin.md keeps up with the plugin: every command has its row in the commands table,
// every settings field its row in the settings table, and every settings button its name.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { App as ObsidianApp, Plugin as ObsidianPlugin } from "obsidian";
import { describe, expect, it } from "vitest";
import { registerCommands } from "../src/commands";
import { VaultBridgeSettingTab, DEFAULT_SETTINGS } from "../src/settings";
import { FakeBridge, FakeHost } from "./helpers";
import { App, Plugin } from "./obsidian-shim";

const plugin = join(dirname(fileURLToPath(import.meta.url)), "..");
const docs = readFileSync(join(plugin, "..", "docs", "plugin.md"), "utf8");
const manifest = JSON.parse(readFileSync(join(plugin, "manifest.json"), "utf8"));

function loadedPlugin(): { app: App; plugin: Plugin } {
  const app = new App();
  return { app, plugin: new Plugin(app, manifest) };
}

describe("docs/plugin.md", () => {
  it("has a row for every command", () => {
    const { app, plugin } = loadedPlugin();
    const host = new FakeHost(new FakeBridge());
    registerCommands({ plugin: plugin as unknown as ObsidianPlugin, host, openReviewQueue: async () => undefined, openRelatedNotes: async () => undefined });
    const names = Object.values(app.commands.commands).map((command) => command.name.replace(`${manifest.name}: `, ""));
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !docs.includes(`\n| ${name} |`))).toEqual([]);
  });

  it("has a row for every setting and names every button", () => {
    const { app, plugin } = loadedPlugin();
    const host = { settings: { ...DEFAULT_SETTINGS }, saveSettings: async () => undefined, client: () => new FakeHost(new FakeBridge()).client() };
    const tab = new VaultBridgeSettingTab(app as unknown as ObsidianApp, plugin as unknown as ObsidianPlugin, host);
    tab.display();
    const rows = [...tab.containerEl.querySelectorAll(".setting-item")];
    const name = (row: Element): string => row.querySelector(".setting-item-name")?.textContent ?? "";
    const fields = rows.filter((row) => row.querySelector("input")).map(name);
    const buttons = rows.filter((row) => row.querySelector("button")).map(name);
    expect(fields).toEqual(["Bridge URL", "Token", "State dir"]);
    expect(fields.filter((field) => !docs.includes(`\n| ${field} |`))).toEqual([]);
    expect(buttons.filter((button) => !docs.includes(`**${button}**`))).toEqual([]);
  });

  it("says the plugin is desktop only, as the manifest does", () => {
    expect(manifest.isDesktopOnly).toBe(true);
    expect(docs).toContain('`"isDesktopOnly": true`');
  });
});
