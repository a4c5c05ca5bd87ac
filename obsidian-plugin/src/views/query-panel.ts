// The question box and its result, shared by the sidebar view and the "Ask memory" modal.
// Opening a source, or saying it helped, is reported to the bridge with the answer's
// `query_id`: the bridge decides what that is worth.

import { errorMessage } from "../api";
import type { QueryResult } from "../api-types";
import { clear, el } from "../dom";
import type { BridgeHost } from "../hub";
import {
  renderQueryResult,
  type OpenSource,
  type RenderMarkdown,
  type SendFeedback,
} from "../render/query-result";

export interface QueryPanel {
  input: HTMLInputElement;
  output: HTMLElement;
  ask: (question: string) => Promise<void>;
}

export interface QueryPanelOptions {
  open: OpenSource;
  /** Renders the answer as Markdown; without it the answer is plain text. */
  renderMarkdown?: RenderMarkdown;
  /** Opens a wikilink clicked inside a Markdown answer. */
  openLink?: (linktext: string) => void;
  /** Icons for the Helpful / Not helpful buttons (Obsidian's `getIcon`). */
  icon?: (name: string) => SVGElement | null;
}

export function mountQueryPanel(
  container: HTMLElement,
  host: BridgeHost,
  options: QueryPanelOptions,
): QueryPanel {
  const form = el(container, "form", { cls: "vb-query-form" });
  const input = el(form, "input", {
    cls: "vb-query-input",
    attr: { type: "search", placeholder: "Ask the memory…", "aria-label": "Question" },
  });
  const button = el(form, "button", { cls: "mod-cta vb-ask", text: "Ask", attr: { type: "submit" } });
  const output = el(container, "div", { cls: "vb-query-output" });

  // Opens the note as always, and tells the bridge it was opened from this answer. That call is
  // fire-and-forget: it never holds up or blocks opening the note.
  const openFrom = (result: QueryResult): OpenSource => {
    return (source, block) => {
      options.open(source, block);
      if (!result.query_id) return;
      void Promise.resolve()
        .then(() => host.client().entry(source.path, result.query_id))
        .catch((error: unknown) => {
          console.debug(`Vault Bridge: could not report opening ${source.path}: ${errorMessage(error)}`);
        });
    };
  };
  const feedbackFor = (result: QueryResult): SendFeedback | undefined => {
    if (!result.query_id) return undefined; // an older bridge: nothing to send the verdict about
    return (source, helpful) => host.client().feedback({ query_id: result.query_id, path: source.path, helpful });
  };

  const ask = async (question: string): Promise<void> => {
    const query = question.trim();
    if (!query) return;
    input.value = query;
    button.disabled = true;
    clear(output);
    el(output, "p", { cls: "vb-loading", text: "Asking the memory…" });
    try {
      const result = await host.client().query({ query });
      renderQueryResult(output, result, openFrom(result), {
        renderMarkdown: options.renderMarkdown,
        feedback: feedbackFor(result),
        icon: options.icon,
      });
    } catch (error) {
      clear(output);
      el(output, "p", { cls: "vb-error", text: errorMessage(error) });
    } finally {
      button.disabled = false;
    }
  };

  // Wikilinks in a Markdown answer come out as `a.internal-link[data-href]`.
  output.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const href = target?.closest("a.internal-link")?.getAttribute("data-href");
    if (!href || !options.openLink) return;
    event.preventDefault();
    options.openLink(href);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void ask(input.value);
  });
  return { input, output, ask };
}
