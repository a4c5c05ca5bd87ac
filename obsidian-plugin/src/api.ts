// The HTTP client of the bridge API (docs/api.md). The transport is injected: Obsidian's
// `requestUrl` in the app (and in the browser harness, where it is Node's HTTP), a scripted
// one in unit tests.

import type {
  CurateResult,
  CurateTaskStarted,
  EntryOut,
  FeedbackRequest,
  FeedbackResult,
  Health,
  Lifecycle,
  QueryRequest,
  QueryResult,
  Review,
  ReviewFilter,
  SimilarResult,
  Status,
  Task,
} from "./api-types";

export interface HttpRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  text: string;
}

/** Sends one request; throws only when no HTTP answer came back (refused, DNS, offline). */
export type RequestFn = (request: HttpRequest) => Promise<HttpResponse>;

export const DEFAULT_URL = "http://127.0.0.1:27182";
export const DEFAULT_TIMEOUT_MS = 15_000;

/** Any failure talking to the bridge; `message` is written for the person reading it. */
export class BridgeError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = "BridgeError";
  }
}

/** No HTTP answer at all: the bridge is not running (or the URL is wrong). */
export class BridgeUnreachableError extends BridgeError {
  constructor(readonly url: string) {
    super(`Vault Bridge is not running at ${url}`, "unreachable");
    this.name = "BridgeUnreachableError";
  }
}

export class BridgeTimeoutError extends BridgeError {
  constructor(url: string, timeoutMs: number) {
    super(`Vault Bridge at ${url} did not answer within ${Math.round(timeoutMs / 1000)} s`, "timeout");
    this.name = "BridgeTimeoutError";
  }
}

/** 401: the token is missing or not the bridge's. */
export class BridgeAuthError extends BridgeError {
  constructor(readonly serverMessage: string) {
    super("The bridge refused the token: check Settings → Vault Bridge", "unauthorized", 401);
    this.name = "BridgeAuthError";
  }
}

/** Any other error answer; `message` is the server's `error.message`. */
export class BridgeApiError extends BridgeError {
  constructor(status: number, code: string, message: string) {
    super(message, code, status);
    this.name = "BridgeApiError";
  }
}

export interface ClientOptions {
  baseUrl: string;
  token: string;
  request: RequestFn;
  timeoutMs?: number;
}

/** `https://x/` -> `https://x`; an empty URL is the default one. */
export function normaliseBaseUrl(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, "");
  return trimmed === "" ? DEFAULT_URL : trimmed;
}

/** A vault path for a URL: each segment escaped, the slashes kept. */
export function encodePath(path: string): string {
  return path
    .split("/")
    .filter((part) => part !== "")
    .map(encodeURIComponent)
    .join("/");
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown };
}

function parseError(status: number, text: string): BridgeError {
  let code = `http_${status}`;
  let message = text.trim() || `HTTP ${status}`;
  try {
    const body = JSON.parse(text) as ErrorBody;
    if (body.error && typeof body.error.message === "string") message = body.error.message;
    if (body.error && typeof body.error.code === "string") code = body.error.code;
  } catch {
    // Not JSON (a proxy's page, say): keep the raw text.
  }
  return status === 401 ? new BridgeAuthError(message) : new BridgeApiError(status, code, message);
}

export class BridgeClient {
  readonly baseUrl: string;
  private readonly token: string;
  private readonly send: RequestFn;
  private readonly timeoutMs: number;

  constructor(options: ClientOptions) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    this.token = options.token.trim();
    this.send = options.request;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Headers for an authenticated call (also used by the event stream). */
  authHeaders(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  health(): Promise<Health> {
    return this.call<Health>("GET", "/v1/health");
  }

  status(): Promise<Status> {
    return this.call<Status>("GET", "/v1/status");
  }

  query(request: QueryRequest): Promise<QueryResult> {
    return this.call<QueryResult>("POST", "/v1/query", request);
  }

  search(request: QueryRequest): Promise<QueryResult> {
    return this.call<QueryResult>("POST", "/v1/search", request);
  }

  /** One note; with `fromQuery` (an answer's `query_id`) the open counts as a use of it. */
  entry(path: string, fromQuery?: string): Promise<EntryOut> {
    const query = fromQuery ? `?from_query=${encodeURIComponent(fromQuery)}` : "";
    return this.call<EntryOut>("GET", `/v1/entries/${encodePath(path)}${query}`);
  }

  /** Whether a source of an answer helped; a helpful one is credited as used. */
  feedback(request: FeedbackRequest): Promise<FeedbackResult> {
    return this.call<FeedbackResult>("POST", "/v1/feedback", request);
  }

  /** The notes most like `path` by meaning; 503 `semantic_off` when the dense channel is off. */
  similar(path: string, limit = 10): Promise<SimilarResult> {
    return this.call<SimilarResult>("GET", `/v1/similar/${encodePath(path)}?limit=${limit}`);
  }

  lifecycle(path: string): Promise<Lifecycle> {
    return this.call<Lifecycle>("GET", `/v1/lifecycle/${encodePath(path)}`);
  }

  curate(content: string, author: string): Promise<CurateTaskStarted> {
    return this.call<CurateTaskStarted>("POST", "/v1/curate", { content, author });
  }

  curateOperations(operations: Record<string, unknown>[], author: string): Promise<CurateResult> {
    return this.call<CurateResult>("POST", "/v1/curate/operations", { operations, author });
  }

  task(id: string): Promise<Task> {
    return this.call<Task>("GET", `/v1/tasks/${encodeURIComponent(id)}`);
  }

  async reviews(state: ReviewFilter = "open"): Promise<Review[]> {
    const body = await this.call<Review[] | { reviews: Review[] }>(
      "GET",
      `/v1/reviews?state=${encodeURIComponent(state)}`,
    );
    return Array.isArray(body) ? body : body.reviews;
  }

  review(id: string | number): Promise<Review> {
    return this.call<Review>("GET", `/v1/reviews/${encodeURIComponent(String(id))}`);
  }

  approve(id: string | number): Promise<Review> {
    return this.call<Review>("POST", `/v1/reviews/${encodeURIComponent(String(id))}/approve`);
  }

  reject(id: string | number, reason: string): Promise<Review> {
    return this.call<Review>("POST", `/v1/reviews/${encodeURIComponent(String(id))}/reject`, {
      reason,
    });
  }

  private async call<T>(method: HttpRequest["method"], path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (path !== "/v1/health") Object.assign(headers, this.authHeaders());
    const request: HttpRequest = { url: this.baseUrl + path, method, headers };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      request.body = JSON.stringify(body);
    }
    const response = await this.withTimeout(request);
    if (response.status >= 400) throw parseError(response.status, response.text);
    try {
      return JSON.parse(response.text) as T;
    } catch {
      throw new BridgeApiError(response.status, "bad_response", `${path} did not answer JSON`);
    }
  }

  private withTimeout(request: HttpRequest): Promise<HttpResponse> {
    return new Promise<HttpResponse>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new BridgeTimeoutError(this.baseUrl, this.timeoutMs)),
        this.timeoutMs,
      );
      this.send(request).then(
        (response) => {
          clearTimeout(timer);
          resolve(response);
        },
        () => {
          clearTimeout(timer);
          reject(new BridgeUnreachableError(this.baseUrl));
        },
      );
    });
  }
}

/** A `RequestFn` over `fetch` (tests, the browser harness). */
export function fetchRequest(fetchFn: typeof fetch = fetch): RequestFn {
  return async (request) => {
    const response = await fetchFn(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
    return { status: response.status, text: await response.text() };
  };
}

/** Turns anything thrown into a sentence for a Notice or a view. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
