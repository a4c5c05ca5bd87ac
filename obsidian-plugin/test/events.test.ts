// @vitest-environment node
import { afterEach, describe, expect, it, vi } from "vitest";
import type { BridgeEvent } from "../src/api-types";
import { LiveUpdates, SseParser, type LiveMode } from "../src/events";

function stream(chunks: string[], keepOpen = false): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!keepOpen) controller.close();
    },
  });
}

describe("SseParser", () => {
  it("parses events split across chunks and skips comments", () => {
    const parser = new SseParser();
    const out = [
      ...parser.feed("retry: 3000\nid: 0\nevent: hello\ndata: {\"generation\""),
      ...parser.feed(": 4}\n\n: ping\n\nid: 7\r\nevent: review.added\r\ndata: {\"id\": 3, \"state\": \"pending\"}\r\n"),
      ...parser.feed("\r\n"),
    ];
    expect(out).toEqual([
      { id: "0", event: "hello", data: { generation: 4 } },
      { id: "7", event: "review.added", data: { id: 3, state: "pending" } },
    ]);
  });

  it("joins multi-line data and names unnamed events `message`", () => {
    const out = new SseParser().feed("data: {\"a\":\ndata: 1}\n\ndata: plain\n\n");
    expect(out).toEqual([
      { id: "", event: "message", data: { a: 1 } },
      { id: "", event: "message", data: { text: "plain" } },
    ]);
  });
});

describe("LiveUpdates", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("delivers streamed events and refreshes once on connect", async () => {
    const events: BridgeEvent[] = [];
    const onPoll = vi.fn();
    const body = stream(["event: review.added\ndata: {\"id\": 1}\n\n", "event: entry.changed\ndata: {\"path\": \"a.md\"}\n\n"], true);
    const live = new LiveUpdates({ open: async () => new Response(body), onEvent: (e) => events.push(e), onPoll });
    live.start();
    await vi.waitFor(() => expect(events).toHaveLength(2));
    expect(events.map((e) => e.event)).toEqual(["review.added", "entry.changed"]);
    expect(onPoll).toHaveBeenCalledTimes(1);
    expect(live.current).toBe("streaming");
    live.stop();
    expect(live.current).toBe("idle");
  });

  it("falls back to polling every 10 s when the stream cannot open, and retries it", async () => {
    vi.useFakeTimers();
    const onPoll = vi.fn();
    const modes: LiveMode[] = [];
    const open = vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    });
    const live = new LiveUpdates({ open, onEvent: () => undefined, onPoll, onMode: (m) => modes.push(m), retryMs: 30_000 });
    live.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(modes).toEqual(["polling"]);
    expect(onPoll).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(onPoll).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(open).toHaveBeenCalledTimes(2); // retried after 30 s, still polling
    live.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(open).toHaveBeenCalledTimes(2);
  });

  it("polls after a 401 answer and after the stream ends", async () => {
    const onPoll = vi.fn();
    const modes: LiveMode[] = [];
    const live = new LiveUpdates({
      open: async () => new Response("{}", { status: 401 }),
      onEvent: () => undefined,
      onPoll,
      onMode: (m) => modes.push(m),
    });
    live.start();
    await vi.waitFor(() => expect(modes).toEqual(["polling"]));
    live.stop();

    const ended: LiveMode[] = [];
    const again = new LiveUpdates({ open: async () => new Response(stream([])), onEvent: () => undefined, onPoll, onMode: (m) => ended.push(m) });
    again.start();
    await vi.waitFor(() => expect(ended).toEqual(["streaming", "polling"]));
    again.stop();
  });
});
