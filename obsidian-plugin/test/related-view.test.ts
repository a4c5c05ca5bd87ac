import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Plugin as ObsidianPlugin } from "obsidian";
import type { SimilarResult } from "../src/api-types";
import { registerCommands } from "../src/commands";
import { formatScore, NO_RELATED_TEXT, renderRelated } from "../src/render/related-list";
import { NO_NOTE_TEXT, RELATED_DELAY_MS, RelatedView, SEMANTIC_OFF_TEXT } from "../src/views/related-view";
import { FakeBridge, FakeHost, makeLeaf, similarResult, type Handler } from "./helpers";
import { App, Plugin, TFile } from "./obsidian-shim";

const JWT = "engineering/auth/jwt_expiry.md";
const REFRESH = "engineering/auth/session_refresh.md";
const CODE_REVIEW = "team/practices/Code review.md";
const route = (path: string): string => `GET /v1/similar/${path.split("/").map(encodeURIComponent).join("/")}`;

function texts(root: HTMLElement, selector: string): string[] {
  return [...root.querySelectorAll(selector)].map((node) => node.textContent ?? "");
}

describe("renderRelated", () => {
  it("lists the related notes as links, with their status and a discreet score", () => {
    const root = document.createElement("div");
    const open = vi.fn<(path: string) => void>();
    renderRelated(root, similarResult(), open);
    expect(texts(root, ".vb-related-link")).toEqual(["Session refresh", "ADR-011: token lifetime"]);
    expect(texts(root, ".vb-related-note:first-child .vb-chip")).toEqual(["validated"]);
    expect(texts(root, ".vb-score")).toEqual(["0.81", "0.50"]);
    expect(texts(root, ".vb-source-path")).toEqual([REFRESH, "engineering/adr/adr_011_token_lifetime.md"]);
    root.querySelectorAll<HTMLAnchorElement>(".vb-related-link")[1]?.click();
    expect(open).toHaveBeenCalledWith("engineering/adr/adr_011_token_lifetime.md");
    expect(formatScore(0.999)).toBe("1.00");
  });

  it("says why the list is empty, in the bridge's words", () => {
    const root = document.createElement("div");
    renderRelated(root, similarResult({ similar: [], reason: "the note is not embedded yet; embedding is in progress" }), vi.fn());
    expect(root.textContent).toBe("The note is not embedded yet; embedding is in progress");
    renderRelated(root, similarResult({ similar: [], reason: null }), vi.fn());
    expect(root.textContent).toBe(NO_RELATED_TEXT);
    expect(root.querySelector(".vb-related")).toBeNull();
  });
});

