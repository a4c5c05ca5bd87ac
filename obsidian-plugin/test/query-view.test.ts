import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HttpRequest } from "../src/api";
import type { Excerpt, FeedbackRequest, FeedbackResult, Source } from "../src/api-types";
import {
  badgeText,
  EXCERPTS_ONLY_TEXT,
  formatLatency,
  OOD_TEXT,
  renderQueryResult,
  type SendFeedback,
} from "../src/render/query-result";
import { AskModal } from "../src/views/ask-modal";
import { QueryView } from "../src/views/query-view";
import { FakeBridge, FakeHost, makeLeaf, queryResult, settle } from "./helpers";

const NO_LLM = "No LLM is configured, so these are the ranked excerpts without a written answer (set VAULT_BRIDGE_LLM_MODEL to let tier 3 answer).";

function texts(root: HTMLElement, selector: string): string[] {
  return [...root.querySelectorAll(selector)].map((node) => node.textContent ?? "");
}

describe("renderQueryResult", () => {
  let root: HTMLElement;
  beforeEach(() => {
    root = document.createElement("div");
  });

  it("shows the answer, the tier badge and the sources as links", () => {
    const open = vi.fn<(source: Source, block: Excerpt | null) => void>();
    renderQueryResult(root, queryResult(), open);
    expect(root.querySelector(".vb-badge")?.textContent).toBe("tier 2 · 2.3 ms");
    expect(root.querySelector(".vb-answer")?.textContent).toBe("JWT access tokens expire after 24 h.");
    expect(texts(root, ".vb-source-link")).toEqual(["JWT expiry", "Session refresh"]);
    expect(texts(root, ".vb-source-via")).toEqual(["linked from engineering/auth/jwt_expiry.md"]);
    const link = root.querySelector<HTMLAnchorElement>(".vb-source-link");
    expect(link?.title).toBe("engineering/auth/jwt_expiry.md#^expiry");
    link?.click();
    expect(open).toHaveBeenCalledWith(expect.objectContaining({ path: "engineering/auth/jwt_expiry.md" }), expect.objectContaining({ block_id: "expiry" }));
    expect(root.querySelector(".vb-excerpt")).toBeNull();
  });

  it("says nothing is in memory for an out-of-domain question", () => {
    renderQueryResult(root, queryResult({ ood: true, answer: null, sources: [] }), vi.fn());
    expect(root.querySelector(".vb-ood")?.textContent).toBe(OOD_TEXT);
    expect(root.querySelector(".vb-sources")).toBeNull();
    expect(root.querySelector(".vb-badge")).not.toBeNull();
  });

  it("shows the ranked excerpts and the message without an answer", () => {
    const open = vi.fn();
    renderQueryResult(root, queryResult({ answer: null, tier: 3, latency_ms: 41.6, message: NO_LLM }), open);
    expect(root.querySelector(".vb-message")?.textContent).toBe(NO_LLM);
    expect(root.querySelector(".vb-answer")).toBeNull();
    expect(texts(root, ".vb-excerpt-text")).toEqual(["JWT access tokens expire after 24 h.", "Refresh tokens rotate on use."]);
    expect(texts(root, ".vb-excerpt-heading")).toEqual(["JWT expiry > Narrative", "Session refresh > Narrative"]);
    root.querySelectorAll<HTMLAnchorElement>(".vb-excerpt-heading")[1]?.click();
    expect(open).toHaveBeenCalledWith(expect.objectContaining({ title: "Session refresh" }), expect.objectContaining({ line: 12 }));
    expect(root.querySelector(".vb-badge")?.textContent).toBe("tier 3 · excerpts only · 42 ms");
  });

  it("tells the truth in the badge: excerpts only when tier 3 or 4 has no answer", () => {
    renderQueryResult(root, queryResult({ answer: null, tier: 4, latency_ms: 1234, message: "The LLM could not answer (timeout); these are the ranked excerpts." }), vi.fn());
    const badge = root.querySelector<HTMLElement>(".vb-badge");
    expect(badge?.textContent).toBe("tier 4 · excerpts only · 1234 ms");
    expect(badge?.classList.contains("vb-badge-excerpts")).toBe(true);
    // The message is above the sources.
    const message = root.querySelector(".vb-message");
    expect(message?.textContent).toBe("The LLM could not answer (timeout); these are the ranked excerpts.");
    const excerpts = root.querySelector(".vb-excerpts");
    expect(excerpts && message ? message.compareDocumentPosition(excerpts) & Node.DOCUMENT_POSITION_FOLLOWING : 0).toBeTruthy();

    renderQueryResult(root, queryResult({ answer: null, tier: 3, message: null }), vi.fn());
    expect(root.querySelector(".vb-message")?.textContent).toBe(EXCERPTS_ONLY_TEXT);

    // Other tiers keep the plain badge.
    renderQueryResult(root, queryResult({ answer: "JWT lives 24 h.", tier: 3, latency_ms: 900 }), vi.fn());
    expect(root.querySelector(".vb-badge")?.textContent).toBe("tier 3 · 900 ms");
    expect(root.querySelector(".vb-badge-excerpts")).toBeNull();
    expect(root.querySelector(".vb-message")).toBeNull();
    expect(badgeText(queryResult({ answer: null, tier: 2, latency_ms: 3 }))).toBe("tier 2 · 3 ms");
    expect(badgeText(queryResult({ answer: null, tier: 3, ood: true, latency_ms: 3 }))).toBe("tier 3 · 3 ms");
  });

  it("puts a Helpful and a Not helpful button on each source", () => {
    const feedback = vi.fn<SendFeedback>();
    renderQueryResult(root, queryResult(), vi.fn(), { feedback });
    for (const selector of [".vb-thumb-up", ".vb-thumb-down"]) expect(root.querySelectorAll(selector)).toHaveLength(2);
    const up = root.querySelector<HTMLButtonElement>(".vb-thumb-up");
    const down = root.querySelector<HTMLButtonElement>(".vb-thumb-down");
    expect([up?.getAttribute("aria-label"), up?.title, up?.type, up?.getAttribute("aria-pressed")]).toEqual(["Helpful", "Helpful", "button", "false"]);
    expect([down?.getAttribute("aria-label"), down?.title]).toEqual(["Not helpful", "Not helpful"]);

    renderQueryResult(root, queryResult({ answer: null, tier: 3, message: NO_LLM }), vi.fn(), { feedback });
    expect(root.querySelectorAll(".vb-excerpts .vb-source-head .vb-thumb-up")).toHaveLength(2);

    renderQueryResult(root, queryResult(), vi.fn());
    expect(root.querySelector(".vb-thumb")).toBeNull();
  });

  it("draws the thumbs with the app's icons when it has them, else with emoji", () => {
    const icon = vi.fn((name: string) => {
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("data-icon", name);
      return svg;
    });
    renderQueryResult(root, queryResult(), vi.fn(), { feedback: vi.fn<SendFeedback>(), icon });
    const up = root.querySelector(".vb-thumb-up");
    expect(up?.querySelector("svg")?.getAttribute("data-icon")).toBe("thumbs-up");
    expect(root.querySelector(".vb-thumb-down svg")?.getAttribute("data-icon")).toBe("thumbs-down");
    expect(up?.textContent).toBe("");

    renderQueryResult(root, queryResult(), vi.fn(), { feedback: vi.fn<SendFeedback>(), icon: () => null });
    expect(texts(root, ".vb-source:first-child .vb-thumb")).toEqual(["👍", "👎"]);
  });

  it("formats latency", () => {
    expect(formatLatency(0.04)).toBe("0 ms");
    expect(formatLatency(9.96)).toBe("10 ms");
    expect(formatLatency(12_345)).toBe("12.3 s");
    expect(badgeText(queryResult({ tier: 0, latency_ms: 0.5 }))).toBe("tier 0 · 0.5 ms");
  });
});

