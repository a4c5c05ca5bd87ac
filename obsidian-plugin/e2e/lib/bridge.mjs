// A real `vault-bridge serve` on a temp vault made by `vault-bridge init`, for the e2e test.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { CEILING_MS } from "./page.mjs";

export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The CLI of the repository's virtualenv (`make setup` creates it); E2E_VAULT_BRIDGE overrides. */
export function cliPath(repo) {
  const cli = process.env.E2E_VAULT_BRIDGE ?? join(repo, ".venv", "bin", "vault-bridge");
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`make setup\` in ${repo} first`);
  return cli;
}

/** Where the user's data dir is looked up: inside `tmp`, on every platform. */
export function isolatedDirs(tmp) {
  return {
    HOME: join(tmp, "home"), // macOS: ~/Library/Application Support
    XDG_DATA_HOME: join(tmp, "xdg-data"), // Linux
    XDG_CONFIG_HOME: join(tmp, "xdg-config"),
    LOCALAPPDATA: join(tmp, "local-app-data"), // Windows
  };
}

/** Settings from the environment only: no user config.toml, no user data dir. */
function isolatedEnv(tmp) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("VAULT_BRIDGE_")) delete env[key];
  // An explicit config file must exist: this empty one sets nothing.
  env.VAULT_BRIDGE_CONFIG = join(tmp, "empty-config.toml");
  writeFileSync(env.VAULT_BRIDGE_CONFIG, "");
  Object.assign(env, isolatedDirs(tmp));
  return env;
}

/** The one folder under `dir` that holds a `bridge.json` (the running bridge's state dir). */
function findStateDir(dir) {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(folder, entry.name));
      else if (entry.name === "bridge.json") found.push(folder);
    }
  };
  for (const root of Object.values(isolatedDirs(dir))) if (existsSync(root)) walk(root);
  if (found.length !== 1) throw new Error(`expected one bridge.json under ${dir}, found ${found.length}`);
  return found[0];
}

export function initVault(repo, tmp) {
  const vault = join(tmp, "vault");
  execFileSync(cliPath(repo), ["init", vault], { env: isolatedEnv(tmp), stdio: "pipe" });
  return vault;
}

/**
 * Starts `serve` and waits for /v1/health; returns {url, token, stateDir, discovery, stop, output}.
 * The state dir is the bridge's default one for this vault (under the isolated data dirs), the
 * one the plugin's "Find bridge" computes.
 */
export async function startBridge(repo, tmp, vault) {
  const cli = cliPath(repo);
  const port = await freePort();
  const env = { ...isolatedEnv(tmp), VAULT_BRIDGE_HOST: "127.0.0.1", VAULT_BRIDGE_PORT: String(port) };
  const help = execFileSync(cli, ["serve", "--help"], { env, encoding: "utf8" });
  const args = ["serve", "--vault", vault];
  if (help.includes("--port")) args.push("--port", String(port));
  const child = spawn(cli, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.on("exit", resolve));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + CEILING_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vault-bridge serve exited (${child.exitCode}):\n${output}`);
    try {
      const response = await fetch(`${url}/v1/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`vault-bridge serve did not answer /v1/health at ${url} within ${CEILING_MS / 1000} s:\n${output}`);
    }
    await sleep(250);
  }
  const stateDir = findStateDir(tmp);
  const discovery = JSON.parse(readFileSync(join(stateDir, "bridge.json"), "utf8"));
  const token = readFileSync(join(stateDir, "token"), "utf8").trim();
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), CEILING_MS);
    await exited;
    clearTimeout(timer);
  };
  return { url, token, stateDir, discovery, stop, output: () => output };
}
