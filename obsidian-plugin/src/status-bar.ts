// The status-bar item: connected or not, pending reviews, embedding progress; a click opens the
// review queue.

import { errorMessage } from "./api";
import { affectsReviews, type BridgeHost } from "./hub";
import { embedding, statusBarText, statusBarTitle, type BridgeState } from "./render/status-text";

/** How often the status is re-read while the bridge embeds: no event reports that progress. */
export const EMBEDDING_POLL_MS = 5_000;

export class StatusBar {
  state: BridgeState = { connected: false, pending: 0, error: null };
  private unsubscribe: (() => void) | null = null;
  private followUp: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly element: HTMLElement,
    private readonly host: BridgeHost,
    onClick: () => void,
    private readonly embeddingPollMs = EMBEDDING_POLL_MS,
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
    this.cancelFollowUp();
  }

  async refresh(): Promise<void> {
    try {
      const status = await this.host.client().status();
      this.state = { connected: true, pending: status.pending_reviews, error: null, semantic: status.semantic ?? null };
    } catch (error) {
      this.state = { connected: false, pending: 0, error: errorMessage(error) };
    }
    this.show();
    this.followEmbedding();
  }

  // Trigger: the bridge is embedding. Why: progress comes with no event, and the line would
  // stay at its first count. Outcome: one re-read after a while, until the state leaves
  // `embedding` or the bar is stopped.
  private followEmbedding(): void {
    if (!this.unsubscribe || !embedding(this.state) || this.followUp !== null) return;
    this.followUp = setTimeout(() => {
      this.followUp = null;
      void this.refresh();
    }, this.embeddingPollMs);
  }

  private cancelFollowUp(): void {
    if (this.followUp !== null) clearTimeout(this.followUp);
    this.followUp = null;
  }

  private show(): void {
    this.element.textContent = statusBarText(this.state);
    this.element.setAttribute("aria-label", statusBarTitle(this.state));
    this.element.title = statusBarTitle(this.state);
    this.element.classList.toggle("vb-disconnected", !this.state.connected);
    this.element.classList.toggle("vb-has-pending", this.state.pending > 0);
  }
}
