// The right-sidebar view: ask the memory, read the answer, open its sources.

import { getIcon as iconSvg, ItemView, MarkdownRenderer, type WorkspaceLeaf } from "obsidian";
import { clear, el } from "../dom";
import type { BridgeHost } from "../hub";
import { openNoteAt } from "../open-note";
import { mountQueryPanel, type QueryPanel } from "./query-panel";

export const VIEW_TYPE_QUERY = "vault-bridge-query";

export class QueryView extends ItemView {
  panel: QueryPanel | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly host: BridgeHost,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE_QUERY;
  }

  getDisplayText(): string {
    return "Ask memory";
  }

  getIcon(): string {
    return "brain-circuit";
  }

  async onOpen(): Promise<void> {
    const root = this.contentEl;
    clear(root);
    root.classList.add("vb-view", "vb-query-view");
    el(root, "h4", { cls: "vb-title", text: "Ask memory" });
    this.panel = mountQueryPanel(root, this.host, {
      open: (source, block) => void openNoteAt(this.app, source.path, block),
      renderMarkdown: (markdown, into) => void MarkdownRenderer.render(this.app, markdown, into, "", this),
      openLink: (linktext) => void this.app.workspace.openLinkText(linktext, ""),
      icon: iconSvg,
    });
  }

  async onClose(): Promise<void> {
    this.panel = null;
  }
}
