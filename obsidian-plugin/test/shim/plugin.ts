// Obsidian's Plugin and PluginSettingTab over the stand-in app: what a plugin registers lands
// in the app's palette, view registry, settings window, ribbon and status bar.

import { Component, div, type App, type Command, type SettingTabLike, type ViewCreator } from "./app";

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  minAppVersion: string;
  description: string;
  author: string;
  isDesktopOnly?: boolean;
}

export class Plugin extends Component {
  constructor(
    public app: App,
    public manifest: PluginManifest,
  ) {
    super();
  }

  /** Registers `<plugin id>:<id>`, shown in the palette as `<plugin name>: <name>`, as Obsidian does. */
  addCommand(command: Command): Command {
    const full = { ...command, id: `${this.manifest.id}:${command.id}`, name: `${this.manifest.name}: ${command.name}` };
    this.app.commands.addCommand(full);
    this.register(() => this.app.commands.removeCommand(full.id));
    return full;
  }

  addRibbonIcon(icon: string, title: string, callback: (event: MouseEvent) => unknown): HTMLElement {
    const button = this.app.ribbonEl.appendChild(div("side-dock-ribbon-action clickable-icon"));
    button.setAttribute("aria-label", title);
    button.dataset.icon = icon;
    button.textContent = title;
    button.addEventListener("click", (event) => void callback(event));
    this.register(() => button.remove());
    return button;
  }

  addStatusBarItem(): HTMLElement {
    const item = this.app.statusBarEl.appendChild(div(`status-bar-item plugin-${this.manifest.id}`));
    this.register(() => item.remove());
    return item;
  }

  addSettingTab(tab: SettingTabLike): void {
    this.app.setting.addSettingTab(tab);
    this.register(() => this.app.setting.removeSettingTab(tab));
  }

  registerView(type: string, create: ViewCreator): void {
    this.app.viewRegistry.set(type, create);
    this.register(() => {
      this.app.workspace.detachLeavesOfType(type);
      this.app.viewRegistry.delete(type);
    });
  }

  /** The plugin's data.json: null until the first save, a copy either way. */
  async loadData(): Promise<unknown> {
    const data = this.app.pluginData[this.manifest.id];
    return data === undefined ? null : structuredClone(data);
  }

  async saveData(data: unknown): Promise<void> {
    this.app.pluginData[this.manifest.id] = structuredClone(data);
  }
}

export class PluginSettingTab implements SettingTabLike {
  containerEl = div("vertical-tab-content");
  id: string;
  name: string;

  constructor(
    public app: App,
    public plugin: Plugin,
  ) {
    this.id = plugin.manifest.id;
    this.name = plugin.manifest.name;
  }

  display(): void {}

  hide(): void {
    this.containerEl.replaceChildren();
  }
}
