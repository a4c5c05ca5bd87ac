// The UI side of the `obsidian` stand-in: modals, notices, settings rows, Markdown, icons.

import { div, type App, type Component } from "./app";

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

export class Modal {
  containerEl = div("modal-container");
  modalEl = div("modal");
  titleEl = div("modal-title");
  contentEl = div("modal-content");

  constructor(public app: App) {
    this.containerEl.appendChild(div("modal-bg"));
    const close = this.modalEl.appendChild(div("modal-close-button"));
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", () => this.close());
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

/** Every notice's text, oldest first. */
export const notices: string[] = [];

/** Shown in a `.notice-container` until clicked or `hide()`: the stand-in keeps no timers. */
export class Notice {
  noticeEl = div("notice");
  constructor(message: string, _duration?: number) {
    notices.push(message);
    this.noticeEl.textContent = message;
    this.noticeEl.addEventListener("click", () => this.hide());
    let container = document.body.querySelector(".notice-container");
    if (!container) container = document.body.appendChild(div("notice-container"));
    container.appendChild(this.noticeEl);
  }
  setMessage(message: string): this {
    this.noticeEl.textContent = message;
    return this;
  }
  hide(): void {
    this.noticeEl.remove();
  }
}

/** Desktop by default, as the plugin is desktop-only. */
export const Platform = { isDesktop: true, isDesktopApp: true, isMobile: false, isMobileApp: false };

export class TextComponent {
  inputEl = document.createElement("input");
  constructor() {
    this.inputEl.type = "text";
  }
  getValue(): string {
    return this.inputEl.value;
  }
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

export class ButtonComponent {
  buttonEl = document.createElement("button");
  setButtonText(text: string): this {
    this.buttonEl.textContent = text;
    return this;
  }
  setCta(): this {
    this.buttonEl.classList.add("mod-cta");
    return this;
  }
  setDisabled(disabled: boolean): this {
    this.buttonEl.disabled = disabled;
    return this;
  }
  onClick(callback: (event: MouseEvent) => unknown): this {
    this.buttonEl.addEventListener("click", (event) => void callback(event));
    return this;
  }
}

/** One settings row laid out as Obsidian does: name and description, then the controls. */
export class Setting {
  settingEl = div("setting-item");
  infoEl = div("setting-item-info");
  nameEl = div("setting-item-name");
  descEl = div("setting-item-description");
  controlEl = div("setting-item-control");

  constructor(container: HTMLElement) {
    this.infoEl.append(this.nameEl, this.descEl);
    this.settingEl.append(this.infoEl, this.controlEl);
    container.appendChild(this.settingEl);
  }
  setName(name: string): this {
    this.nameEl.textContent = name;
    return this;
  }
  setDesc(desc: string): this {
    this.descEl.textContent = desc;
    return this;
  }
  addText(build: (text: TextComponent) => unknown): this {
    const text = new TextComponent();
    this.controlEl.appendChild(text.inputEl);
    build(text);
    return this;
  }
  addButton(build: (button: ButtonComponent) => unknown): this {
    const button = new ButtonComponent();
    this.controlEl.appendChild(button.buttonEl);
    build(button);
    return this;
  }
}

// Obsidian draws Lucide icons; the stand-in has two plain ones of its own, for the thumbs
// (the page's fonts may have no emoji). Any other id has none, and callers fall back.
const THUMB_UP = "M3 10h4v11H3z M7 10l4-7c1.5 0 2.5 1 2.5 2.5V9H19a2 2 0 0 1 2 2.3l-1.3 7.5a2 2 0 0 1-2 1.2H7";
const ICONS: Record<string, { path: string; flip: boolean }> = {
  "thumbs-up": { path: THUMB_UP, flip: false },
  "thumbs-down": { path: THUMB_UP, flip: true },
};

export function getIcon(iconId: string): SVGSVGElement | null {
  const icon = ICONS[iconId];
  if (!icon) return null;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  for (const [name, value] of Object.entries({ viewBox: "0 0 24 24", fill: "none", stroke: "currentColor", "stroke-width": "2", "stroke-linejoin": "round", class: `svg-icon lucide-${iconId}` })) {
    svg.setAttribute(name, value);
  }
  const path = svg.appendChild(document.createElementNS(ns, "path"));
  path.setAttribute("d", icon.path);
  if (icon.flip) path.setAttribute("transform", "matrix(1 0 0 -1 0 24)");
  return svg;
}

/** Obsidian's Debouncer: the call, plus `cancel` (drop a pending one) and `run` (do it now). */
export interface Debouncer<A extends unknown[], V> {
  (...args: A): Debouncer<A, V>;
  cancel(): Debouncer<A, V>;
  run(): V | void;
}

export function debounce<A extends unknown[], V>(callback: (...args: A) => V, wait = 0, _resetTimer?: boolean): Debouncer<A, V> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last: A | null = null;
  const fire = (): V | void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (!last) return;
    const args = last;
    last = null;
    return callback(...args);
  };
  const debounced = ((...args: A) => {
    if (timer !== null) clearTimeout(timer);
    last = args;
    timer = setTimeout(fire, wait);
    return debounced;
  }) as Debouncer<A, V>;
  debounced.cancel = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    last = null;
    return debounced;
  };
  debounced.run = fire;
  return debounced;
}
