// Settings → Vault Bridge: the bridge URL and token, "Test connection", and on desktop
// "Find bridge", which reads them from this vault's state dir.

import { FileSystemAdapter, Platform, PluginSettingTab, Setting, type App, type Plugin } from "obsidian";
import { DEFAULT_URL, errorMessage, type BridgeClient } from "./api";
import { findBridge } from "./discovery";
import { clear, el } from "./dom";

export interface VaultBridgeSettings {
  url: string;
  token: string;
  /** A state dir pasted by the user; empty: this vault's default one. */
  stateDir: string;
}

export const DEFAULT_SETTINGS: VaultBridgeSettings = { url: DEFAULT_URL, token: "", stateDir: "" };

export interface SettingsHost {
  settings: VaultBridgeSettings;
  saveSettings(): Promise<void>;
  client(): BridgeClient;
}

/** Health first (tells "not running" from "bad token"), then status with the token. */
export async function describeConnection(client: BridgeClient): Promise<string> {
  const health = await client.health();
  const status = await client.status();
  const llm = status.llm_model ?? "none";
  return (
    `Connected to Vault Bridge ${health.version}: ${status.notes} notes in ${status.vault}, ` +
    `${status.pending_reviews} pending reviews, LLM: ${llm}`
  );
}

export class VaultBridgeSettingTab extends PluginSettingTab {
  /** What the last "Find bridge" click found (kept across the redraw it causes). */
  private found: { text: string; ok: boolean } | null = null;

  constructor(
    app: App,
    plugin: Plugin,
    private readonly host: SettingsHost,
  ) {
    super(app, plugin);
  }

  display(): void {
    const { containerEl } = this;
    clear(containerEl);
    const settings = this.host.settings;

    new Setting(containerEl)
      .setName("Bridge URL")
      .setDesc("Where `vault-bridge serve` listens.")
      .addText((text) =>
        text
          .setPlaceholder(DEFAULT_URL)
          .setValue(settings.url)
          .onChange(async (value) => {
            settings.url = value.trim() || DEFAULT_URL;
            await this.host.saveSettings();
          }),
      );

    new Setting(containerEl)
      .setName("Token")
      .setDesc("The `token` file in the bridge's state dir.")
      .addText((text) => {
        text.inputEl.type = "password";
        text
          .setPlaceholder("paste the token")
          .setValue(settings.token)
          .onChange(async (value) => {
            settings.token = value.trim();
            await this.host.saveSettings();
          });
      });

    if (Platform.isDesktopApp) this.discoverySettings(containerEl);

    const result = el(containerEl, "div", { cls: "vb-connection-result" });
    new Setting(containerEl)
      .setName("Test connection")
      .setDesc("Checks that the bridge answers and accepts the token.")
      .addButton((button) =>
        button.setButtonText("Test connection").onClick(async () => {
          result.textContent = "Testing…";
          result.className = "vb-connection-result";
          try {
            result.textContent = await describeConnection(this.host.client());
            result.classList.add("vb-ok");
          } catch (error) {
            result.textContent = errorMessage(error);
            result.classList.add("vb-error");
          }
        }),
      );
    containerEl.appendChild(result); // under the button
  }

  private discoverySettings(containerEl: HTMLElement): void {
    const settings = this.host.settings;
    new Setting(containerEl)
      .setName("State dir")
      .setDesc("Leave empty for this vault's default; paste one if the bridge runs with --state-dir.")
      .addText((text) =>
        text
          .setPlaceholder("default")
          .setValue(settings.stateDir)
          .onChange(async (value) => {
            settings.stateDir = value.trim();
            await this.host.saveSettings();
          }),
      );
    new Setting(containerEl)
      .setName("Find bridge")
      .setDesc("Read the URL and token of the running bridge from the state dir.")
      .addButton((button) =>
        button.setButtonText("Find bridge").onClick(async () => {
          const adapter = this.app.vault.adapter;
          if (!(adapter instanceof FileSystemAdapter)) return;
          try {
            const found = findBridge(adapter.getBasePath(), settings.stateDir);
            settings.url = found.url;
            settings.token = found.token;
            await this.host.saveSettings();
            this.found = { text: `Found the bridge at ${found.url} (${found.stateDir}).`, ok: true };
          } catch (error) {
            this.found = { text: errorMessage(error), ok: false };
          }
          this.display();
        }),
      );
    if (this.found) {
      el(containerEl, "div", {
        cls: ["vb-connection-result", this.found.ok ? "vb-ok" : "vb-error"],
        text: this.found.text,
      });
    }
  }
}
