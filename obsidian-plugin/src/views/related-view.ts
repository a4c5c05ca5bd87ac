// The "Related in memory" panel: the notes the bridge finds closest in meaning to the active
// note (`GET /v1/similar/{path}`). It follows the active note, asking once the switching
// settles, and shows whatever the bridge answers: the notes, its reason for none, or that the
// dense channel is off.

import { debounce, ItemView, type Debouncer, type WorkspaceLeaf } from "obsidian";
import { BridgeError, errorMessage } from "../api";
import { clear, el } from "../dom";
import type { BridgeHost } from "../hub";
import { openNoteAt } from "../open-note";
import { renderRelated } from "../render/related-list";

export const VIEW_TYPE_RELATED = "vault-bridge-related";

/** How long the active note must stay put before the panel asks: one request per settled switch. */
export const RELATED_DELAY_MS = 300;
export const RELATED_LIMIT = 10;

export const NO_NOTE_TEXT = "Open a note to see the notes related to it.";
export const SEMANTIC_OFF_TEXT =
  "The dense channel is off, so the bridge cannot relate notes by meaning. Set `embed_model` in the bridge's settings (docs/configuration.md) to turn it on.";

export class RelatedView extends ItemView {
  private subject: HTMLElement | null = null;
  private list: HTMLElement | null = null;
  /** The note the panel shows (or is asking about). */
  private shown: string | null = null;
  /** Numbers the requests: an answer about a note the person already left is dropped. */
  private asked = 0;
  private unsubscribe: (() => void) | null = null;
  private readonly follow: Debouncer<[], void>;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly host: BridgeHost,
  ) {
    super(leaf);
    this.follow = debounce(() => void this.showActive(false), RELATED_DELAY_MS, true);
  }

  getViewType(): string {
    return VIEW_TYPE_RELATED;
  }

  getDisplayText(): string {
    return "Related in memory";
  }

  getIcon(): string {
    return "network";
  }

  async onOpen(): Promise<void> {
    const root = this.contentEl;
    clear(root);
    root.classList.add("vb-view", "vb-related-view");
    const head = el(root, "div", { cls: "vb-toolbar" });
    el(head, "h4", { cls: "vb-title", text: "Related in memory" });
    const refresh = el(head, "button", { cls: "vb-refresh", text: "Refresh" });
    refresh.addEventListener("click", () => void this.showActive(true));
    this.subject = el(root, "div", { cls: "vb-related-subject" });
    this.list = el(root, "div", { cls: "vb-related-list" });
    const { workspace } = this.app;
    this.registerEvent(workspace.on("file-open", () => this.follow()));
    this.registerEvent(workspace.on("active-leaf-change", () => this.follow()));
    // A reconnect or a polling tick: the bridge may have embedded the note since.
    this.unsubscribe = this.host.subscribe((event) => {
      if (event === null) void this.showActive(true);
    });
    await this.showActive(true);
  }

  async onClose(): Promise<void> {
    this.follow.cancel();
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.list = null;
    this.subject = null;
  }

  /** Asks about the active note; without `force`, only when it is another note than shown. */
  async showActive(force: boolean): Promise<void> {
    const list = this.list;
    const subject = this.subject;
    if (!list || !subject) return;
    const file = this.app.workspace.getActiveFile();
    if (!file) {
      this.asked += 1;
      this.shown = null;
      subject.textContent = "";
      delete list.dataset.path;
      clear(list);
      el(list, "p", { cls: "vb-empty", text: NO_NOTE_TEXT });
      return;
    }
    // Trigger: a PDF, an image or a canvas became active. Why: the bridge indexes Markdown
    // only. Outcome: no request; the last note's list stays.
    if (file.extension !== "md") return;
    if (!force && file.path === this.shown) return;
    const changed = file.path !== this.shown;
    this.shown = file.path;
    const ticket = ++this.asked;
    subject.textContent = file.basename;
    subject.title = file.path;
    if (changed) {
      clear(list);
      el(list, "p", { cls: "vb-loading", text: "Looking for related notes…" });
    }
    try {
      const result = await this.host.client().similar(file.path, RELATED_LIMIT);
      if (ticket !== this.asked) return;
      renderRelated(list, result, (path) => void openNoteAt(this.app, path));
    } catch (error) {
      if (ticket !== this.asked) return;
      showFailure(list, error);
    }
    list.dataset.path = file.path;
  }
}

function showFailure(list: HTMLElement, error: unknown): void {
  clear(list);
  const code = error instanceof BridgeError ? error.code : null;
  if (code === "semantic_off") {
    el(list, "p", { cls: "vb-empty vb-semantic-off", text: SEMANTIC_OFF_TEXT });
  } else if (code === "not_found") {
    // A note the bridge does not index (an ignored folder, or one saved a moment ago).
    el(list, "p", { cls: "vb-empty", text: errorMessage(error) });
  } else {
    el(list, "p", { cls: "vb-error", text: errorMessage(error) });
  }
}
