// The "Ask memory" command: the query panel in a modal.

import { Component, getIcon as iconSvg, MarkdownRenderer, Modal, type App } from "obsidian";
import { clear } from "../dom";
import type { BridgeHost } from "../hub";
import { openNoteAt } from "../open-note";
import { mountQueryPanel } from "./query-panel";

export class AskModal extends Modal {
  // Owns what the Markdown renderer attaches to the answer; unloaded with the modal.
  private readonly rendered = new Component();

  constructor(
    app: App,
    private readonly host: BridgeHost,
    private readonly initial = "",
  ) {
    super(app);
  }

  onOpen(): void {
    this.rendered.load();
    this.titleEl.textContent = "Ask memory";
    this.contentEl.classList.add("vb-view", "vb-ask-modal");
    const leave = (then: () => Promise<void>): void => {
      this.close();
      void then();
    };
    const panel = mountQueryPanel(this.contentEl, this.host, {
      open: (source, block) => leave(() => openNoteAt(this.app, source.path, block)),
      renderMarkdown: (markdown, into) =>
        void MarkdownRenderer.render(this.app, markdown, into, "", this.rendered),
      openLink: (linktext) => leave(() => this.app.workspace.openLinkText(linktext, "")),
      icon: iconSvg,
    });
    panel.input.value = this.initial;
    panel.input.focus();
  }

  onClose(): void {
    this.rendered.unload();
    clear(this.contentEl);
  }
}
