// End to end in a real browser: the plugin's views in headless Debian Chromium against a real
// `vault-bridge serve` on a temp vault. Ask a question and see its sources; a thumbs-up and
// opening a source count as uses of those notes (their access_count), a thumbs-down does not;
// a question that needs an LLM, with none configured, shows its excerpts as such; two agent edits
// arrive as pending reviews; approve one (the note changes on disk) and reject the other with a
// reason (the note stays as it was). Screenshots go to docs/img/.
//
//   npm run test:e2e            (needs ../.venv from `make setup` and /usr/bin/chromium)

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import esbuild from "esbuild";
import { chromium } from "playwright-core";
import { freePort, initVault, startBridge } from "./lib/bridge.mjs";
import { serveHarness } from "./lib/server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const plugin = resolve(here, "..");
const repo = resolve(plugin, "..");
const images = join(repo, "docs", "img");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const JWT = "engineering/auth/jwt_expiry.md";
const CODE_REVIEW = "team/practices/code_review.md";
const NEW_JWT_TEXT = "JWT access tokens expire after 12 h since ADR-011; refresh tokens still live 30 days.";
const REJECT_REASON = "we keep one approval for most code";
const NEW_REVIEW_TEXT = "Every pull request needs two approving reviews, whoever opened it.";

const step = (text) => console.log(`e2e: ${text}`);

