// Live updates from `GET /v1/events` (server-sent events). EventSource cannot send the
// Authorization header, so the stream is read with `fetch` and a ReadableStream reader. When
// streaming fails, the listeners are told to refresh every `pollMs` instead, and the stream is
// tried again every `retryMs`.

import type { BridgeEvent } from "./api-types";

/** Incremental `text/event-stream` parser: feed it chunks, it returns the complete events. */
export class SseParser {
  private buffer = "";
  private id = "";
  private event = "";
  private data: string[] = [];

  feed(chunk: string): BridgeEvent[] {
    this.buffer += chunk.replace(/\r\n?/g, "\n");
    const out: BridgeEvent[] = [];
    let newline = this.buffer.indexOf("\n");
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      const event = this.line(line);
      if (event) out.push(event);
      newline = this.buffer.indexOf("\n");
    }
    return out;
  }

  private line(line: string): BridgeEvent | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null; // keep-alive comment
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "id") this.id = value;
    else if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    return null;
  }

  private dispatch(): BridgeEvent | null {
    if (this.data.length === 0) {
      this.event = "";
      return null;
    }
    const raw = this.data.join("\n");
    this.data = [];
    const name = this.event || "message";
    this.event = "";
    let data: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === "object") data = parsed as Record<string, unknown>;
    } catch {
      data = { text: raw };
    }
    return { id: this.id, event: name, data };
  }
}

export type LiveMode = "idle" | "streaming" | "polling";

export interface LiveOptions {
  /** Opens the stream: `fetch(url + '/v1/events', {headers: {Authorization...}, signal})`. */
  open: (signal: AbortSignal) => Promise<Response>;
  /** Every event as it arrives. */
  onEvent: (event: BridgeEvent) => void;
  /** A polling tick (and a reconnect): the listener re-reads what it shows. */
  onPoll: () => void;
  onMode?: (mode: LiveMode) => void;
  pollMs?: number;
  retryMs?: number;
}

export class LiveUpdates {
  private mode: LiveMode = "idle";
  private abort: AbortController | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = true;

  constructor(private readonly options: LiveOptions) {}

  get current(): LiveMode {
    return this.mode;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    this.abort = null;
    this.clearTimers();
    this.setMode("idle");
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const abort = new AbortController();
    this.abort = abort;
    try {
      const response = await this.options.open(abort.signal);
      if (!response.ok || !response.body) throw new Error(`events: HTTP ${response.status}`);
      this.clearTimers();
      this.setMode("streaming");
      this.options.onPoll(); // catch up on what happened while not streaming
      await this.read(response.body);
    } catch {
      // Refused, bad token, aborted, or the stream broke: fall through to polling.
    }
    if (this.stopped || abort.signal.aborted) return;
    this.fallBack();
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const event of parser.feed(decoder.decode(value, { stream: true }))) {
        this.options.onEvent(event);
      }
    }
  }

  private fallBack(): void {
    this.setMode("polling");
    this.options.onPoll();
    if (this.pollTimer === null) {
      this.pollTimer = setInterval(() => this.options.onPoll(), this.options.pollMs ?? 10_000);
    }
    this.retryTimer = setTimeout(() => void this.connect(), this.options.retryMs ?? 30_000);
  }

  private clearTimers(): void {
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.pollTimer = null;
    this.retryTimer = null;
  }

  private setMode(mode: LiveMode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    this.options.onMode?.(mode);
  }
}
