// The question box and its result, shared by the sidebar view and the "Ask memory" modal.

import { errorMessage } from "../api";
import { clear, el } from "../dom";
import type { BridgeHost } from "../hub";
import { renderQueryResult, type OpenSource, type RenderMarkdown } from "../render/query-result";

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

  const ask = async (question: string): Promise<void> => {
    const query = question.trim();
    if (!query) return;
    input.value = query;
    button.disabled = true;
    clear(output);
    el(output, "p", { cls: "vb-loading", text: "Asking the memory…" });
    try {
      const result = await host.client().query({ query });
      renderQueryResult(output, result, options.open, options.renderMarkdown);
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
