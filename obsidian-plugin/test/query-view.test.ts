import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Excerpt, Source } from "../src/api-types";
import { badgeText, formatLatency, OOD_TEXT, renderQueryResult } from "../src/render/query-result";
import { AskModal } from "../src/views/ask-modal";
import { QueryView } from "../src/views/query-view";
import { FakeBridge, FakeHost, makeLeaf, queryResult, settle } from "./helpers";

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
    renderQueryResult(root, queryResult({ answer: null, tier: 3, latency_ms: 41.6, message: "no LLM is configured: showing the excerpts" }), open);
    expect(root.querySelector(".vb-message")?.textContent).toBe("no LLM is configured: showing the excerpts");
    expect(root.querySelector(".vb-answer")).toBeNull();
    expect(texts(root, ".vb-excerpt-text")).toEqual(["JWT access tokens expire after 24 h.", "Refresh tokens rotate on use."]);
    expect(texts(root, ".vb-excerpt-heading")).toEqual(["JWT expiry > Narrative", "Session refresh > Narrative"]);
    root.querySelectorAll<HTMLAnchorElement>(".vb-excerpt-heading")[1]?.click();
    expect(open).toHaveBeenCalledWith(expect.objectContaining({ title: "Session refresh" }), expect.objectContaining({ line: 12 }));
    expect(root.querySelector(".vb-badge")?.textContent).toBe("tier 3 · 42 ms");
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
