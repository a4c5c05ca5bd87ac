// The "Related in memory" panel against the real bridge: once the bridge has embedded the
// vault, the panel lists the notes related to the active note, as GET /v1/similar answers,
// follows the active note, and opens a related note on click.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { api, call, CEILING_MS, RELATED, STATUS, step, waitForCall, waitForText } from "../lib/page.mjs";
import { JWT } from "./query.mjs";

const CODE_REVIEW = "team/practices/code_review.md";

/** The palette's "Show related notes": the panel opens in the right sidebar, active. */
export async function relatedPanelOpens(page) {
  await page.waitForSelector(`${RELATED} .vb-related-list`, { timeout: CEILING_MS });
  await waitForCall(page, "leaves", (leaves) => leaves.includes("vault-bridge-related*"), "the related panel is not the active leaf");
  return `the panel is open: ${await page.textContent(`${RELATED} .vb-title`)}`;
}

/** Polls the bridge's own status until the dense channel is ready (off fails at once). */
async function waitUntilEmbedded(bridge) {
  const deadline = Date.now() + CEILING_MS;
  for (;;) {
    const { semantic } = await api(bridge, "GET", "/v1/status");
    assert.notEqual(semantic?.state ?? "off", "off", "the bridge's dense channel is off: the panel has nothing to show");
    if (semantic.state === "ready") return semantic;
    if (Date.now() > deadline) throw new Error(`the bridge is still embedding after ${CEILING_MS / 1000} s: ${JSON.stringify(semantic)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Makes `path` the active note and waits for the panel's list about it; returns what it shows. */
async function showRelatedTo(page, vault, path) {
  await call(page, "openNote", path, readFileSync(join(vault, path), "utf8"));
  const list = `${RELATED} .vb-related-list[data-path="${path}"]`;
  await page.waitForSelector(`${list} .vb-related-link, ${list} .vb-empty, ${list} .vb-error`, { timeout: CEILING_MS });
  const shown = await page.$$eval(`${list} .vb-related-note`, (items) =>
    items.map((item) => ({ path: item.dataset.path, score: item.querySelector(".vb-score")?.textContent ?? "" })),
  );
  assert.ok(shown.length > 0, `no related notes for ${path}: ${await page.textContent(list)}`);
  return shown;
}

export async function followRelatedNotes(page, bridge, vault, screenshots) {
  step("wait until the bridge has embedded the vault (GET /v1/status: semantic.state ready)");
  const semantic = await waitUntilEmbedded(bridge);
  step(`  ${semantic.model}: ${semantic.embedded} notes, ${semantic.sections} passages`);
  await waitForText(page, STATUS, "Vault Bridge: connected");
  step("  status bar: Vault Bridge: connected (no embedding progress once ready)");

  step(`open ${CODE_REVIEW}: the panel lists the notes related to it`);
  const shown = await showRelatedTo(page, vault, CODE_REVIEW);
  const answer = await api(bridge, "GET", `/v1/similar/${CODE_REVIEW}?limit=10`);
  assert.deepEqual(
    shown.map((note) => note.path),
    answer.similar.map((note) => note.path),
    "the panel's notes differ from GET /v1/similar",
  );
  assert.ok(!shown.some((note) => note.path === CODE_REVIEW), "the note is listed as related to itself");
  for (const note of shown) assert.match(note.score, /^\d\.\d\d$/, `score of ${note.path}`);
  step(`  ${shown.map((note) => `${note.path} ${note.score}`).join("; ")}`);
  await page.locator(RELATED).screenshot({ path: join(screenshots, "related-view.png") });

  step(`open ${JWT}: the panel follows the active note`);
  const followed = await showRelatedTo(page, vault, JWT);
  assert.ok(!followed.some((note) => note.path === JWT), "the note is listed as related to itself");
  const target = followed[0].path;
  await page.click(`${RELATED} .vb-related-link[data-path="${target}"]`);
  const opened = await page.evaluate(() => window.vaultBridgeHarness.opened);
  assert.equal(opened.at(-1), target, `clicking ${target} opened ${opened.at(-1)}`);
  step(`  ${followed.length} related notes; clicking ${target} opens it`);
}
