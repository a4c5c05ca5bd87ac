// Test doubles: a fake bridge behind a RequestFn, a host over it, sample API bodies.

import type { App as ObsidianApp, WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { BridgeClient, type HttpRequest, type HttpResponse } from "../src/api";
import type { BridgeEvent, QueryResult, Review, SimilarResult, Status } from "../src/api-types";
import type { BridgeHost, ChangeListener } from "../src/hub";
import { App, WorkspaceLeaf } from "./obsidian-shim";

export type Handler = (request: HttpRequest) => { status?: number; body: unknown } | Promise<{ status?: number; body: unknown }>;

/** Routes "METHOD /path" (query string ignored) to handlers; records every request. */
export class FakeBridge {
  requests: HttpRequest[] = [];
  constructor(public routes: Record<string, Handler> = {}) {}

  request = async (request: HttpRequest): Promise<HttpResponse> => {
    this.requests.push(request);
    const path = new URL(request.url).pathname;
    const handler = this.routes[`${request.method} ${path}`];
    if (!handler) {
      return { status: 404, text: JSON.stringify({ error: { code: "not_found", message: `no route ${path}` } }) };
    }
    const { status = 200, body } = await handler(request);
    return { status, text: JSON.stringify(body) };
  };

  calls(method: string, path: string): HttpRequest[] {
    return this.requests.filter((r) => r.method === method && new URL(r.url).pathname === path);
  }
}

export class FakeHost implements BridgeHost {
  listeners = new Set<ChangeListener>();
  constructor(public bridge: FakeBridge) {}
  client(): BridgeClient {
    return new BridgeClient({ baseUrl: "http://127.0.0.1:27182", token: "secret", request: this.bridge.request });
  }
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(event: BridgeEvent | null): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** The shim's app and a leaf, typed as the real ones for the views' constructors. */
export function makeLeaf(): { app: App; leaf: ObsidianLeaf; obsidianApp: ObsidianApp } {
  const app = new App();
  const leaf = new WorkspaceLeaf(app);
  return { app, leaf: leaf as unknown as ObsidianLeaf, obsidianApp: app as unknown as ObsidianApp };
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

export function queryResult(overrides: Partial<QueryResult> = {}): QueryResult {
  return {
    query: "how long do JWT tokens live",
    query_id: "q-7f3a",
    answer: "JWT access tokens expire after 24 h.",
    tier: 2,
    latency_ms: 2.3,
    ood: false,
    generation: 4,
    relevance: 0.94,
    message: null,
    words: 78,
    answered_from: ["engineering/auth/jwt_expiry.md"],
    sources: [
      {
        path: "engineering/auth/jwt_expiry.md",
        title: "JWT expiry",
        status: "core",
        score: 0.88,
        excerpt: "JWT access tokens expire after 24 h.",
        via: "search",
        related_from: null,
        blocks: [{ text: "JWT access tokens expire after 24 h.", line: 24, block_id: "expiry", heading: "JWT expiry > Narrative" }],
      },
      {
        path: "engineering/auth/session_refresh.md",
        title: "Session refresh",
        status: "validated",
        score: 0.5,
        excerpt: "Refresh tokens rotate on use.",
        via: "relation",
        related_from: "engineering/auth/jwt_expiry.md",
        blocks: [{ text: "Refresh tokens rotate on use.", line: 12, block_id: null, heading: "Session refresh > Narrative" }],
      },
    ],
    ...overrides,
  };
}

export const DIFF = [
  "--- a/engineering/auth/jwt_expiry.md",
  "+++ b/engineering/auth/jwt_expiry.md",
  "@@ -24,3 +24,3 @@",
  " ## Narrative",
  "-JWT access tokens expire after 24 h.",
  "+JWT access tokens expire after 12 h.",
  "",
].join("\n");

export function review(overrides: Partial<Review> = {}): Review {
  return {
    id: 12,
    state: "pending",
    type: "UPDATE",
    path: "engineering/auth/jwt_expiry.md",
    author: "agent:claude-code",
    reason: "tokens now live 12 h",
    impact: "high",
    policy: "human-written note",
    created: "2026-11-29T17:40:00+00:00",
    diff: DIFF,
    ...overrides,
  };
}

/** `/v1/status` of a connected bridge whose dense channel is ready. */
export function statusBody(overrides: Partial<Status> = {}): Status {
  return {
    version: "0.1.0",
    vault: "/v",
    state_dir: "/s",
    notes: 18,
    generation: 3,
    unresolved_links: 0,
    llm_model: null,
    watching: true,
    pending_reviews: 2,
    semantic: { model: "all-MiniLM-L6-v2", state: "ready", sections: 41, embedded: 18, pending: 0, languages: { en: 18 } },
    ...overrides,
  };
}

export function similarResult(overrides: Partial<SimilarResult> = {}): SimilarResult {
  return {
    path: "engineering/auth/jwt_expiry.md",
    similar: [
      { path: "engineering/auth/session_refresh.md", title: "Session refresh", status: "validated", score: 0.8123 },
      { path: "engineering/adr/adr_011_token_lifetime.md", title: "ADR-011: token lifetime", status: null, score: 0.5 },
    ],
    reason: null,
    ...overrides,
  };
}
