// @vitest-environment node
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultStateDir, findBridge, parseDiscovery, stateDirFor, vaultIdFromDigest } from "../src/discovery";

const sha = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

describe("state dir", () => {
  it("uses the vault id the bridge computes", () => {
    // python3 -c "import hashlib; print(hashlib.sha256('/home/ana/Notes/Work vault'.encode()).hexdigest()[:12])"
    expect(vaultIdFromDigest(sha("/home/ana/Notes/Work vault"))).toBe("7fd320077fa5");
  });

  it("follows platformdirs' user_data_dir on each platform", () => {
    const id = "7fd320077fa5";
    expect(stateDirFor(id, { platform: "linux", env: {}, home: "/home/ana" })).toBe("/home/ana/.local/share/vault-bridge/7fd320077fa5");
    expect(stateDirFor(id, { platform: "linux", env: { XDG_DATA_HOME: "/data/" }, home: "/home/ana" })).toBe("/data/vault-bridge/7fd320077fa5");
    expect(stateDirFor(id, { platform: "linux", env: { XDG_DATA_HOME: "  " }, home: "/home/ana" })).toBe("/home/ana/.local/share/vault-bridge/7fd320077fa5");
    expect(stateDirFor(id, { platform: "darwin", env: { XDG_DATA_HOME: "/ignored" }, home: "/Users/ana" })).toBe(
      "/Users/ana/Library/Application Support/vault-bridge/7fd320077fa5",
    );
    expect(stateDirFor(id, { platform: "win32", env: { LOCALAPPDATA: "C:\\Users\\ana\\AppData\\Local" }, home: "C:\\Users\\ana" })).toBe(
      "C:\\Users\\ana\\AppData\\Local\\vault-bridge\\vault-bridge\\7fd320077fa5",
    );
  });
});

describe("discovery file", () => {
  it("reads the url and the token", () => {
    const json = JSON.stringify({ host: "127.0.0.1", port: 27182, pid: 1, version: "0.1.0", url: "http://127.0.0.1:27182" });
    expect(parseDiscovery(json, "abc\n")).toEqual({ url: "http://127.0.0.1:27182", token: "abc" });
    expect(parseDiscovery(JSON.stringify({ host: "::1", port: 9 }), "t").url).toBe("http://[::1]:9");
    expect(() => parseDiscovery("{", "t")).toThrow("not valid JSON");
    expect(() => parseDiscovery("{}", "t")).toThrow("names no url");
    expect(() => parseDiscovery(JSON.stringify({ url: "http://x" }), "\n")).toThrow("token file is empty");
  });

  it("finds a running bridge in a pasted state dir, and explains a missing one", () => {
    const dir = mkdtempSync(join(tmpdir(), "vb-state-"));
    writeFileSync(join(dir, "bridge.json"), JSON.stringify({ url: "http://127.0.0.1:4321" }));
    writeFileSync(join(dir, "token"), "tok\n");
    expect(findBridge("/nowhere", dir)).toEqual({ url: "http://127.0.0.1:4321", token: "tok", stateDir: dir });
    const empty = mkdtempSync(join(tmpdir(), "vb-empty-"));
    expect(() => findBridge("/nowhere", empty)).toThrow("No running bridge for this vault");
  });

  it("resolves symlinks before hashing the vault path", () => {
    const root = mkdtempSync(join(tmpdir(), "vb-vault-"));
    mkdirSync(join(root, "real"));
    symlinkSync(join(root, "real"), join(root, "link"));
    expect(defaultStateDir(join(root, "link"))).toBe(defaultStateDir(join(root, "real")));
  });
});
