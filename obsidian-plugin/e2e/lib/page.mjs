// What the e2e flows share: logging, the page's selectors, the bridge's API from Node.

import assert from "node:assert/strict";

export const step = (text) => console.log(`e2e: ${text}`);

/**
 * How long a flow waits for a condition before it fails: only a ceiling, generous because a busy
 * 2-core machine is slow (the Python suite's `CEILING` in tests/conftest.py is the same).
 */
export const CEILING_MS = 300_000;

/** The right-sidebar leaves holding the plugin's views, and its status-bar item. */
export const QUERY = '.workspace-leaf[data-type="vault-bridge-query"]';
export const REVIEW = '.workspace-leaf[data-type="vault-bridge-review"]';
export const RELATED = '.workspace-leaf[data-type="vault-bridge-related"]';
export const STATUS = ".status-bar-item.plugin-vault-bridge";
export const BADGE = /^tier \d( · excerpts only)? · [\d.]+ (ms|s)$/;

/** Calls the harness in the page: `call(page, "run", id)`. */
export function call(page, name, ...args) {
  return page.evaluate(([name, args]) => window.vaultBridgeHarness[name](...args), [name, args]);
}

/** Polls the harness's `name` until `ok(value)`: views open and become active asynchronously. */
export async function waitForCall(page, name, ok, message, timeout = CEILING_MS) {
  const deadline = Date.now() + timeout;
  let value = await call(page, name);
  while (!ok(value)) {
    if (Date.now() > deadline) throw new Error(`${message}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await call(page, name);
  }
  return value;
}

export function waitForText(page, selector, text, timeout = CEILING_MS) {
  return page.waitForFunction(([selector, text]) => document.querySelector(selector)?.textContent === text, [selector, text], { timeout });
}

export async function api(bridge, method, path, body) {
  const response = await fetch(bridge.url + path, {
    method,
    headers: { Authorization: `Bearer ${bridge.token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: HTTP ${response.status} ${text}`);
  return JSON.parse(text);
}

export async function accessCount(bridge, path) {
  const lifecycle = await api(bridge, "GET", `/v1/lifecycle/${path.split("/").map(encodeURIComponent).join("/")}`);
  return lifecycle.access_count;
}
