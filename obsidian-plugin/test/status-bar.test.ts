import { describe, expect, it, vi } from "vitest";
import { BridgeClient, fetchRequest } from "../src/api";
import { BridgeHub } from "../src/hub";
import { statusBarText } from "../src/render/status-text";
import { describeConnection } from "../src/settings";
import { StatusBar } from "../src/status-bar";
import { FakeBridge, FakeHost, settle } from "./helpers";

const status = { version: "0.1.0", vault: "/v", state_dir: "/s", notes: 18, generation: 3, unresolved_links: 0, llm_model: null, watching: true, pending_reviews: 2 };

describe("status bar", () => {
  it("says connected and counts pending reviews", () => {
    expect(statusBarText({ connected: false, pending: 0, error: "x" })).toBe("Vault Bridge: not connected");
    expect(statusBarText({ connected: true, pending: 0, error: null })).toBe("Vault Bridge: connected");
    expect(statusBarText({ connected: true, pending: 1, error: null })).toBe("Vault Bridge: 1 pending review");
    expect(statusBarText({ connected: true, pending: 3, error: null })).toBe("Vault Bridge: 3 pending reviews");
  });

  it("refreshes on review events and opens the queue on click", async () => {
    const bridge = new FakeBridge({ "GET /v1/status": () => ({ body: status }) });
    const host = new FakeHost(bridge);
    const element = document.createElement("div");
    const onClick = vi.fn();
    const bar = new StatusBar(element, host, onClick);
    expect(element.textContent).toBe("Vault Bridge: not connected");
    bar.start();
    await settle();
    expect(element.textContent).toBe("Vault Bridge: 2 pending reviews");
    bridge.routes["GET /v1/status"] = () => ({ body: { ...status, pending_reviews: 1 } });
    host.emit({ id: "3", event: "review.changed", data: { id: 1, state: "approved" } });
    await settle();
    expect(element.textContent).toBe("Vault Bridge: 1 pending review");
    bridge.request = async () => {
      throw new Error("refused");
    };
    host.emit(null);
    await settle();
    expect(element.textContent).toBe("Vault Bridge: not connected");
    expect(element.title).toBe("Vault Bridge is not running at http://127.0.0.1:27182");
    element.click();
    expect(onClick).toHaveBeenCalledTimes(1);
    bar.stop();
  });
});

describe("Test connection", () => {
  it("reports the bridge it reached", async () => {
    const bridge = new FakeBridge({
      "GET /v1/health": () => ({ body: { status: "ok", version: "0.1.0" } }),
      "GET /v1/status": () => ({ body: status }),
    });
    expect(await describeConnection(new FakeHost(bridge).client())).toBe(
      "Connected to Vault Bridge 0.1.0: 18 notes in /v, 2 pending reviews, LLM: none",
    );
  });
});

describe("BridgeHub", () => {
  it("opens the event stream with the token and fans events out", async () => {
    const seen: string[] = [];
    const encoder = new TextEncoder();
    const fetchFn = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode("event: review.added\ndata: {\"id\": 4}\n\n"));
          },
        }),
      ),
    );
    const hub = new BridgeHub({
      connection: () => ({ url: "http://127.0.0.1:9/", token: "tok" }),
      request: fetchRequest(),
      fetchFn: fetchFn as unknown as typeof fetch,
    });
    hub.subscribe((event) => seen.push(event ? event.event : "refresh"));
    hub.start();
    await vi.waitFor(() => expect(seen).toEqual(["refresh", "review.added"]));
    expect(fetchFn.mock.calls[0]?.[0]).toBe("http://127.0.0.1:9/v1/events");
    expect((fetchFn.mock.calls[0]?.[1]?.headers as Record<string, string>).Authorization).toBe("Bearer tok");
    expect(hub.client()).toBeInstanceOf(BridgeClient);
    expect(hub.mode).toBe("streaming");
    hub.stop();
    expect(hub.mode).toBe("idle");
  });
});
