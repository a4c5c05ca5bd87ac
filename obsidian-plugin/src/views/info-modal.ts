// A modal that shows one rendered result (curation, lifecycle).

import { Modal, type App } from "obsidian";
import { clear } from "../dom";

export class InfoModal extends Modal {
  constructor(
    app: App,
    private readonly title: string,
    private readonly render: (container: HTMLElement) => void,
  ) {
    super(app);
  }

  onOpen(): void {
    this.titleEl.textContent = this.title;
    this.contentEl.classList.add("vb-view", "vb-info-modal");
    this.render(this.contentEl);
  }

  onClose(): void {
    clear(this.contentEl);
  }
}
