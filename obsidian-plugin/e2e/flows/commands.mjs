// Every command the plugin registers, run from the palette stand-in, each with a visible
// effect. The list comes from the loaded plugin: a command without a check here fails the run.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { accessCount, BADGE, call, CEILING_MS, REVIEW, step, waitForCall } from "../lib/page.mjs";
import { JWT } from "./query.mjs";
import { relatedPanelOpens } from "./related.mjs";

const MODAL = ".modal-container:not(:has(.mod-settings)) .modal";

async function closeModal(page) {
  await page.click(`${MODAL} .modal-close-button`);
  await page.waitForSelector(MODAL, { state: "detached" });
}

async function askInAModal(page) {
  await page.waitForSelector(`${MODAL} .vb-ask-modal .vb-query-input`);
  assert.equal(await page.textContent(`${MODAL} .modal-title`), "Ask memory");
  await page.fill(`${MODAL} .vb-query-input`, "Who has to approve a pull request?");
  await page.click(`${MODAL} .vb-ask`);
  await page.waitForSelector(`${MODAL} .vb-badge`, { timeout: CEILING_MS });
  const badge = await page.textContent(`${MODAL} .vb-badge`);
  assert.match(badge ?? "", BADGE, `badge: ${badge}`);
  const sources = await page.$$eval(`${MODAL} .vb-source-link`, (links) => links.length);
  assert.ok(sources > 0, "the modal's answer has no sources");
  await closeModal(page);
  return `a modal answered (${badge}, ${sources} sources)`;
}

async function reviewQueueOpens(page) {
  await page.waitForSelector(`${REVIEW} .vb-review-toolbar`, { timeout: CEILING_MS });
  await waitForCall(page, "leaves", (leaves) => leaves.includes("vault-bridge-review*"), "the review view is not the active leaf");
  return `the review view is open: ${await page.textContent(`${REVIEW} .vb-title`)}`;
}

async function curateWithoutAnLlm(page) {
  const notice = page.locator(".notice", { hasText: "Curating needs an LLM" });
  await notice.waitFor({ timeout: CEILING_MS });
  const text = await notice.textContent();
  assert.match(text ?? "", /^Curating needs an LLM and this bridge has none\./);
  await notice.click(); // dismissed, as in Obsidian
  await notice.waitFor({ state: "detached" });
  return `notice: ${text?.split("\n")[0].slice(0, 60)}…`;
}

async function showLifecycle(page, bridge) {
  await page.waitForSelector(`${MODAL} .vb-info-modal [data-field="Importance"]`, { timeout: CEILING_MS });
  assert.equal(await page.textContent(`${MODAL} .modal-title`), "Lifecycle of jwt_expiry");
  const reads = await page.textContent(`${MODAL} [data-field="Reads"]`);
  assert.equal(reads, String(await accessCount(bridge, JWT)), "the modal's reads differ from GET /v1/lifecycle");
  await closeModal(page);
  return `a modal shows the lifecycle (reads ${reads})`;
}

/** By command id: whether it needs an active note, and what running it must show. */
const CHECKS = {
  "vault-bridge:ask-memory": { note: false, check: askInAModal },
  "vault-bridge:open-review-queue": { note: false, check: reviewQueueOpens },
  "vault-bridge:show-related-notes": { note: false, check: relatedPanelOpens },
  "vault-bridge:curate-note": { note: true, check: curateWithoutAnLlm },
  "vault-bridge:show-lifecycle": { note: true, check: showLifecycle },
};

export async function runEveryCommand(page, bridge, vault) {
  const registered = await call(page, "commands");
  const ids = registered.map((command) => command.id);
  step(`the plugin registers ${ids.length} commands: ${registered.map((command) => command.name).join("; ")}`);
  assert.deepEqual(ids.filter((id) => !(id in CHECKS)), [], "commands with no check in e2e/flows/commands.mjs");
  assert.deepEqual(Object.keys(CHECKS).filter((id) => !ids.includes(id)), [], "checks of commands the plugin no longer registers");

  const offered = registered.filter((command) => command.available).map((command) => command.id);
  const withoutNote = Object.keys(CHECKS).filter((id) => !CHECKS[id].note);
  assert.deepEqual(offered.sort(), withoutNote.sort(), "what the palette offers with no note open");
  step(`  with no note open the palette offers only ${offered.join(", ")}`);

  await call(page, "openNote", JWT, readFileSync(join(vault, JWT), "utf8"));
  const now = (await call(page, "commands")).filter((command) => command.available).map((command) => command.id);
  assert.deepEqual(now.sort(), [...ids].sort(), `with ${JWT} open the palette offers ${now.join(", ")}`);

  assert.deepEqual(await call(page, "leaves"), ["vault-bridge-query*"], "a view other than the query view is open already");
  for (const { id, name } of registered) {
    assert.equal(await call(page, "run", id), true, `the palette would not run ${id}`);
    step(`  ${name}: ${await CHECKS[id].check(page, bridge)}`);
  }
}
