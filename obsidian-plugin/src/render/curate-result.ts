// Shows what curation did to each operation: applied, waiting for review, or failed, and why.

import type { CurateResult } from "../api-types";
import { actionLink, clear, el } from "../dom";

const STATUS_TEXT: Record<string, string> = {
  applied: "applied",
  pending_review: "waiting for review",
  failed: "failed",
};

export function curateSummary(result: CurateResult): string {
  const count = (key: "applied" | "pending_review" | "failed"): number =>
    result.counts[key] ?? result.results.filter((r) => r.status === key).length;
  return `${count("applied")} applied · ${count("pending_review")} waiting for review · ${count("failed")} failed`;
}

export function renderCurateResult(
  container: HTMLElement,
  result: CurateResult,
  openNote: (path: string) => void,
): void {
  clear(container);
  el(container, "p", { cls: "vb-curate-summary", text: curateSummary(result) });
  if (result.error) el(container, "p", { cls: "vb-error", text: result.error });
  if (result.results.length === 0) {
    el(container, "p", { cls: "vb-empty", text: "Nothing to change: the memory already has this." });
    return;
  }
  const list = el(container, "ol", { cls: "vb-curate-results" });
  for (const op of result.results) {
    const item = el(list, "li", { cls: ["vb-curate-op", `vb-op-${op.status}`] });
    el(item, "span", { cls: "vb-chip vb-op", text: op.type });
    if (op.status === "failed") el(item, "span", { cls: "vb-curate-path", text: op.path });
    else actionLink(item, op.path, () => openNote(op.path), { cls: "vb-curate-path" });
    el(item, "span", { cls: ["vb-chip", `vb-status-${op.status}`], text: STATUS_TEXT[op.status] ?? op.status });
    if (op.message) el(item, "div", { cls: "vb-curate-message", text: op.message });
  }
}
