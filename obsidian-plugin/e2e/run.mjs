// End to end in a real browser: the built plugin (main.js, as Obsidian loads it) in headless
// Debian Chromium, on the `obsidian` stand-in, against a real `vault-bridge serve` on a temp
// vault; the plugin's API calls go through `requestUrl`, a real HTTP request made by Node
// (lib/request-url.mjs), as in the app. It connects from Settings (Find bridge, Test
// connection), asks from the ribbon's view (sources credited by a thumbs-up or an open, not by
// a thumbs-down or by appearing; excerpts only without an LLM), runs every command from the
// palette, lists the notes related to the active note once the bridge has embedded the vault,
// and reviews two agent edits that arrive live (approve: the note changes on disk; reject with
// a reason: it does not).
//
//   npm run test:e2e    (needs ../.venv from `make setup`, a current main.js from
//                        `npm run build`, and /usr/bin/chromium)
//
// Screenshots go to $VB_SCREENSHOTS_DIR when set (`make screenshots`: docs/img), else to a
// fresh temp folder, printed at the end.

import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import esbuild from "esbuild";
import { chromium } from "playwright-core";
import { bundleProblem } from "../build-check.mjs";
import { connect } from "./flows/connect.mjs";
import { runEveryCommand } from "./flows/commands.mjs";
import { askAndOpenSources, askNeedingAnLlm, openFromRibbon } from "./flows/query.mjs";
import { followRelatedNotes } from "./flows/related.mjs";
import { reviewEdits } from "./flows/review.mjs";
import { freePort, initVault, isolatedDirs, startBridge } from "./lib/bridge.mjs";
import { CEILING_MS, step } from "./lib/page.mjs";
import { nodeRequestUrl } from "./lib/request-url.mjs";
import { serveHarness } from "./lib/server.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const plugin = resolve(here, "..");
const repo = resolve(plugin, "..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Bundles the page's script: the stand-ins only. The plugin itself comes from main.js. */
async function buildHarness() {
  const built = await esbuild.build({
    entryPoints: [join(here, "harness.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    outfile: join(here, "harness.js"),
    metafile: true,
    logLevel: "warning",
  });
  const fromSrc = Object.keys(built.metafile.inputs).filter((input) => resolve(input).startsWith(join(plugin, "src")));
  assert.deepEqual(fromSrc, [], "the page must load the plugin from main.js, not bundle its sources");
}

function screenshotsDir() {
  const dir = process.env.VB_SCREENSHOTS_DIR ? resolve(process.env.VB_SCREENSHOTS_DIR) : mkdtempSync(join(tmpdir(), "vault-bridge-screenshots-"));
  mkdirSync(dir, { recursive: true });
  return dir;
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
    viewport: { width: 1000, height: 900 },
    deviceScaleFactor: 1,
  });
}

/**
 * The plugin's API calls went through `requestUrl` (Node's HTTP, as in the app), and the page's
 * `fetch` (the e2e server's forwarding) carried only the event stream, which the plugin reads
 * with `fetch` in the app too.
 */
function checkTransports(sent, forwarded) {
  const calls = new Set(sent.map(({ method, path }) => `${method} ${path.replace(/\/v1\/(entries|lifecycle|similar|reviews)\/.+/, "/v1/$1/…")}`));
  for (const call of ["GET /v1/health", "GET /v1/status", "POST /v1/query", "POST /v1/feedback", "GET /v1/reviews", "POST /v1/reviews/…"]) {
    assert.ok(calls.has(call), `${call} did not go through requestUrl: ${[...calls].join(", ")}`);
  }
  const fetched = [...new Set(forwarded.map(({ path }) => path))];
  assert.deepEqual(fetched, ["/v1/events"], "the page's fetch reached the bridge for more than the event stream");
  step(`  ${sent.length} API calls through requestUrl (Node's HTTP), ${[...calls].length} kinds; the page's fetch: the event stream only`);
}

async function main() {
  const stale = bundleProblem(plugin);
  if (stale) throw new Error(stale);
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); this test never downloads a browser`);
  }
  if (process.platform === "win32") throw new Error("the e2e's Node stand-ins are POSIX: run it on Linux or macOS");
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "vault-bridge-e2e-")));
  const screenshots = screenshotsDir();
  const cleanups = [];
  try {
    step("build the page's script (the obsidian and Node stand-ins)");
    await buildHarness();
    step("vault-bridge init + serve on a temp vault");
    const vault = initVault(repo, tmp);
    const bridge = await startBridge(repo, tmp, vault);
    cleanups.push(bridge.stop);
    step(`  bridge at ${bridge.url}; state dir ${relative(tmp, bridge.stateDir)} in the temp folder`);
    const site = await serveHarness(
      {
        "/": join(here, "harness.html"),
        "/harness.js": join(here, "harness.js"),
        "/main.js": join(plugin, "main.js"),
        "/manifest.json": join(plugin, "manifest.json"),
        "/styles.css": join(plugin, "styles.css"),
      },
      tmp,
      await freePort(),
    );
    cleanups.push(site.close);
    const context = await launch(join(tmp, "chromium-profile"));
    cleanups.push(() => context.close());
    context.setDefaultTimeout(CEILING_MS); // Playwright's 30 s is too short on a busy machine
    const page = context.pages()[0] ?? (await context.newPage());
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    const requestUrl = nodeRequestUrl();
    await page.exposeFunction("vaultBridgeRequestUrl", requestUrl.send);
    await page.goto(site.url);

    step("load main.js as Obsidian does: require('obsidian'), new Plugin(app, manifest), onload()");
    const dirs = isolatedDirs(tmp);
    await page.evaluate((setup) => window.vaultBridgeHarness.load(setup), {
      vault,
      node: { platform: process.platform, env: dirs, home: dirs.HOME },
    });

    await connect(page, bridge, tmp, screenshots);
    await openFromRibbon(page);
    await askAndOpenSources(page, bridge, screenshots);
    await askNeedingAnLlm(page);
    await runEveryCommand(page, bridge, vault);
    await followRelatedNotes(page, bridge, vault, screenshots);
    await reviewEdits(page, bridge, vault, screenshots);
    assert.deepEqual(errors, [], "errors in the page");
    checkTransports(requestUrl.sent, site.forwarded);
    step(`screenshots in ${screenshots}: plugin-settings.png, query-view.png, related-view.png, review-view.png`);
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
