// What the built main.js gets for `require("fs" | "os" | "path" | "crypto")` and `process` in
// the browser: the Node side of Obsidian's desktop app, standing in at that boundary only.
// Files are read from the real disk through the e2e server (synchronous requests, as Node's
// *Sync calls are), which answers only inside the test's temp folder.

export interface NodeFixture {
  platform: string;
  env: Record<string, string>;
  home: string;
}

interface HostAnswer {
  status: number;
  text: string;
}

function host(kind: "read" | "realpath" | "stat", path: string): HostAnswer {
  const request = new XMLHttpRequest();
  request.open("GET", `/fs/${kind}?path=${encodeURIComponent(path)}`, false);
  request.send();
  return { status: request.status, text: request.responseText };
}

function failure(answer: HostAnswer, syscall: string, path: string): Error {
  if (answer.status === 404) {
    return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${path}'`), { code: "ENOENT", syscall, path });
  }
  return Object.assign(new Error(`EACCES: ${answer.text}, ${syscall} '${path}'`), { code: "EACCES", syscall, path });
}

const fs = {
  existsSync(path: string): boolean {
    return host("stat", path).status === 200;
  },
  readFileSync(path: string, encoding?: string): string {
    if (encoding !== "utf8" && encoding !== "utf-8") throw new Error("the fs stand-in reads text only (utf8)");
    const answer = host("read", path);
    if (answer.status !== 200) throw failure(answer, "open", path);
    return answer.text;
  },
  realpathSync(path: string): string {
    const answer = host("realpath", path);
    if (answer.status !== 200) throw failure(answer, "realpath", path);
    return answer.text;
  },
};

/** POSIX `path.join`: the e2e runs on Linux or macOS. */
function join(...parts: string[]): string {
  const absolute = parts[0]?.startsWith("/") ?? false;
  const out: string[] = [];
  for (const segment of parts.join("/").split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (segment !== ".." || !absolute) out.push(segment);
  }
  const joined = (absolute ? "/" : "") + out.join("/");
  return joined || (absolute ? "/" : ".");
}

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** SHA-256 (FIPS 180-4) of the UTF-8 bytes of `text`, as lowercase hex. */
export function sha256Hex(text: string): string {
  const primes: number[] = [];
  for (let n = 2; primes.length < 64; n++) if (primes.every((p) => n % p !== 0)) primes.push(n);
  // The first 32 bits of the fractional parts of the primes' cube (K) and square (H) roots.
  const fraction = (x: number): number => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;
  const k = primes.map((p) => fraction(Math.cbrt(p)));
  const h = primes.slice(0, 8).map((p) => fraction(Math.sqrt(p)));

  const bytes = new TextEncoder().encode(text);
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 2 ** 29));
  view.setUint32(padded.length - 4, (bytes.length * 8) >>> 0);

  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      [hh, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, hh].forEach((value, i) => (h[i] = (h[i] + value) >>> 0));
  }
  return h.map((value) => value.toString(16).padStart(8, "0")).join("");
}

const crypto = {
  createHash(algorithm: string) {
    if (algorithm !== "sha256") throw new Error(`the crypto stand-in has sha256 only, not ${algorithm}`);
    let text = "";
    const hash = {
      update(more: string, _encoding?: string) {
        text += more;
        return hash;
      },
      digest(encoding: string): string {
        if (encoding !== "hex") throw new Error("the crypto stand-in digests to hex only");
        return sha256Hex(text);
      },
    };
    return hash;
  },
};

/** The modules `require` may hand to main.js besides `obsidian`, and its `process`. */
export function nodeStandIns(fixture: NodeFixture): { modules: Record<string, unknown>; process: unknown } {
  const os = { homedir: () => fixture.home, platform: () => fixture.platform };
  return {
    modules: { fs, os, path: { join, sep: "/" }, crypto },
    process: { platform: fixture.platform, env: { ...fixture.env } },
  };
}
