// The app side of the `obsidian` stand-in: files, the workspace and its leaves, the registered
// views, the command palette, the settings window, plugin data and `requestUrl`. Everything is
// plain DOM and plain objects; nothing here knows the plugin.

export function div(cls: string): HTMLDivElement {
  const element = document.createElement("div");
  element.className = cls;
  return element;
}

export interface OpenedLink {
  linktext: string;
  sourcePath: string;
  state: unknown;
}

export class TFile {
  constructor(
    public path: string,
    public content = "",
  ) {}
  get basename(): string {
    return this.path.split("/").pop()?.replace(/\.md$/, "") ?? this.path;
  }
  get extension(): string {
    return this.path.split(".").pop() ?? "";
  }
}

export class FileSystemAdapter {
  constructor(private readonly base = "/") {}
  getBasePath(): string {
    return this.base;
  }
}

export class Vault {
  adapter = new FileSystemAdapter();
  async cachedRead(file: TFile): Promise<string> {
    return file.content;
  }
}

/** What `on` returns; `registerEvent` or `offref` detaches it. */
export interface EventRef {
  off(): void;
}

/** Obsidian's Events: named callbacks, called in order by `trigger`. */
export class Events {
  private handlers = new Map<string, Set<(...data: unknown[]) => unknown>>();

  on(name: string, callback: (...data: never[]) => unknown): EventRef {
    const handler = callback as (...data: unknown[]) => unknown;
    const set = this.handlers.get(name) ?? new Set();
    set.add(handler);
    this.handlers.set(name, set);
    return { off: () => set.delete(handler) };
  }

  offref(ref: EventRef): void {
    ref.off();
  }

  trigger(name: string, ...data: unknown[]): void {
    for (const handler of [...(this.handlers.get(name) ?? [])]) handler(...data);
  }
}

/** Obsidian's Component: children of a plugin or a view, cleaned up on unload. */
export class Component {
  loaded = false;
  private cleanups: (() => unknown)[] = [];

  load(): void {
    this.loaded = true;
    void this.onload();
  }
  unload(): void {
    this.loaded = false;
    for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
    this.onunload();
  }
  onload(): void | Promise<void> {}
  onunload(): void {}
  register(cleanup: () => unknown): void {
    this.cleanups.push(cleanup);
  }
  registerEvent(ref: EventRef): void {
    this.register(() => ref.off());
  }
  registerInterval(id: number): number {
    this.register(() => window.clearInterval(id));
    return id;
  }
  registerDomEvent(target: HTMLElement | Window | Document, type: string, listener: (event: Event) => unknown): void {
    target.addEventListener(type, listener);
    this.register(() => target.removeEventListener(type, listener));
  }
}

export abstract class ItemView extends Component {
  app: App;
  containerEl: HTMLElement;
  contentEl: HTMLElement;

  constructor(public leaf: WorkspaceLeaf) {
    super();
    this.app = leaf.app;
    this.containerEl = div("view-container");
    this.containerEl.appendChild(div("view-header"));
    this.contentEl = div("view-content");
    this.containerEl.appendChild(this.contentEl);
  }

  abstract getViewType(): string;
  abstract getDisplayText(): string;
  getIcon(): string {
    return "";
  }
  async onOpen(): Promise<void> {}
  async onClose(): Promise<void> {}
}

export type ViewCreator = (leaf: WorkspaceLeaf) => ItemView;

/** A pane of the workspace; `setViewState` builds the registered view into it. */
export class WorkspaceLeaf {
  view: ItemView | null = null;
  containerEl = div("workspace-leaf");

  constructor(public app: App = new App()) {}

  async setViewState(state: { type: string; active?: boolean }): Promise<void> {
    const create = this.app.viewRegistry.get(state.type);
    if (!create) throw new Error(`no view is registered as ${state.type}`);
    await this.closeView();
    const view = create(this);
    this.view = view;
    this.containerEl.dataset.type = state.type;
    this.containerEl.appendChild(view.containerEl);
    view.load();
    await view.onOpen();
    if (state.active) await this.app.workspace.revealLeaf(this);
  }

  getViewState(): { type: string } {
    return { type: this.view?.getViewType() ?? "empty" };
  }

  detach(): void {
    void this.closeView();
    this.containerEl.remove();
    this.app.workspace.leaves = this.app.workspace.leaves.filter((leaf) => leaf !== this);
  }

  private async closeView(): Promise<void> {
    if (!this.view) return;
    const view = this.view;
    this.view = null;
    view.containerEl.remove();
    await view.onClose();
    view.unload(); // drops what the view registered (workspace events, intervals)
  }
}

/** The workspace; its events (`file-open`, `active-leaf-change`) are fired by whoever plays the app. */
export class Workspace extends Events {
  opened: OpenedLink[] = [];
  active: TFile | null = null;
  onOpen: ((link: OpenedLink) => void) | null = null;
  leaves: WorkspaceLeaf[] = [];
  activeLeaf: WorkspaceLeaf | null = null;
  /** Where right-sidebar leaves go; the page places it. */
  rightSplitEl = div("workspace-split mod-right-split");

  constructor(private readonly app: App) {
    super();
  }

  async openLinkText(linktext: string, sourcePath: string, _newLeaf?: unknown, state?: unknown): Promise<void> {
    const link = { linktext, sourcePath, state: state ?? null };
    this.opened.push(link);
    this.onOpen?.(link);
  }

