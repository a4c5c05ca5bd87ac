// Shows one note's lifecycle as the bridge computed it: importance, recency, maturity, the next
// transition. Nothing is computed here.

import type { Lifecycle } from "../api-types";
import { clear, el } from "../dom";

function row(table: HTMLElement, label: string, value: string): void {
  const tr = el(table, "tr");
  el(tr, "th", { text: label });
  el(tr, "td", { text: value, attr: { "data-field": label } });
}

function date(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : "never";
}

export function renderLifecycle(container: HTMLElement, lifecycle: Lifecycle): void {
  clear(container);
  el(container, "p", { cls: "vb-lifecycle-path", text: lifecycle.path });
  const table = el(container, "table", { cls: "vb-lifecycle" });
  const body = el(table, "tbody");
  row(body, "Importance", lifecycle.importance.toFixed(2));
  row(body, "Recency", lifecycle.recency.toFixed(3));
  row(body, "Maturity", lifecycle.maturity);
  row(body, "Status", lifecycle.status ?? "none");
  if (lifecycle.access_count !== undefined) row(body, "Reads", String(lifecycle.access_count));
  if (lifecycle.update_count !== undefined) row(body, "Updates", String(lifecycle.update_count));
  row(body, "Last update", date(lifecycle.last_update));
  el(container, "p", { cls: "vb-forecast", text: `Next: ${lifecycle.forecast.text}` });
}
