// The query view, opened from the ribbon: ask, see the sources, credit them (thumbs-up, opening
// one) or not (thumbs-down), and a question that needs an LLM when none is configured.

import assert from "node:assert/strict";
import { join } from "node:path";
import { accessCount, BADGE, call, CEILING_MS, QUERY, step } from "../lib/page.mjs";

export const JWT = "engineering/auth/jwt_expiry.md";
// No one note answers how two parts of the vault meet: the ranker is not confident enough for a
// direct answer (tier 2), so the question needs a model.
const LLM_QUESTION = "how do the auth and billing systems interact";

export async function openFromRibbon(page) {
  step('the ribbon icon "Ask memory" opens the query view in the right sidebar');
  await page.click('.side-dock-ribbon-action[aria-label="Ask memory"]');
  await page.waitForSelector(`${QUERY} .vb-query-input`, { timeout: CEILING_MS });
  assert.deepEqual(await call(page, "leaves"), ["vault-bridge-query*"]);
}

export async function askAndOpenSources(page, bridge, screenshots) {
  step("ask a question in the query view");
  await page.fill(`${QUERY} .vb-query-input`, "How long do JWT access tokens live?");
  await page.click(`${QUERY} .vb-ask`);
  await page.waitForSelector(`${QUERY} .vb-badge`, { timeout: CEILING_MS });
  const badge = await page.textContent(`${QUERY} .vb-badge`);
  assert.match(badge ?? "", BADGE, `badge: ${badge}`);
  const paths = await page.$$eval(`${QUERY} .vb-source-link`, (links) => links.map((a) => a.dataset.path));
  assert.ok(paths.includes(JWT), `sources ${paths.join(", ")} do not include ${JWT}`);
  const answerOrExcerpts = await page.$$eval(`${QUERY} .vb-answer, ${QUERY} .vb-excerpt-text`, (nodes) => nodes.length);
  assert.ok(answerOrExcerpts > 0, "neither an answer nor excerpts are shown");
  step(`  ${badge}; sources: ${paths.join(", ")}`);
  // Tier 2's answer is composed for reading: the sentences that answer, each part citing its note.
  const answer = (await page.textContent(`${QUERY} .vb-answer`)) ?? "";
  assert.ok(answer.includes("JWT access tokens expire after 24 h"), `answer: ${answer}`);
  const links = await page.$$eval(`${QUERY} .vb-answer a.internal-link`, (as) => as.map((a) => a.dataset.href));
  assert.ok(links.includes("engineering/auth/jwt_expiry"), `the answer cites ${links.join(", ")}`);
  assert.ok(!/Task:|Author:/.test(answer), `metadata in the answer: ${answer}`);
  assert.equal(await page.$(`${QUERY} .vb-answer pre`), null, "a code block nobody asked for");
  // The notes the answer cites count as used; the others merely appear.
  const cited = (path) => links.some((link) => link.split("#")[0] === path.replace(/\.md$/, ""));
  const [helped, read] = paths.filter((path) => path !== JWT && !cited(path));
  assert.ok(helped && read, `too few sources to rate and open: ${paths.join(", ")}`);
  for (const path of [helped, read]) {
    assert.equal(await accessCount(bridge, path), 0, `${path}: appearing in the results counted as a use`);
  }

  await page.click(`${QUERY} .vb-source-link[data-path="${JWT}"]`);
  const opened = await page.evaluate(() => window.vaultBridgeHarness.opened);
  assert.ok(opened[0]?.startsWith(JWT), `opened ${opened[0]}`);
  step(`  clicking the source opens ${opened[0]}`);

  step(`thumbs-up on ${helped}`);
  const source = (path) => `${QUERY} .vb-source[data-path="${path}"]`;
  await page.click(`${source(helped)} .vb-thumb-up`);
  await page.waitForFunction((selector) => document.querySelector(selector)?.textContent !== "", `${source(helped)} .vb-feedback-result`, {
    timeout: CEILING_MS,
  });
  const outcome = await page.textContent(`${source(helped)} .vb-feedback-result`);
  assert.equal(outcome, "Thanks — counted", `feedback: ${outcome}`);
  assert.ok(await page.$(`${source(helped)} .vb-thumb-up.is-active:disabled`), "the thumbs-up is not shown as chosen");
  assert.ok(await page.$(`${source(helped)} .vb-thumb-down:disabled`), "the thumbs-down can still be pressed");
  const counted = await accessCount(bridge, helped);
  assert.equal(counted, 1, `${helped}: access_count ${counted} after the thumbs-up`);
  step(`  the view says "${outcome}"; GET /v1/lifecycle: access_count ${counted}`);

  step(`open ${read} from the answer: a use (GET /v1/entries/...?from_query=...)`);
  await page.click(`${QUERY} .vb-source-link[data-path="${read}"]`);
  // The open is credited in the background of opening the note: wait for the bridge to count it.
  const deadline = Date.now() + CEILING_MS;
  let reads = 0;
  while ((reads = await accessCount(bridge, read)) !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.equal(reads, 1, `${read}: access_count ${reads} after opening it from the answer`);
  step(`  GET /v1/lifecycle: access_count ${reads}`);
  await page.click(`${source(read)} .vb-thumb-down`);
  await page.waitForFunction((selector) => document.querySelector(selector)?.textContent === "Noted", `${source(read)} .vb-feedback-result`, {
    timeout: CEILING_MS,
  });
  assert.equal(await accessCount(bridge, read), 1, `${read}: a thumbs-down counted as a use`);
  step("  a thumbs-down is noted and credits nothing");
  await page.locator(QUERY).screenshot({ path: join(screenshots, "query-view.png") });
}

export async function askNeedingAnLlm(page) {
  step(`ask a question that needs an LLM, with none configured: "${LLM_QUESTION}"`);
  await page.fill(`${QUERY} .vb-query-input`, LLM_QUESTION);
  await page.click(`${QUERY} .vb-ask`);
  await page.waitForSelector(`${QUERY} .vb-badge`, { timeout: CEILING_MS }); // submitting cleared the last one
  const badge = await page.textContent(`${QUERY} .vb-badge`);
  assert.match(badge ?? "", /^tier [34] · excerpts only · [\d.]+ (ms|s)$/, `badge: ${badge}`);
  assert.equal(await page.$(`${QUERY} .vb-answer`), null, "an answer is shown without an LLM");
  const message = await page.textContent(`${QUERY} .vb-message`);
  assert.match(message ?? "", /No LLM is configured/, `message: ${message}`);
  assert.ok(await page.isVisible(`${QUERY} .vb-message`), "the message is not visible");
  const excerpts = await page.$$eval(`${QUERY} .vb-excerpt-text`, (nodes) => nodes.length);
  assert.ok(excerpts > 0, "no excerpts are shown");
  step(`  ${badge}; ${message}`);
}
