// Settings → Vault Bridge on a fresh install: a URL where nothing listens, a state dir with no
// bridge, then "Find bridge" in this vault's default state dir, "Test connection", a wrong
// token, and the status bar once connected.

import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort } from "../lib/bridge.mjs";
import { api, call, CEILING_MS, STATUS, step, waitForText } from "../lib/page.mjs";

const SETTINGS = ".modal.mod-settings";
const DEFAULT_URL = "http://127.0.0.1:27182";

const row = (page, name) =>
  page.locator(`${SETTINGS} .setting-item`, { has: page.locator(".setting-item-name", { hasText: new RegExp(`^${name}$`) }) });
const input = (page, name) => row(page, name).locator("input");

async function outcome(page, selector) {
  const line = page.locator(selector);
  return { text: await line.textContent(), ok: (await line.getAttribute("class"))?.includes("vb-ok") ?? false };
}

/** "Test connection" resets its line (at the end of the tab) on click, then fills it. */
async function testConnection(page) {
  const line = `${SETTINGS} .vertical-tab-content > .vb-connection-result:last-child`;
  await row(page, "Test connection").locator("button").click();
  await page.waitForFunction((selector) => document.querySelector(selector)?.matches(".vb-ok, .vb-error"), line, { timeout: CEILING_MS });
  return outcome(page, line);
}

/** "Find bridge" redraws the whole tab, its outcome under its own row. */
async function findBridge(page) {
  const tab = `${SETTINGS} .vertical-tab-content`;
  await page.$$eval(`${tab} > *`, (nodes) => nodes.forEach((node) => node.setAttribute("data-e2e-before", "")));
  await row(page, "Find bridge").locator("button").click();
  await page.waitForFunction((tab) => !document.querySelector(`${tab} > [data-e2e-before]`), tab, { timeout: CEILING_MS });
  return outcome(page, `${tab} > .vb-connection-result:not(:last-child)`);
}

export async function connect(page, bridge, tmp, screenshots) {
  step("a fresh install: nothing saved, the status bar says not connected");
  await waitForText(page, STATUS, "Vault Bridge: not connected");
  assert.equal(await call(page, "data"), null);

  step("Settings → Vault Bridge");
  await call(page, "openSettings");
  const names = await page.locator(`${SETTINGS} .setting-item-name`).allTextContents();
  assert.deepEqual(names, ["Bridge URL", "Token", "State dir", "Find bridge", "Test connection"]);
  assert.equal(await input(page, "Bridge URL").inputValue(), DEFAULT_URL);
  assert.equal(await input(page, "Token").inputValue(), "");
  assert.equal(await input(page, "Token").getAttribute("type"), "password", "the token is shown in clear");

  const nowhere = `http://127.0.0.1:${await freePort()}`;
  await input(page, "Bridge URL").fill(nowhere);
  const unreachable = await testConnection(page);
  assert.deepEqual(unreachable, { text: `Vault Bridge is not running at ${nowhere}`, ok: false });
  step(`  Test connection, nothing at ${nowhere}: "${unreachable.text}"`);

  const elsewhere = join(tmp, "no-bridge-here");
  await input(page, "State dir").fill(elsewhere);
  const missing = await findBridge(page);
  assert.equal(missing.ok, false);
  assert.equal(missing.text, `No running bridge for this vault: ${elsewhere}/bridge.json does not exist. Start it with \`vault-bridge serve\`.`);
  step(`  Find bridge in ${elsewhere}: "${missing.text}"`);

  step("Find bridge in this vault's default state dir");
  await input(page, "State dir").fill("");
  const found = await findBridge(page);
  assert.deepEqual(found, { text: `Found the bridge at ${bridge.discovery.url} (${bridge.stateDir}).`, ok: true });
  assert.equal(await input(page, "Bridge URL").inputValue(), bridge.discovery.url);
  assert.equal(await input(page, "Token").inputValue(), bridge.token);
  assert.deepEqual(await call(page, "data"), { url: bridge.discovery.url, token: bridge.token, stateDir: "" });
  step(`  "${found.text}"; URL and token filled and saved`);

  const health = await api(bridge, "GET", "/v1/health");
  const connected = await testConnection(page);
  assert.ok(connected.ok, `Test connection: ${connected.text}`);
  assert.match(connected.text, new RegExp(`^Connected to Vault Bridge ${health.version}: \\d+ notes in .+, 0 pending reviews, LLM: none$`));
  step(`  Test connection: "${connected.text}"`);
  await page.locator(SETTINGS).screenshot({ path: join(screenshots, "plugin-settings.png") });

  step("a wrong token");
  await input(page, "Token").fill("not-the-token");
  const refused = await testConnection(page);
  assert.deepEqual(refused, { text: "The bridge refused the token: check Settings → Vault Bridge", ok: false });
  step(`  Test connection: "${refused.text}"`);
  await findBridge(page);
  assert.equal(await input(page, "Token").inputValue(), bridge.token, "Find bridge did not put the token back");
  assert.ok((await testConnection(page)).ok, "Test connection fails after Find bridge");
  await call(page, "closeSettings");

  await waitForText(page, STATUS, "Vault Bridge: connected");
  await page.waitForFunction(() => window.vaultBridgeHarness.mode() === "streaming", null, { timeout: CEILING_MS });
  step("  status bar: Vault Bridge: connected; live updates: streaming");
}
