// Shows the notes related to one note by meaning (`GET /v1/similar/{path}`): a link per note,
// its status and, discreetly, its score. When there are none, the bridge's reason.

import type { SimilarResult } from "../api-types";
import { actionLink, clear, el } from "../dom";

/** Opens a related note (the caller decides how). */
export type OpenRelated = (path: string) => void;

/** Shown when the bridge lists no notes and gives no reason. */
export const NO_RELATED_TEXT = "No related notes.";

/** Two decimals: enough to compare neighbours, not so many that the number takes over. */
export function formatScore(score: number): string {
  return score.toFixed(2);
}

/** The bridge's reasons are lower-case clauses; the panel shows them as sentences. */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function renderRelated(container: HTMLElement, result: SimilarResult, open: OpenRelated): void {
  clear(container);
  if (result.similar.length === 0) {
    el(container, "p", { cls: "vb-empty vb-related-reason", text: result.reason ? sentence(result.reason) : NO_RELATED_TEXT });
    return;
  }
  const list = el(container, "ol", { cls: "vb-sources vb-related" });
  for (const note of result.similar) {
    const item = el(list, "li", { cls: "vb-source vb-related-note", attr: { "data-path": note.path } });
    actionLink(item, note.title || note.path, () => open(note.path), {
      cls: "vb-source-link vb-related-link",
      attr: { title: note.path, "data-path": note.path },
    });
    if (note.status) el(item, "span", { cls: "vb-chip", text: note.status });
    el(item, "span", {
      cls: "vb-score",
      text: formatScore(note.score),
      attr: { title: "How close in meaning (cosine similarity; 1 is the same)" },
    });
    el(item, "span", { cls: "vb-source-path", text: note.path });
  }
}
