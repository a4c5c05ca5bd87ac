// Two agent edits arrive live as pending reviews; the status bar counts them and opens the
// queue; approve one (the note changes on disk), reject the other with a reason (it does not).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { api, call, CEILING_MS, REVIEW, STATUS, step, waitForText } from "../lib/page.mjs";
import { JWT } from "./query.mjs";

const CODE_REVIEW = "team/practices/code_review.md";
const NEW_JWT_TEXT = "JWT access tokens expire after 12 h since ADR-011; refresh tokens still live 30 days.";
const REJECT_REASON = "we keep one approval for most code";
const NEW_REVIEW_TEXT = "Every pull request needs two approving reviews, whoever opened it.";

async function createPendingReviews(bridge, vault) {
  step("an agent proposes two edits to human-written notes (POST /v1/curate/operations)");
  const result = await api(bridge, "POST", "/v1/curate/operations", {
    author: "agent:e2e",
    operations: [
      { type: "UPDATE", path: JWT, narrative: NEW_JWT_TEXT, reason: "ADR-011 shortened the access token lifetime", impact: "high" },
      { type: "UPDATE", path: CODE_REVIEW, narrative: NEW_REVIEW_TEXT, reason: "the team asked for two reviews everywhere", impact: "high" },
    ],
  });
  step(`  ${result.results.map((r) => `${r.path}: ${r.status}`).join("; ")}`);
  for (const r of result.results) assert.equal(r.status, "pending_review", `${r.path}: ${r.status} (${r.message})`);
  for (const path of [JWT, CODE_REVIEW]) {
    assert.ok(!readFileSync(join(vault, path), "utf8").includes("12 h since ADR-011"), `${path} changed before review`);
  }
}

export async function reviewEdits(page, bridge, vault, screenshots) {
  const before = { [JWT]: readFileSync(join(vault, JWT), "utf8"), [CODE_REVIEW]: readFileSync(join(vault, CODE_REVIEW), "utf8") };
  await createPendingReviews(bridge, vault);

  step("the review view lists both edits (pushed through /v1/events)");
  await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 2, `${REVIEW} .vb-review`, { timeout: CEILING_MS });
  const mode = await call(page, "mode");
  step(`  live updates: ${mode}`);
  assert.equal(mode, "streaming", "the view did not get the reviews from the event stream");
  await waitForText(page, STATUS, "Vault Bridge: 2 pending reviews");
  step("  status bar: Vault Bridge: 2 pending reviews");

  step("a click on the status bar reveals the review queue");
  await page.click('.side-dock-ribbon-action[aria-label="Ask memory"]');
  await page.waitForFunction(() => window.vaultBridgeHarness.leaves().includes("vault-bridge-query*"));
  await page.click(STATUS);
  await page.waitForFunction(() => window.vaultBridgeHarness.leaves().includes("vault-bridge-review*"));
  assert.deepEqual(await call(page, "leaves"), ["vault-bridge-query", "vault-bridge-review*", "vault-bridge-related"], "a second view was opened");

  const card = (path) => `${REVIEW} .vb-review[data-path="${path}"]`;
  assert.ok((await page.$$(`${card(JWT)} .vb-diff-add`)).length > 0, "the diff has no coloured additions");
  assert.ok((await page.$$(`${card(JWT)} .vb-diff-del`)).length > 0, "the diff has no coloured deletions");
  assert.equal(await page.textContent(`${card(JWT)} [data-field="Author"]`), "agent:e2e");
  await page.locator(REVIEW).screenshot({ path: join(screenshots, "review-view.png") });

  step("approve the JWT edit");
  await page.click(`${card(JWT)} .vb-approve`);
  await page.waitForSelector(`${REVIEW} .vb-banner-info`, { timeout: CEILING_MS });
  const approved = await page.textContent(`${REVIEW} .vb-banner`);
  assert.ok(approved?.startsWith("Approved"), `banner: ${approved}`);
  const jwtNow = readFileSync(join(vault, JWT), "utf8");
  assert.notEqual(jwtNow, before[JWT], `${JWT} did not change on disk`);
  assert.ok(jwtNow.includes(NEW_JWT_TEXT), `${JWT} does not hold the approved text`);
  step(`  ${JWT} changed on disk`);

  step("reject the code review edit with a reason");
  await page.waitForFunction((selector) => document.querySelectorAll(selector).length === 1, `${REVIEW} .vb-review`, { timeout: CEILING_MS });
  await page.click(`${card(CODE_REVIEW)} .vb-reject`);
  await page.fill(`${card(CODE_REVIEW)} .vb-reject-reason`, REJECT_REASON);
  await page.click(`${card(CODE_REVIEW)} .vb-reject-confirm`);
  await page.waitForFunction((selector) => document.querySelector(selector)?.textContent?.startsWith("Rejected"), `${REVIEW} .vb-banner`, {
    timeout: CEILING_MS,
  });
  await page.waitForSelector(`${REVIEW} .vb-empty`, { timeout: CEILING_MS });
  assert.equal(readFileSync(join(vault, CODE_REVIEW), "utf8"), before[CODE_REVIEW], `${CODE_REVIEW} changed on disk`);
  step(`  ${CODE_REVIEW} is unchanged on disk`);

  const all = await api(bridge, "GET", "/v1/reviews?state=all");
  const listed = Array.isArray(all) ? all : all.reviews;
  step(`  reviews now: ${listed.map((r) => `${r.path}: ${r.state}`).join("; ")}`);
  const rejected = listed.find((r) => r.path === CODE_REVIEW);
  assert.equal(rejected?.state, "rejected");
  assert.equal(rejected?.note, REJECT_REASON, "the reject reason did not reach the bridge");
  await waitForText(page, STATUS, "Vault Bridge: connected");
}
