import { describe, expect, it, vi } from "vitest";
import { BridgeClient, fetchRequest } from "../src/api";
import { BridgeHub } from "../src/hub";
import { statusBarText, statusBarTitle } from "../src/render/status-text";
import { describeConnection } from "../src/settings";
import type { SemanticStatus } from "../src/api-types";
import { StatusBar } from "../src/status-bar";
import { FakeBridge, FakeHost, settle, statusBody } from "./helpers";

const status = statusBody();

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

describe("status bar when a read fails", () => {
  it("shows the latest read, not the one that finished last", async () => {
    let failFirst: ((error: Error) => void) | null = null;
    const bridge = new FakeBridge({ "GET /v1/status": () => ({ body: status }) });
    const answer = bridge.request;
    bridge.request = (request) => {
      if (failFirst === null && bridge.requests.length === 0) {
        bridge.requests.push(request);
        return new Promise((_, reject) => (failFirst = reject)); // the old token's read, slow
      }
      return answer(request);
    };
    const element = document.createElement("div");
    const bar = new StatusBar(element, new FakeHost(bridge), vi.fn());
    const older = bar.refresh();
    await bar.refresh(); // the new token's read answers first
    expect(element.textContent).toBe("Vault Bridge: 2 pending reviews");
    (failFirst as unknown as (error: Error) => void)(new Error("401: the old token"));
    await older;
    expect(element.textContent).toBe("Vault Bridge: 2 pending reviews");
  });

  it("reads again while not connected, and stops once the bridge answers", async () => {
    vi.useFakeTimers();
    try {
      let up = false;
      const bridge = new FakeBridge({ "GET /v1/status": () => (up ? { body: status } : { status: 503, body: { error: { code: "down", message: "down" } } }) });
      const element = document.createElement("div");
      const bar = new StatusBar(element, new FakeHost(bridge), vi.fn(), 1000, 3000);
      bar.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(element.textContent).toBe("Vault Bridge: not connected");
      await vi.advanceTimersByTimeAsync(3000);
      expect(bridge.calls("GET", "/v1/status")).toHaveLength(2);
      up = true;
      await vi.advanceTimersByTimeAsync(3000);
      expect(element.textContent).toBe("Vault Bridge: 2 pending reviews");
      const reads = bridge.calls("GET", "/v1/status").length;
      await vi.advanceTimersByTimeAsync(30_000);
      expect(bridge.calls("GET", "/v1/status")).toHaveLength(reads);
      bar.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("status bar while the bridge embeds the vault", () => {
  const semantic = (state: SemanticStatus["state"], embedded: number, pending: number): SemanticStatus => ({
    model: state === "off" ? null : "all-MiniLM-L6-v2",
    state,
    sections: embedded * 3,
    embedded,
    pending,
    languages: { en: embedded },
  });
  const connected = (value: SemanticStatus | undefined, pending = 0) => ({ connected: true, pending, error: null, semantic: value });

  it("shows the progress only while embedding, and nothing extra when ready or off", () => {
    expect(statusBarText(connected(semantic("embedding", 1234, 5337)))).toBe("Vault Bridge: connected · memory: embedding 1,234/6,571");
    expect(statusBarText(connected(semantic("embedding", 3, 15), 2))).toBe("Vault Bridge: 2 pending reviews · memory: embedding 3/18");
    expect(statusBarText(connected(semantic("ready", 18, 0)))).toBe("Vault Bridge: connected");
    // The first pass reads every note's language before embedding any: that is the progress.
    const reading = { ...semantic("embedding", 0, 6571), languages_known: 812 };
    expect(statusBarText(connected(reading))).toBe("Vault Bridge: connected · memory: reading 812/6,571");
    const read = { ...semantic("embedding", 0, 6571), languages_known: 6571 };
    expect(statusBarText(connected(read))).toBe("Vault Bridge: connected · memory: embedding 0/6,571");
    expect(statusBarText(connected(semantic("off", 0, 0)))).toBe("Vault Bridge: connected");
    expect(statusBarText(connected(undefined))).toBe("Vault Bridge: connected"); // a bridge older than the channel
    expect(statusBarTitle(connected(semantic("embedding", 3, 15)))).toContain("Embedding notes with all-MiniLM-L6-v2");
    expect(statusBarTitle(connected(semantic("ready", 18, 0)))).toBe("Connected to Vault Bridge. Click to open the review queue.");
  });

  it("follows the progress with no event until the vault is embedded, then stops asking", async () => {
    vi.useFakeTimers();
    try {
      let embedded = 5;
      const bridge = new FakeBridge({
        "GET /v1/status": () => ({ body: statusBody({ pending_reviews: 0, semantic: semantic(embedded < 18 ? "embedding" : "ready", embedded, 18 - embedded) }) }),
      });
      const element = document.createElement("div");
      const bar = new StatusBar(element, new FakeHost(bridge), vi.fn(), 1000);
      bar.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(element.textContent).toBe("Vault Bridge: connected · memory: embedding 5/18");
      embedded = 12;
      await vi.advanceTimersByTimeAsync(1000);
      expect(element.textContent).toBe("Vault Bridge: connected · memory: embedding 12/18");
      embedded = 18;
      await vi.advanceTimersByTimeAsync(1000);
      expect(element.textContent).toBe("Vault Bridge: connected");
      const reads = bridge.calls("GET", "/v1/status").length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(bridge.calls("GET", "/v1/status")).toHaveLength(reads);

      // Stopped mid-embedding (the plugin unloads): no read after that.
      embedded = 7;
      bar.stop();
      await bar.refresh();
      expect(element.textContent).toBe("Vault Bridge: connected · memory: embedding 7/18");
      bar.start();
      await vi.advanceTimersByTimeAsync(0);
      bar.stop();
      const stopped = bridge.calls("GET", "/v1/status").length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(bridge.calls("GET", "/v1/status")).toHaveLength(stopped);
    } finally {
      vi.useRealTimers();
    }
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
