// Serves the harness page and proxies `/v1/*` to the bridge, so the page and the API share one
// origin. The bridge allows only Obsidian's origins; the proxy presents the page's requests with
// Obsidian's desktop origin (`app://obsidian.md`) and the bridge's own Host, and adds nothing
// else: the token is the page's own Authorization header.

import { readFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css" };

/** `files` maps URL paths to files on disk. Returns {url, close}. */
export async function serveHarness(files, bridgeUrl, port) {
  const target = new URL(bridgeUrl);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path.startsWith("/v1/")) return proxy(req, res, target);
    const file = files[path];
    if (!file) {
      res.writeHead(404).end("not found");
      return;
    }
    const ext = file.slice(file.lastIndexOf("."));
    res.writeHead(200, { "Content-Type": TYPES[ext] ?? "application/octet-stream", "Cache-Control": "no-store" });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://localhost:${port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

function proxy(req, res, target) {
  const headers = { ...req.headers };
  delete headers.host;
  delete headers.referer;
  if (headers.origin) headers.origin = "app://obsidian.md";
  const upstream = httpRequest(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res); // streams server-sent events as they come
    },
  );
  upstream.on("error", (error) => {
    if (!res.headersSent) res.writeHead(502, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: { code: "proxy", message: String(error) } }));
  });
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy(); // the page went away mid-answer (events)
  });
  req.pipe(upstream);
}