describe("QueryView and AskModal", () => {
  function host(): { bridge: FakeBridge; host: FakeHost } {
    const bridge = new FakeBridge({ "POST /v1/query": () => ({ body: queryResult() }) });
    return { bridge, host: new FakeHost(bridge) };
  }

  it("asks the bridge and opens a source at its block or line", async () => {
    const { bridge, host: fake } = host();
    const { app, leaf } = makeLeaf();
    const view = new QueryView(leaf, fake);
    document.body.appendChild(view.containerEl); // a form submits only when connected
    await view.onOpen();
    const input = view.contentEl.querySelector<HTMLInputElement>(".vb-query-input");
    if (!input) throw new Error("no input");
    input.value = "how long do JWT tokens live?";
    view.contentEl.querySelector<HTMLButtonElement>(".vb-ask")?.click();
    await settle();
    expect(JSON.parse(bridge.calls("POST", "/v1/query")[0]?.body ?? "")).toEqual({ query: "how long do JWT tokens live?" });
    expect(view.contentEl.querySelector(".vb-badge")?.textContent).toBe("tier 2 · 2.3 ms");
    const links = view.contentEl.querySelectorAll<HTMLAnchorElement>(".vb-source-link");
    links[0]?.click();
    links[1]?.click();
    expect(app.workspace.opened).toEqual([
      { linktext: "engineering/auth/jwt_expiry.md#^expiry", sourcePath: "", state: null },
      { linktext: "engineering/auth/session_refresh.md", sourcePath: "", state: { eState: { line: 12 } } },
    ]);
  });

  it("shows the error when the bridge is down", async () => {
    const bridge = new FakeBridge();
    bridge.request = async () => {
      throw new TypeError("Failed to fetch");
    };
    const { leaf } = makeLeaf();
    const view = new QueryView(leaf, new FakeHost(bridge));
    await view.onOpen();
    await view.panel?.ask("anything");
    expect(view.contentEl.querySelector(".vb-error")?.textContent).toBe("Vault Bridge is not running at http://127.0.0.1:27182");
  });

  it("renders a Markdown answer and opens its wikilinks", async () => {
    const bridge = new FakeBridge({
      "POST /v1/query": () => ({ body: queryResult({ answer: "Tokens live 24 h.\n\nSee [[engineering/auth/session_refresh|refresh]]." }) }),
    });
    const { app, leaf } = makeLeaf();
    const view = new QueryView(leaf, new FakeHost(bridge));
    await view.onOpen();
    await view.panel?.ask("jwt");
    await settle();
    const answer = view.contentEl.querySelector(".vb-answer.vb-markdown");
    expect([...(answer?.querySelectorAll("p") ?? [])].map((p) => p.textContent)).toEqual(["Tokens live 24 h.", "See refresh."]);
    answer?.querySelector<HTMLAnchorElement>("a.internal-link")?.click();
    expect(app.workspace.opened.at(-1)?.linktext).toBe("engineering/auth/session_refresh");
  });

  it("renders the same result in the modal", async () => {
    const { host: fake } = host();
    const { obsidianApp } = makeLeaf();
    const modal = new AskModal(obsidianApp, fake, "jwt");
    modal.open();
    expect(modal.titleEl.textContent).toBe("Ask memory");
    modal.contentEl.querySelector("form")?.dispatchEvent(new Event("submit", { cancelable: true }));
    await settle();
    expect(modal.contentEl.querySelector(".vb-answer")?.textContent).toContain("24 h");
    modal.close();
  });
});

