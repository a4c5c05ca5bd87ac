// The status-bar item: connected or not, pending reviews; a click opens the review queue.

import { errorMessage } from "./api";
import { affectsReviews, type BridgeHost } from "./hub";
import { statusBarText, statusBarTitle, type BridgeState } from "./render/status-text";

export class StatusBar {
  state: BridgeState = { connected: false, pending: 0, error: null };
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly element: HTMLElement,
    private readonly host: BridgeHost,
    onClick: () => void,
  ) {
    element.classList.add("vb-status-bar", "mod-clickable");
    element.addEventListener("click", onClick);
    this.show();
  }

  start(): void {
    this.unsubscribe = this.host.subscribe((event) => {
      if (affectsReviews(event)) void this.refresh();
    });
    void this.refresh();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  async refresh(): Promise<void> {
    try {
      const status = await this.host.client().status();
      this.state = { connected: true, pending: status.pending_reviews, error: null };
    } catch (error) {
      this.state = { connected: false, pending: 0, error: errorMessage(error) };
    }
    this.show();
  }

  private show(): void {
    this.element.textContent = statusBarText(this.state);
    this.element.setAttribute("aria-label", statusBarTitle(this.state));
    this.element.title = statusBarTitle(this.state);
    this.element.classList.toggle("vb-disconnected", !this.state.connected);
    this.element.classList.toggle("vb-has-pending", this.state.pending > 0);
  }
}
