// The e2e page's server. It serves the page and the plugin's real files, and stands in for the
// two things Obsidian's desktop app has that a web page lacks:
// - the renderer's network as the app sees it (the plugin's `fetch`, which reads the event
//   stream; its `requestUrl` calls are Node's own, lib/request-url.mjs):
//   `/net/<scheme>/<host>/<path>` forwards to a loopback host
//   (the bridge). The bridge allows only Obsidian's origins, so a forwarded request that
//   carries an Origin presents the desktop app's (`app://obsidian.md`); nothing else is added,
//   the token is the page's own Authorization header. When nothing listens there, the answer
//   says so (`x-harness-unreachable`) and the page's fetch fails as a refused connection would;
// - Node's file system: `/fs/read|stat|realpath?path=` answers from the real disk, inside
//   `fsRoot` only (the test's temp folder).

import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { resolve, sep } from "node:path";

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".json": "application/json" };
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** `files` maps URL paths to files on disk. Returns {url, close, forwarded}: `forwarded` logs
 * each request the page's fetch sent to the bridge (`{method, path}`). */
export async function serveHarness(files, fsRoot, port) {
  const roots = [resolve(fsRoot), realpathSync(fsRoot)];
  const forwarded = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname.startsWith("/net/")) return forward(req, res, url, forwarded);
    if (url.pathname.startsWith("/fs/")) return answerFs(res, url, roots);
    const file = files[url.pathname];
    if (!file) {
      res.writeHead(404).end("not found");
      return;
    }
    const ext = file.slice(file.lastIndexOf("."));
    res.writeHead(200, { "Content-Type": TYPES[ext] ?? "application/octet-stream", "Cache-Control": "no-store" });
    res.end(readFileSync(file));
  });
  await new Promise((done) => server.listen(port, "127.0.0.1", done));
  return {
    url: `http://localhost:${port}/`,
    forwarded,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(done);
      }),
  };
}

function answerFs(res, url, roots) {
  const path = url.searchParams.get("path") ?? "";
  const full = resolve(path);
  if (!roots.some((root) => full === root || full.startsWith(root + sep))) {
    res.writeHead(403).end(`outside the test's temp folder: ${path}`);
    return;
  }
  if (!existsSync(full)) {
    res.writeHead(404).end("no such file");
    return;
  }
  const kind = url.pathname.slice("/fs/".length);
  const text = { read: () => readFileSync(full, "utf8"), realpath: () => realpathSync(full), stat: () => (statSync(full).isDirectory() ? "dir" : "file") }[kind];
  if (!text) {
    res.writeHead(400).end(`unknown fs call ${kind}`);
    return;
  }
  res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" }).end(text());
}

function forward(req, res, url, forwarded) {
  const [, , scheme, hostPort = "", ...rest] = url.pathname.split("/");
  forwarded.push({ method: req.method, path: `/${rest.join("/")}` });
  const target = new URL(`${scheme}://${hostPort}`);
  if (scheme !== "http" || !LOOPBACK.has(target.hostname)) {
    res.writeHead(403).end(`the e2e page reaches loopback http only, not ${scheme}://${hostPort}`);
    return;
  }
  const headers = { ...req.headers };
  delete headers.host;
  delete headers.referer;
  if (headers.origin) headers.origin = "app://obsidian.md";
  const upstream = httpRequest(
    {
      host: target.hostname.replace(/^\[|\]$/g, ""),
      port: target.port || 80,
      method: req.method,
      path: `/${rest.join("/")}${url.search}`,
      headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res); // streams server-sent events as they come
    },
  );
  upstream.on("error", (error) => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { "Content-Type": "text/plain", "x-harness-unreachable": "1" }).end(String(error));
  });
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy(); // the page went away mid-answer (events)
  });
  req.pipe(upstream);
}
