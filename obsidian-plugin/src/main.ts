// Vault Bridge for Obsidian: wires the settings, the shared connection, the views, the
// commands and the status bar. Every decision stays with the bridge.

import { Plugin, debounce, type WorkspaceLeaf } from "obsidian";
import type { BridgeClient } from "./api";
import { registerCommands } from "./commands";
import { BridgeHub } from "./hub";
import { DEFAULT_SETTINGS, VaultBridgeSettingTab, type VaultBridgeSettings } from "./settings";
import { StatusBar } from "./status-bar";
import { obsidianRequest } from "./transport";
import { QueryView, VIEW_TYPE_QUERY } from "./views/query-view";
import { RelatedView, VIEW_TYPE_RELATED } from "./views/related-view";
import { ReviewView, VIEW_TYPE_REVIEW } from "./views/review-view";

export default class VaultBridgePlugin extends Plugin {
  settings: VaultBridgeSettings = { ...DEFAULT_SETTINGS };
  hub!: BridgeHub;
  private statusBar: StatusBar | null = null;
  // Settings change per keystroke: reconnect once the typing stops.
  private readonly reconnect = debounce(
    () => {
      this.hub.start();
      void this.statusBar?.refresh();
    },
    800,
    true,
  );

  async onload(): Promise<void> {
    await this.loadSettings();
    this.hub = new BridgeHub({
      connection: () => ({ url: this.settings.url, token: this.settings.token }),
      request: obsidianRequest,
      fetchFn: (input, init) => fetch(input, init),
    });

    this.registerView(VIEW_TYPE_QUERY, (leaf) => new QueryView(leaf, this.hub));
    this.registerView(VIEW_TYPE_REVIEW, (leaf) => new ReviewView(leaf, this.hub));
    this.registerView(VIEW_TYPE_RELATED, (leaf) => new RelatedView(leaf, this.hub));
    registerCommands({
      plugin: this,
      host: this.hub,
      openReviewQueue: () => this.reveal(VIEW_TYPE_REVIEW),
      openRelatedNotes: () => this.reveal(VIEW_TYPE_RELATED),
    });
    this.addRibbonIcon("brain-circuit", "Ask memory", () => void this.reveal(VIEW_TYPE_QUERY));
    this.addSettingTab(new VaultBridgeSettingTab(this.app, this, this));

    this.statusBar = new StatusBar(this.addStatusBarItem(), this.hub, () => {
      void this.reveal(VIEW_TYPE_REVIEW);
    });
    this.app.workspace.onLayoutReady(() => {
      this.statusBar?.start();
      this.hub.start();
    });
  }

  onunload(): void {
    this.statusBar?.stop();
    this.hub?.stop();
  }

  client(): BridgeClient {
    return this.hub.client();
  }

  async loadSettings(): Promise<void> {
    const saved = (await this.loadData()) as Partial<VaultBridgeSettings> | null;
    this.settings = { ...DEFAULT_SETTINGS, ...(saved ?? {}) };
  }

  /** Saves, then reconnects the event stream and the status bar with the new values. */
  async saveSettings(): Promise<void> {
    await this.saveData(this.settings);
    this.reconnect();
  }

  /** Shows the view of `type` in the right sidebar, creating it once. */
  async reveal(type: string): Promise<void> {
    const { workspace } = this.app;
    let leaf: WorkspaceLeaf | null = workspace.getLeavesOfType(type)[0] ?? null;
    if (!leaf) {
      leaf = workspace.getRightLeaf(false);
      if (!leaf) return;
      await leaf.setViewState({ type, active: true });
    }
    await workspace.revealLeaf(leaf);
  }
}
