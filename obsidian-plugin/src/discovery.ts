// "Find bridge": where the bridge keeps this vault's state, and what its discovery file says.
// The state dir is platformdirs' user_data_dir("vault-bridge") / <vault id>, the vault id being
// the first 12 hex digits of sha256(real path of the vault) (bridge/settings.py). Node modules
// are loaded with `require` on desktop only; the path logic is pure and tested as such.

export interface PlatformInfo {
  platform: string; // process.platform
  env: Record<string, string | undefined>;
  home: string;
}

export interface Discovered {
  url: string;
  token: string;
  stateDir: string;
}

const APP = "vault-bridge";

/** The vault id the bridge uses, from the hex sha256 of the vault's real path. */
export function vaultIdFromDigest(sha256Hex: string): string {
  return sha256Hex.slice(0, 12);
}

function joinFor(platform: string, ...parts: string[]): string {
  const sep = platform === "win32" ? "\\" : "/";
  return parts
    .map((part, i) => (i === 0 ? part.replace(/[\\/]+$/, "") : part.replace(/^[\\/]+|[\\/]+$/g, "")))
    .join(sep);
}

/** platformdirs' user_data_dir("vault-bridge") for this platform, plus the vault id. */
export function stateDirFor(vaultId: string, info: PlatformInfo): string {
  if (info.platform === "darwin") {
    return joinFor("darwin", info.home, "Library", "Application Support", APP, vaultId);
  }
  if (info.platform === "win32") {
    const local = info.env.LOCALAPPDATA || joinFor("win32", info.home, "AppData", "Local");
    // platformdirs puts the app under its author, which defaults to the app name.
    return joinFor("win32", local, APP, APP, vaultId);
  }
  const xdg = (info.env.XDG_DATA_HOME ?? "").trim();
  return joinFor(info.platform, xdg || joinFor(info.platform, info.home, ".local", "share"), APP, vaultId);
}

/** `bridge.json` and the token file's text -> where to connect. Throws on a bad file. */
export function parseDiscovery(bridgeJson: string, token: string): { url: string; token: string } {
  let info: unknown;
  try {
    info = JSON.parse(bridgeJson);
  } catch {
    throw new Error("bridge.json is not valid JSON");
  }
  if (!info || typeof info !== "object") throw new Error("bridge.json is not an object");
  const record = info as Record<string, unknown>;
  let url = typeof record.url === "string" ? record.url : "";
  if (!url && typeof record.port === "number") {
    const host = typeof record.host === "string" ? record.host : "127.0.0.1";
    url = `http://${host.includes(":") ? `[${host}]` : host}:${record.port}`;
  }
  if (!url) throw new Error("bridge.json names no url");
  const cleaned = token.trim();
  if (!cleaned) throw new Error("the token file is empty");
  return { url, token: cleaned };
}

interface NodeModules {
  fs: typeof import("fs");
  os: typeof import("os");
  crypto: typeof import("crypto");
  path: typeof import("path");
}

function nodeModules(): NodeModules {
  // Desktop only (the caller checks Platform.isDesktopApp): mobile has no Node.
  return {
    fs: require("fs") as typeof import("fs"),
    os: require("os") as typeof import("os"),
    crypto: require("crypto") as typeof import("crypto"),
    path: require("path") as typeof import("path"),
  };
}

/** The state dir of the vault at `vaultPath` on this machine (symlinks resolved). */
export function defaultStateDir(vaultPath: string): string {
  const { fs, os, crypto } = nodeModules();
  const real = fs.realpathSync(vaultPath);
  const digest = crypto.createHash("sha256").update(real, "utf8").digest("hex");
  return stateDirFor(vaultIdFromDigest(digest), {
    platform: process.platform,
    env: process.env,
    home: os.homedir(),
  });
}

/** Reads `bridge.json` and `token` from `stateDir` (or this vault's default state dir). */
export function findBridge(vaultPath: string, stateDir = ""): Discovered {
  const { fs, path } = nodeModules();
  const dir = stateDir.trim() || defaultStateDir(vaultPath);
  const discovery = path.join(dir, "bridge.json");
  if (!fs.existsSync(discovery)) {
    throw new Error(`No running bridge for this vault: ${discovery} does not exist. Start it with \`vault-bridge serve\`.`);
  }
  const tokenFile = path.join(dir, "token");
  if (!fs.existsSync(tokenFile)) throw new Error(`No token file at ${tokenFile}`);
  const found = parseDiscovery(fs.readFileSync(discovery, "utf8"), fs.readFileSync(tokenFile, "utf8"));
  return { ...found, stateDir: dir };
}
