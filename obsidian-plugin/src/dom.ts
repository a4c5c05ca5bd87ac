// Plain DOM helpers, so the rendering functions run the same in Obsidian, in a test DOM and in
// the browser harness. Text is always set as text, never parsed as HTML.

export interface ElOptions {
  cls?: string | string[];
  text?: string;
  attr?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  parent: HTMLElement,
  tag: K,
  options: ElOptions = {},
): HTMLElementTagNameMap[K] {
  const element = parent.ownerDocument.createElement(tag);
  const classes = typeof options.cls === "string" ? [options.cls] : (options.cls ?? []);
  for (const cls of classes.join(" ").split(/\s+/)) if (cls) element.classList.add(cls);
  if (options.text !== undefined) element.textContent = options.text;
  for (const [name, value] of Object.entries(options.attr ?? {})) element.setAttribute(name, value);
  parent.appendChild(element);
  return element;
}

export function clear(element: HTMLElement): void {
  while (element.firstChild) element.removeChild(element.firstChild);
}

/** A link-styled anchor that runs `onClick` instead of navigating. */
export function actionLink(
  parent: HTMLElement,
  text: string,
  onClick: () => void,
  options: ElOptions = {},
): HTMLAnchorElement {
  const link = el(parent, "a", { ...options, text, attr: { href: "#", ...(options.attr ?? {}) } });
  link.addEventListener("click", (event) => {
    event.preventDefault();
    onClick();
  });
  return link;
}
