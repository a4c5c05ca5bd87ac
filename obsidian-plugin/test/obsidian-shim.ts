// A small stand-in for the few `obsidian` classes the plugin uses, over plain DOM. Vitest
// aliases `obsidian` to this file, and the e2e harness bundle does the same, so the views run
// unchanged outside the app. It records what the real app would do (notes opened, notices).

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

export class Workspace {
  opened: OpenedLink[] = [];
  active: TFile | null = null;
  onOpen: ((link: OpenedLink) => void) | null = null;

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
}

export class Vault {
  adapter = new FileSystemAdapter();
  async cachedRead(file: TFile): Promise<string> {
    return file.content;
  }
}

export class App {
  workspace = new Workspace();
  vault = new Vault();
}

export class WorkspaceLeaf {
  constructor(public app: App = new App()) {}
}

function div(cls: string): HTMLDivElement {
  const element = document.createElement("div");
  element.className = cls;
  return element;
}

export class Component {
  loaded = false;
  load(): void {
    this.loaded = true;
  }
  unload(): void {
    this.loaded = false;
  }
}

/** Enough Markdown for tests and screenshots: paragraphs, code fences, wikilinks. */
export const MarkdownRenderer = {
  async render(_app: App, markdown: string, el: HTMLElement, _sourcePath: string, _component: Component): Promise<void> {
    const blocks = markdown.split(/```[^\n]*\n([\s\S]*?)```/);
    blocks.forEach((block, i) => {
      if (i % 2 === 1) {
        el.appendChild(document.createElement("pre")).textContent = block;
        return;
      }
      for (const text of block.split(/\n{2,}/).filter((t) => t.trim())) {
        const p = el.appendChild(document.createElement("p"));
        for (const [j, part] of text.split(/\[\[([^\]]+)\]\]/).entries()) {
          if (j % 2 === 0) {
            p.appendChild(document.createTextNode(part));
            continue;
          }
          const [target = "", alias] = part.split("|");
          const a = p.appendChild(document.createElement("a"));
          a.className = "internal-link";
          a.setAttribute("data-href", target);
          a.textContent = alias ?? target;
        }
      }
    });
  },
};

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

export class Modal {
  containerEl = div("modal-container");
  modalEl = div("modal");
  titleEl = div("modal-title");
  contentEl = div("modal-content");

  constructor(public app: App) {
    this.modalEl.append(this.titleEl, this.contentEl);
    this.containerEl.appendChild(this.modalEl);
  }

  open(): void {
    document.body.appendChild(this.containerEl);
    this.onOpen();
  }

  close(): void {
    this.onClose();
    this.containerEl.remove();
  }

  onOpen(): void {}
  onClose(): void {}
}

export const notices: string[] = [];

export class Notice {
  noticeEl = div("notice");
  constructor(message: string, _duration?: number) {
    notices.push(message);
    this.noticeEl.textContent = message;
  }
  setMessage(message: string): this {
    this.noticeEl.textContent = message;
    return this;
  }
  hide(): void {}
}

export const Platform = { isDesktopApp: false, isMobile: false, isMobileApp: false };

export class Plugin {
  constructor(public app: App) {}
}

export class PluginSettingTab {
  containerEl = div("settings");
  constructor(
    public app: App,
    public plugin: Plugin,
  ) {}
}

class TextComponent {
  inputEl = document.createElement("input");
  setPlaceholder(text: string): this {
    this.inputEl.placeholder = text;
    return this;
  }
  setValue(value: string): this {
    this.inputEl.value = value;
    return this;
  }
  onChange(callback: (value: string) => unknown): this {
    this.inputEl.addEventListener("input", () => void callback(this.inputEl.value));
    return this;
  }
}

class ButtonComponent {
  buttonEl = document.createElement("button");
  setButtonText(text: string): this {
    this.buttonEl.textContent = text;
    return this;
  }
  onClick(callback: () => unknown): this {
    this.buttonEl.addEventListener("click", () => void callback());
    return this;
  }
}

export class Setting {
  settingEl = div("setting-item");
  constructor(container: HTMLElement) {
    container.appendChild(this.settingEl);
  }
  setName(name: string): this {
    this.settingEl.appendChild(div("setting-item-name")).textContent = name;
    return this;
  }
  setDesc(desc: string): this {
    this.settingEl.appendChild(div("setting-item-description")).textContent = desc;
    return this;
  }
  addText(build: (text: TextComponent) => unknown): this {
    const text = new TextComponent();
    this.settingEl.appendChild(text.inputEl);
    build(text);
    return this;
  }
  addButton(build: (button: ButtonComponent) => unknown): this {
    const button = new ButtonComponent();
    this.settingEl.appendChild(button.buttonEl);
    build(button);
    return this;
  }
}

/** No icon set here: the views fall back to their text glyphs. */
export function getIcon(_iconId: string): SVGSVGElement | null {
  return null;
}

export function requestUrl(): never {
  throw new Error("requestUrl is not available outside Obsidian: inject a RequestFn");
}

export function debounce<A extends unknown[]>(callback: (...args: A) => unknown, wait = 0): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return (...args: A) => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => callback(...args), wait);
  };
}
