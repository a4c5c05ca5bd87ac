// The status-bar item: connected or not, pending reviews, embedding progress; a click opens the
// review queue.

import { errorMessage } from "./api";
import { affectsReviews, type BridgeHost } from "./hub";
import { embedding, statusBarText, statusBarTitle, type BridgeState } from "./render/status-text";

/** How often the status is re-read while the bridge embeds: no event reports that progress. */
export const EMBEDDING_POLL_MS = 5_000;
/** How soon the status is read again after a read failed: no event says the bridge is back. */
export const RETRY_MS = 10_000;

export class StatusBar {
  state: BridgeState = { connected: false, pending: 0, error: null };
  private unsubscribe: (() => void) | null = null;
  private followUp: ReturnType<typeof setTimeout> | null = null;
  private reads = 0;

  constructor(
    private readonly element: HTMLElement,
    private readonly host: BridgeHost,
    onClick: () => void,
    private readonly embeddingPollMs = EMBEDDING_POLL_MS,
    private readonly retryMs = RETRY_MS,
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

  // Trigger: the bar said "not connected" for good while the event stream was live (a settings
  // change starts reads with the old and the new token; one read failed and nothing read again).
  // Why: reads can finish out of order, and once streaming only review events cause a read.
  // Outcome: only the latest read is shown, and a failed one is tried again (`followUp`).
  async refresh(): Promise<void> {
    const read = ++this.reads;
    let state: BridgeState;
    try {
      const status = await this.host.client().status();
      state = { connected: true, pending: status.pending_reviews, error: null, semantic: status.semantic ?? null };
    } catch (error) {
      state = { connected: false, pending: 0, error: errorMessage(error) };
    }
    if (read !== this.reads) return; // a later read was started: its answer is the one to show
    this.state = state;
    this.show();
    this.scheduleFollowUp();
  }

  // Trigger: the bridge is embedding, or the read failed. Why: neither progress nor the bridge
  // coming back sends an event, and the line would stay as it is. Outcome: one re-read after
  // a while, until the bridge answers and is not embedding, or the bar is stopped.
  private scheduleFollowUp(): void {
    if (!this.unsubscribe || this.followUp !== null) return;
    const wait = !this.state.connected ? this.retryMs : embedding(this.state) ? this.embeddingPollMs : null;
    if (wait === null) return;
    this.followUp = setTimeout(() => {
      this.followUp = null;
      void this.refresh();
    }, wait);
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
