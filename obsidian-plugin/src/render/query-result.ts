// Shows one query result: the answer or the ranked excerpts, the tier badge, the sources and
// a Helpful / Not helpful verdict per source. Used by the sidebar view and the "Ask memory"
// modal alike.

import { errorMessage } from "../api";
import type { Excerpt, FeedbackResult, QueryResult, Source } from "../api-types";
import { actionLink, clear, el } from "../dom";

/** Opens `source` at `block` (its first block when null). */
export type OpenSource = (source: Source, block: Excerpt | null) => void;

/** Renders Markdown into an element (Obsidian's MarkdownRenderer in the app). */
export type RenderMarkdown = (markdown: string, into: HTMLElement) => void;

/** Tells the bridge whether `source` helped with this answer. */
export type SendFeedback = (source: Source, helpful: boolean) => Promise<FeedbackResult>;

export interface ResultOptions {
  /** Renders the answer as Markdown; without it the answer is plain text. */
  renderMarkdown?: RenderMarkdown;
  /** Shows the Helpful / Not helpful buttons on each source. */
  feedback?: SendFeedback;
  /** An icon by name (Obsidian's `getIcon`); null, or none given, falls back to an emoji. */
  icon?: (name: string) => SVGElement | null;
}

export const OOD_TEXT = "Nothing in memory about this";
/** Shown for excerpts-only results when the bridge gave no `message` of its own. */
export const EXCERPTS_ONLY_TEXT = "No written answer: these are the ranked excerpts.";

export function formatLatency(ms: number): string {
  if (ms < 10) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  return `${Math.round(ms / 100) / 10} s`;
}

/** The question needed an LLM (tier 3 or 4) and got the ranked excerpts instead. */
export function excerptsOnly(result: QueryResult): boolean {
  return !result.ood && result.answer === null && result.tier >= 3;
}

export function badgeText(result: QueryResult): string {
  const tier = excerptsOnly(result) ? `tier ${result.tier} · excerpts only` : `tier ${result.tier}`;
  return `${tier} · ${formatLatency(result.latency_ms)}`;
}

/** What the bridge did with a verdict, in a few words. */
export function feedbackText(result: FeedbackResult): string {
  if (result.credit === "credited") return "Thanks — counted";
  if (result.credit === "already_credited") return "Already counted";
  return "Noted";
}

/** The link text Obsidian opens: `path#^block` when the block has an id. */
export function linkText(path: string, block: Excerpt | null): string {
  return block?.block_id ? `${path}#^${block.block_id}` : path;
}

export function renderQueryResult(
  container: HTMLElement,
  result: QueryResult,
  open: OpenSource,
  options: ResultOptions = {},
): void {
  clear(container);
  const { renderMarkdown } = options;
  const feedback = options.feedback ? { send: options.feedback, icon: options.icon } : undefined;
  const head = el(container, "div", { cls: "vb-result-head" });
  const badge = el(head, "span", { cls: "vb-badge", text: badgeText(result), attr: { title: "Tier and latency" } });
  if (excerptsOnly(result)) {
    badge.classList.add("vb-badge-excerpts");
    badge.title = "The question needed an LLM: these are the ranked excerpts, without a written answer";
  }
  if (result.ood) {
    el(container, "p", { cls: "vb-ood", text: OOD_TEXT });
    if (result.message) el(container, "p", { cls: "vb-message", text: result.message });
    return;
  }
  const message = result.message ?? (excerptsOnly(result) ? EXCERPTS_ONLY_TEXT : null);
  if (message) el(container, "p", { cls: "vb-message", text: message });
  if (result.answer) {
    const answer = el(container, "div", { cls: "vb-answer" });
    if (renderMarkdown) {
      answer.classList.add("vb-markdown");
      renderMarkdown(result.answer, answer);
    } else {
      answer.textContent = result.answer;
    }
    renderSourceLinks(container, result.sources, open, feedback);
  } else {
    renderExcerpts(container, result.sources, open, feedback);
  }
}

interface Feedback {
  send: SendFeedback;
  icon?: ResultOptions["icon"];
}

/** 👍 / 👎 for one source: once a verdict is taken both buttons stay disabled. */
function feedbackButtons(parent: HTMLElement, source: Source, { send, icon }: Feedback): void {
  const box = el(parent, "span", { cls: "vb-feedback" });
  const button = (helpful: boolean): HTMLButtonElement => {
    const label = helpful ? "Helpful" : "Not helpful";
    const thumb = el(box, "button", {
      cls: ["vb-thumb", helpful ? "vb-thumb-up" : "vb-thumb-down"],
      attr: { type: "button", "aria-label": label, title: label, "aria-pressed": "false" },
    });
    const svg = icon?.(helpful ? "thumbs-up" : "thumbs-down") ?? null;
    if (svg) thumb.appendChild(svg);
    else thumb.textContent = helpful ? "👍" : "👎";
    return thumb;
  };
  const up = button(true);
  const down = button(false);
  const outcome = el(box, "span", { cls: "vb-feedback-result", attr: { "aria-live": "polite" } });
  const choose = async (helpful: boolean): Promise<void> => {
    const chosen = helpful ? up : down;
    up.disabled = down.disabled = true;
    outcome.className = "vb-feedback-result";
    outcome.textContent = "";
    try {
      const answer = await send(source, helpful);
      chosen.classList.add("is-active");
      chosen.setAttribute("aria-pressed", "true");
      outcome.textContent = feedbackText(answer);
    } catch (error) {
      up.disabled = down.disabled = false;
      outcome.classList.add("vb-feedback-error");
      outcome.textContent = errorMessage(error);
    }
  };
  up.addEventListener("click", () => void choose(true));
  down.addEventListener("click", () => void choose(false));
}

function sourceLink(parent: HTMLElement, source: Source, open: OpenSource, feedback?: Feedback): void {
  const first = source.blocks[0] ?? null;
  actionLink(parent, source.title || source.path, () => open(source, first), {
    cls: "vb-source-link",
    attr: { title: linkText(source.path, first), "data-path": source.path },
  });
  if (source.status) el(parent, "span", { cls: "vb-chip", text: source.status });
  if (feedback) feedbackButtons(parent, source, feedback);
  el(parent, "span", { cls: "vb-source-path", text: source.path });
  if (source.via === "relation" && source.related_from) {
    el(parent, "span", { cls: "vb-source-via", text: `linked from ${source.related_from}` });
  }
}

function renderSourceLinks(
  container: HTMLElement,
  sources: Source[],
  open: OpenSource,
  feedback?: Feedback,
): void {
  if (sources.length === 0) return;
  el(container, "h4", { cls: "vb-section", text: "Sources" });
  const list = el(container, "ol", { cls: "vb-sources" });
  for (const source of sources) {
    sourceLink(el(list, "li", { cls: "vb-source", attr: { "data-path": source.path } }), source, open, feedback);
  }
}

function renderExcerpts(
  container: HTMLElement,
  sources: Source[],
  open: OpenSource,
  feedback?: Feedback,
): void {
  if (sources.length === 0) {
    el(container, "p", { cls: "vb-empty", text: "No matching notes." });
    return;
  }
  el(container, "h4", { cls: "vb-section", text: "Excerpts" });
  const list = el(container, "ol", { cls: "vb-sources vb-excerpts" });
  for (const source of sources) {
    const item = el(list, "li", { cls: "vb-source", attr: { "data-path": source.path } });
    sourceLink(el(item, "div", { cls: "vb-source-head" }), source, open, feedback);
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
