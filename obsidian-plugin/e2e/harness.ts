// The browser harness: the plugin's real views (QueryView, ReviewView, the status bar) mounted
// in a plain page with the `obsidian` shim, talking to a real bridge through `fetch`. The page
// is served by e2e/run.mjs, which proxies `/v1/*` to the bridge on the page's own origin.

import type { WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { fetchRequest } from "../src/api";
import { BridgeHub } from "../src/hub";
import { StatusBar } from "../src/status-bar";
import { QueryView } from "../src/views/query-view";
import { ReviewView } from "../src/views/review-view";
import { App, WorkspaceLeaf } from "../test/obsidian-shim";

interface Harness {
  mount(token: string): Promise<void>;
  mode(): string;
  opened: string[];
}

function pane(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`no #${id} in the page`);
  return element;
}

const opened: string[] = [];

async function mount(token: string): Promise<void> {
  const app = new App();
  app.workspace.onOpen = (link) => {
    opened.push(link.linktext);
    const log = pane("opened");
    log.textContent = `Opened ${link.linktext}`;
  };
  const fetchFn: typeof fetch = (input, init) => fetch(input, init);
  const hub = new BridgeHub({
    connection: () => ({ url: window.location.origin, token }),
    request: fetchRequest(fetchFn),
    fetchFn,
  });
  harness.mode = () => hub.mode;
  const leaf = new WorkspaceLeaf(app) as unknown as ObsidianLeaf;

  const query = new QueryView(leaf, hub);
  pane("query").appendChild(query.containerEl);
  await query.onOpen();

  const reviews = new ReviewView(leaf, hub);
  pane("review").appendChild(reviews.containerEl);
  await reviews.onOpen();

  const bar = new StatusBar(pane("status-bar"), hub, () => pane("review").scrollIntoView());
  bar.start();
  hub.start();
}

const harness: Harness = { mount, mode: () => "idle", opened };
(window as unknown as { vaultBridgeHarness: Harness }).vaultBridgeHarness = harness;
