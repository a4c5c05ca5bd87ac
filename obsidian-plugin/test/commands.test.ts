import { afterEach, describe, expect, it } from "vitest";
import type { TFile as ObsidianFile } from "obsidian";
import type { CurateResult, Lifecycle } from "../src/api-types";
import { curateNote, NO_LLM_TEXT, showLifecycle } from "../src/commands";
import { curateSummary, renderCurateResult } from "../src/render/curate-result";
import { waitForTask } from "../src/tasks";
import { FakeBridge, FakeHost, makeLeaf, settle } from "./helpers";
import { notices, TFile } from "./obsidian-shim";

const note = new TFile("engineering/auth/jwt_expiry.md", "# JWT expiry\nTokens live 12 h now.\n") as unknown as ObsidianFile;

const curated: CurateResult = {
  results: [
    { index: 0, type: "ADD", path: "engineering/auth/token_ttl.md", status: "applied", message: "created", review_id: null },
    { index: 1, type: "UPDATE", path: "engineering/auth/jwt_expiry.md", status: "pending_review", message: "a human wrote this note; waiting for review", review_id: 12 },
    { index: 2, type: "DELETE", path: "x/y/z.md", status: "failed", message: "no note `x/y/z.md`", review_id: null },
  ],
  counts: { applied: 1, pending_review: 1, failed: 1, total: 3 },
};

afterEach(() => {
  document.body.textContent = "";
});

describe("Curate this note", () => {
  it("explains a bridge without an LLM", async () => {
    const bridge = new FakeBridge({
      "POST /v1/curate": () => ({ status: 503, body: { error: { code: "no_llm", message: "no LLM is configured (llm_model)" } } }),
    });
    const { obsidianApp } = makeLeaf();
    await curateNote(obsidianApp, new FakeHost(bridge), note);
    expect(notices.at(-1)).toBe(`${NO_LLM_TEXT}\n(no LLM is configured (llm_model))`);
    expect(bridge.calls("GET", "/v1/tasks/t1")).toHaveLength(0);
  });

  it("sends the note, waits for the task and shows each operation", async () => {
    let polls = 0;
    const bridge = new FakeBridge({
      "POST /v1/curate": () => ({ status: 202, body: { task_id: "t1" } }),
      "GET /v1/tasks/t1": () => {
        polls += 1;
        return { body: polls < 2 ? { id: "t1", state: "running", result: null, error: null } : { id: "t1", state: "done", result: curated, error: null } };
      },
    });
    const { obsidianApp } = makeLeaf();
    await curateNote(obsidianApp, new FakeHost(bridge), note, { sleep: async () => undefined });
    expect(polls).toBe(2);
    expect(JSON.parse(bridge.calls("POST", "/v1/curate")[0]?.body ?? "")).toEqual({
      content: "# JWT expiry\nTokens live 12 h now.\n",
      author: "obsidian",
    });
    const modal = document.body.querySelector(".modal");
    expect(modal?.querySelector(".modal-title")?.textContent).toBe("Curated engineering/auth/jwt_expiry.md");
    expect(modal?.querySelector(".vb-curate-summary")?.textContent).toBe("1 applied · 1 waiting for review · 1 failed");
    const rows = [...(modal?.querySelectorAll(".vb-curate-op") ?? [])].map((row) => row.textContent);
    expect(rows).toEqual([
      "ADDengineering/auth/token_ttl.mdappliedcreated",
      "UPDATEengineering/auth/jwt_expiry.mdwaiting for reviewa human wrote this note; waiting for review",
      "DELETEx/y/z.mdfailedno note `x/y/z.md`",
    ]);
  });

  it("shows the curator's error", () => {
    const root = document.createElement("div");
    renderCurateResult(root, { results: [], counts: {}, error: "the model answered no JSON" }, () => undefined);
    expect(root.querySelector(".vb-error")?.textContent).toBe("the model answered no JSON");
    expect(root.querySelector(".vb-empty")).not.toBeNull();
  });

  it("summarises counts the bridge left out", () => {
    expect(curateSummary({ results: curated.results, counts: {} })).toBe("1 applied · 1 waiting for review · 1 failed");
  });

  it("stops waiting after the timeout", async () => {
    const bridge = new FakeBridge({ "GET /v1/tasks/t2": () => ({ body: { id: "t2", state: "queued", result: null, error: null } }) });
    let clock = 0;
    const host = new FakeHost(bridge);
    const waiting = waitForTask(host.client(), "t2", { timeoutMs: 3000, intervalMs: 1000, now: () => clock, sleep: async (ms) => void (clock += ms) });
    await expect(waiting).rejects.toThrow("still working on task t2");
    expect(bridge.calls("GET", "/v1/tasks/t2")).toHaveLength(4);
  });
});

describe("Show lifecycle of this note", () => {
  it("shows what the bridge computed", async () => {
    const lifecycle: Lifecycle = {
      path: "engineering/auth/jwt_expiry.md",
      importance: 0.734,
      recency: 0.81234,
      maturity: "validated",
      status: "validated",
      access_count: 7,
      update_count: 2,
      last_update: "2026-11-20T10:00:00+00:00",
      forecast: { text: "becomes core after 3 more reads", to: "core", to_status: "core", in_days: null },
    };
    const bridge = new FakeBridge({ "GET /v1/lifecycle/engineering/auth/jwt_expiry.md": () => ({ body: lifecycle }) });
    const { obsidianApp } = makeLeaf();
    await showLifecycle(obsidianApp, new FakeHost(bridge), note);
    await settle();
    const modal = document.body.querySelector(".modal");
    const field = (name: string): string | null | undefined => modal?.querySelector(`[data-field="${name}"]`)?.textContent;
    expect(field("Importance")).toBe("0.73");
    expect(field("Recency")).toBe("0.812");
    expect(field("Maturity")).toBe("validated");
    expect(field("Status")).toBe("validated");
    expect(field("Reads")).toBe("7");
    expect(modal?.querySelector(".vb-forecast")?.textContent).toBe("Next: becomes core after 3 more reads");
  });
});