describe("credit for the sources of an answer", () => {
  const JWT = "engineering/auth/jwt_expiry.md";
  const REFRESH = "engineering/auth/session_refresh.md";

  /** Like the bridge: a helpful verdict credits a source once per answer; unknown ids are 404. */
  function bridgeWithFeedback(): FakeBridge {
    const credited = new Set<string>();
    return new FakeBridge({
      "POST /v1/query": () => ({ body: queryResult() }),
      "POST /v1/feedback": (request: HttpRequest) => {
        const body = JSON.parse(request.body ?? "") as FeedbackRequest;
        if (body.query_id !== "q-7f3a") {
          return { status: 404, body: { error: { code: "unknown_query", message: `no answer with query_id \`${body.query_id}\`` } } };
        }
        let credit: FeedbackResult["credit"] = null;
        if (body.helpful) credit = credited.has(body.path) ? "already_credited" : "credited";
        if (body.helpful) credited.add(body.path);
        return { body: { ...body, credited: credit === "credited", credit } };
      },
    });
  }

  async function ask(bridge: FakeBridge): Promise<{ view: QueryView; app: ReturnType<typeof makeLeaf>["app"] }> {
    const { app, leaf } = makeLeaf();
    const view = new QueryView(leaf, new FakeHost(bridge));
    await view.onOpen();
    await view.panel?.ask("how long do JWT tokens live?");
    await settle();
    return { view, app };
  }

  function source(view: QueryView, path: string): HTMLElement {
    const item = view.contentEl.querySelector<HTMLElement>(`.vb-source[data-path="${path}"]`);
    if (!item) throw new Error(`no source ${path}`);
    return item;
  }

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("opening a source tells the bridge which answer it came from", async () => {
    const bridge = bridgeWithFeedback();
    bridge.routes[`GET /v1/entries/${REFRESH}`] = () => ({ body: { path: REFRESH, credit: "credited" } });
    const { view, app } = await ask(bridge);
    source(view, REFRESH).querySelector<HTMLAnchorElement>(".vb-source-link")?.click();
    await settle();
    expect(app.workspace.opened.map((link) => link.linktext)).toEqual([REFRESH]);
    const [entry] = bridge.calls("GET", `/v1/entries/${REFRESH}`);
    expect(entry?.url).toBe(`http://127.0.0.1:27182/v1/entries/${REFRESH}?from_query=q-7f3a`);
    expect(entry?.headers.Authorization).toBe("Bearer secret");
  });

  it("still opens the note when the bridge cannot count the open", async () => {
    const debug = vi.spyOn(console, "debug").mockImplementation(() => undefined);
    const bridge = bridgeWithFeedback();
    bridge.routes[`GET /v1/entries/${JWT}`] = () => ({
      status: 404,
      body: { error: { code: "unknown_query", message: "no answer with query_id `q-7f3a`" } },
    });
    const { view, app } = await ask(bridge);
    source(view, JWT).querySelector<HTMLAnchorElement>(".vb-source-link")?.click();
    await settle();
    expect(app.workspace.opened.map((link) => link.linktext)).toEqual([`${JWT}#^expiry`]);
    expect(bridge.calls("GET", `/v1/entries/${JWT}`)).toHaveLength(1);
    expect(debug).toHaveBeenCalledWith(expect.stringContaining("no answer with query_id"));
    expect(view.contentEl.querySelector(".vb-error")).toBeNull();

    // Nothing answers at all (the bridge stopped): the note opens all the same.
    bridge.request = async () => {
      throw new TypeError("Failed to fetch");
    };
    source(view, REFRESH).querySelector<HTMLAnchorElement>(".vb-source-link")?.click();
    await settle();
    expect(app.workspace.opened.map((link) => link.linktext)).toEqual([`${JWT}#^expiry`, REFRESH]);
    expect(debug).toHaveBeenLastCalledWith(expect.stringContaining("not running"));
  });

  it("a thumb sends the verdict and shows what the bridge did with it", async () => {
    const bridge = bridgeWithFeedback();
    const { view } = await ask(bridge);
    const jwt = source(view, JWT);
    const up = jwt.querySelector<HTMLButtonElement>(".vb-thumb-up");
    const down = jwt.querySelector<HTMLButtonElement>(".vb-thumb-down");
    up?.click();
    expect([up?.disabled, down?.disabled]).toEqual([true, true]); // no second verdict in flight
    await settle();
    expect(JSON.parse(bridge.calls("POST", "/v1/feedback")[0]?.body ?? "")).toEqual({ query_id: "q-7f3a", path: JWT, helpful: true });
    expect(jwt.querySelector(".vb-feedback-result")?.textContent).toBe("Thanks — counted");
    expect(up?.classList.contains("is-active")).toBe(true);
    expect(up?.getAttribute("aria-pressed")).toBe("true");
    expect(down?.classList.contains("is-active")).toBe(false);
    expect([up?.disabled, down?.disabled]).toEqual([true, true]);

    const refresh = source(view, REFRESH);
    refresh.querySelector<HTMLButtonElement>(".vb-thumb-down")?.click();
    await settle();
    expect(JSON.parse(bridge.calls("POST", "/v1/feedback")[1]?.body ?? "")).toEqual({ query_id: "q-7f3a", path: REFRESH, helpful: false });
    expect(refresh.querySelector(".vb-feedback-result")?.textContent).toBe("Noted");
    expect(refresh.querySelector(".vb-thumb-down")?.classList.contains("is-active")).toBe(true);
  });

  it("says when the answer had already counted the note", async () => {
    const bridge = bridgeWithFeedback();
    const { view } = await ask(bridge);
    source(view, JWT).querySelector<HTMLButtonElement>(".vb-thumb-up")?.click();
    await settle();
    await view.panel?.ask("how long do JWT tokens live?"); // the same answer id again
    await settle();
    source(view, JWT).querySelector<HTMLButtonElement>(".vb-thumb-up")?.click();
    await settle();
    expect(source(view, JWT).querySelector(".vb-feedback-result")?.textContent).toBe("Already counted");
  });

  it("shows the bridge's error inline for that source, and lets the person try again", async () => {
    const bridge = bridgeWithFeedback();
    bridge.routes["POST /v1/query"] = () => ({ body: queryResult({ query_id: "q-gone" }) });
    const { view } = await ask(bridge);
    const jwt = source(view, JWT);
    jwt.querySelector<HTMLButtonElement>(".vb-thumb-up")?.click();
    await settle();
    const outcome = jwt.querySelector(".vb-feedback-result");
    expect(outcome?.textContent).toBe("no answer with query_id `q-gone`");
    expect(outcome?.classList.contains("vb-feedback-error")).toBe(true);
    expect(jwt.querySelector<HTMLButtonElement>(".vb-thumb-up")?.disabled).toBe(false);
    expect(jwt.querySelector(".vb-is-active, .is-active")).toBeNull();
    expect(source(view, REFRESH).querySelector(".vb-feedback-result")?.textContent).toBe("");
    expect(view.contentEl.querySelector(".vb-error")).toBeNull();

    bridge.routes["POST /v1/feedback"] = () => ({
      status: 422,
      body: { error: { code: "not_a_source", message: `\`${JWT}\` is not a source of answer \`q-gone\`` } },
    });
    jwt.querySelector<HTMLButtonElement>(".vb-thumb-down")?.click();
    await settle();
    expect(outcome?.textContent).toBe(`\`${JWT}\` is not a source of answer \`q-gone\``);
  });

  it("without a query id (an older bridge) shows no thumbs and reports no opens", async () => {
    const bridge = new FakeBridge({ "POST /v1/query": () => ({ body: queryResult({ query_id: "" }) }) });
    const { view, app } = await ask(bridge);
    expect(view.contentEl.querySelector(".vb-thumb")).toBeNull();
    source(view, JWT).querySelector<HTMLAnchorElement>(".vb-source-link")?.click();
    await settle();
    expect(app.workspace.opened).toHaveLength(1);
    expect(bridge.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(["POST /v1/query"]);
  });

  it("the modal reports the open too, and the thumbs work there", async () => {
    const bridge = bridgeWithFeedback();
    bridge.routes[`GET /v1/entries/${JWT}`] = () => ({ body: { path: JWT, credit: "already_credited" } });
    const { obsidianApp, app } = makeLeaf();
    const modal = new AskModal(obsidianApp, new FakeHost(bridge), "jwt");
    modal.open();
    modal.contentEl.querySelector("form")?.dispatchEvent(new Event("submit", { cancelable: true }));
    await settle();
    modal.contentEl.querySelector<HTMLButtonElement>(".vb-thumb-up")?.click();
    await settle();
    expect(modal.contentEl.querySelector(".vb-feedback-result")?.textContent).toBe("Thanks — counted");
    modal.contentEl.querySelector<HTMLAnchorElement>(".vb-source-link")?.click();
    await settle();
    expect(app.workspace.opened.at(-1)?.linktext).toBe(`${JWT}#^expiry`);
    expect(bridge.calls("GET", `/v1/entries/${JWT}`)[0]?.url).toContain("?from_query=q-7f3a");
  });
});
