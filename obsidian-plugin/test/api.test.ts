// @vitest-environment node
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  BridgeApiError,
  BridgeAuthError,
  BridgeClient,
  BridgeTimeoutError,
  BridgeUnreachableError,
  encodePath,
  fetchRequest,
  normaliseBaseUrl,
} from "../src/api";
import { FakeBridge, review } from "./helpers";

function client(bridge: FakeBridge, timeoutMs?: number): BridgeClient {
  return new BridgeClient({ baseUrl: "http://127.0.0.1:27182/", token: " secret ", request: bridge.request, timeoutMs });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("BridgeClient", () => {
  it("sends the bearer token, but not to /v1/health", async () => {
    const bridge = new FakeBridge({
      "GET /v1/health": () => ({ body: { status: "ok", version: "0.1.0" } }),
      "POST /v1/query": () => ({ body: { answer: "24 h" } }),
    });
    await client(bridge).health();
    await client(bridge).query({ query: "jwt" });
    const [health, query] = bridge.requests;
    expect(health?.headers.Authorization).toBeUndefined();
    expect(query?.headers.Authorization).toBe("Bearer secret");
    expect(query?.headers["Content-Type"]).toBe("application/json");
    expect(JSON.parse(query?.body ?? "")).toEqual({ query: "jwt" });
    expect(query?.url).toBe("http://127.0.0.1:27182/v1/query");
  });

  it("says the bridge is not running when the connection is refused", async () => {
    const port = await closedPort();
    const real = new BridgeClient({ baseUrl: `http://127.0.0.1:${port}`, token: "t", request: fetchRequest() });
    const error = await real.status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeUnreachableError);
    expect((error as Error).message).toBe(`Vault Bridge is not running at http://127.0.0.1:${port}`);
  });

  it("points at the settings on 401", async () => {
    const bridge = new FakeBridge({
      "GET /v1/status": () => ({ status: 401, body: { error: { code: "unauthorized", message: "missing or wrong bearer token" } } }),
    });
    const error = await client(bridge).status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeAuthError);
    expect((error as Error).message).toBe("The bridge refused the token: check Settings → Vault Bridge");
    expect((error as BridgeAuthError).status).toBe(401);
  });

  it("shows the server's message on 409", async () => {
    const bridge = new FakeBridge({
      "POST /v1/reviews/12/approve": () => ({
        status: 409,
        body: { error: { code: "conflict", message: "the note changed since the review; see the fresh diff" } },
      }),
    });
    const error = await client(bridge).approve(12).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeApiError);
    expect(error).toMatchObject({ status: 409, code: "conflict", message: "the note changed since the review; see the fresh diff" });
  });

  it("keeps a non-JSON error body as the message", async () => {
    const bridge = new FakeBridge();
    bridge.request = async () => ({ status: 502, text: "Bad gateway" });
    await expect(client(bridge).status()).rejects.toMatchObject({ status: 502, message: "Bad gateway" });
  });

  it("times out", async () => {
    const bridge = new FakeBridge();
    bridge.request = () => new Promise(() => undefined);
    const error = await client(bridge, 30).status().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeTimeoutError);
    expect((error as Error).message).toContain("did not answer");
  });

  it("posts the reject reason and encodes ids and paths", async () => {
    const bridge = new FakeBridge({
      "POST /v1/reviews/12/reject": () => ({ body: review({ state: "rejected" }) }),
      "GET /v1/lifecycle/team/practices/code%20review.md": () => ({ body: { path: "x" } }),
    });
    await client(bridge).reject(12, "not true any more");
    await client(bridge).lifecycle("team/practices/code review.md");
    expect(JSON.parse(bridge.requests[0]?.body ?? "")).toEqual({ reason: "not true any more" });
    expect(bridge.requests[1]?.url).toContain("/v1/lifecycle/team/practices/code%20review.md");
  });

  it("opens an entry from an answer and posts feedback", async () => {
    const bridge = new FakeBridge({
      "GET /v1/entries/team/practices/code%20review.md": () => ({ body: { path: "team/practices/code review.md", credit: "credited" } }),
      "POST /v1/feedback": () => ({
        body: { query_id: "q 1", path: "a.md", helpful: true, credited: false, credit: "already_credited" },
      }),
    });
    const entry = await client(bridge).entry("team/practices/code review.md", "q 1");
    expect(entry.credit).toBe("credited");
    expect(bridge.requests[0]?.url).toBe("http://127.0.0.1:27182/v1/entries/team/practices/code%20review.md?from_query=q%201");
    await client(bridge).entry("team/practices/code review.md");
    expect(bridge.requests[1]?.url).toBe("http://127.0.0.1:27182/v1/entries/team/practices/code%20review.md");
    const verdict = await client(bridge).feedback({ query_id: "q 1", path: "a.md", helpful: true });
    expect(verdict).toMatchObject({ credited: false, credit: "already_credited" });
    expect(bridge.requests[2]?.method).toBe("POST");
    expect(JSON.parse(bridge.requests[2]?.body ?? "")).toEqual({ query_id: "q 1", path: "a.md", helpful: true });
  });

  it("reads the review list as a list or as {reviews}", async () => {
    const bridge = new FakeBridge({ "GET /v1/reviews": () => ({ body: [review()] }) });
    expect(await client(bridge).reviews()).toHaveLength(1);
    expect(bridge.requests[0]?.url).toContain("state=open");
    bridge.routes["GET /v1/reviews"] = () => ({ body: { reviews: [review(), review({ id: 13 })] } });
    expect(await client(bridge).reviews("all")).toHaveLength(2);
  });
});

describe("helpers", () => {
  it("normalises the base URL", () => {
    expect(normaliseBaseUrl(" http://127.0.0.1:9/// ")).toBe("http://127.0.0.1:9");
    expect(normaliseBaseUrl("")).toBe("http://127.0.0.1:27182");
  });

  it("encodes each path segment", () => {
    expect(encodePath("/a b/c#d.md")).toBe("a%20b/c%23d.md");
  });
});
