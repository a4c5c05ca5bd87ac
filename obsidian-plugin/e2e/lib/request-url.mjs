// Obsidian's `requestUrl` as the e2e page gets it: a real HTTP request made by Node, outside the
// page, as the desktop app makes it outside its renderer (no CORS, no preflight). run.mjs
// exposes it to the page (`page.exposeFunction`), and the `obsidian` stand-in's `requestUrl`
// calls it, so the plugin's API calls take the path they take in Obsidian, not the page's
// `fetch`. It sends the plugin's own method, headers and body and nothing more (no Origin: the
// request does not come from a page). Loopback http only, so the test needs no network.

import { request as httpRequest } from "node:http";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * A `requestUrl` transport and the log of what it sent (`{method, path}` each), which run.mjs
 * checks: the plugin's calls must have come this way.
 */
export function nodeRequestUrl() {
  const sent = [];
  /** `{url, method, headers, body}` -> `{status, headers, text}`; rejects when no answer came. */
  async function send({ url, method = "GET", headers = {}, body }) {
    const target = new URL(url);
    if (target.protocol !== "http:" || !LOOPBACK.has(target.hostname)) {
      throw new Error(`the e2e's requestUrl reaches loopback http only, not ${target.origin}`);
    }
    sent.push({ method, path: target.pathname });
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: target.hostname.replace(/^\[|\]$/g, ""),
          port: target.port || 80,
          method,
          path: `${target.pathname}${target.search}`,
          headers: body === undefined ? headers : { ...headers, "Content-Length": Buffer.byteLength(body) },
        },
        (answer) => {
          const chunks = [];
          answer.on("data", (chunk) => chunks.push(chunk));
          answer.on("error", reject);
          answer.on("end", () => {
            const flat = Object.fromEntries(Object.entries(answer.headers).map(([key, value]) => [key, String(value)]));
            resolve({ status: answer.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString("utf8") });
          });
        },
      );
      outgoing.on("error", (error) => reject(new Error(`net::${error.code ?? "ERR_FAILED"} ${url}`)));
      outgoing.end(body);
    });
  }
  return { send, sent };
}
