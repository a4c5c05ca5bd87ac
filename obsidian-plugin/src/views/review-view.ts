// The review queue: agents' edits the bridge holds for a human, with Approve and Reject.
// The list follows `/v1/events` through the host (polling when the stream is down).

import { ItemView, Notice, type WorkspaceLeaf } from "obsidian";
import { BridgeError, errorMessage } from "../api";
import type { Review } from "../api-types";
import { clear, el } from "../dom";
import { affectsReviews, type BridgeHost } from "../hub";
import { openNoteAt } from "../open-note";
import { renderReviews, type ReviewActions } from "../render/review-list";

export const VIEW_TYPE_REVIEW = "vault-bridge-review";

type BannerKind = "info" | "warning" | "error";

export class ReviewView extends ItemView {
  private list: HTMLElement | null = null;
  private banner: HTMLElement | null = null;
  private unsubscribe: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly host: BridgeHost,
  ) {
    super(leaf);
  }

  getViewType(): string {
    return VIEW_TYPE_REVIEW;
  }

  getDisplayText(): string {
    return "Review queue";
  }

  getIcon(): string {
    return "git-pull-request";
  }

  async onOpen(): Promise<void> {
    const root = this.contentEl;
    clear(root);
    root.classList.add("vb-view", "vb-review-view");
    const head = el(root, "div", { cls: "vb-review-toolbar" });
    el(head, "h4", { cls: "vb-title", text: "Review queue" });
    const refresh = el(head, "button", { cls: "vb-refresh", text: "Refresh" });
    refresh.addEventListener("click", () => void this.refresh());
    this.banner = el(root, "div", { cls: "vb-banner", attr: { hidden: "" } });
    this.list = el(root, "div", { cls: "vb-review-list" });
    this.unsubscribe = this.host.subscribe((event) => {
      if (affectsReviews(event)) void this.refresh();
    });
    await this.refresh();
  }

  async onClose(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Re-reads the open reviews; calls that arrive while one runs are folded into one more. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.reload();
      } while (this.again);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async reload(): Promise<void> {
    const list = this.list;
    if (!list) return;
    try {
      const client = this.host.client();
      const reviews = await client.reviews("open");
      // A list entry may come without its diff: read those one by one.
      const full = await Promise.all(
        reviews.map((review) => (review.diff === undefined ? client.review(review.id) : review)),
      );
      renderReviews(list, full, this.actions());
      list.dataset.loaded = String(Date.now());
    } catch (error) {
      clear(list);
      el(list, "p", { cls: "vb-error", text: errorMessage(error) });
    }
  }

  private actions(): ReviewActions {
    return {
      approve: (review) =>
        this.decide(review, () => this.host.client().approve(review.id), "Approved"),
      reject: (review, reason) =>
        this.decide(review, () => this.host.client().reject(review.id, reason), "Rejected"),
      openNote: (path) => void openNoteAt(this.app, path),
    };
  }

  private async decide(review: Review, call: () => Promise<Review>, done: string): Promise<void> {
    try {
      await call();
      this.show("info", `${done}: ${review.type} ${review.path}`);
      new Notice(`Vault Bridge: ${done.toLowerCase()} the edit to ${review.path}`);
    } catch (error) {
      // Trigger: 409, the note changed since the diff or someone decided first.
      // Why: the bridge already re-planned it. Outcome: say so and show the fresh state.
      const conflict = error instanceof BridgeError && error.status === 409;
      this.show(conflict ? "warning" : "error", errorMessage(error));
    }
    await this.refresh();
  }

  private show(kind: BannerKind, text: string): void {
    const banner = this.banner;
    if (!banner) return;
    banner.className = `vb-banner vb-banner-${kind}`;
    banner.textContent = text;
    banner.hidden = false;
  }
}