  getActiveFile(): TFile | null {
    return this.active;
  }

  onLayoutReady(callback: () => void): void {
    callback();
  }

  getLeavesOfType(type: string): WorkspaceLeaf[] {
    return this.leaves.filter((leaf) => leaf.view?.getViewType() === type);
  }

  getRightLeaf(_split: boolean): WorkspaceLeaf {
    const leaf = new WorkspaceLeaf(this.app);
    this.leaves.push(leaf);
    this.rightSplitEl.appendChild(leaf.containerEl);
    return leaf;
  }

  async revealLeaf(leaf: WorkspaceLeaf): Promise<void> {
    this.activeLeaf = leaf;
    for (const each of this.leaves) each.containerEl.classList.toggle("mod-active", each === leaf);
    leaf.containerEl.scrollIntoView?.({ block: "nearest" });
  }

  detachLeavesOfType(type: string): void {
    for (const leaf of this.getLeavesOfType(type)) leaf.detach();
  }
}

export interface Command {
  id: string;
  name: string;
  icon?: string;
  callback?: () => unknown;
  checkCallback?: (checking: boolean) => boolean | void;
}

/** The command palette: what it would list right now, and running a command by id. */
export class Commands {
  commands: Record<string, Command> = {};

  addCommand(command: Command): void {
    this.commands[command.id] = command;
  }

  removeCommand(id: string): void {
    delete this.commands[id];
  }

  /** The commands the palette offers now: a `checkCallback` answering false hides one. */
  listCommands(): Command[] {
    return Object.values(this.commands).filter((command) => this.available(command));
  }

  /** Runs the command as the palette would; false when it is unknown or not available. */
  executeCommandById(id: string): boolean {
    const command = this.commands[id];
    if (!command || !this.available(command)) return false;
    if (command.checkCallback) command.checkCallback(false);
    else command.callback?.();
    return true;
  }

  private available(command: Command): boolean {
    return command.checkCallback ? command.checkCallback(true) !== false : true;
  }
}

export interface SettingTabLike {
  id: string;
  name: string;
  containerEl: HTMLElement;
  display(): void;
  hide(): void;
}

/** Settings window: the plugins' tabs, one shown at a time. */
export class AppSetting {
  containerEl = div("modal-container mod-settings");
  tabContentEl = div("vertical-tab-content-container");
  pluginTabs: SettingTabLike[] = [];
  activeTab: SettingTabLike | null = null;

  constructor() {
    const modal = this.containerEl.appendChild(div("modal mod-settings"));
    const close = modal.appendChild(div("modal-close-button"));
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", () => this.close());
    modal.appendChild(this.tabContentEl);
  }

  addSettingTab(tab: SettingTabLike): void {
    this.pluginTabs.push(tab);
  }

  removeSettingTab(tab: SettingTabLike): void {
    this.pluginTabs = this.pluginTabs.filter((each) => each !== tab);
  }

  open(): void {
    document.body.appendChild(this.containerEl);
  }

  openTabById(id: string): void {
    const tab = this.pluginTabs.find((each) => each.id === id);
    if (!tab) throw new Error(`no settings tab ${id}`);
    this.activeTab?.hide();
    this.tabContentEl.replaceChildren(tab.containerEl);
    this.activeTab = tab;
    tab.display();
  }

  close(): void {
    this.activeTab?.hide();
    this.activeTab = null;
    this.containerEl.remove();
  }
}

export class App {
  workspace: Workspace = new Workspace(this);
  vault = new Vault();
  commands = new Commands();
  setting = new AppSetting();
  viewRegistry = new Map<string, ViewCreator>();
  /** Each plugin's data.json, by plugin id. */
  pluginData: Record<string, unknown> = {};
  /** Where ribbon icons and status-bar items go; the page places them. */
  ribbonEl = div("side-dock-ribbon");
  statusBarEl = div("status-bar");
}

export interface RequestUrlParam {
  url: string;
  method?: string;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
  throw?: boolean;
}

export interface RequestUrlResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

/** What answers a `requestUrl`: the e2e page's is a real HTTP request made by Node. */
export type RequestUrlTransport = (request: {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}) => Promise<{ status: number; headers: Record<string, string>; text: string }>;

let transport: RequestUrlTransport | null = null;

/** Where `requestUrl` sends requests; unset (unit tests), it refuses: inject a RequestFn. */
export function setRequestTransport(send: RequestUrlTransport | null): void {
  transport = send;
}

/** Obsidian's `requestUrl`: throws on no answer, and on an error status unless `throw: false`. */
export async function requestUrl(request: RequestUrlParam | string): Promise<RequestUrlResponse> {
  if (!transport) throw new Error("requestUrl is not available outside Obsidian: inject a RequestFn");
  const params = typeof request === "string" ? { url: request } : request;
  const headers = { ...(params.headers ?? {}) };
  if (params.contentType) headers["Content-Type"] = params.contentType;
  const response = await transport({ url: params.url, method: params.method ?? "GET", headers, body: params.body });
  const text = response.text;
  if (params.throw !== false && response.status >= 400) {
    throw Object.assign(new Error(`Request failed, status ${response.status}`), { status: response.status });
  }
  return {
    status: response.status,
    headers: response.headers,
    text,
    get json(): unknown {
      return JSON.parse(text);
    },
  };
}
