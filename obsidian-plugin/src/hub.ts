// One connection to the bridge shared by the views, the commands and the status bar: the
// client for the current settings and one live event stream whose changes it fans out.

import { BridgeClient, type RequestFn } from "./api";
import type { BridgeEvent } from "./api-types";
import { LiveUpdates, type LiveMode } from "./events";

/** `null` means "refresh": a polling tick, or the stream (re)connected. */
export type ChangeListener = (event: BridgeEvent | null) => void;

/** What the views need from the plugin. */
export interface BridgeHost {
  client(): BridgeClient;
  subscribe(listener: ChangeListener): () => void;
}

export interface Connection {
  url: string;
  token: string;
}

export interface HubOptions {
  connection: () => Connection;
  request: RequestFn;
  fetchFn: typeof fetch;
  pollMs?: number;
  retryMs?: number;
  onMode?: (mode: LiveMode) => void;
}

export class BridgeHub implements BridgeHost {
  private readonly listeners = new Set<ChangeListener>();
  private live: LiveUpdates | null = null;

  constructor(private readonly options: HubOptions) {}

  client(): BridgeClient {
    const { url, token } = this.options.connection();
    return new BridgeClient({ baseUrl: url, token, request: this.options.request });
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts (or, after a settings change, restarts) the event stream. */
  start(): void {
    this.stop();
    const live = new LiveUpdates({
      open: (signal) => {
        const client = this.client();
        const fetchFn = this.options.fetchFn; // called unbound: fetch refuses a foreign `this`
        return fetchFn(`${client.baseUrl}/v1/events`, {
          headers: { Accept: "text/event-stream", ...client.authHeaders() },
          signal,
        });
      },
      onEvent: (event) => this.emit(event),
      onPoll: () => this.emit(null),
      onMode: this.options.onMode,
      pollMs: this.options.pollMs,
      retryMs: this.options.retryMs,
    });
    this.live = live;
    live.start();
  }

  stop(): void {
    this.live?.stop();
    this.live = null;
  }

  get mode(): LiveMode {
    return this.live?.current ?? "idle";
  }

  private emit(event: BridgeEvent | null): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        console.error("Vault Bridge: a listener failed", error);
      }
    }
  }
}

/** True for the events that change the review queue (and a plain refresh). */
export function affectsReviews(event: BridgeEvent | null): boolean {
  return event === null || event.event.startsWith("review.");
}
