// The e2e page: the built plugin (main.js, exactly as Obsidian loads it) running on the
// `obsidian` stand-in in headless Chromium. The page plays the app: it evaluates main.js as a
// CommonJS module whose `require("obsidian")` is the stand-in and whose Node modules are the
// stand-ins of e2e/node-stand-ins.ts, builds the default-exported plugin with the app and its
// manifest, and calls onload(). e2e/run.mjs drives it through `window.vaultBridgeHarness`.

import * as obsidian from "../test/obsidian-shim";
import { App, FileSystemAdapter, notices, setRequestTransport, TFile, type PluginManifest, type RequestUrlTransport } from "../test/obsidian-shim";
import { nodeStandIns, type NodeFixture } from "./node-stand-ins";

/** What the e2e reads from the plugin it loaded (its own fields, as main.ts defines them). */
interface LoadedPlugin {
  onload(): Promise<void> | void;
  unload(): void;
  manifest: PluginManifest;
  hub: { mode: string };
}

export interface Setup {
  /** The vault's folder: the app's FileSystemAdapter base path. */
  vault: string;
  node: NodeFixture;
}

/**
 * The renderer's `fetch` as the desktop app has it: requests to another origin (the bridge)
 * go out through the e2e server, which presents Obsidian's origin (e2e/lib/server.mjs). The
 * plugin uses it for the event stream only; its API calls go through `requestUrl`.
 */
const appFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
  if (url.origin === window.location.origin) return fetch(input, init);
  const scheme = url.protocol.replace(/:$/, "");
  const response = await fetch(`/net/${scheme}/${url.host}${url.pathname}${url.search}`, init);
  if (response.headers.get("x-harness-unreachable")) throw new TypeError(`Failed to fetch ${url.href}: ${await response.text()}`);
  return response;
};

async function text(path: string): Promise<string> {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.text();
}

function slot(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`no #${id} in the page`);
  return element;
}

/** Evaluates main.js as CommonJS and returns its default export (the plugin class). */
function evaluateBundle(source: string, node: NodeFixture): new (app: App, manifest: PluginManifest) => LoadedPlugin {
  const { modules, process } = nodeStandIns(node);
  const provided: Record<string, unknown> = { obsidian, ...modules };
  const require = (name: string): unknown => {
    const found = provided[name.replace(/^node:/, "")];
    if (found === undefined) throw new Error(`main.js requires "${name}", which this page does not provide`);
    return found;
  };
  const module: { exports: Record<string, unknown> } = { exports: {} };
  const run = new Function("module", "exports", "require", "process", "fetch", `${source}\n//# sourceURL=main.js`);
  run(module, module.exports, require, process, appFetch);
  const Plugin = module.exports.default;
  if (typeof Plugin !== "function") throw new Error("main.js has no default export to load as the plugin");
  return Plugin as new (app: App, manifest: PluginManifest) => LoadedPlugin;
}

const app = new App();
let plugin: LoadedPlugin | null = null;
const opened: string[] = [];

function loaded(): LoadedPlugin {
  if (!plugin) throw new Error("the plugin is not loaded");
  return plugin;
}

const harness = {
  opened,
  notices,

  /** Loads main.js and manifest.json from the plugin folder and runs onload(). */
  async load(setup: Setup): Promise<void> {
    // `requestUrl` is a real HTTP request made by Node (e2e/lib/request-url.mjs), exposed to
    // the page by run.mjs, as Obsidian makes it outside the renderer.
    const nodeRequest = (window as unknown as { vaultBridgeRequestUrl?: RequestUrlTransport }).vaultBridgeRequestUrl;
    if (!nodeRequest) throw new Error("run.mjs did not expose vaultBridgeRequestUrl to the page");
    setRequestTransport(nodeRequest);
    app.vault.adapter = new FileSystemAdapter(setup.vault);
    app.workspace.onOpen = (link) => {
      opened.push(link.linktext);
      slot("opened").textContent = `Opened ${link.linktext}`;
    };
    slot("ribbon").appendChild(app.ribbonEl);
    slot("workspace").appendChild(app.workspace.rightSplitEl);
    slot("footer").prepend(app.statusBarEl);
    const manifest = JSON.parse(await text("/manifest.json")) as PluginManifest;
    const Plugin = evaluateBundle(await text("/main.js"), setup.node);
    plugin = new Plugin(app, manifest);
    await plugin.onload();
  },

  mode(): string {
    return loaded().hub.mode;
  },

  /** The plugin's data.json as saved through saveData. */
  data(): unknown {
    return app.pluginData[loaded().manifest.id] ?? null;
  },

  /** Every command the plugin registered, and whether the palette offers it now. */
  commands(): { id: string; name: string; available: boolean }[] {
    const prefix = `${loaded().manifest.id}:`;
    const available = new Set(app.commands.listCommands().map((command) => command.id));
    return Object.values(app.commands.commands)
      .filter((command) => command.id.startsWith(prefix))
      .map((command) => ({ id: command.id, name: command.name, available: available.has(command.id) }));
  },

  /** Runs a command as the palette does; false when the palette would not offer it. */
  run(id: string): boolean {
    return app.commands.executeCommandById(id);
  },

  openSettings(): void {
    app.setting.open();
    app.setting.openTabById(loaded().manifest.id);
  },

  closeSettings(): void {
    app.setting.close();
  },

  /** Makes a note the active file and fires the workspace's events, as opening it in the editor would. */
  openNote(path: string, content: string): void {
    const file = new TFile(path, content);
    app.workspace.active = file;
    app.workspace.trigger("file-open", file);
    app.workspace.trigger("active-leaf-change", null);
  },

  /** The view types of the open leaves, the active one marked with `*`. */
  leaves(): string[] {
    return app.workspace.leaves.map((leaf) => `${leaf.getViewState().type}${leaf === app.workspace.activeLeaf ? "*" : ""}`);
  },
};

export type Harness = typeof harness;
(window as unknown as { vaultBridgeHarness: Harness }).vaultBridgeHarness = harness;
