// Shows one query result: the answer or the ranked excerpts, the tier badge, the sources.
// Used by the sidebar view and the "Ask memory" modal alike.

import type { Excerpt, QueryResult, Source } from "../api-types";
import { actionLink, clear, el } from "../dom";

/** Opens `source` at `block` (its first block when null). */
export type OpenSource = (source: Source, block: Excerpt | null) => void;

/** Renders Markdown into an element (Obsidian's MarkdownRenderer in the app). */
export type RenderMarkdown = (markdown: string, into: HTMLElement) => void;

export const OOD_TEXT = "Nothing in memory about this";

export function formatLatency(ms: number): string {
  if (ms < 10) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  return `${Math.round(ms / 100) / 10} s`;
}

export function badgeText(result: QueryResult): string {
  return `tier ${result.tier} · ${formatLatency(result.latency_ms)}`;
}

/** The link text Obsidian opens: `path#^block` when the block has an id. */
export function linkText(path: string, block: Excerpt | null): string {
  return block?.block_id ? `${path}#^${block.block_id}` : path;
}

export function renderQueryResult(
  container: HTMLElement,
  result: QueryResult,
  open: OpenSource,
  renderMarkdown?: RenderMarkdown,
): void {
  clear(container);
  const head = el(container, "div", { cls: "vb-result-head" });
  el(head, "span", { cls: "vb-badge", text: badgeText(result), attr: { title: "Tier and latency" } });
  if (result.ood) {
    el(container, "p", { cls: "vb-ood", text: OOD_TEXT });
    if (result.message) el(container, "p", { cls: "vb-message", text: result.message });
    return;
  }
  if (result.message) el(container, "p", { cls: "vb-message", text: result.message });
  if (result.answer) {
    const answer = el(container, "div", { cls: "vb-answer" });
    if (renderMarkdown) {
      answer.classList.add("vb-markdown");
      renderMarkdown(result.answer, answer);
    } else {
      answer.textContent = result.answer;
    }
    renderSourceLinks(container, result.sources, open);
  } else {
    renderExcerpts(container, result.sources, open);
  }
}

function sourceLink(parent: HTMLElement, source: Source, open: OpenSource): void {
  const first = source.blocks[0] ?? null;
  actionLink(parent, source.title || source.path, () => open(source, first), {
    cls: "vb-source-link",
    attr: { title: linkText(source.path, first), "data-path": source.path },
  });
  if (source.status) el(parent, "span", { cls: "vb-chip", text: source.status });
  el(parent, "span", { cls: "vb-source-path", text: source.path });
  if (source.via === "relation" && source.related_from) {
    el(parent, "span", { cls: "vb-source-via", text: `linked from ${source.related_from}` });
  }
}

function renderSourceLinks(container: HTMLElement, sources: Source[], open: OpenSource): void {
  if (sources.length === 0) return;
  el(container, "h4", { cls: "vb-section", text: "Sources" });
  const list = el(container, "ol", { cls: "vb-sources" });
  for (const source of sources) sourceLink(el(list, "li", { cls: "vb-source" }), source, open);
}

function renderExcerpts(container: HTMLElement, sources: Source[], open: OpenSource): void {
  if (sources.length === 0) {
    el(container, "p", { cls: "vb-empty", text: "No matching notes." });
    return;
  }
  el(container, "h4", { cls: "vb-section", text: "Excerpts" });
  const list = el(container, "ol", { cls: "vb-sources vb-excerpts" });
  for (const source of sources) {
    const item = el(list, "li", { cls: "vb-source" });
    sourceLink(el(item, "div", { cls: "vb-source-head" }), source, open);
    const blocks: Excerpt[] =
      source.blocks.length > 0
        ? source.blocks
        : [{ text: source.excerpt, line: null, block_id: null, heading: "" }];
    for (const block of blocks) {
      const quote = el(item, "blockquote", { cls: "vb-excerpt" });
      actionLink(quote, block.heading || "Open at this block", () => open(source, block), {
        cls: "vb-excerpt-heading",
        attr: { title: linkText(source.path, block) },
      });
      el(quote, "div", { cls: "vb-excerpt-text", text: block.text });
    }
  }
}
