// Shows the review queue: one card per review with who, why, impact, the coloured diff, and
// Approve / Reject (with a reason) buttons. What happens on a click is the caller's.

import type { Review } from "../api-types";
import { actionLink, clear, el } from "../dom";

export interface ReviewActions {
  approve: (review: Review) => Promise<void>;
  reject: (review: Review, reason: string) => Promise<void>;
  openNote: (path: string) => void;
}

export type DiffLineKind = "add" | "del" | "hunk" | "file" | "context";

/** `+++`/`---` name the files; `+`, `-` and `@@` are the change itself. */
export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith("+++ ") || line.startsWith("--- ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}

export function renderDiff(container: HTMLElement, diff: string): HTMLPreElement {
  const pre = el(container, "pre", { cls: "vb-diff" });
  const lines = diff.replace(/\n$/, "").split("\n");
  for (const line of lines) {
    el(pre, "span", { cls: ["vb-diff-line", `vb-diff-${diffLineKind(line)}`], text: line });
    pre.appendChild(container.ownerDocument.createTextNode("\n"));
  }
  return pre;
}

/** What Approve and Reject mean for a review that is not simply pending (docs/api.md). */
const STATE_HINTS: Partial<Record<Review["state"], string>> = {
  applied: "Already applied (high impact): Approve keeps it, Reject restores the note.",
  conflict: "The note changed since this edit was proposed: the diff is against the note as it is now.",
};

export const EMPTY_QUEUE_TEXT = "No agent edits waiting for review.";

export function renderReviews(
  container: HTMLElement,
  reviews: Review[],
  actions: ReviewActions,
): void {
  clear(container);
  if (reviews.length === 0) {
    el(container, "p", { cls: "vb-empty", text: EMPTY_QUEUE_TEXT });
    return;
  }
  for (const review of reviews) renderReview(container, review, actions);
}

function meta(list: HTMLElement, label: string, value: string | null | undefined): void {
  if (!value) return;
  const row = el(list, "div", { cls: "vb-meta-row" });
  el(row, "dt", { text: label });
  el(row, "dd", { text: value, attr: { "data-field": label } });
}

function renderReview(container: HTMLElement, review: Review, actions: ReviewActions): void {
  const card = el(container, "div", {
    cls: ["vb-review", `vb-review-${review.state}`],
    attr: { "data-review-id": String(review.id), "data-path": review.path },
  });
  const head = el(card, "div", { cls: "vb-review-head" });
  el(head, "span", { cls: "vb-chip vb-op", text: review.type });
  actionLink(head, review.path, () => actions.openNote(review.path), { cls: "vb-review-path" });
  el(head, "span", { cls: ["vb-chip", `vb-state-${review.state}`], text: review.state });

  const details = el(card, "dl", { cls: "vb-review-meta" });
  meta(details, "Author", review.author);
  meta(details, "Reason", review.reason ?? review.why);
  meta(details, "Impact", review.impact);
  meta(details, "Policy", review.policy);
  meta(details, "Created", review.created ? new Date(review.created).toLocaleString() : null);

  const hint = STATE_HINTS[review.state];
  if (hint) el(card, "p", { cls: "vb-review-hint", text: hint });

  if (review.diff) renderDiff(card, review.diff);
  else el(card, "p", { cls: "vb-empty", text: "No diff." });

  const buttons = el(card, "div", { cls: "vb-review-buttons" });
  const approve = el(buttons, "button", { cls: "mod-cta vb-approve", text: "Approve" });
  const reject = el(buttons, "button", { cls: "mod-warning vb-reject", text: "Reject" });
  const form = el(card, "form", { cls: "vb-reject-form", attr: { hidden: "" } });
  const reason = el(form, "input", {
    cls: "vb-reject-reason",
    attr: { type: "text", placeholder: "Why reject? (the agent sees this)" },
  });
  const confirm = el(form, "button", {
    cls: "mod-warning vb-reject-confirm",
    text: "Reject edit",
    attr: { type: "submit" },
  });
  const cancel = el(form, "button", { cls: "vb-reject-cancel", text: "Cancel", attr: { type: "button" } });

  const all = [approve, reject, confirm, cancel];
  const busy = async (work: () => Promise<void>): Promise<void> => {
    for (const button of all) button.disabled = true;
    try {
      await work();
    } finally {
      for (const button of all) button.disabled = false;
    }
  };
  approve.addEventListener("click", () => void busy(() => actions.approve(review)));
  reject.addEventListener("click", () => {
    form.hidden = false;
    reason.focus();
  });
  cancel.addEventListener("click", () => {
    form.hidden = true;
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(() => actions.reject(review, reason.value.trim()));
  });
}