describe("RelatedView", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The bridge answers for each note what `answers` holds. */
  function bridgeFor(answers: Record<string, Handler>): FakeBridge {
    return new FakeBridge(Object.fromEntries(Object.entries(answers).map(([path, handler]) => [route(path), handler])));
  }

  async function open(bridge: FakeBridge, active: string | null): Promise<{ app: App; view: RelatedView; host: FakeHost }> {
    const { app, leaf } = makeLeaf();
    app.workspace.active = active === null ? null : new TFile(active);
    const host = new FakeHost(bridge);
    const view = new RelatedView(leaf, host);
    view.load();
    void view.onOpen(); // not awaited: it waits on the first answer, which a test may hold back
    await vi.advanceTimersByTimeAsync(0);
    return { app, view, host };
  }

  /** Opening a note in the editor: the workspace fires both events, as Obsidian does. */
  function openNote(app: App, path: string): void {
    app.workspace.active = new TFile(path);
    app.workspace.trigger("file-open", app.workspace.active);
    app.workspace.trigger("active-leaf-change", null);
  }

  const shown = (view: RelatedView): string[] => texts(view.contentEl, ".vb-related-link");
  const asked = (bridge: FakeBridge): string[] =>
    bridge.requests.map((request) => decodeURIComponent(new URL(request.url).pathname).replace("/v1/similar/", ""));

  it("shows the notes related to the active note and opens one on click", async () => {
    const bridge = bridgeFor({ [JWT]: () => ({ body: similarResult() }) });
    const { app, view } = await open(bridge, JWT);
    expect(view.contentEl.querySelector(".vb-title")?.textContent).toBe("Related in memory");
    expect(view.contentEl.querySelector(".vb-related-subject")?.textContent).toBe("jwt_expiry");
    expect(shown(view)).toEqual(["Session refresh", "ADR-011: token lifetime"]);
    const [request] = bridge.requests;
    expect(request?.url).toBe(`http://127.0.0.1:27182/v1/similar/${JWT}?limit=10`);
    expect(request?.headers.Authorization).toBe("Bearer secret");

    view.contentEl.querySelector<HTMLAnchorElement>(`.vb-related-link[data-path="${REFRESH}"]`)?.click();
    expect(app.workspace.opened).toEqual([{ linktext: REFRESH, sourcePath: "", state: null }]);
  });

  it("follows the active note with one request per settled switch", async () => {
    const bridge = bridgeFor({
      [JWT]: () => ({ body: similarResult() }),
      [REFRESH]: () => ({ body: similarResult({ path: REFRESH, similar: [{ path: JWT, title: "JWT expiry", status: "core", score: 0.8 }] }) }),
      [CODE_REVIEW]: () => ({ body: similarResult({ path: CODE_REVIEW, similar: [{ path: "team/practices/pairing.md", title: "Pairing", status: null, score: 0.4 }] }) }),
    });
    const { app, view } = await open(bridge, JWT);
    expect(asked(bridge)).toEqual([JWT]);

    // Flicking through three notes: only the one the person stays on is asked about.
    openNote(app, REFRESH);
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS / 2);
    openNote(app, JWT);
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS / 2);
    openNote(app, CODE_REVIEW);
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS);
    expect(asked(bridge)).toEqual([JWT, CODE_REVIEW]);
    expect(bridge.requests.at(-1)?.url).toContain("/v1/similar/team/practices/Code%20review.md?limit=10");
    expect(shown(view)).toEqual(["Pairing"]);
    expect(view.contentEl.querySelector(".vb-related-subject")?.textContent).toBe("Code review");

    // Focusing another leaf with the same note, or a PDF, asks nothing and keeps the list.
    app.workspace.trigger("active-leaf-change", null);
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS);
    openNote(app, "papers/attention.pdf");
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS);
    expect(asked(bridge)).toEqual([JWT, CODE_REVIEW]);
    expect(shown(view)).toEqual(["Pairing"]);

    openNote(app, REFRESH);
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS);
    expect(shown(view)).toEqual(["JWT expiry"]);
    expect(asked(bridge)).toEqual([JWT, CODE_REVIEW, REFRESH]);
  });

  it("never shows a slow answer about a note the person already left", async () => {
    let answerJwt: (value: { body: SimilarResult }) => void = () => undefined;
    const bridge = bridgeFor({
      [JWT]: () => new Promise((resolve) => (answerJwt = resolve)),
      [REFRESH]: () => ({ body: similarResult({ path: REFRESH, similar: [{ path: JWT, title: "JWT expiry", status: "core", score: 0.8 }] }) }),
    });
    const { app, view } = await open(bridge, JWT);
    expect(view.contentEl.querySelector(".vb-loading")?.textContent).toBe("Looking for related notes…");
    openNote(app, REFRESH);
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS);
    expect(shown(view)).toEqual(["JWT expiry"]);
    answerJwt({ body: similarResult() });
    await vi.advanceTimersByTimeAsync(0);
    expect(shown(view)).toEqual(["JWT expiry"]);
    expect(view.contentEl.querySelector(".vb-related-subject")?.textContent).toBe("session_refresh");
  });

  it("shows the bridge's reason for an empty list, and asks again on Refresh", async () => {
    const reason = "the note is not embedded yet; embedding is in progress";
    const bridge = bridgeFor({ [JWT]: () => ({ body: similarResult({ similar: [], reason }) }) });
    const { view } = await open(bridge, JWT);
    expect(view.contentEl.querySelector(".vb-related-list")?.textContent).toBe("The note is not embedded yet; embedding is in progress");

    bridge.routes[route(JWT)] = () => ({ body: similarResult() });
    view.contentEl.querySelector<HTMLButtonElement>(".vb-refresh")?.click();
    await vi.advanceTimersByTimeAsync(0);
    expect(shown(view)).toEqual(["Session refresh", "ADR-011: token lifetime"]);
  });

  it("asks again when the connection comes back (a refresh from the hub), not on other events", async () => {
    const bridge = bridgeFor({ [JWT]: () => ({ body: similarResult() }) });
    const { view, host } = await open(bridge, JWT);
    host.emit({ id: "4", event: "review.added", data: { id: 1 } });
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS);
    expect(bridge.requests).toHaveLength(1);
    bridge.routes[route(JWT)] = () => ({ body: similarResult({ similar: [{ path: REFRESH, title: "Session refresh", status: null, score: 0.9 }] }) });
    host.emit(null);
    await vi.advanceTimersByTimeAsync(0);
    expect(bridge.requests).toHaveLength(2);
    expect(shown(view)).toEqual(["Session refresh"]);
  });

  it("says the dense channel is off on 503 semantic_off", async () => {
    const bridge = bridgeFor({
      [JWT]: () => ({ status: 503, body: { error: { code: "semantic_off", message: "the dense channel is off (embed_model = off)" } } }),
    });
    const { view } = await open(bridge, JWT);
    expect(view.contentEl.querySelector(".vb-semantic-off")?.textContent).toBe(SEMANTIC_OFF_TEXT);
    expect(view.contentEl.querySelector(".vb-error")).toBeNull();
  });

  it("says the bridge is not running, and shows a note it does not index as such", async () => {
    const down = new FakeBridge();
    down.request = async () => {
      throw new TypeError("Failed to fetch");
    };
    const { view } = await open(down, JWT);
    expect(view.contentEl.querySelector(".vb-error")?.textContent).toBe("Vault Bridge is not running at http://127.0.0.1:27182");

    const bridge = bridgeFor({
      "drafts/new.md": () => ({ status: 404, body: { error: { code: "not_found", message: "no note `drafts/new.md` is indexed" } } }),
    });
    const { view: other } = await open(bridge, "drafts/new.md");
    expect(other.contentEl.querySelector(".vb-related-list .vb-empty")?.textContent).toBe("no note `drafts/new.md` is indexed");
  });

  it("asks nothing without an open note, and stops following once closed", async () => {
    const bridge = bridgeFor({ [JWT]: () => ({ body: similarResult() }) });
    const { app, view } = await open(bridge, null);
    expect(view.contentEl.querySelector(".vb-related-list")?.textContent).toBe(NO_NOTE_TEXT);
    expect(bridge.requests).toHaveLength(0);

    openNote(app, JWT);
    await view.onClose();
    view.unload();
    openNote(app, JWT);
    await vi.advanceTimersByTimeAsync(RELATED_DELAY_MS * 2);
    expect(bridge.requests).toHaveLength(0);
  });
});

describe("Show related notes", () => {
  it("is a palette command that opens the panel", () => {
    const app = new App();
    const plugin = new Plugin(app, { id: "vault-bridge", name: "Vault Bridge", version: "0", minAppVersion: "0", description: "", author: "" });
    const openRelatedNotes = vi.fn(async () => undefined);
    registerCommands({
      plugin: plugin as unknown as ObsidianPlugin,
      host: new FakeHost(new FakeBridge()),
      openReviewQueue: async () => undefined,
      openRelatedNotes,
    });
    expect(app.commands.commands["vault-bridge:show-related-notes"]?.name).toBe("Vault Bridge: Show related notes");
    expect(app.commands.executeCommandById("vault-bridge:show-related-notes")).toBe(true);
    expect(openRelatedNotes).toHaveBeenCalledTimes(1);
  });
});