async function buildHarness() {
  await esbuild.build({
    entryPoints: [join(here, "harness.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    outfile: join(here, "harness.js"),
    alias: { obsidian: join(plugin, "test", "obsidian-shim.ts") },
    logLevel: "warning",
  });
}

async function api(bridge, method, path, body) {
  const response = await fetch(bridge.url + path, {
    method,
    headers: { Authorization: `Bearer ${bridge.token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.ok, `${method} ${path}: HTTP ${response.status} ${text}`);
  return JSON.parse(text);
}

function launch(profile) {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 940, height: 900 },
    deviceScaleFactor: 1,
  });
}

const BADGE = /^tier \d( · excerpts only)? · [\d.]+ (ms|s)$/;
const LLM_QUESTION = "summarise everything about billing";

async function accessCount(bridge, path) {
  const lifecycle = await api(bridge, "GET", `/v1/lifecycle/${path.split("/").map(encodeURIComponent).join("/")}`);
  return lifecycle.access_count;
}

async function askAndOpenSources(page, bridge) {
  step("ask a question in the query view");
  await page.fill("#query .vb-query-input", "How long do JWT access tokens live?");
  await page.click("#query .vb-ask");
  await page.waitForSelector("#query .vb-badge", { timeout: 30_000 });
  const badge = await page.textContent("#query .vb-badge");
  assert.match(badge ?? "", BADGE, `badge: ${badge}`);
  const paths = await page.$$eval("#query .vb-source-link", (links) => links.map((a) => a.dataset.path));
  assert.ok(paths.includes(JWT), `sources ${paths.join(", ")} do not include ${JWT}`);
  const answerOrExcerpts = await page.$$eval("#query .vb-answer, #query .vb-excerpt-text", (nodes) => nodes.length);
  assert.ok(answerOrExcerpts > 0, "neither an answer nor excerpts are shown");
  step(`  ${badge}; sources: ${paths.join(", ")}`);
  const [helped, read] = paths.filter((path) => path !== JWT);
  assert.ok(helped && read, `too few sources to rate and open: ${paths.join(", ")}`);
  for (const path of [helped, read]) {
    assert.equal(await accessCount(bridge, path), 0, `${path}: appearing in the results counted as a use`);
  }

  await page.click(`#query .vb-source-link[data-path="${JWT}"]`);
  const opened = await page.evaluate(() => window.vaultBridgeHarness.opened);
  assert.ok(opened[0]?.startsWith(JWT), `opened ${opened[0]}`);
  step(`  clicking the source opens ${opened[0]}`);

  step(`thumbs-up on ${helped}`);
  const source = (path) => `#query .vb-source[data-path="${path}"]`;
  await page.click(`${source(helped)} .vb-thumb-up`);
  await page.waitForFunction(
    (selector) => document.querySelector(selector)?.textContent !== "",
    `${source(helped)} .vb-feedback-result`,
    { timeout: 15_000 },
  );
  const outcome = await page.textContent(`${source(helped)} .vb-feedback-result`);
  assert.equal(outcome, "Thanks — counted", `feedback: ${outcome}`);
  assert.ok(await page.$(`${source(helped)} .vb-thumb-up.is-active:disabled`), "the thumbs-up is not shown as chosen");
  assert.ok(await page.$(`${source(helped)} .vb-thumb-down:disabled`), "the thumbs-down can still be pressed");
  const counted = await accessCount(bridge, helped);
  assert.equal(counted, 1, `${helped}: access_count ${counted} after the thumbs-up`);
  step(`  the view says "${outcome}"; GET /v1/lifecycle: access_count ${counted}`);

  step(`open ${read} from the answer: a use (GET /v1/entries/...?from_query=...)`);
  await page.click(`#query .vb-source-link[data-path="${read}"]`);
  const deadline = Date.now() + 15_000;
  let reads = 0;
  while ((reads = await accessCount(bridge, read)) !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.equal(reads, 1, `${read}: access_count ${reads} after opening it from the answer`);
  step(`  GET /v1/lifecycle: access_count ${reads}`);
  await page.click(`${source(read)} .vb-thumb-down`);
  await page.waitForFunction((selector) => document.querySelector(selector)?.textContent === "Noted", `${source(read)} .vb-feedback-result`, {
    timeout: 15_000,
  });
  assert.equal(await accessCount(bridge, read), 1, `${read}: a thumbs-down counted as a use`);
  step("  a thumbs-down is noted and credits nothing");
  await page.locator("#query").screenshot({ path: join(images, "query-view.png") });
}

async function askNeedingAnLlm(page) {
  step(`ask a question that needs an LLM, with none configured: "${LLM_QUESTION}"`);
  await page.fill("#query .vb-query-input", LLM_QUESTION);
  await page.click("#query .vb-ask");
  await page.waitForSelector("#query .vb-badge", { timeout: 30_000 });
  const badge = await page.textContent("#query .vb-badge");
  assert.match(badge ?? "", /^tier [34] · excerpts only · [\d.]+ (ms|s)$/, `badge: ${badge}`);
  assert.equal(await page.$("#query .vb-answer"), null, "an answer is shown without an LLM");
  const message = await page.textContent("#query .vb-message");
  assert.match(message ?? "", /No LLM is configured/, `message: ${message}`);
  assert.ok(await page.isVisible("#query .vb-message"), "the message is not visible");
  const excerpts = await page.$$eval("#query .vb-excerpt-text", (nodes) => nodes.length);
  assert.ok(excerpts > 0, "no excerpts are shown");
  step(`  ${badge}; ${message}`);
}

async function createPendingReviews(bridge, vault) {
  step("an agent proposes two edits to human-written notes (POST /v1/curate/operations)");
  const result = await api(bridge, "POST", "/v1/curate/operations", {
    author: "agent:e2e",
    operations: [
      { type: "UPDATE", path: JWT, narrative: NEW_JWT_TEXT, reason: "ADR-011 shortened the access token lifetime", impact: "high" },
      { type: "UPDATE", path: CODE_REVIEW, narrative: NEW_REVIEW_TEXT, reason: "the team asked for two reviews everywhere", impact: "high" },
    ],
  });
  const statuses = result.results.map((r) => `${r.path}: ${r.status}`);
  step(`  ${statuses.join("; ")}`);
  for (const r of result.results) assert.equal(r.status, "pending_review", `${r.path}: ${r.status} (${r.message})`);
  for (const path of [JWT, CODE_REVIEW]) {
    assert.ok(!readFileSync(join(vault, path), "utf8").includes("12 h since ADR-011"), `${path} changed before review`);
  }
}

async function reviewInTheView(page, vault, before) {
  step("the review view lists both edits (pushed through /v1/events)");
  await page.waitForFunction(() => document.querySelectorAll("#review .vb-review").length === 2, null, { timeout: 15_000 });
  const mode = await page.evaluate(() => window.vaultBridgeHarness.mode());
  step(`  live updates: ${mode}`);
  assert.equal(mode, "streaming", "the view did not get the reviews from the event stream");
  await page.waitForFunction(() => document.querySelector("#status-bar")?.textContent === "Vault Bridge: 2 pending reviews", null, {
    timeout: 15_000,
  });
  step("  status bar: Vault Bridge: 2 pending reviews");
  const card = (path) => `#review .vb-review[data-path="${path}"]`;
  assert.ok((await page.$$(`${card(JWT)} .vb-diff-add`)).length > 0, "the diff has no coloured additions");
  assert.ok((await page.$$(`${card(JWT)} .vb-diff-del`)).length > 0, "the diff has no coloured deletions");
  assert.equal(await page.textContent(`${card(JWT)} [data-field="Author"]`), "agent:e2e");
  await page.locator("#review").screenshot({ path: join(images, "review-view.png") });

  step("approve the JWT edit");
  await page.click(`${card(JWT)} .vb-approve`);
  await page.waitForSelector("#review .vb-banner-info", { timeout: 15_000 });
  const approved = await page.textContent("#review .vb-banner");
  assert.ok(approved?.startsWith("Approved"), `banner: ${approved}`);
  const jwtNow = readFileSync(join(vault, JWT), "utf8");
  assert.notEqual(jwtNow, before[JWT], `${JWT} did not change on disk`);
  assert.ok(jwtNow.includes(NEW_JWT_TEXT), `${JWT} does not hold the approved text`);
  step(`  ${JWT} changed on disk`);

  step("reject the code review edit with a reason");
  await page.waitForFunction(() => document.querySelectorAll("#review .vb-review").length === 1, null, { timeout: 15_000 });
  await page.click(`${card(CODE_REVIEW)} .vb-reject`);
  await page.fill(`${card(CODE_REVIEW)} .vb-reject-reason`, REJECT_REASON);
  await page.click(`${card(CODE_REVIEW)} .vb-reject-confirm`);
  await page.waitForFunction(() => document.querySelector("#review .vb-banner")?.textContent?.startsWith("Rejected"), null, {
    timeout: 15_000,
  });
  await page.waitForSelector("#review .vb-empty", { timeout: 15_000 });
  assert.equal(readFileSync(join(vault, CODE_REVIEW), "utf8"), before[CODE_REVIEW], `${CODE_REVIEW} changed on disk`);
  step(`  ${CODE_REVIEW} is unchanged on disk`);
}

async function main() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); this test never downloads a browser`);
  }
  const tmp = mkdtempSync(join(tmpdir(), "vault-bridge-e2e-"));
  const cleanups = [];
  try {
    mkdirSync(images, { recursive: true });
    step("build the harness bundle");
    await buildHarness();
    step("vault-bridge init + serve on a temp vault");
    const vault = initVault(repo, tmp);
    const bridge = await startBridge(repo, tmp, vault);
    cleanups.push(bridge.stop);
    step(`  bridge at ${bridge.url} (bridge.json: ${bridge.discovery.url})`);
    const site = await serveHarness(
      {
        "/": join(here, "harness.html"),
        "/harness.js": join(here, "harness.js"),
        "/styles.css": join(plugin, "styles.css"),
      },
      bridge.url,
      await freePort(),
    );
    cleanups.push(site.close);
    const context = await launch(join(tmp, "chromium-profile"));
    cleanups.push(() => context.close());
    const page = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(site.url);
    await page.evaluate((token) => window.vaultBridgeHarness.mount(token), bridge.token);
    await page.waitForFunction(() => document.querySelector("#status-bar")?.textContent?.includes("Vault Bridge:"));

    await askAndOpenSources(page, bridge);
    await askNeedingAnLlm(page);
    const before = { [JWT]: readFileSync(join(vault, JWT), "utf8"), [CODE_REVIEW]: readFileSync(join(vault, CODE_REVIEW), "utf8") };
    await createPendingReviews(bridge, vault);
    await reviewInTheView(page, vault, before);
    const all = await api(bridge, "GET", "/v1/reviews?state=all");
    const listed = Array.isArray(all) ? all : all.reviews;
    step(`  reviews now: ${listed.map((r) => `${r.path}: ${r.state}`).join("; ")}`);
    const rejected = listed.find((r) => r.path === CODE_REVIEW);
    assert.equal(rejected?.state, "rejected");
    assert.equal(rejected?.note, REJECT_REASON, "the reject reason did not reach the bridge");
    await page.waitForFunction(() => document.querySelector("#status-bar")?.textContent === "Vault Bridge: connected", null, {
      timeout: 15_000,
    });
    assert.deepEqual(errors, [], "errors in the page");
    step(`screenshots: ${join(images, "query-view.png")}, ${join(images, "review-view.png")}`);
    step("passed");
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error("e2e: cleanup failed", error);
      }
    }
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`e2e: FAILED: ${error?.stack ?? error}`);
  process.exit(1);
});
